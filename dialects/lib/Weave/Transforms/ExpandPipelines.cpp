//===- ExpandPipelines.cpp - weave.matmul_pipeline -> warp-specialized code ===//
//
// Expands each `weave.matmul_pipeline` into the body of a warp-specialized,
// persistent Hopper matmul: a producer warpgroup feeding a ring of shared
// memory slots with TMA loads (`weave.copy_gmem_to_smem`), consumer
// warpgroups issuing `wgmma.mma_async` on 128-byte-swizzled tiles, and a
// TMA-store epilogue (`weave.copy_smem_to_gmem`). The TMA ops stay weave ops
// so that convert-weave-to-nvvm gives them tensor-map parameters; the rest
// is NVVM, scf, arith and memref.
//
// Shared memory (dynamic, aligned up to 1024 bytes at run time because the
// 128-byte swizzle pattern repeats every 1024 bytes):
//   [stage s]  lhs tile (tile_m rows of 128 B), rhs tile (tile_n/64 boxes of
//              tile_k rows of 128 B)
//   epilogue   per consumer: two 64-row x 128-byte boxes that the output
//              tile streams through
//   barriers   full[stages], empty[stages] (8 bytes each)
//
// With cluster_m = c, the c blocks of a cluster run the same steps on
// vertically adjacent tiles: each loads its lhs tile and 1/c of the rhs
// boxes, multicast to all c (the full barrier of every block counts the
// whole stage), and each consumer releases a slot on the empty barriers of
// all c blocks, since any of them may refill it.
//
//===----------------------------------------------------------------------===//

#include "weave/Dialect/Weave/IR/WeaveOps.h"
#include "weave/Dialect/Weave/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::weave {
#define GEN_PASS_DEF_EXPANDPIPELINESPASS
#include "weave/Dialect/Weave/Transforms/Passes.h.inc"
} // namespace mlir::weave

using namespace mlir;
using namespace mlir::weave;

namespace {

/// Bytes of one 128-byte-swizzled row; also the swizzle span.
constexpr int64_t kSwizzleBytes = 128;
/// The swizzle pattern repeats every 8 rows of 128 bytes.
constexpr int64_t kSwizzleAtomBytes = 1024;
constexpr int64_t kWarpgroupThreads = 128;
/// The warp of the producer warpgroup that runs the callback (warp 0 holds
/// the producer thread).
constexpr int64_t kCallbackWarp = 1;

/// A pipeline operand as TMA sees it: a kernel argument and the element
/// offsets of the view the op reads or writes.
struct TmaOperand {
  Value argument;
  Value rowOffset, colOffset;
};

/// Where everything lives, in bytes from the aligned shared memory base.
struct Layout {
  int64_t tm, tn, tk, stages, consumers;
  bool splitM;
  int64_t inBytes, outBytes;
  int64_t lhsBytes, rhsBoxBytes, rhsBytes, stageBytes;
  /// Bytes of one lhs row (tile_k elements): also the lhs swizzle span, 128
  /// or 64 (the swizzle pattern repeats every 8 rows).
  int64_t lhsRowBytes;
  int64_t epilogueOffset, epilogueBoxBytes, barrierOffset;
  /// Epilogue boxes each consumer has in shared memory at once.
  int64_t epilogueBuffers;
  int64_t subM; ///< output rows of one consumer (64 per wgmma block)
  int64_t subN; ///< output columns of one consumer

  explicit Layout(MatmulPipelineOp op) {
    auto lhs = cast<MemRefType>(op.getLhs().getType());
    auto out = cast<MemRefType>(op.getOut().getType());
    tm = op.getTileM();
    tn = op.getTileN();
    tk = op.getTileK();
    stages = op.getStages();
    consumers = op.getConsumers();
    splitM = op.getSplit() == ConsumerSplit::M;
    inBytes = lhs.getElementTypeBitWidth() / 8;
    outBytes = out.getElementTypeBitWidth() / 8;
    lhsBytes = tm * tk * inBytes;
    lhsRowBytes = tk * inBytes;
    rhsBoxBytes = tk * kSwizzleBytes;
    rhsBytes = tk * tn * inBytes;
    stageBytes = lhsBytes + rhsBytes;
    subM = splitM ? tm / consumers : tm;
    subN = splitM ? tn : tn / consumers;
    epilogueOffset = stages * stageBytes;
    epilogueBoxBytes = 64 * kSwizzleBytes;
    epilogueBuffers = op.getEpilogueBuffers();
    barrierOffset =
        epilogueOffset + consumers * epilogueBuffers * epilogueBoxBytes;
  }
  /// 64-row wgmma blocks of one consumer, each with its own accumulator.
  int64_t mBlocks() const { return subM / 64; }
  /// Output columns in one 128-byte epilogue box.
  int64_t outBoxCols() const { return kSwizzleBytes / outBytes; }
  /// Input columns in one 128-byte rhs box.
  int64_t inBoxCols() const { return kSwizzleBytes / inBytes; }
};

/// Builds the expansion of one pipeline op.
class PipelineBuilder {
public:
  PipelineBuilder(MatmulPipelineOp op, TmaOperand lhs, TmaOperand rhs,
                  TmaOperand out)
      : op(op), layout(op), b(op.getLoc(), op), lhs(lhs), rhs(rhs), out(out) {}

