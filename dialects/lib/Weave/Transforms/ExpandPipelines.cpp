//===- ExpandPipelines.cpp - weave.matmul_pipeline -> warp-specialized code ===//
//
// Expands each `weave.matmul_pipeline` into the body of a warp-specialized,
// persistent Hopper matmul. The pieces are in Pipeline/, each with its
// contract: the shared memory arena (SmemArena), the mbarrier ring
// (BarrierRing), the persistent tile schedule (TileScheduler), the TMA +
// wgmma mainloop (WgmmaMainloop) and the epilogue (Epilogue). This file
// assigns warp roles and wires them:
//   warpgroup 0   thread 0: the producer (before_load, ring acquire/arm,
//                 loads, after_loads); warp 1: waits for each step's tiles,
//                 runs the callback (if any) on its lane 0, releases slots
//   warpgroups 1..consumers: mainloop and epilogue of each tile (the
//                 epilogue region, if any, on each warpgroup's leader)
// The TMA ops stay weave ops so that convert-weave-to-nvvm gives them
// tensor-map parameters; the rest is NVVM, scf, arith and memref.
//
// With cluster_m = c, the c blocks of a cluster run the same steps on
// vertically adjacent tiles: each loads its lhs tile and 1/c of the rhs
// boxes, multicast to all c (the full barrier of every block counts the
// whole stage), and each consumer releases a slot on the empty barriers of
// all c blocks, since any of them may refill it.
//
//===----------------------------------------------------------------------===//

#include "weave/Dialect/Weave/IR/EqualDims.h"
#include "weave/Dialect/Weave/IR/WeaveOps.h"
#include "weave/Dialect/Weave/Transforms/Passes.h"
#include "weave/Dialect/Weave/Transforms/Pipeline/BarrierRing.h"
#include "weave/Dialect/Weave/Transforms/Pipeline/Epilogue.h"
#include "weave/Dialect/Weave/Transforms/Pipeline/SmemArena.h"
#include "weave/Dialect/Weave/Transforms/Pipeline/SplitKFixup.h"
#include "weave/Dialect/Weave/Transforms/Pipeline/TileScheduler.h"
#include "weave/Dialect/Weave/Transforms/Pipeline/TmaOperands.h"
#include "weave/Dialect/Weave/Transforms/Pipeline/WgmmaMainloop.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/IRMapping.h"

#include <optional>

namespace mlir::weave {
#define GEN_PASS_DEF_EXPANDPIPELINESPASS
#include "weave/Dialect/Weave/Transforms/Passes.h.inc"
} // namespace mlir::weave

using namespace mlir;
using namespace mlir::weave;
using namespace mlir::weave::pipeline;

namespace {

/// The warp of the producer warpgroup that runs the callback (warp 0 holds
/// the producer thread).
constexpr int64_t kCallbackWarp = 1;
/// Below this many f32 accumulators a consumer thread (at most this many
/// with a lone consumer), the kernel declares one block an SM so that
/// ptxas honors setmaxnreg (buildProducer): two consumers of 64 x 128 (64
/// a thread) and up compile to at least a block's share anyway.
constexpr int64_t kMinSplitAccumulators = 64;
/// The named barrier of `even_registers` (PipelineBuilder::
/// evenRegistersBarrier): the last of the 16, clear of the consumers'
/// (their warpgroup index) and of bar.sync 0 (gpu.barrier).
constexpr int64_t kEvenRegistersBarrier = 15;

/// The builder every piece shares, constructed before them.
struct BuilderHolder {
  explicit BuilderHolder(Operation *op) : builder(op->getLoc(), op) {}
  ImplicitLocOpBuilder builder;
};

/// Builds the expansion of one pipeline op: assigns the warp roles and
/// wires the pieces.
class PipelineBuilder : BuilderHolder, BuilderBase {
public:
  PipelineBuilder(MatmulPipelineOp op, TmaOperand lhs, TmaOperand rhs,
                  TmaOperand out)
      : BuilderHolder(op), BuilderBase(builder), op(op),
        tiling(MatmulTiling::get(op)), layout(tiling), lhs(lhs), rhs(rhs),
        out(out) {}

