//===- WgmmaMainloop.cpp - TMA loads and wgmma of a matmul ----------------===//
//
// See WgmmaMainloop.h for the contract.
//
//===----------------------------------------------------------------------===//

#include "weave/Dialect/Weave/Transforms/Pipeline/WgmmaMainloop.h"
#include "weave/Dialect/Weave/IR/DTypeMlir.h"
#include "weave/Dialect/Weave/IR/WeaveOps.h"
#include "weave/Dialect/Weave/IR/TmaCoordinates.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::weave;
using namespace mlir::weave::pipeline;

/// The wgmma operand type of `inputType`, from the dtype table. The
/// matmul_pipeline verifier admits only the table's matmulOperand dtypes
/// (the k16 steps below take 16-bit operands); anything else here is a bug
/// upstream, which stops the compiler rather than multiply the bits as
/// another type.
static NVVM::WGMMATypes getWgmmaType(Type inputType) {
  const DTypeTraits *traits = getDTypeTraits(inputType);
  if (traits && traits->matmulOperand) {
    switch (traits->wgmma) {
    case ::weave::WgmmaKind::F16:
      return NVVM::WGMMATypes::f16;
    case ::weave::WgmmaKind::BF16:
      return NVVM::WGMMATypes::bf16;
    case ::weave::WgmmaKind::TF32:
      return NVVM::WGMMATypes::tf32;
    case ::weave::WgmmaKind::E4M3:
      return NVVM::WGMMATypes::e4m3;
    case ::weave::WgmmaKind::E5M2:
      return NVVM::WGMMATypes::e5m2;
    case ::weave::WgmmaKind::S8:
      return NVVM::WGMMATypes::s8;
    case ::weave::WgmmaKind::U8:
      return NVVM::WGMMATypes::u8;
    case ::weave::WgmmaKind::None:
      break;
    }
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "WgmmaMainloop: " << inputType
     << " is no wgmma operand of the matmul pipeline (expected "
     << ::weave::dtypeNames(
            [](const DTypeTraits &t) { return t.matmulOperand; })
     << "; the matmul_pipeline verifier should have rejected it)";
  llvm::report_fatal_error(llvm::StringRef(text));
}

Type WgmmaMainloop::getAccumulatorType() {
  SmallVector<Type> fields(tiling.subN / 2, b.getF32Type());
  return LLVM::LLVMStructType::getLiteral(b.getContext(), fields);
}

/// The start field holds bits 4..17 of the address. A block's shared
/// memory is smaller than 2^18 bytes, but its shared addresses need not be
/// (in a cluster launch they are not): the base is masked once, and the
/// offsets added to it then stay inside the field, so the descriptor is a
/// sum and consecutive k steps differ by a constant, which keeps the wgmma
/// issue loop short. Leading and stride byte offsets are >> 4; the swizzle
/// mode sits in bits 62-63 (1: 128 bytes, 2: 64 bytes).
Value WgmmaMainloop::descriptor(Value units, int64_t leadingBytes,
                                int64_t strideBytes, int64_t swizzle) {
  Value base = arith::AndIOp::create(
      b, arith::ShRUIOp::create(b, smem.alignedAddress(), cI64(4)),
      cI64(0x3FFF));
  int64_t mode = swizzle == kSwizzleBytes ? 1 : 2;
  int64_t fixed = ((leadingBytes >> 4) << 16) | ((strideBytes >> 4) << 32) |
                  (mode << 62);
  return arith::AddIOp::create(
      b, arith::AddIOp::create(b, base, cI64(fixed)),
      arith::IndexCastOp::create(b, b.getI64Type(), units));
}

void WgmmaMainloop::prepareLoads() {
  tmCst = cIndex(tiling.tm);
  tnCst = cIndex(tiling.tn);
  tkCst = cIndex(tiling.tk);
}

void WgmmaMainloop::issueLoads(Value m, Value n, Value k, Value slot,
                               Value barrier, Value clusterRank) {
  // The lhs box: tile_m rows, or fewer where M is (lhsBoxRows).
  MemRefType lhsTile = sharedType({tiling.lhsBoxRows(), tiling.tk}, inputType);
  MemRefType rhsBox = sharedType({tiling.tk, tiling.inBoxCols()}, inputType);
  int64_t clusterM = ring.getClusterSize();
  Value slotBase = arith::MulIOp::create(b, slot, cIndex(layout.stageBytes));
  Value kElems = arith::MulIOp::create(b, k, tkCst);
  // lhs: one tile_m x tile_k box.
  Value row = rowEdge ? tileStart(m, tiling.tm, rowEdge)
                      : Value(arith::MulIOp::create(b, m, tmCst));
  Value lhsSlot = smem.view(b, slotBase, lhsTile);
  auto loadLhs = [&](const TmaOperand &from, Value fromRow) {
    Value lhsRow = arith::AddIOp::create(b, from.rowOffset, fromRow);
    Value lhsCol = arith::AddIOp::create(b, from.colOffset, kElems);
    auto lhsLoad = CopyGmemToSmemOp::create(
        b, from.argument, ValueRange{lhsRow, lhsCol}, lhsSlot, barrier,
        /*multicast_mask=*/Value(), tiling.lhsRowBytes);
    // Tile index x tile size: inside the tensor map's dims
    // (TmaCoordinates.h; lhs_rows' rows are whole tiles of the part).
    lhsLoad->setAttr(kCoordinatesInRangeAttrName, b.getUnitAttr());
  };
  if (!lhsRows.argument) {
    loadLhs(lhs, row);
  } else {
    // (Unsigned: a tile below the first wraps past the part's tiles. Row
    // tiles number far fewer than 2^31.)
    Value tileOffset = arith::SubIOp::create(
        b, arith::IndexCastOp::create(b, b.getI32Type(), m), lhsRowsFirstTile);
    Value inPart = arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                         tileOffset, lhsRowsTiles);
    scf::IfOp::create(
        b, inPart,
        [&](OpBuilder &, Location) {
          loadLhs(lhsRows,
                  arith::MulIOp::create(
                      b,
                      arith::IndexCastUIOp::create(b, b.getIndexType(),
                                                   tileOffset),
                      tmCst));
          scf::YieldOp::create(b);
        },
        [&](OpBuilder &, Location) {
          loadLhs(lhs, row);
          scf::YieldOp::create(b);
        });
  }
  // rhs: tile_n / 64 boxes of tile_k rows x 128 bytes; in a cluster, this
  // block's share of them, multicast to every block.
  Value rhsRow = arith::AddIOp::create(b, rhs.rowOffset, kElems);
  Value rhsCol0 = arith::AddIOp::create(
      b, rhs.colOffset,
      colEdge ? tileStart(n, tiling.tn, colEdge)
              : Value(arith::MulIOp::create(b, n, tnCst)));
  int64_t boxesPerBlock = tiling.tn / tiling.inBoxCols() / clusterM;
  Value firstBox = arith::MulIOp::create(b, clusterRank, cIndex(boxesPerBlock));
  Value mask;
  if (clusterM > 1)
    mask = arith::ConstantIntOp::create(b, (1 << clusterM) - 1, 16);
  for (int64_t i = 0; i < boxesPerBlock; ++i) {
    Value box = arith::AddIOp::create(b, firstBox, cIndex(i));
    Value offset = arith::AddIOp::create(
        b, slotBase,
        arith::AddIOp::create(
            b, cIndex(layout.lhsBytes),
            arith::MulIOp::create(b, box, cIndex(layout.rhsBoxBytes))));
    Value col = arith::AddIOp::create(
        b, rhsCol0, arith::MulIOp::create(b, box, cIndex(tiling.inBoxCols())));
    auto rhsLoad = CopyGmemToSmemOp::create(
        b, rhs.argument, ValueRange{rhsRow, col}, smem.view(b, offset, rhsBox),
        barrier, mask, kSwizzleBytes);
    rhsLoad->setAttr(kCoordinatesInRangeAttrName, b.getUnitAttr());
  }
}