  void build();

private:
  Value cIndex(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value cI32(int64_t v) { return arith::ConstantIntOp::create(b, v, 32); }
  Value cI64(int64_t v) { return arith::ConstantIntOp::create(b, v, 64); }
  Value ceilDiv(Value a, int64_t d) {
    return arith::CeilDivUIOp::create(b, a, cIndex(d));
  }
  /// ceil(a / d) for a run-time `d`: arith.ceildivui, which folds away for
  /// constants, has no LLVM lowering, so (a + d - 1) / d.
  Value ceilDiv(Value a, Value d) {
    return arith::DivUIOp::create(
        b, arith::SubIOp::create(b, arith::AddIOp::create(b, a, d), cIndex(1)),
        d);
  }
  Value eq(Value a, Value c) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::eq, a, c);
  }

  /// A typed view of `bytes` at dynamic byte offset `offset`.
  Value view(Value offset, MemRefType type) {
    Value shift = arith::AddIOp::create(b, pad, offset);
    return memref::ViewOp::create(b, type, dynamicSmem, shift, ValueRange{});
  }
  MemRefType sharedType(ArrayRef<int64_t> shape, Type elt) {
    return MemRefType::get(shape, elt, MemRefLayoutAttrInterface{},
                           gpu::AddressSpaceAttr::get(
                               b.getContext(), gpu::AddressSpace::Workgroup));
  }
  /// Pointer (shared address space) at byte `offset` from the aligned base.
  Value sharedPtr(Value offset) {
    Value addr = arith::AddIOp::create(
        b, alignedBase, arith::IndexCastOp::create(b, b.getI64Type(), offset));
    return LLVM::IntToPtrOp::create(
        b, LLVM::LLVMPointerType::get(b.getContext(), 3), addr);
  }
  Value barrierOffset(bool full, Value slot) {
    int64_t base = layout.barrierOffset + (full ? 0 : layout.stages * 8);
    return arith::AddIOp::create(
        b, cIndex(base), arith::MulIOp::create(b, slot, cIndex(8)));
  }
  Value slotOf(Value step) {
    return arith::RemUIOp::create(b, step, cIndex(layout.stages));
  }
  Value phaseOf(Value step) {
    Value round = arith::DivUIOp::create(b, step, cIndex(layout.stages));
    Value parity = arith::RemUIOp::create(b, round, cIndex(2));
    return arith::IndexCastOp::create(b, b.getI32Type(), parity);
  }
  /// Spins on `mbarrier.try_wait.parity` without a suspend-time hint:
  /// with one (which nvvm.mbarrier.try_wait.parity requires) ptxas emits a
  /// NANOSLEEP after every failed try, which costs whole microseconds on
  /// the critical path of the ring.
  void waitBarrier(bool full, Value slot, Value parity) {
    LLVM::InlineAsmOp::create(
        b, TypeRange{}, ValueRange{sharedPtr(barrierOffset(full, slot)), parity},
        "{\n\t.reg .pred ready;\n"
        "wait_barrier:\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 ready, [$0], $1;\n\t"
        "@!ready bra wait_barrier;\n}",
        "l,r,~{memory}", /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None, /*asm_dialect=*/{},
        /*operand_attrs=*/{});
  }
  /// wgmma shared memory descriptor of a `swizzle`-byte-swizzled operand
  /// `units` x 16 bytes from the aligned base: start address, leading and
  /// stride byte offsets (all >> 4), and the swizzle mode in bits 62-63
  /// (1: 128 bytes, 2: 64 bytes).
  /// The start field holds bits 4..17 of the address. A block's shared
  /// memory is smaller than 2^18 bytes, but its shared addresses need not
  /// be (in a cluster launch they are not): the base is masked once, and
  /// the offsets added to it then stay inside the field, so the descriptor
  /// is a sum and consecutive k steps differ by a constant, which keeps the
  /// wgmma issue loop short.
  Value descriptor(Value units, int64_t leadingBytes, int64_t strideBytes,
                   int64_t swizzle) {
    Value base = arith::AndIOp::create(
        b, arith::ShRUIOp::create(b, alignedBase, cI64(4)), cI64(0x3FFF));
    int64_t mode = swizzle == kSwizzleBytes ? 1 : 2;
    int64_t fixed = ((leadingBytes >> 4) << 16) | ((strideBytes >> 4) << 32) |
                    (mode << 62);
    return arith::AddIOp::create(
        b, arith::AddIOp::create(b, base, cI64(fixed)),
        arith::IndexCastOp::create(b, b.getI64Type(), units));
  }