  void build();

private:
  void buildProducer();
  void buildConsumer();
  /// Warp kCallbackWarp of the producer warpgroup: runs the callback on
  /// every step and takes part in handing slots back.
  void buildCallbackWarp();
  /// Whether anything but the kernel's return follows the pipeline. If not,
  /// the final waits need only let the stores finish reading shared memory:
  /// the kernel's completion makes its writes visible.
  bool codeFollows() {
    Operation *next = op->getNextNode();
    return !(next && isa<gpu::ReturnOp>(next) &&
             isa<gpu::GPUFuncOp>(op->getParentOp()));
  }
  /// Registers per thread of the producer warpgroup and of the consumers
  /// (setmaxnreg): the consumers take what the producer leaves. With a
  /// callback (the producer warpgroup also runs the callback warp) and two
  /// consumers, the producer gets 48 and the consumers 224: at 40 the
  /// dynamic all-gather matmul of 128 x 128 tiles spilled (12 bytes stored,
  /// 36 loaded, ptxas), of 128 x 192 tiles 60 bytes stored, and of 128 x
  /// 256 tiles 12-24 bytes once its own shard came through lhs_rows (a
  /// second tensor map); at 48 none does, and the consumers of 128 x 256
  /// tiles (128 accumulators a thread) do not spill at 224 either. (A
  /// block of 384 threads starts at 168 a thread: 120 freed x 128 threads
  /// covers 56 more x 256, so the consumers' raise never waits for
  /// registers; 48 / 232 would need the whole register file.) The plain
  /// matmul keeps 40 / 232 (240 with one consumer).
  std::pair<int64_t, int64_t> registerSplit() {
    if (!op.getCallback().empty() && tiling.consumers == 2)
      return {48, 224};
    // Three consumers: a block of 512 threads starts at 128 a thread, and
    // 128 x 48 + 384 x 152 = 64512 of the 65536 registers (160 would need
    // the producer at 24). 192 x 192 tiles (96 accumulators a thread)
    // spill nothing at 152.
    if (tiling.consumers == 3)
      return {48, 152};
    return {40, tiling.consumers == 1 ? 240 : 232};
  }
  /// `even_registers`: every warpgroup takes evenRegisters() once its role
  /// ends, where code follows the pipeline. Code after the pipeline runs on
  /// every warpgroup, so ptxas compiles it within the least count any of
  /// them reaches it with: the producer's 40. Under 40 the fused GEMM +
  /// RS's sum of the slots could hold one 16-byte vector a thread (two
  /// spilled 60 bytes, four 268); evened, four spilled nothing. Measured on
  /// 2 x H200 (docs/PERF.md, "The sum with four vectors in flight"): the
  /// evening alone costs nothing, and four vectors made the GEMM + RS 3-6%
  /// faster at k 1024 where m_shard x n is 8M elements or more but 1-3%
  /// slower at smaller m_shard and at every m_shard from k 4096 (the SASS:
  /// with the evening and two or more vectors, ptxas built the consumers'
  /// wgmma descriptors in vector registers, 36 IMAD and 16 R2UR a k step,
  /// not on the uniform datapath), so its template keeps one vector. It
  /// asks for this for the prefetches of its slots instead, which hold no
  /// registers while in flight (docs/PERF.md, "The sum's slots
  /// prefetched": without the evening they spilled 32 bytes).
  bool evensRegisters() { return op.getEvenRegisters() && codeFollows(); }
  /// The block's average under registerSplit, down to setmaxnreg's
  /// multiple of 8: at most what the warpgroups hold together.
  int64_t evenRegisters() {
    auto [producer, consumer] = registerSplit();
    int64_t threads = kWarpgroupThreads * (1 + tiling.consumers);
    int64_t total = kWarpgroupThreads * (producer + tiling.consumers * consumer);
    return total / threads / 8 * 8;
  }
  /// All of the block at the named barrier kEvenRegistersBarrier: the
  /// consumers arrive after giving registers back and the producer takes
  /// its share only after it. (setmaxnreg.inc waits for free registers: a
  /// producer with no tiles that took them back before the consumers had
  /// taken theirs at their start left the consumers waiting forever; on 2
  /// x H200 that hung a GEMM + RS with idle blocks, m_shard 512, and
  /// loopback teams.)
  void evenRegistersBarrier() {
    NVVM::BarrierOp::create(
        b, TypeRange{}, cI32(kEvenRegistersBarrier),
        cI32(kWarpgroupThreads * (1 + tiling.consumers)),
        NVVM::BarrierReductionAttr(), Value());
  }
  /// Arrivals that complete an empty barrier: each consumer warpgroup, and
  /// the callback warp if there is one.
  int64_t emptyArrivals() {
    return tiling.consumers + (op.getCallback().empty() ? 0 : 1);
  }
  /// Inlines `region` with `args`, giving bulk stores of each swizzled
  /// shared memory view of `swizzled` (a region argument's value) its
  /// swizzle. (The rhs tile is only ever the source of whole-tile stores:
  /// the pass rejects other uses; storeRhsByBoxes rewrites them.)
  void inlineRegion(Region &region, ValueRange args,
                    ArrayRef<std::pair<Value, int64_t>> swizzled = {});
  /// Rewrites each store of `rhsTile` (the callback's rhs view) in `block`
  /// into one store per rhs box: the ring slot holds the tile as tile_n /
  /// inBoxCols boxes of tile_k rows of 128 bytes, `rhsBoxBytes` apart from
  /// `rhsBase`, 128-byte swizzled (as loaded and read by wgmma), not as a
  /// row-major tile_k x tile_n tile. Box j goes to columns col + j *
  /// inBoxCols with the store's target, device and reduction.
  void storeRhsByBoxes(Block &block, Value rhsTile, Value rhsBase);
  Type inputType() {
    return cast<MemRefType>(op.getLhs().getType()).getElementType();
  }

