//===- ConfigurePipelines.cpp - choose tile(auto) configurations ----------===//
//
// weave-configure-pipelines: resolves `tile(auto)` on weave.matmul_pipeline
// with pipeline::chooseMatmulConfig and fills in the `auto` fields of the
// kernel's #weave.kernel from the choice. The model is in
// Pipeline/ConfigChooser.cpp; this file only gathers the problem and the
// constraints and writes the result.
//
//===----------------------------------------------------------------------===//

#include "weave/Dialect/Weave/IR/KernelVariant.h"
#include "weave/Dialect/Weave/IR/WeaveOps.h"
#include "weave/Dialect/Weave/Transforms/Passes.h"
#include "weave/Dialect/Weave/Transforms/Pipeline/ConfigChooser.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::weave {
#define GEN_PASS_DEF_CONFIGUREPIPELINESPASS
#include "weave/Dialect/Weave/Transforms/Passes.h.inc"
} // namespace mlir::weave

using namespace mlir;
using namespace mlir::weave;
using namespace mlir::weave::pipeline;

namespace {

/// The problem and the constraints of one auto pipeline in `kernel`.
std::pair<MatmulProblem, MatmulConstraints>
describe(MatmulPipelineOp op, KernelAttr kernel, int64_t smCount) {
  auto lhs = cast<MemRefType>(op.getLhs().getType());
  auto rhs = cast<MemRefType>(op.getRhs().getType());
  auto out = op.getOutType();
  MatmulProblem p;
  p.m = lhs.isDynamicDim(0) ? -1 : lhs.getDimSize(0);
  p.n = rhs.getDimSize(1);
  p.k = lhs.getDimSize(1);
  p.inBytes = lhs.getElementTypeBitWidth() / 8;
  p.outBytes = out.getElementTypeBitWidth() / 8;
  p.smCount = smCount;

  // The op's clauses constrain where they differ from their defaults (an
  // absent clause reads as its default); the kernel's explicit fields
  // below fix the rest.
  MatmulConstraints c;
  // The tile is fixed when written (stages left to choose) or spelled by
  // a callback's tile arguments (lhs tile_m x tile_k, rhs tile_k x tile_n).
  if (op.getTileMAttr()) {
    c.tileM = op.tileM();
    c.tileN = op.tileN();
    c.tileK = op.tileK();
  } else if (!op.getCallback().empty() &&
             op.getCallback().front().getNumArguments() == 5) {
    auto lhsTile =
        dyn_cast<MemRefType>(op.getCallback().front().getArgument(0).getType());
    auto rhsTile =
        dyn_cast<MemRefType>(op.getCallback().front().getArgument(1).getType());
    if (lhsTile && rhsTile && lhsTile.hasStaticShape() &&
        rhsTile.hasStaticShape()) {
      c.tileM = lhsTile.getDimSize(0);
      c.tileK = lhsTile.getDimSize(1);
      c.tileN = rhsTile.getDimSize(1);
    }
  }
  if (op.getStagesAttr())
    c.stages = op.numStages();
  if (op.getConsumers() != 2)
    c.consumers = op.getConsumers();
  if (op.getSplit() != ConsumerSplit::M)
    c.splitM = false;
  // The op's cluster, and with a walk bound (walk_m) always: it must be
  // whole clusters, and one known only at run time traps if it is not, so
  // the choice adds no cluster the op did not write. (The chooser still
  // estimates the whole walk's tiles.)
  if (op.getClusterM() != 1 || op.getWalkM())
    c.clusterM = op.getClusterM();
  if (op.getSplitK() != 1)
    c.splitK = op.getSplitK();
  // A callback or box region would see a split unit's partial sums
  // (MatmulPipelineOp's verifier): no split-K for the chooser to offer.
  // (The tail split stays: box regions run on the fixed-up whole tile,
  // step regions for a split unit's own steps. The chooser's estimate
  // does not know grid_tile_segments, where only a last round inside the
  // last segment splits: it may count a split the kernel does not make.)
  if (!op.getCallback().empty() || !op.getEpilogue().empty() ||
      !op.getCombine().empty())
    c.splitK = 1;
  // A region would see a padded row tile (MatmulPipelineOp's verifier).
  c.padRowTiles = !op.hasRegions();
  p.shiftsEdgeTiles = MatmulTiling::shiftsEdgeTilesOf(
      op.hasRegions(), /*lhsRows=*/bool(op.getLhsRows()));
  if (Value ws = op.getWorkspace())
    c.workspaceWords = cast<MemRefType>(ws.getType()).getNumElements();
  c.tailSplit = op.getTailSplit();
  if (kernel) {
    if (!kernel.isBlockAuto()) {
      int64_t threads = kernel.getNumThreads();
      // A block that is not whole warpgroups fits no configuration.
      c.consumers = threads % 128 == 0 ? threads / 128 - 1 : -1;
    }
    if (!kernel.isClusterAuto())
      c.clusterM = kernel.getCluster()[0];
    if (!kernel.isSmemAuto())
      c.maxSmemBytes = kernel.getSmem();
    // A fixed grid must be whole clusters.
    if (kernel.isClusterAuto() && !kernel.isPersistent() &&
        kernel.getGrid()[0] % 2 != 0)
      c.clusterM = 1;
  }
  return {p, c};
}

/// What the constraints were, for the error when nothing satisfies them.
std::string constraintText(const MatmulConstraints &c) {
  std::string s;
  auto add = [&](const std::string &part) {
    s += (s.empty() ? "" : ", ") + part;
  };
  if (c.tileM)
    add("tile(" + std::to_string(*c.tileM) + ", " + std::to_string(*c.tileN) +
        ", " + std::to_string(*c.tileK) + ")");
  if (c.consumers)
    add(std::to_string(*c.consumers) + " consumer warpgroup(s)");
  if (c.splitM)
    add(std::string("split ") + (*c.splitM ? "m" : "n"));
  if (c.clusterM)
    add("cluster_m(" + std::to_string(*c.clusterM) + ")");
  if (c.stages)
    add(std::to_string(*c.stages) + " stages");
  if (c.splitK)
    add("split_k(" + std::to_string(*c.splitK) + ")");
  if (c.maxSmemBytes)
    add("at most " + std::to_string(*c.maxSmemBytes) +
        " bytes of shared memory");
  return s.empty() ? "none" : s;
}

/// The configuration `op` spells (every field written).
MatmulConfig configOf(MatmulPipelineOp op) {
  MatmulConfig config;
  config.tileM = op.tileM();
  config.tileN = op.tileN();
  config.tileK = op.tileK();
  config.stages = op.numStages();
  config.consumers = op.getConsumers();
  config.splitM = op.getSplit() == ConsumerSplit::M;
  config.clusterM = op.getClusterM();
  config.splitK = op.getSplitK();
  config.tailSplit = op.getTailSplit();
  return config;
}

/// Writes `config` on `op`.
void apply(MatmulPipelineOp op, const MatmulConfig &config) {
  Builder b(op.getContext());
  op.setTileMAttr(b.getI64IntegerAttr(config.tileM));
  op.setTileNAttr(b.getI64IntegerAttr(config.tileN));
  op.setTileKAttr(b.getI64IntegerAttr(config.tileK));
  op.setStagesAttr(b.getI64IntegerAttr(config.stages));
  op.setConsumersAttr(b.getI64IntegerAttr(config.consumers));
  op.setSplitAttr(ConsumerSplitAttr::get(
      op.getContext(), config.splitM ? ConsumerSplit::M : ConsumerSplit::N));
  op.setClusterMAttr(b.getI64IntegerAttr(config.clusterM));
  op.setSplitKAttr(b.getI64IntegerAttr(config.splitK));
  op.setTailSplitAttr(b.getI64IntegerAttr(config.tailSplit));
}

struct ConfigurePipelinesPass
    : public mlir::weave::impl::ConfigurePipelinesPassBase<
          ConfigurePipelinesPass> {
  using Base::Base;

  void runOnOperation() override {
    // Collected first: configuring may add variant copies of a kernel.
    SmallVector<gpu::GPUFuncOp> funcs;
    getOperation()->walk([&](gpu::GPUFuncOp func) { funcs.push_back(func); });
    for (gpu::GPUFuncOp func : funcs)
      if (failed(configure(func)))
        return signalPassFailure();
  }

  /// The chooser's configuration for `op`, or an error at `op` naming the
  /// constraints nothing satisfies.
  static FailureOr<MatmulConfig> choose(MatmulPipelineOp op,
                                        const MatmulProblem &problem,
                                        const MatmulConstraints &constraints) {
    if (std::optional<MatmulConfig> config =
            chooseMatmulConfig(problem, constraints))
      return *config;
    return op.emitOpError()
           << "has no tile configuration that satisfies the given "
              "constraints ("
           << constraintText(constraints) << ")";
  }

  /// Writes `config` on `op` and resolves the `auto` fields of its kernel.
  LogicalResult applyToKernel(gpu::GPUFuncOp func, KernelAttr kernel,
                              MatmulPipelineOp op,
                              const MatmulConfig &config) {
    apply(op, config);
    if (!kernel || !kernel.hasAutoFields())
      return success();
    SmallVector<int32_t> block(kernel.getBlock()), cluster(kernel.getCluster());
    if (kernel.isBlockAuto())
      block = {int32_t(128 * (1 + op.getConsumers())), 1, 1};
    if (kernel.isClusterAuto())
      cluster = {int32_t(op.getClusterM()), 1, 1};
    int64_t smem =
        kernel.isSmemAuto() ? op.getSharedMemoryBytes() : kernel.getSmem();
    auto resolved = KernelAttr::getChecked(
        [&] { return func.emitError(); }, func.getContext(), kernel.getMesh(),
        kernel.getGrid(), ArrayRef<int32_t>(block), ArrayRef<int32_t>(cluster),
        smem);
    if (!resolved)
      return failure();
    func->setAttr(WeaveDialect::getKernelAttrName(), resolved);
    return success();
  }

  /// A kernel whose one tile(auto) pipeline has a dynamic row count read
  /// from an argument gets a copy per range of rows the chooser configures
  /// differently (chooseMatmulVariants), each marked weave.variant of the
  /// kernel's name; the kernel itself goes. A kernel already marked is
  /// configured for its own range.
  LogicalResult configureVariants(gpu::GPUFuncOp func, KernelAttr kernel,
                                  MatmulPipelineOp op, unsigned lhsArg) {
    auto [problem, constraints] = describe(op, kernel, smCount);
    std::optional<KernelVariant> given = getKernelVariant(func);
    if (given && given->arg == lhsArg && given->axis == 0) {
      problem.mLo = given->lo;
      problem.mHi = given->hi;
    }
    std::vector<MatmulVariant> variants =
        given ? std::vector<MatmulVariant>() : chooseMatmulVariants(problem,
                                                                    constraints);
    if (variants.size() <= 1) {
      FailureOr<MatmulConfig> config = choose(op, problem, constraints);
      return failed(config) ? failure()
                            : applyToKernel(func, kernel, op, *config);
    }
    SymbolTable symbols(func->getParentOp());
    std::string name = func.getName().str();
    // The pipeline's position in the kernel, to find it in each copy.
    SmallVector<MatmulPipelineOp> pipelines;
    func.walk([&](MatmulPipelineOp p) { pipelines.push_back(p); });
    unsigned index = llvm::find(pipelines, op) - pipelines.begin();
    Operation *insertAfter = func;
    for (const MatmulVariant &variant : variants) {
      auto copy = cast<gpu::GPUFuncOp>(func->clone());
      std::string copyName =
          name + "__m" + std::to_string(variant.mLo) + "_" +
          (variant.mHi == MatmulProblem::kUnbounded
               ? std::string("up")
               : std::to_string(variant.mHi));
      copy.setName(copyName);
      // Placed after the previous copy; renamed should the name be taken.
      symbols.insert(copy, std::next(Block::iterator(insertAfter)));
      insertAfter = copy;
      KernelVariant marker{name, lhsArg, /*axis=*/0, variant.mLo,
                           variant.mHi == MatmulProblem::kUnbounded
                               ? KernelVariant::kUnbounded
                               : variant.mHi};
      copy->setAttr(kVariantAttrName, marker.toAttr(func.getContext()));
      SmallVector<MatmulPipelineOp> copies;
      copy.walk([&](MatmulPipelineOp p) { copies.push_back(p); });
      if (failed(applyToKernel(copy, kernel, copies[index], variant.config)))
        return failure();
    }
    symbols.erase(func);
    return success();
  }

  LogicalResult configure(gpu::GPUFuncOp func) {
    auto kernel =
        func->getAttrOfType<KernelAttr>(WeaveDialect::getKernelAttrName());
    SmallVector<MatmulPipelineOp> autos, all;
    func.walk([&](MatmulPipelineOp op) {
      all.push_back(op);
      if (op.isAutoTile())
        autos.push_back(op);
    });
    // A kernel's auto launch fields follow its one pipeline: chosen with
    // it, or read from it when it is fully written (an explicit tile and
    // stages: smem = auto then needs no hand-computed byte count).
    if (kernel && kernel.hasAutoFields() && autos.empty() && all.size() == 1)
      return applyToKernel(func, kernel, all.front(),
                           configOf(all.front()));
    if (kernel && kernel.hasAutoFields() && (all.size() != 1 || autos.size() != 1))
      return func.emitError()
             << "weave kernel with 'auto' launch fields (block, cluster or "
                "smem) expects exactly one weave.matmul_pipeline to size them, "
                "found "
             << all.size();
    if (kernel && autos.size() == 1 &&
        cast<MemRefType>(autos.front().getLhs().getType()).isDynamicDim(0))
      if (std::optional<unsigned> lhsArg = lhsKernelArgument(autos.front()))
        return configureVariants(func, kernel, autos.front(), *lhsArg);
    for (MatmulPipelineOp op : autos) {
      auto [problem, constraints] = describe(op, kernel, smCount);
      // (With more than one, the kernel has no `auto` field to resolve:
      // checked above.)
      FailureOr<MatmulConfig> config = choose(op, problem, constraints);
      if (failed(config) ||
          failed(applyToKernel(func, kernel, op, *config)))
        return failure();
    }
    return success();
  }
};

} // namespace