  /// Synchronizes every thread of the cluster (release/acquire) once its
  /// barriers are initialized, before any peer multicasts into them.
  void syncCluster() {
    NVVM::ClusterArriveOp::create(b, /*aligned=*/UnitAttr());
    NVVM::ClusterWaitOp::create(b, /*aligned=*/UnitAttr());
  }
  /// The (m, n) tile indices of linear tile `t` in the grouped order; with
  /// a cluster, `t` counts the cluster's tile groups and m is this block's
  /// row tile in the group.
  std::pair<Value, Value> tileCoords(Value t);
  /// Walks this block's tiles and their k steps, counting steps across
  /// tiles (the ring slot and phase follow the count): `body(m, n, k,
  /// step)` for every step, `afterTile(m, n, end)` after a tile's last one.
  /// Returns the number of steps.
  Value forEachStep(Value tilesBegin, Value numTiles, Value tileStep,
                   function_ref<void(Value, Value, Value, Value)> body,
                   function_ref<void(Value, Value, Value)> afterTile = {});
  void buildProducer(Value tilesBegin, Value numTiles, Value tileStep);
  void buildConsumer(Value tilesBegin, Value numTiles, Value tileStep);
  /// Whether anything but the kernel's return follows the pipeline. If not,
  /// the final waits need only let the stores finish reading shared memory:
  /// the kernel's completion makes its writes visible.
  bool codeFollows() {
    Operation *next = op->getNextNode();
    return !(next && isa<gpu::ReturnOp>(next) &&
             isa<gpu::GPUFuncOp>(op->getParentOp()));
  }
  /// Hands slot `slot` back to the producer(s): one arrival on the empty
  /// barrier of every block of the cluster. `lane` is the thread's index in
  /// the releasing group (a warpgroup or a warp): thread i arrives on block
  /// i's barrier, so the remote arrivals go out in parallel.
  void release(Value slot, Value lane);
  /// Waits until the last use of every slot among the block's `steps`
  /// steps has completed on its full barrier (the loads landed) or its
  /// empty barrier (every consumer released it).
  void waitLastUses(bool full, Value steps);
  /// Warp kCallbackWarp of the producer warpgroup: runs the callback on
  /// every step and takes part in handing slots back.
  void buildCallbackWarp(Value tilesBegin, Value numTiles, Value tileStep);
  /// Arrivals that complete an empty barrier: each consumer warpgroup, and
  /// the callback warp if there is one.
  int64_t emptyArrivals() {
    return layout.consumers + (op.getCallback().empty() ? 0 : 1);
  }
  void buildEpilogue(ArrayRef<Value> accs, Value m, Value n);
  /// Inlines `region` with `args`, marking copies of `lhsTile` (if given)
  /// with its swizzle. (The rhs tile has no uses: the pass rejects them.)
  void inlineRegion(Region &region, ValueRange args, Value lhsTile);

  MatmulPipelineOp op;
  Layout layout;
  ImplicitLocOpBuilder b;
  TmaOperand lhs, rhs, out;
  Value dynamicSmem, pad, alignedBase, tid, warpgroup, laneInGroup;
  Value numTilesM, numTilesN, numK;
  /// Blocks per cluster, this block's rank in it, and the number of
  /// cluster-high rows of tiles (numTilesM / clusterM).
  int64_t clusterM = 1;
  Value clusterRank, numClusterRows;
  Type accType;
};

std::pair<Value, Value> PipelineBuilder::tileCoords(Value t) {
  // Groups of `grid_tile_width` row tiles, row tiles fastest inside a group:
  // consecutive blocks share the rhs column tile and nearby lhs rows in L2.
  // (In units of cluster-high rows; the verifier keeps the width a
  // multiple of clusterM.)
  Value width = cIndex(op.getGridTileWidth() / clusterM);
  Value perGroup = arith::MulIOp::create(b, width, numTilesN);
  Value group = arith::DivUIOp::create(b, t, perGroup);
  Value firstM = arith::MulIOp::create(b, group, width);
  Value groupRows = arith::MinUIOp::create(
      b, arith::SubIOp::create(b, numClusterRows, firstM), width);
  Value inGroup = arith::RemUIOp::create(b, t, perGroup);
  Value m = arith::AddIOp::create(
      b, firstM, arith::RemUIOp::create(b, inGroup, groupRows));
  Value n = arith::DivUIOp::create(b, inGroup, groupRows);
  if (clusterM > 1)
    m = arith::AddIOp::create(b, arith::MulIOp::create(b, m, cIndex(clusterM)),
                              clusterRank);
  if (Value rotate = op.getRotateM())
    m = arith::RemUIOp::create(b, arith::AddIOp::create(b, m, rotate),
                               numTilesM);
  return {m, n};
}

Value PipelineBuilder::forEachStep(
    Value tilesBegin, Value numTiles, Value tileStep,
    function_ref<void(Value, Value, Value, Value)> body,
    function_ref<void(Value, Value, Value)> afterTile) {
  auto tiles = scf::ForOp::create(b, tilesBegin, numTiles, tileStep,
                                  ValueRange{cIndex(0)});
  b.setInsertionPointToStart(tiles.getBody());
  auto [m, n] = tileCoords(tiles.getInductionVar());
  auto steps = scf::ForOp::create(b, cIndex(0), numK, cIndex(1),
                                  ValueRange{tiles.getRegionIterArg(0)});
  b.setInsertionPointToStart(steps.getBody());
  Value step = steps.getRegionIterArg(0);
  body(m, n, steps.getInductionVar(), step);
  scf::YieldOp::create(b,
                       ValueRange{arith::AddIOp::create(b, step, cIndex(1))});
  b.setInsertionPointAfter(steps);
  if (afterTile)
    afterTile(m, n, steps.getResult(0));
  scf::YieldOp::create(b, steps.getResults());
  b.setInsertionPointAfter(tiles);
  return tiles.getResult(0);
}

void PipelineBuilder::inlineRegion(Region &region, ValueRange args,
                                   Value lhsTile) {
  IRMapping mapping;
  Block &block = region.front();
  mapping.map(block.getArguments(), args);
  for (Operation &inner : block.without_terminator()) {
    Operation *clone = b.clone(inner, mapping);
    // Tiles are in the 128-byte swizzled layout: stores of them need a
    // tensor map with the same swizzle.
    clone->walk([&](CopySmemToGmemOp copy) {
      if (lhsTile && copy.getSource() == lhsTile)
        copy.setSwizzle(layout.lhsRowBytes);
    });
  }
}