std::pair<SmallVector<Value>, Value>
WgmmaMainloop::consumeTile(Value consumer, Value lane, Value numK,
                           Value firstStep) {
  MLIRContext *ctx = b.getContext();
  NVVM::WGMMATypes inType = getWgmmaType(inputType);
  Type accType = getAccumulatorType();
  // wgmma groups a consumer leaves in flight at the end of a step.
  // wgmma.wait_group is warpgroup-wide: after it, one thread (per block of
  // the cluster) may hand a slot back for all 128.
  int64_t inFlight = tiling.consumers > 1 ? 0 : 1;
  int64_t blocks = tiling.mBlocks();
  Value zero = LLVM::ZeroOp::create(b, accType);
  SmallVector<Value> inits(blocks, zero);
  inits.push_back(firstStep);
  auto steps = scf::ForOp::create(b, cIndex(0), numK, cIndex(1), inits);
  b.setInsertionPointToStart(steps.getBody());
  {
    Value k = steps.getInductionVar();
    SmallVector<Value> accs(steps.getRegionIterArgs().take_front(blocks));
    Value step = steps.getRegionIterArg(blocks);
    Value slot = ring.waitFull(step);
    // This consumer's operands, in 16-byte units: subM rows of lhs (split
    // M) and subN columns of rhs (split N), in k steps of 16.
    Value slotUnits =
        arith::MulIOp::create(b, slot, cIndex(layout.stageBytes / 16));
    Value lhsUnits = slotUnits;
    Value rhsUnits =
        arith::AddIOp::create(b, slotUnits, cIndex(layout.lhsBytes / 16));
    if (tiling.splitM)
      lhsUnits = arith::AddIOp::create(
          b, lhsUnits,
          arith::MulIOp::create(
              b, consumer, cIndex(tiling.subM * tiling.lhsRowBytes / 16)));
    else
      rhsUnits = arith::AddIOp::create(
          b, rhsUnits,
          arith::MulIOp::create(
              b, consumer,
              cIndex(tiling.subN / tiling.inBoxCols() * layout.rhsBoxBytes /
                     16)));
    NVVM::WgmmaFenceAlignedOp::create(b);
    int64_t kPerInstr = 16;
    for (int64_t kk = 0; kk < tiling.tk / kPerInstr; ++kk) {
      // rhs is N-major: a k step moves 16 rows; 64-column boxes are
      // rhsBoxBytes apart (leading), 8-row groups 1024 bytes (stride).
      Value descB = descriptor(
          arith::AddIOp::create(b, rhsUnits,
                                cIndex(kk * kPerInstr * kSwizzleBytes / 16)),
          /*leadingBytes=*/layout.rhsBoxBytes,
          /*strideBytes=*/kSwizzleAtomBytes, kSwizzleBytes);
      for (int64_t block = 0; block < blocks; ++block) {
        // lhs is K-major: a k step moves 32 bytes inside the swizzled row,
        // a 64-row block 64 rows; 8-row groups are the stride.
        Value descA = descriptor(
            arith::AddIOp::create(
                b, lhsUnits,
                cIndex((block * hw::kWgmmaM * tiling.lhsRowBytes +
                        kk * kPerInstr * tiling.inBytes) /
                       16)),
            /*leadingBytes=*/16, /*strideBytes=*/8 * tiling.lhsRowBytes,
            tiling.lhsRowBytes);
        accs[block] = NVVM::WgmmaMmaAsyncOp::create(
            b, accType, accs[block], descA, descB,
            NVVM::MMAShapeAttr::get(ctx, hw::kWgmmaM, tiling.subN, kPerInstr),
            NVVM::WGMMATypesAttr::get(ctx, inType),
            NVVM::WGMMATypesAttr::get(ctx, inType),
            NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
            NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::one),
            NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
            NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
            NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row),
            NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row),
            NVVM::MMAIntOverflowAttr());
      }
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(b);
    if (inFlight == 0) {
      // Wait for this step's wgmma and hand its slot back at once: the
      // other consumers' wgmma keep the tensor cores busy meanwhile, and
      // the producer refills the slot a step earlier than if it stayed
      // held until the next step's wait (1-2% on H200, docs/PERF.md).
      NVVM::WgmmaWaitGroupSyncOp::create(b, 0);
      ring.release(slot, lane);
    } else {
      // A lone consumer keeps this step's wgmma in flight (nothing else
      // would feed the tensor cores while it waits); the previous one has
      // completed.
      NVVM::WgmmaWaitGroupSyncOp::create(b, 1);
      Value ready =
          arith::CmpIOp::create(b, arith::CmpIPredicate::uge, k, cIndex(1));
      scf::IfOp::create(b, ready, [&](OpBuilder &, Location) {
        ring.release(ring.slotOf(arith::SubIOp::create(b, step, cIndex(1))),
                     lane);
        scf::YieldOp::create(b);
      });
    }
    SmallVector<Value> yields(accs);
    yields.push_back(arith::AddIOp::create(b, step, cIndex(1)));
    scf::YieldOp::create(b, yields);
  }
  b.setInsertionPointAfter(steps);
  SmallVector<Value> accs(steps.getResults().take_front(blocks));
  Value end = steps.getResult(blocks);
  NVVM::WgmmaWaitGroupSyncOp::create(b, 0);
  // The last step of the tile (if any) is consumed too.
  if (inFlight == 1)
    scf::IfOp::create(
        b,
        arith::CmpIOp::create(b, arith::CmpIPredicate::ugt, numK, cIndex(0)),
        [&](OpBuilder &, Location) {
          ring.release(ring.slotOf(arith::SubIOp::create(b, end, cIndex(1))),
                       lane);
          scf::YieldOp::create(b);
        });
  return {accs, end};
}