  MatmulPipelineOp op;
  MatmulTiling tiling;
  MatmulSmemLayout layout;
  TmaOperand lhs, rhs, out;
  std::optional<SmemBase> smem;
  std::optional<BarrierRing> ring;
  std::optional<TileScheduler> scheduler;
  Workers workers;
  Value tid, warpgroup, laneInGroup, numK, numTiles;
  /// lhs's row count (the tiles are counted from it).
  Value rows;
  /// M and N where a tile at their edge is moved back inside
  /// (MatmulTiling::shiftsRowTiles, shiftsColTiles); null otherwise.
  Value rowEdge, colEdge;
};

void PipelineBuilder::inlineRegion(
    Region &region, ValueRange args,
    ArrayRef<std::pair<Value, int64_t>> swizzled) {
  IRMapping mapping;
  Block &block = region.front();
  mapping.map(block.getArguments(), args);
  for (Operation &inner : block.without_terminator()) {
    Operation *clone = b.clone(inner, mapping);
    // Tiles and boxes are in a swizzled layout: stores of them need a
    // tensor map with the same swizzle.
    clone->walk([&](CopySmemToGmemOp copy) {
      for (auto [view, swizzle] : swizzled)
        if (copy.getSource() == view)
          copy.setSwizzle(swizzle);
    });
  }
}

void PipelineBuilder::storeRhsByBoxes(Block &block, Value rhsTile,
                                      Value rhsBase) {
  SmallVector<CopySmemToGmemOp> stores;
  block.walk([&](CopySmemToGmemOp copy) {
    if (copy.getSource() == rhsTile)
      stores.push_back(copy);
  });
  MemRefType boxType =
      sharedType({tiling.tk, tiling.inBoxCols()}, inputType());
  for (CopySmemToGmemOp copy : stores) {
    ImplicitLocOpBuilder at(copy.getLoc(), copy);
    SmallVector<Value> indices(copy.getIndices());
    Value col = indices.back();
    for (int64_t j = 0; j < tiling.tn / tiling.inBoxCols(); ++j) {
      Value offset = arith::AddIOp::create(
          at, rhsBase,
          arith::ConstantIndexOp::create(at, j * layout.rhsBoxBytes));
      indices.back() = arith::AddIOp::create(
          at, col, arith::ConstantIndexOp::create(at, j * tiling.inBoxCols()));
      CopySmemToGmemOp::create(at, smem->view(at, offset, boxType),
                               copy.getTarget(), indices, copy.getDevice(),
                               kSwizzleBytes, copy.getReduceAttr(),
                               copy.getL2Attr());
    }
    copy.erase();
  }
}

void PipelineBuilder::build() {
  smem = SmemBase::create(b);
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
  // A dynamic row count is read at run time (the kernel argument's Dim
  // parameter, through its rebuilt descriptor).
  rows = lhsType.isDynamicDim(0)
             ? Value(memref::DimOp::create(b, op.getLhs(), 0))
             : cIndex(lhsType.getDimSize(0));
  // The tiles are counted from lhs; the verifier makes out's rows dynamic
  // with lhs's, and a launch whose two sizes differ would compute rows that
  // the out tensor map clips, or leave rows of out unwritten: it traps.
  // Not with an epilogue region: it replaces every store into out, which
  // is then never written (GEMM + RS binds it with one row tile).
  if (lhsType.isDynamicDim(0) && op.getOut() && op.getEpilogue().empty()) {
    OpBuilder::InsertionGuard guard(b);
    // At the kernel's entry where both are its arguments: placed here,
    // between the warp-role setup and the pipeline, the trap's branch made
    // ptxas spill 68 bytes in the dynamic all-gather matmul (0 at entry).
    Value lhsRows = rows;
    if (isa<BlockArgument>(op.getLhs()) && isa<BlockArgument>(op.getOut()) &&
        cast<BlockArgument>(op.getLhs()).getOwner()->isEntryBlock() &&
        cast<BlockArgument>(op.getOut()).getOwner()->isEntryBlock()) {
      b.setInsertionPointToStart(
          cast<BlockArgument>(op.getLhs()).getOwner());
      lhsRows = memref::DimOp::create(b, op.getLhs(), 0);
      // The runtime refuses such a launch with a message (EqualDims.h);
      // the trap below is for launches that bypass it.
      if (auto func = op->getParentOfType<gpu::GPUFuncOp>())
        addEqualDims(func, cast<BlockArgument>(op.getLhs()).getArgNumber(), 0,
                     cast<BlockArgument>(op.getOut()).getArgNumber(), 0);
    }
    Value outRows = memref::DimOp::create(b, op.getOut(), 0);
    Value differ =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ne, lhsRows, outRows);
    auto check = scf::IfOp::create(b, differ, /*withElseRegion=*/false);
    b.setInsertionPointToStart(check.thenBlock());
    // A trap without a message: a printf here is a vprintf call, and a
    // call anywhere in the kernel makes ptxas serialize every wgmma
    // (C7510). With this printf and its template's own, the dynamic
    // all-gather matmul ran 2.7-5% slower than the static one, whose checks
    // fold away; without them 0-0.9% (2 x H100, docs/PERF.md). The message
    // is the runtime's, at launch (equals=, above).
    LLVM::Trap::create(b);
  }
  // A walk bound (walk_m) of whole clusters: the verifier checks a
  // constant; one known only at run time that is not traps rather than
  // walk a partial cluster (the other blocks' rows) or round: below would
  // skip rows the caller asked for, above compute rows it did not (another
  // launch's, an all-gather matmul's own shard), and nothing here knows
  // which was meant. (A trap without a message, as above.)
  int64_t clusterM = op.getClusterM();
  if (Value walk = op.getWalkM();
      walk && clusterM > 1 && !tiling.walkMConstant) {
    Value partial = arith::CmpIOp::create(
        b, arith::CmpIPredicate::ne,
        arith::RemUIOp::create(b, walk, cIndex(clusterM)), cIndex(0));
    auto check = scf::IfOp::create(b, partial, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(check.thenBlock());
    LLVM::Trap::create(b);
  }
  if (tiling.shiftsRowTiles())
    rowEdge = rows;
  if (tiling.shiftsColTiles())
    colEdge = cIndex(tiling.n);
  Value numTilesM = ceilDiv(rows, tiling.tm);
  Value numTilesN = ceilDiv(cIndex(rhsType.getDimSize(1)), tiling.tn);
  numK = ceilDiv(cIndex(lhsType.getDimSize(1)), tiling.tk);
  // Row tiles padded to whole clusters (the verifier allows a count that
  // is not one only without regions): the padded tile loads zeros and
  // stores nothing, and its block still multicasts its share of the rhs.
  if (clusterM > 1)
    numTilesM = arith::MulIOp::create(b, ceilDiv(numTilesM, clusterM),
                                      cIndex(clusterM));
  scheduler.emplace(b, numTilesM, numTilesN, clusterM, op.getGridTileWidth(),
                    op.getRotateM(), tiling.splitK, op.getGridTileSegments(),
                    op.getGridTileInterleave(), op.getGridTileLag(),
                    op.getKRotation(), op.getWalkM(),
                    op.getGridTileKeepWidth());
  if (op.getGridTileColumnBlock() > 0)
    scheduler->setColumnBlock(op.getGridTileColumnBlock(), tiling.tn);
  numTiles = arith::MulIOp::create(b, numTilesM, numTilesN);
  workers = Workers::hardware(b, clusterM);

  // Barriers: full[s] completes when both TMA loads of slot s landed (one
  // arrival, the producer's expect_tx); empty[s] when every consumer (of
  // every block of the cluster) released it.
  ring.emplace(b, *smem, layout.fullBarrierOffset, tiling.stages, clusterM);
  scf::IfOp::create(b, eq(tid, cIndex(0)), [&](OpBuilder &, Location) {
    ring->initialize(emptyArrivals());
    scf::YieldOp::create(b);
  });
  // Peers multicast into this block's slots and arrive on its barriers.
  ring->synchronizeInit();

  if (tiling.tailSplit > 1) {
    TailSplitRoom room = tailSplitRoom(tiling.workspaceWords, tiling.tm,
                                       tiling.tn, tiling.consumers);
    scheduler->setTailSplit(tiling.tailSplit, room.partialTiles,
                            room.counterTiles, numK);
  }
  scheduler->distribute(workers);
  scf::IfOp::create(
      b, eq(warpgroup, cIndex(0)),
      [&](OpBuilder &, Location) {
        buildProducer();
        if (evensRegisters()) {
          evenRegistersBarrier();
          NVVM::SetMaxRegisterOp::create(b, evenRegisters(),
                                         NVVM::SetMaxRegisterAction::increase);
        }
        scf::YieldOp::create(b);
      },
      [&](OpBuilder &, Location) {
        buildConsumer();
        if (evensRegisters()) {
          NVVM::SetMaxRegisterOp::create(b, evenRegisters(),
                                         NVVM::SetMaxRegisterAction::decrease);
          evenRegistersBarrier();
        }
        scf::YieldOp::create(b);
      });
  // No cluster barrier before exit: a block may leave once no peer will
  // touch its shared memory again, which its producer waits for (see
  // buildProducer). A cluster barrier here made every block wait for the
  // slowest of its cluster: about 1% with cluster_m(2) at 1024x4096x4096
  // (docs/PERF.md).
  op.erase();
}

void PipelineBuilder::buildProducer() {
  // Consumers with few accumulators: ptxas compiles the kernel in fewer
  // registers than a block's share and, not knowing the count at entry,
  // ignores setmaxnreg (warning C7508). One block an SM
  // (.minnctapersm 1) fixes the count at entry, so setmaxnreg holds: 128 x
  // 64 tiles (32 accumulators a thread) at 256 x 4096 x 4096 ran 16.7 us
  // so and 16.6 with setmaxnreg ignored, but 19.5 without any setmaxnreg
  // (one H200, docs/PERF.md "Small M: the rhs streams, the lhs does not").
  // A lone consumer (a block of 256 threads) of 64 accumulators (64 x 128)
  // drew the same warning (128 registers, setmaxnreg ignored); two
  // consumers of 64 (128 x 128) do not. (The 64 x 128 kernels' times in
  // docs/PERF.md were taken with setmaxnreg ignored; at 128 x 64 ignored
  // and held ran alike.)
  int64_t accumulators = tiling.subM * tiling.subN / kWarpgroupThreads;
  if (accumulators < kMinSplitAccumulators ||
      (tiling.consumers == 1 && accumulators <= kMinSplitAccumulators))
    if (auto func = op->getParentOfType<gpu::GPUFuncOp>())
      func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                    b.getI32IntegerAttr(1));
  // The producer needs few registers; the consumers take them.
  NVVM::SetMaxRegisterOp::create(b, registerSplit().first,
                                 NVVM::SetMaxRegisterAction::decrease);
  WgmmaMainloop mainloop(b, tiling, layout, *smem, *ring, inputType(), lhs,
                         rhs);
  if (Value part = op.getLhsRows()) {
    // Rows [first, first + the part's rows) of lhs come from the part.
    auto partType = cast<MemRefType>(part.getType());
    Value partRows = partType.isDynamicDim(0)
                         ? Value(memref::DimOp::create(b, part, 0))
                         : cIndex(partType.getDimSize(0));
    Value first = op.getLhsRowsAt();
    // A range known only at run time that is not whole row tiles traps
    // (the verifier rejects a constant one): a tile across its edge would
    // load rows of lhs the caller did not mean. (A trap without a message,
    // as the row check above; folded away for constants.)
    Value ragged = arith::OrIOp::create(
        b, arith::RemUIOp::create(b, first, cIndex(tiling.tm)),
        arith::RemUIOp::create(b, partRows, cIndex(tiling.tm)));
    auto check = scf::IfOp::create(
        b, arith::CmpIOp::create(b, arith::CmpIPredicate::ne, ragged,
                                 cIndex(0)),
        /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(check.thenBlock());
      LLVM::Trap::create(b);
    }
    auto tilesI32 = [&](Value rowCount) -> Value {
      return arith::IndexCastUIOp::create(
          b, b.getI32Type(),
          arith::DivUIOp::create(b, rowCount, cIndex(tiling.tm)));
    };
    mainloop.readRowsFrom(resolveTmaOperand(part, b, op.getLoc()),
                          tilesI32(first), tilesI32(partRows));
  }
  mainloop.shiftEdgeTiles(rowEdge, colEdge);
  mainloop.prepareLoads();
  if (!op.getCallback().empty())
    scf::IfOp::create(b, eq(arith::DivUIOp::create(b, tid, cIndex(32)),
                            cIndex(kCallbackWarp)),
                      [&](OpBuilder &, Location) {
                        buildCallbackWarp();
                        scf::YieldOp::create(b);
                      });
  scf::IfOp::create(b, eq(tid, cIndex(0)), [&](OpBuilder &, Location) {
    Value steps = scheduler->forEachStep(
        numK, [&](Value m, Value n, Value k, Value, Value step, Value first) {
          if (!op.getBeforeLoad().empty()) {
            // (m, n, k), (m, n, k, first) or (m, n, k, first, tile_m,
            // tile_n): the longer forms are told the unit's first step, a
            // split unit's too, and the last the tile's shape (constants).
            SmallVector<Value, 6> args{m, n, k};
            if (beforeLoadTakesFirst(op.getBeforeLoad()))
              args.push_back(first);
            if (beforeLoadTakesTile(op.getBeforeLoad())) {
              args.push_back(cIndex(tiling.tm));
              args.push_back(cIndex(tiling.tn));
            }
            inlineRegion(op.getBeforeLoad(), args);
          }
          Value slot = ring->acquire(step);
          Value barrier = ring->arm(slot, layout.stageLoadBytes);
          mainloop.issueLoads(m, n, k, slot, barrier, workers.clusterRank);
        });
    if (ring->getClusterSize() > 1) {
      // Peers multicast into this block's slots and arrive on its empty
      // barriers. Once the last use of every slot has been released by
      // every consumer of the cluster, all of that has landed (a consumer
      // releases a slot only after the loads into it completed), so the
      // block may exit.
      ring->waitLastUses(/*full=*/false, steps);
    }
    if (!op.getAfterLoads().empty()) {
      // Loads complete in order of their full barriers' phases only per
      // slot, so wait for the last phase of every slot the block used: no
      // later load will move them on. (A block without steps has none.)
      ring->waitLastUses(/*full=*/true, steps);
      inlineRegion(op.getAfterLoads(), {});
    }
    scf::YieldOp::create(b);
  });
}