void PipelineBuilder::build() {
  MLIRContext *ctx = b.getContext();
  Type i8 = b.getIntegerType(8);
  dynamicSmem = gpu::DynamicSharedMemoryOp::create(
      b, sharedType({ShapedType::kDynamic}, i8));
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, dynamicSmem);
  Value atom = cIndex(kSwizzleAtomBytes);
  pad = arith::RemUIOp::create(
      b, arith::SubIOp::create(b, atom, arith::RemUIOp::create(b, base, atom)),
      atom);
  alignedBase = arith::IndexCastOp::create(b, b.getI64Type(),
                                           arith::AddIOp::create(b, base, pad));
  tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  // The warpgroup index, broadcast from lane 0 so that ptxas knows it is
  // the same in every lane of a warp: the wgmma descriptors derived from
  // it then live in uniform registers. Computed per thread, each step moved
  // them there anew (R2UR), and the kernel ran 1.5-3% slower (5.24M
  // instructions against 4.19M at 1024x4096x4096; docs/PERF.md).
  Value perThread = arith::IndexCastOp::create(
      b, b.getI32Type(),
      arith::DivUIOp::create(b, tid, cIndex(kWarpgroupThreads)));
  Value uniform = NVVM::ShflOp::create(
      b, b.getI32Type(), /*thread_mask=*/cI32(-1), perThread,
      /*offset=*/cI32(0), /*mask_and_clamp=*/cI32(0x1f), NVVM::ShflKind::idx,
      /*return_value_and_is_valid=*/UnitAttr());
  warpgroup = arith::IndexCastOp::create(b, b.getIndexType(), uniform);
  laneInGroup = arith::RemUIOp::create(b, tid, cIndex(kWarpgroupThreads));

  auto lhsType = cast<MemRefType>(op.getLhs().getType());
  auto rhsType = cast<MemRefType>(op.getRhs().getType());
  numTilesM = ceilDiv(cIndex(lhsType.getDimSize(0)), layout.tm);
  numTilesN = ceilDiv(cIndex(rhsType.getDimSize(1)), layout.tn);
  numK = ceilDiv(cIndex(lhsType.getDimSize(1)), layout.tk);
  clusterM = op.getClusterM();
  numClusterRows = arith::DivUIOp::create(b, numTilesM, cIndex(clusterM));
  // Work is handed out per cluster (a cluster is [clusterM, 1, 1], the
  // verifier checks): its blocks share its tiles.
  Value workers =
      clusterM > 1 ? Value(gpu::ClusterIdOp::create(b, gpu::Dimension::x))
                   : Value(gpu::BlockIdOp::create(b, gpu::Dimension::x));
  Value workerCount =
      clusterM > 1 ? Value(gpu::ClusterDimOp::create(b, gpu::Dimension::x))
                   : Value(gpu::GridDimOp::create(b, gpu::Dimension::x));
  clusterRank = clusterM > 1
                    ? Value(gpu::ClusterBlockIdOp::create(b, gpu::Dimension::x))
                    : cIndex(0);
  SmallVector<Type> fields(layout.subN / 2, b.getF32Type());
  accType = LLVM::LLVMStructType::getLiteral(ctx, fields);

  // Barriers: full[s] completes when both TMA loads of slot s landed (one
  // arrival, the producer's expect_tx); empty[s] when every consumer (of
  // every block of the cluster) released it.
  scf::IfOp::create(b, eq(tid, cIndex(0)), [&](OpBuilder &, Location) {
    for (int64_t s = 0; s < layout.stages; ++s) {
      NVVM::MBarrierInitOp::create(b, sharedPtr(barrierOffset(true, cIndex(s))),
                                   cI32(1), Value());
      NVVM::MBarrierInitOp::create(b, sharedPtr(barrierOffset(false, cIndex(s))),
                                   cI32(clusterM * emptyArrivals()), Value());
    }
    // The initialized barriers must be visible to the TMA unit.
    NVVM::FenceMbarrierInitOp::create(b);
    scf::YieldOp::create(b);
  });
  // Peers multicast into this block's slots and arrive on its barriers.
  if (clusterM > 1)
    syncCluster();
  else
    gpu::BarrierOp::create(b);

  // Persistent schedule, balanced: the grid needs ceil(tiles / workers)
  // rounds; spread the tiles over the fewest workers that need no more
  // rounds (the rest get none), so every busy worker has the same count
  // give or take one. 1024 tiles on 132 blocks: 128 blocks x 8 rounds
  // instead of 100 x 8 + 32 x 7: the same critical path, 0.5-1% faster
  // at 2048x4096x4096 and 4096^3 on one H200 (docs/PERF.md).
  Value numTiles = arith::MulIOp::create(b, numClusterRows, numTilesN);
  Value rounds = arith::MaxUIOp::create(b, ceilDiv(numTiles, workerCount),
                                        cIndex(1));
  Value tileStep = ceilDiv(numTiles, rounds);
  Value tilesBegin = arith::SelectOp::create(
      b,
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, workers, tileStep),
      workers, numTiles);
  scf::IfOp::create(
      b, eq(warpgroup, cIndex(0)),
      [&](OpBuilder &, Location) {
        buildProducer(tilesBegin, numTiles, tileStep);
        scf::YieldOp::create(b);
      },
      [&](OpBuilder &, Location) {
        buildConsumer(tilesBegin, numTiles, tileStep);
        scf::YieldOp::create(b);
      });
  // No cluster barrier before exit: a block may leave once no peer will
  // touch its shared memory again, which its producer waits for (see
  // buildProducer). A cluster barrier here made every block wait for the
  // slowest of its cluster: about 1% with cluster_m(2) at 1024x4096x4096
  // (docs/PERF.md).
  op.erase();
}

