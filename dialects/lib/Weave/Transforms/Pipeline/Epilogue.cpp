//===- Epilogue.cpp - accumulators to the output through smem -------------===//
//
// See Epilogue.h for the contract.
//
//===----------------------------------------------------------------------===//

#include "weave/Dialect/Weave/Transforms/Pipeline/Epilogue.h"
#include "weave/Dialect/Weave/IR/WeaveOps.h"
#include "weave/Dialect/Weave/IR/TmaCoordinates.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::weave;
using namespace mlir::weave::pipeline;

void Epilogue::store(ArrayRef<Value> accs, Value m, Value n,
                     ArrayRef<Value> owned) {
  MLIRContext *ctx = b.getContext();
  Type outElt = outputType;
  Value consumer = arith::SubIOp::create(b, warpgroup, cIndex(1));
  Value consumerI32 = arith::IndexCastOp::create(b, b.getI32Type(), warpgroup);
  // Boxes of 64 rows x 128 bytes: per 64-row wgmma block, subN columns.
  int64_t boxesPerBlock = tiling.subN / tiling.outBoxCols();
  int64_t boxes = tiling.mBlocks() * boxesPerBlock;
  int64_t buffers = tiling.epilogueBuffers;
  Value region = arith::AddIOp::create(
      b, cIndex(layout.epilogueOffset),
      arith::MulIOp::create(
          b, consumer, cIndex(buffers * layout.epilogueBoxBytes)));
  Value leader = eq(laneInGroup, cIndex(0));
  auto syncConsumer = [&]() {
    NVVM::BarrierOp::create(b, TypeRange{}, consumerI32,
                            cI32(kWarpgroupThreads),
                            NVVM::BarrierReductionAttr(), Value());
  };
  auto onLeader = [&](function_ref<void()> body) { ifThen(leader, body); };
  assert((owned.empty() ||
          int64_t(owned.size()) == tiling.mBlocks() * (tiling.subN /
                                                       tiling.outBoxCols())) &&
         "one ownership flag per box");
  assert(!((rowEdge || colEdge) && (boxHandler || combineHandler)) &&
         "a region would see a moved edge tile's places");

  // Origin of this consumer's part of the tile, in the output (tileRow0,
  // tileCol0) and in out's kernel argument (row0, col0).
  Value tileRow0 = tileStart(m, tiling.tm, rowEdge);
  Value tileCol0 = tileStart(n, tiling.tn, colEdge);
  tileRow0 = partStart(tiling, tileRow0, /*rows=*/true, consumer);
  tileCol0 = partStart(tiling, tileCol0, /*rows=*/false, consumer);
  Value row0 = arith::AddIOp::create(b, out.rowOffset, tileRow0);
  Value col0 = arith::AddIOp::create(b, out.colOffset, tileCol0);

  // `body` for box `box`: always, or where this unit owns it (a tail
  // split).
  auto ifOwned = [&](int64_t box, function_ref<void()> body) {
    ifThen(owned.empty() ? Value() : owned[box], body);
  };
  // The most a moved tile lies before where it would have started: tile_m
  // - M mod tile_m for a static M, up to tile_m - 1 for a dynamic one; and
  // where cluster_m pads the row tiles to whole clusters, a padded tile
  // (wholly past M) moves clusterM - 1 tiles further, onto the last real
  // rows, so each of its boxes gets the check (without it a 128-row
  // padded tile stored its lower box over the last tile's, the same
  // values, again).
  int64_t rowShiftMax = 0;
  if (rowEdge) {
    int64_t rowTiles = tiling.dynamicM() ? 0 : llvm::divideCeil(tiling.m,
                                                                 tiling.tm);
    bool padded = tiling.clusterM > 1 &&
                  (tiling.dynamicM() || rowTiles % tiling.clusterM != 0);
    rowShiftMax = (tiling.dynamicM() ? tiling.tm - 1
                                     : tiling.tm - tiling.m % tiling.tm) +
                  (padded ? (tiling.clusterM - 1) * tiling.tm : 0);
  }
  int64_t colShiftMax = colEdge ? tiling.tn - tiling.n % tiling.tn : 0;
  // `body` for the store of box `box` (on the leader): where this unit owns
  // it, and of a moved edge tile where the box reaches past where the tile
  // would have started (the rest lie wholly on the neighbouring tile, which
  // stores them). The fragments of such a box are still written to shared
  // memory: a condition around each box's fragment writes made the dynamic
  // 128 x 256 split_k(2) kernel spill 374 bytes (ptxas), the fix-up's sums
  // live across the branches.
  auto ifStored = [&](int64_t box, function_ref<void()> body) {
    Value keep = owned.empty() ? Value() : owned[box];
    // Whether [origin + offset, origin + offset + extent) reaches past
    // index x tile.
    auto reaches = [&](Value origin, int64_t offset, int64_t extent,
                       Value index, int64_t tile) {
      Value end = arith::AddIOp::create(b, origin, cIndex(offset + extent));
      Value from = arith::MulIOp::create(b, index, cIndex(tile));
      Value past =
          arith::CmpIOp::create(b, arith::CmpIPredicate::ugt, end, from);
      keep = keep ? Value(arith::AndIOp::create(b, keep, past)) : past;
    };
    // Only a box that starts at least its extent before the most a tile
    // moves (from consumer 0's part: the least offset) can lie wholly on
    // the neighbour; the others need no check (a 64-row tile's never do).
    int64_t rowOffset = box / boxesPerBlock * 64;
    int64_t colOffset = box % boxesPerBlock * tiling.outBoxCols();
    if (rowEdge && rowOffset + 64 <= rowShiftMax)
      reaches(tileRow0, rowOffset, 64, m, tiling.tm);
    if (colEdge && colOffset + tiling.outBoxCols() <= colShiftMax)
      reaches(tileCol0, colOffset, tiling.outBoxCols(), n, tiling.tn);
    ifThen(keep, body);
  };

  // The accumulator fragment (fragmentLane): pairs (q, q+1) are adjacent
  // columns and go out as one 32-bit store, at the 128-byte-swizzled
  // address: 16-byte chunk c of row r lands in chunk c ^ (r % 8).
  auto [warp, lane, rowBase] = fragmentLane(laneInGroup);
  Value colInQuad = arith::MulIOp::create(
      b, arith::RemUIOp::create(b, lane, cIndex(4)), cIndex(2));
  Type pairType = VectorType::get({2}, outElt);
  Value regionPtr = smem.pointer(b, region);
  MemRefType boxType = sharedType({64, tiling.outBoxCols()}, outElt);
  int64_t colsPerAccGroup = 8;
  auto boxView = [&](int64_t offset) {
    return smem.view(b, arith::AddIOp::create(b, region, cIndex(offset)),
                     boxType);
  };
  // The box's index in the whole tile, row-major over its 64-row x
  // boxCols boxes.
  auto boxIndexInTile = [&](int64_t box) -> Value {
    int64_t tileBoxCols = tiling.tn / tiling.outBoxCols();
    Value rowBox = cIndex(box / boxesPerBlock);
    Value colBox = cIndex(box % boxesPerBlock);
    if (tiling.splitM)
      rowBox = arith::AddIOp::create(
          b, rowBox,
          arith::MulIOp::create(b, consumer, cIndex(tiling.mBlocks())));
    else
      colBox = arith::AddIOp::create(
          b, colBox, arith::MulIOp::create(b, consumer, cIndex(boxesPerBlock)));
    return arith::AddIOp::create(
        b, arith::MulIOp::create(b, rowBox, cIndex(tileBoxCols)), colBox);
  };
  auto placeOf = [&](int64_t box) {
    Value row =
        arith::AddIOp::create(b, tileRow0, cIndex(box / boxesPerBlock * 64));
    Value col = arith::AddIOp::create(
        b, tileCol0, cIndex(box % boxesPerBlock * tiling.outBoxCols()));
    return BoxPlace{m, n, boxIndexInTile(box), row, col};
  };

  // The output goes out `buffers` boxes (64 x 128 bytes) at a time: write
  // them, make them visible to the TMA unit, store them, and before the
  // next round wait until the stores have read the buffers.
  for (int64_t first = 0; first < boxes; first += buffers) {
    onLeader([&] { WaitSmemToGmemOp::create(b, 0, /*read_only=*/true); });
    syncConsumer();
    int64_t last = std::min(boxes, first + buffers);
    for (int64_t box = first; box < last; ++box) ifOwned(box, [&] {
      int64_t bufferOffset = (box - first) * layout.epilogueBoxBytes;
      int64_t groupsPerBox = tiling.outBoxCols() / colsPerAccGroup;
      Value acc = accs[box / boxesPerBlock];
      for (int64_t g = 0; g < groupsPerBox; ++g) {
        // accumulator column group
        int64_t j = (box % boxesPerBlock) * groupsPerBox + g;
        for (int64_t half = 0; half < 2; ++half) {
          Value row = arith::AddIOp::create(b, rowBase, cIndex(8 * half));
          Value colInBox = arith::AddIOp::create(
              b, cIndex(g * colsPerAccGroup), colInQuad);
          Value byteInRow =
              arith::MulIOp::create(b, colInBox, cIndex(tiling.outBytes));
          Value chunk = arith::XOrIOp::create(
              b, arith::DivUIOp::create(b, byteInRow, cIndex(16)),
              arith::RemUIOp::create(b, row, cIndex(8)));
          Value offset = arith::AddIOp::create(
              b,
              arith::AddIOp::create(
                  b, cIndex(bufferOffset),
                  arith::MulIOp::create(b, row, cIndex(kSwizzleBytes))),
              arith::AddIOp::create(
                  b, arith::MulIOp::create(b, chunk, cIndex(16)),
                  arith::RemUIOp::create(b, byteInRow, cIndex(16))));
          Value pair = LLVM::PoisonOp::create(b, pairType);
          for (int64_t q = 0; q < 2; ++q) {
            int64_t index = 4 * j + 2 * half + q;
            Value v = LLVM::ExtractValueOp::create(b, acc, index);
            // f32 output: the accumulator as it is.
            Value t =
                outElt.isF32() ? v : LLVM::FPTruncOp::create(b, outElt, v);
            pair = LLVM::InsertElementOp::create(b, pair, t, cI32(q));
          }
          Value ptr = LLVM::GEPOp::create(
              b, regionPtr.getType(), b.getI8Type(), regionPtr,
              ValueRange{arith::IndexCastOp::create(b, b.getI64Type(), offset)});
          LLVM::StoreOp::create(b, pair, ptr,
                                /*alignment=*/2 * tiling.outBytes);
        }
      }
    });
    // The combine region reads and rewrites whole boxes: every thread's
    // fragment writes first.
    if (combineHandler) {
      syncConsumer();
      for (int64_t box = first; box < last; ++box)
        ifOwned(box, [&] {
          combineHandler(boxView((box - first) * layout.epilogueBoxBytes),
                         placeOf(box), laneInGroup);
        });
    }
    // Generic-proxy writes must be visible to the TMA unit before the store.
    NVVM::FenceProxyOp::create(
        b, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
    syncConsumer();
    onLeader([&] {
      for (int64_t box = first; box < last; ++box) ifStored(box, [&] {
        Value tile = boxView((box - first) * layout.epilogueBoxBytes);
        Value row = arith::AddIOp::create(
            b, row0, cIndex(box / boxesPerBlock * 64));
        Value col = arith::AddIOp::create(
            b, col0, cIndex(box % boxesPerBlock * tiling.outBoxCols()));
        if (!boxHandler) {
          auto store = CopySmemToGmemOp::create(
              b, tile, out.argument, ValueRange{row, col}, Value(),
              kSwizzleBytes, /*reduce=*/TmaReduceKindAttr());
          // Inside out's tensor map dims (TmaCoordinates.h).
          store->setAttr(kCoordinatesInRangeAttrName, b.getUnitAttr());
          return;
        }
        boxHandler(tile, placeOf(box));
      });
    });
  }
}