void PipelineBuilder::buildCallbackWarp() {
  Type elt = inputType();
  int64_t delay = op.getDelayRelease();
  Value lane = arith::RemUIOp::create(b, tid, cIndex(32));
  // The whole warp is past its callbacks (and their waits) before its
  // first lanes hand a slot back.
  auto releaseStep = [&](Value step) {
    NVVM::SyncWarpOp::create(b, cI32(-1));
    ring->release(ring->slotOf(step), lane);
  };
  scheduler->forEachStep(
      numK,
      [&](Value m, Value n, Value k, Value position, Value step, Value) {
        Value slot = ring->waitFull(step);
        Value slotBase =
            arith::MulIOp::create(b, slot, cIndex(layout.stageBytes));
        Value lhsTile =
            smem->view(b, slotBase, sharedType({tiling.tm, tiling.tk}, elt));
        Value rhsBase =
            arith::AddIOp::create(b, slotBase, cIndex(layout.lhsBytes));
        Value rhsTile =
            smem->view(b, rhsBase, sharedType({tiling.tk, tiling.tn}, elt));
        // The callback runs on an elected lane (lane 0): user IR names no
        // thread. The rest of the warp waits with it below.
        auto elected =
            scf::IfOp::create(b, eq(lane, cIndex(0)), [&](OpBuilder &, Location) {
              inlineRegion(op.getCallback(), {lhsTile, rhsTile, m, n, k},
                           {{lhsTile, tiling.lhsRowBytes}});
              scf::YieldOp::create(b);
            });
        storeRhsByBoxes(*elected.thenBlock(), rhsTile, rhsBase);
        // The slot of step s goes back after the callback of s + delay
        // (s counted in the tile's loop: with k_rotation, not k).
        scf::IfOp::create(b,
                          arith::CmpIOp::create(b, arith::CmpIPredicate::uge,
                                                position, cIndex(delay)),
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

void PipelineBuilder::buildConsumer() {
  NVVM::SetMaxRegisterOp::create(b, registerSplit().second,
                                 NVVM::SetMaxRegisterAction::increase);
  Value consumer = arith::SubIOp::create(b, warpgroup, cIndex(1));
  WgmmaMainloop mainloop(b, tiling, layout, *smem, *ring, inputType(), lhs,
                         rhs);
  Epilogue epilogue(b, tiling, layout, *smem,
                    op.getOutType().getElementType(),
                    out, warpgroup, laneInGroup);
  epilogue.shiftEdgeTiles(rowEdge, colEdge);
  // A box region takes the box's place in the form it was written in
  // (boxRegionForm: the tile indices, or the output coordinates).
  auto placeArgs = [](Region &region, bool lane, Value box,
                      const Epilogue::BoxPlace &place) {
    if (boxRegionForm(region, lane) == BoxRegionForm::Coordinates)
      return SmallVector<Value>{box, place.row, place.col};
    return SmallVector<Value>{box, place.m, place.n, place.index};
  };
  if (!op.getEpilogue().empty())
    epilogue.setBoxHandler([&](Value box, const Epilogue::BoxPlace &place) {
      inlineRegion(op.getEpilogue(),
                   placeArgs(op.getEpilogue(), /*lane=*/false, box, place),
                   {{box, kSwizzleBytes}});
    });
  if (!op.getCombine().empty())
    epilogue.setCombineHandler(
        [&](Value box, const Epilogue::BoxPlace &place, Value lane) {
          SmallVector<Value> args =
              placeArgs(op.getCombine(), /*lane=*/true, box, place);
          args.push_back(lane);
          inlineRegion(op.getCombine(), args, {{box, kSwizzleBytes}});
        });
  std::optional<SplitKFixup> fixup;
  if (tiling.splitK > 1 || tiling.tailSplit > 1) {
    fixup.emplace(b, tiling, op.getWorkspace(), warpgroup, laneInGroup);
    if (tiling.tilesPassRows())
      fixup->skipRowsPast(rows, rowEdge);
  }
  scheduler->forEachUnit(numK, [&](const Unit &unit, Value first) {
    if (tiling.tailSplit > 1) {
      // A whole tile as without the split (the constant trip count and
      // the plain store); a split unit over its range, then the fix-up.
      // (TileScheduler::forEachStep says why.)
      auto whole = scf::IfOp::create(b, TypeRange{b.getIndexType()},
                                     eq(unit.splits, cIndex(1)),
                                     /*withElseRegion=*/true);
      b.setInsertionPointToStart(whole.thenBlock());
      {
        auto [accs, end] =
            mainloop.consumeTile(consumer, laneInGroup, numK, first);
        epilogue.store(accs, unit.m, unit.n);
        scf::YieldOp::create(b, end);
      }
      b.setInsertionPointToStart(whole.elseBlock());
      {
        auto [accs, end] =
            mainloop.consumeTile(consumer, laneInGroup, unit.kCount, first);
        fixup->finish(accs, unit,
                      [&](ArrayRef<Value> total, ArrayRef<Value> owned) {
                        epilogue.store(total, unit.m, unit.n, owned);
                      });
        scf::YieldOp::create(b, end);
      }
      b.setInsertionPointAfter(whole);
      return whole.getResult(0);
    }
    auto [accs, end] =
        mainloop.consumeTile(consumer, laneInGroup, unit.kCount, first);
    if (fixup)
      fixup->finish(accs, unit,
                    [&](ArrayRef<Value> total, ArrayRef<Value> owned) {
                      epilogue.store(total, unit.m, unit.n, owned);
                    });
    else
      epilogue.store(accs, unit.m, unit.n);
    return end;
  });
  // Stores must have read shared memory before the block may exit, and be
  // complete before code after the pipeline signals anyone.
  scf::IfOp::create(b, eq(laneInGroup, cIndex(0)), [&](OpBuilder &, Location) {
    WaitSmemToGmemOp::create(b, 0, /*read_only=*/!codeFollows());
    scf::YieldOp::create(b);
  });
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
      if (op.isAutoTile()) {
        op.emitOpError() << "has tile(auto); run weave-configure-pipelines "
                            "first";
        return signalPassFailure();
      }
      // What weave-verify-kernel checked already, for a pass run alone.
      if (failed(verifyTmaOperands(op)))
        return signalPassFailure();
      TmaOperand lhs = resolveTmaOperand(op.getLhs(), builder, op.getLoc());
      TmaOperand rhs = resolveTmaOperand(op.getRhs(), builder, op.getLoc());
      // No `into`: the epilogue region stores every box itself.
      Value zero = arith::ConstantIndexOp::create(builder, op.getLoc(), 0);
      TmaOperand out =
          op.getOut() ? resolveTmaOperand(op.getOut(), builder, op.getLoc())
                      : TmaOperand{Value(), zero, zero};
      // (The callback reads the rhs tile only as the source of whole-tile
      // stores: MatmulPipelineOp::verifyRegions.)
      PipelineBuilder(op, lhs, rhs, out).build();
    }
  }
};

} // namespace