void PipelineBuilder::buildProducer(Value tilesBegin, Value numTiles,
                                    Value tileStep) {
  // The producer needs few registers; the consumers take them.
  NVVM::SetMaxRegisterOp::create(b, 40, NVVM::SetMaxRegisterAction::decrease);
  auto lhsType = cast<MemRefType>(op.getLhs().getType());
  Type elt = lhsType.getElementType();
  MemRefType lhsTile = sharedType({layout.tm, layout.tk}, elt);
  MemRefType rhsBox = sharedType({layout.tk, layout.inBoxCols()}, elt);
  MemRefType barrierType = sharedType({}, b.getI64Type());
  Value tmCst = cIndex(layout.tm), tnCst = cIndex(layout.tn),
        tkCst = cIndex(layout.tk);
  if (!op.getCallback().empty())
    scf::IfOp::create(b, eq(arith::DivUIOp::create(b, tid, cIndex(32)),
                            cIndex(kCallbackWarp)),
                      [&](OpBuilder &, Location) {
                        buildCallbackWarp(tilesBegin, numTiles, tileStep);
                        scf::YieldOp::create(b);
                      });
  scf::IfOp::create(b, eq(tid, cIndex(0)), [&](OpBuilder &, Location) {
    Value steps = forEachStep(tilesBegin, numTiles, tileStep,
                [&](Value m, Value n, Value k, Value step) {
      if (!op.getBeforeLoad().empty())
        inlineRegion(op.getBeforeLoad(), {m, n, k}, Value());
      Value slot = slotOf(step);
      // A fresh barrier counts as having completed the phase before phase
      // 0, so the first round of waits (parity 1) passes at once.
      Value parity = arith::XOrIOp::create(b, phaseOf(step), cI32(1));
      waitBarrier(/*full=*/false, slot, parity);
      Value full = barrierOffset(true, slot);
      NVVM::MBarrierArriveExpectTxOp::create(
          b, Type(), sharedPtr(full), cI32(layout.stageBytes),
          NVVM::MemScopeKind::CTA, /*relaxed=*/false, /*predicate=*/Value());
      Value fullView = view(full, barrierType);
      Value slotBase =
          arith::MulIOp::create(b, slot, cIndex(layout.stageBytes));
      Value kElems = arith::MulIOp::create(b, k, tkCst);
      // lhs: one tile_m x tile_k box.
      Value lhsRow = arith::AddIOp::create(
          b, lhs.rowOffset, arith::MulIOp::create(b, m, tmCst));
      Value lhsCol = arith::AddIOp::create(b, lhs.colOffset, kElems);
      CopyGmemToSmemOp::create(b, lhs.argument, ValueRange{lhsRow, lhsCol},
                               view(slotBase, lhsTile), fullView,
                               /*multicast_mask=*/Value(), layout.lhsRowBytes);
      // rhs: tile_n / 64 boxes of tile_k rows x 128 bytes; in a cluster,
      // this block's share of them, multicast to every block.
      Value rhsRow = arith::AddIOp::create(b, rhs.rowOffset, kElems);
      Value rhsCol0 = arith::AddIOp::create(
          b, rhs.colOffset, arith::MulIOp::create(b, n, tnCst));
      int64_t boxesPerBlock = layout.tn / layout.inBoxCols() / clusterM;
      Value firstBox =
          arith::MulIOp::create(b, clusterRank, cIndex(boxesPerBlock));
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
            b, rhsCol0,
            arith::MulIOp::create(b, box, cIndex(layout.inBoxCols())));
        CopyGmemToSmemOp::create(b, rhs.argument, ValueRange{rhsRow, col},
                                 view(offset, rhsBox), fullView, mask,
                                 kSwizzleBytes);
      }
    });
    if (clusterM > 1) {
      // Peers multicast into this block's slots and arrive on its empty
      // barriers. Once the last use of every slot has been released by
      // every consumer of the cluster, all of that has landed (a consumer
      // releases a slot only after the loads into it completed), so the
      // block may exit.
      waitLastUses(/*full=*/false, steps);
    }
    if (!op.getAfterLoads().empty()) {
      // Loads complete in order of their full barriers' phases only per
      // slot, so wait for the last phase of every slot the block used: no
      // later load will move them on. (A block without steps has none.)
      waitLastUses(/*full=*/true, steps);
      inlineRegion(op.getAfterLoads(), {}, Value());
    }
    scf::YieldOp::create(b);
  });
}

void PipelineBuilder::waitLastUses(bool full, Value steps) {
  for (int64_t back = 1; back <= layout.stages; ++back) {
    Value used = arith::CmpIOp::create(b, arith::CmpIPredicate::uge, steps,
                                       cIndex(back));
    scf::IfOp::create(b, used, [&](OpBuilder &, Location) {
      Value step = arith::SubIOp::create(b, steps, cIndex(back));
      waitBarrier(full, slotOf(step), phaseOf(step));
      scf::YieldOp::create(b);
    });
  }
}

void PipelineBuilder::release(Value slot, Value lane) {
  Value arrives = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, lane,
                                        cIndex(clusterM));
  scf::IfOp::create(b, arrives, [&](OpBuilder &, Location) {
    Value barrier = sharedPtr(barrierOffset(false, slot));
    if (clusterM == 1) {
      NVVM::MBarrierArriveOp::create(b, Type(), barrier, Value());
      scf::YieldOp::create(b);
      return;
    }
    // Every block of the cluster multicasts into this slot: arrive on the
    // barrier at the same offset in block `lane` (this one included). The
    // arrival orders nothing but the wgmma reads the releasing group has
    // already waited for, so it is a CTA-scope release: a cluster-scope
    // one costs a fence on every step.
    Value address = LLVM::PtrToIntOp::create(b, b.getI32Type(), barrier);
    Value rank = arith::IndexCastOp::create(b, b.getI32Type(), lane);
    LLVM::InlineAsmOp::create(
        b, TypeRange{}, ValueRange{address, rank},
        "{\n\t.reg .b32 remote;\n\t"
        "mapa.shared::cluster.u32 remote, $0, $1;\n\t"
        "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}",
        "r,r,~{memory}", /*has_side_effects=*/true,
        /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
        /*asm_dialect=*/{}, /*operand_attrs=*/{});
    scf::YieldOp::create(b);
  });
}

void PipelineBuilder::buildCallbackWarp(Value tilesBegin, Value numTiles,
                                        Value tileStep) {
  auto lhsType = cast<MemRefType>(op.getLhs().getType());
  Type elt = lhsType.getElementType();
  int64_t delay = op.getDelayRelease();
  Value lane = arith::RemUIOp::create(b, tid, cIndex(32));
  // The whole warp is past its callbacks (and their waits) before its
  // first lanes hand a slot back.
  auto releaseStep = [&](Value step) {
    NVVM::SyncWarpOp::create(b, cI32(-1));
    release(slotOf(step), lane);
  };
  forEachStep(
      tilesBegin, numTiles, tileStep,
      [&](Value m, Value n, Value k, Value step) {
        Value slot = slotOf(step);
        waitBarrier(/*full=*/true, slot, phaseOf(step));
        Value slotBase =
            arith::MulIOp::create(b, slot, cIndex(layout.stageBytes));
        Value lhsTile =
            view(slotBase, sharedType({layout.tm, layout.tk}, elt));
        Value rhsTile =
            view(arith::AddIOp::create(b, slotBase, cIndex(layout.lhsBytes)),
                 sharedType({layout.tk, layout.tn}, elt));
        inlineRegion(op.getCallback(), {lhsTile, rhsTile, m, n, k}, lhsTile);
        // The slot of step s goes back after the callback of s + delay.
        scf::IfOp::create(b,
                          arith::CmpIOp::create(b, arith::CmpIPredicate::uge,
                                                k, cIndex(delay)),
                          [&](OpBuilder &, Location) {
                            releaseStep(
                                arith::SubIOp::create(b, step, cIndex(delay)));
                            scf::YieldOp::create(b);
                          });
      },
      [&](Value, Value, Value end) {
        // End of the tile: every bulk store has read its slot; hand back
        // the slots of the last `delay` steps.
        WaitSmemToGmemOp::create(b, 0, /*read_only=*/true);
        Value firstLeft = arith::SubIOp::create(
            b, numK, arith::MinUIOp::create(b, numK, cIndex(delay)));
        auto drain = scf::ForOp::create(b, firstLeft, numK, cIndex(1));
        b.setInsertionPointToStart(drain.getBody());
        releaseStep(arith::AddIOp::create(
            b, arith::SubIOp::create(b, end, numK), drain.getInductionVar()));
        b.setInsertionPointAfter(drain);
      });
  // Stores are complete before code after the pipeline signals anyone.
  WaitSmemToGmemOp::create(b, 0, /*read_only=*/!codeFollows());
}

void PipelineBuilder::buildConsumer(Value tilesBegin, Value numTiles,
                                    Value tileStep) {
  NVVM::SetMaxRegisterOp::create(b, layout.consumers == 1 ? 240 : 232,
                                 NVVM::SetMaxRegisterAction::increase);
  MLIRContext *ctx = b.getContext();
  auto lhsType = cast<MemRefType>(op.getLhs().getType());
  Type elt = lhsType.getElementType();
  Value consumer = arith::SubIOp::create(b, warpgroup, cIndex(1));
  NVVM::WGMMATypes inType =
      elt.isF16() ? NVVM::WGMMATypes::f16 : NVVM::WGMMATypes::bf16;
  // wgmma groups a consumer leaves in flight at the end of a step.
  // wgmma.wait_group is warpgroup-wide: after it, one thread (per block of
  // the cluster) may hand a slot back for all 128.
  int64_t inFlight = layout.consumers > 1 ? 0 : 1;

  auto tiles = scf::ForOp::create(b, tilesBegin, numTiles, tileStep,
                                  ValueRange{cIndex(0)});
  b.setInsertionPointToStart(tiles.getBody());
  auto [m, n] = tileCoords(tiles.getInductionVar());
  int64_t blocks = layout.mBlocks();
  Value zero = LLVM::ZeroOp::create(b, accType);
  SmallVector<Value> inits(blocks, zero);
  inits.push_back(tiles.getRegionIterArg(0));
  auto steps = scf::ForOp::create(b, cIndex(0), numK, cIndex(1), inits);
  b.setInsertionPointToStart(steps.getBody());
  {
    Value k = steps.getInductionVar();
    SmallVector<Value> accs(steps.getRegionIterArgs().take_front(blocks));
    Value step = steps.getRegionIterArg(blocks);
    Value slot = slotOf(step);
    waitBarrier(/*full=*/true, slot, phaseOf(step));
    // This consumer's operands, in 16-byte units: subM rows of lhs (split
    // M) and subN columns of rhs (split N), in k steps of 16.
    Value slotUnits =
        arith::MulIOp::create(b, slot, cIndex(layout.stageBytes / 16));
    Value lhsUnits = slotUnits;
    Value rhsUnits =
        arith::AddIOp::create(b, slotUnits, cIndex(layout.lhsBytes / 16));
    if (layout.splitM)
      lhsUnits = arith::AddIOp::create(
          b, lhsUnits,
          arith::MulIOp::create(
              b, consumer, cIndex(layout.subM * layout.lhsRowBytes / 16)));
    else
      rhsUnits = arith::AddIOp::create(
          b, rhsUnits,
          arith::MulIOp::create(
              b, consumer,
              cIndex(layout.subN / layout.inBoxCols() * layout.rhsBoxBytes /
                     16)));
    NVVM::WgmmaFenceAlignedOp::create(b);
    int64_t kPerInstr = 16;
    for (int64_t kk = 0; kk < layout.tk / kPerInstr; ++kk) {
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
                cIndex((block * 64 * layout.lhsRowBytes +
                        kk * kPerInstr * layout.inBytes) /
                       16)),
            /*leadingBytes=*/16, /*strideBytes=*/8 * layout.lhsRowBytes,
            layout.lhsRowBytes);
        accs[block] = NVVM::WgmmaMmaAsyncOp::create(
            b, accType, accs[block], descA, descB,
            NVVM::MMAShapeAttr::get(ctx, 64, layout.subN, kPerInstr),
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
      release(slot, laneInGroup);
    } else {
      // A lone consumer keeps this step's wgmma in flight (nothing else
      // would feed the tensor cores while it waits); the previous one has
      // completed.
      NVVM::WgmmaWaitGroupSyncOp::create(b, 1);
      Value ready = arith::CmpIOp::create(b, arith::CmpIPredicate::uge, k,
                                          cIndex(1));
      scf::IfOp::create(b, ready, [&](OpBuilder &, Location) {
        release(slotOf(arith::SubIOp::create(b, step, cIndex(1))),
                laneInGroup);
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
          release(slotOf(arith::SubIOp::create(b, end, cIndex(1))),
                  laneInGroup);
          scf::YieldOp::create(b);
        });
  buildEpilogue(accs, m, n);
  scf::YieldOp::create(b, ValueRange{end});
  b.setInsertionPointAfter(tiles);
  // Stores must have read shared memory before the block may exit, and be
  // complete before code after the pipeline signals anyone.
  scf::IfOp::create(b, eq(laneInGroup, cIndex(0)), [&](OpBuilder &, Location) {
    WaitSmemToGmemOp::create(b, 0, /*read_only=*/!codeFollows());
    scf::YieldOp::create(b);
  });
}

void PipelineBuilder::buildEpilogue(ArrayRef<Value> accs, Value m,
                                    Value n) {
  MLIRContext *ctx = b.getContext();
  auto outType = cast<MemRefType>(op.getOut().getType());
  Type outElt = outType.getElementType();
  Value consumer = arith::SubIOp::create(b, warpgroup, cIndex(1));
  Value consumerI32 = arith::IndexCastOp::create(b, b.getI32Type(), warpgroup);
  // Boxes of 64 rows x 128 bytes: per 64-row wgmma block, subN columns.
  int64_t boxesPerBlock = layout.subN / layout.outBoxCols();
  int64_t boxes = layout.mBlocks() * boxesPerBlock;
  int64_t buffers = layout.epilogueBuffers;
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
  auto onLeader = [&](function_ref<void()> body) {
    scf::IfOp::create(b, leader, [&](OpBuilder &, Location) {
      body();
      scf::YieldOp::create(b);
    });
  };

  // Output tile origin of this consumer.
  Value row0 = arith::AddIOp::create(
      b, out.rowOffset, arith::MulIOp::create(b, m, cIndex(layout.tm)));
  Value col0 = arith::AddIOp::create(
      b, out.colOffset, arith::MulIOp::create(b, n, cIndex(layout.tn)));
  if (layout.splitM)
    row0 = arith::AddIOp::create(
        b, row0, arith::MulIOp::create(b, consumer, cIndex(layout.subM)));
  else
    col0 = arith::AddIOp::create(
        b, col0, arith::MulIOp::create(b, consumer, cIndex(layout.subN)));

  // wgmma m64nN accumulator fragment: value 4j+q of a thread sits at
  // row 16*warp + lane/4 + 8*(q/2), column 8j + 2*(lane%4) + q%2. Pairs
  // (q, q+1) are adjacent columns and go out as one 32-bit store, at the
  // 128-byte-swizzled address: 16-byte chunk c of row r lands in chunk
  // c ^ (r % 8).
  Value warp = arith::DivUIOp::create(b, laneInGroup, cIndex(32));
  Value lane = arith::RemUIOp::create(b, laneInGroup, cIndex(32));
  Value quad = arith::DivUIOp::create(b, lane, cIndex(4));
  Value rowBase = arith::AddIOp::create(
      b, arith::MulIOp::create(b, warp, cIndex(16)), quad);
  Value colInQuad = arith::MulIOp::create(
      b, arith::RemUIOp::create(b, lane, cIndex(4)), cIndex(2));
  Type pairType = VectorType::get({2}, outElt);
  Value regionPtr = sharedPtr(region);
  MemRefType boxType = sharedType({64, layout.outBoxCols()}, outElt);
  int64_t colsPerAccGroup = 8;

  // The output goes out `buffers` boxes (64 x 128 bytes) at a time: write
  // them, make them visible to the TMA unit, store them, and before the
  // next round wait until the stores have read the buffers.
  for (int64_t first = 0; first < boxes; first += buffers) {
    onLeader([&] { WaitSmemToGmemOp::create(b, 0, /*read_only=*/true); });
    syncConsumer();
    int64_t last = std::min(boxes, first + buffers);
    for (int64_t box = first; box < last; ++box) {
      int64_t bufferOffset = (box - first) * layout.epilogueBoxBytes;
      int64_t groupsPerBox = layout.outBoxCols() / colsPerAccGroup;
      Value acc = accs[box / boxesPerBlock];
      for (int64_t g = 0; g < groupsPerBox; ++g) {
        // accumulator column group
        int64_t j = (box % boxesPerBlock) * groupsPerBox + g;
        for (int64_t half = 0; half < 2; ++half) {
          Value row = arith::AddIOp::create(b, rowBase, cIndex(8 * half));
          Value colInBox = arith::AddIOp::create(
              b, cIndex(g * colsPerAccGroup), colInQuad);
          Value byteInRow =
              arith::MulIOp::create(b, colInBox, cIndex(layout.outBytes));
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
            Value t = LLVM::FPTruncOp::create(b, outElt, v);
            pair = LLVM::InsertElementOp::create(b, pair, t, cI32(q));
          }
          Value ptr = LLVM::GEPOp::create(
              b, regionPtr.getType(), b.getI8Type(), regionPtr,
              ValueRange{arith::IndexCastOp::create(b, b.getI64Type(), offset)});
          LLVM::StoreOp::create(b, pair, ptr, /*alignment=*/4);
        }
      }
    }
    // Generic-proxy writes must be visible to the TMA unit before the store.
    NVVM::FenceProxyOp::create(
        b, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
    syncConsumer();
    onLeader([&] {
      for (int64_t box = first; box < last; ++box) {
        Value tile = view(
            arith::AddIOp::create(
                b, region, cIndex((box - first) * layout.epilogueBoxBytes)),
            boxType);
        Value row = arith::AddIOp::create(
            b, row0, cIndex(box / boxesPerBlock * 64));
        Value col = arith::AddIOp::create(
            b, col0, cIndex(box % boxesPerBlock * layout.outBoxCols()));
        CopySmemToGmemOp::create(b, tile, out.argument, ValueRange{row, col},
                                 Value(), kSwizzleBytes);
      }
    });
  }
}

/// Resolves a pipeline operand to a kernel argument plus view offsets.
/// `tile` holds the operand's tile sizes (rows, columns).
FailureOr<TmaOperand> resolveOperand(MatmulPipelineOp op, Value value,
                                     StringRef name,
                                     std::array<int64_t, 2> tile,
                                     OpBuilder &builder) {
  Location loc = op.getLoc();
  auto viewType = cast<MemRefType>(value.getType());
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  TmaOperand result{value, zero, zero};
  while (auto subview = value.getDefiningOp<memref::SubViewOp>()) {
    if (!subview.hasUnitStride() || subview.getSourceType().getRank() != 2)
      return op.emitOpError() << "expects " << name
                              << " to be a unit-stride 2-d view";
    SmallVector<OpFoldResult> offsets = subview.getMixedOffsets();
    Value offs[2];
    for (int i = 0; i < 2; ++i)
      offs[i] = getValueOrCreateConstantIndexOp(builder, loc, offsets[i]);
    result.rowOffset =
        arith::AddIOp::create(builder, loc, result.rowOffset, offs[0]);
    result.colOffset =
        arith::AddIOp::create(builder, loc, result.colOffset, offs[1]);
    value = subview.getSource();
  }
  auto arg = dyn_cast<BlockArgument>(value);
  auto func = op->getParentOfType<gpu::GPUFuncOp>();
  if (!arg || !func || arg.getOwner() != &func.getBody().front() ||
      arg.getArgNumber() >= func.getNumArguments())
    return op.emitOpError()
           << "expects " << name
           << " to be a kernel argument or a subview of one: its TMA tensor "
              "map is built on the host from the argument";
  // TMA clips and zero-fills at the edges of the argument, not of the view:
  // a view smaller than its argument must not have edge tiles.
  auto argType = cast<MemRefType>(value.getType());
  for (int i = 0; i < 2; ++i)
    if (viewType.getDimSize(i) != argType.getDimSize(i) &&
        viewType.getDimSize(i) % tile[i] != 0)
      return op.emitOpError()
             << "expects " << name << " dimension " << i << " ("
             << viewType.getDimSize(i) << ") to be a multiple of its tile ("
             << tile[i] << ") when the view is smaller than its kernel "
             << "argument: TMA clips at the argument's edge, so an edge tile "
                "would read or write outside the view";
  result.argument = value;
  return result;
}

struct ExpandPipelinesPass
    : public mlir::weave::impl::ExpandPipelinesPassBase<ExpandPipelinesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<MatmulPipelineOp> pipelines;
    getOperation()->walk([&](MatmulPipelineOp op) { pipelines.push_back(op); });
    for (MatmulPipelineOp op : pipelines) {
      if (op->getParentOfType<MatmulPipelineOp>()) {
        op.emitOpError() << "cannot be nested in another pipeline";
        return signalPassFailure();
      }
      OpBuilder builder(op);
      int64_t tm = op.getTileM(), tn = op.getTileN(), tk = op.getTileK();
      // One error per pipeline: the first operand that cannot be used.
      FailureOr<TmaOperand> lhs =
          resolveOperand(op, op.getLhs(), "lhs", {tm, tk}, builder);
      if (failed(lhs))
        return signalPassFailure();
      FailureOr<TmaOperand> rhs =
          resolveOperand(op, op.getRhs(), "rhs", {tk, tn}, builder);
      if (failed(rhs))
        return signalPassFailure();
      FailureOr<TmaOperand> out =
          resolveOperand(op, op.getOut(), "out", {tm, tn}, builder);
      if (failed(out))
        return signalPassFailure();
      if (!op.getCallback().empty()) {
        Value rhsTile = op.getCallback().front().getArgument(1);
        for (Operation *user : rhsTile.getUsers()) {
          user->emitOpError()
              << "uses the rhs tile of a pipeline callback, which is stored "
                 "as 64-column swizzled boxes; only the lhs tile can be used "
                 "for now";
          return signalPassFailure();
        }
      }
      PipelineBuilder(op, *lhs, *rhs, *out).build();
    }
  }
};

} // namespace
