//===- ConfigurePipelines.cpp - choose tile(auto) configurations ----------===//
//
// weave-configure-pipelines: resolves `tile(auto)` on weave.matmul_pipeline
// with pipeline::chooseMatmulConfig and fills in the `auto` fields of the
// kernel's #weave.kernel from the choice. The model is in
// Pipeline/ConfigChooser.cpp; this file only gathers the problem and the
// constraints and writes the result.
//
//===----------------------------------------------------------------------===//

#include "weave/Dialect/Weave/IR/WeaveOps.h"
#include "weave/Dialect/Weave/Transforms/Passes.h"
#include "weave/Dialect/Weave/Transforms/Pipeline/ConfigChooser.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

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
  auto out = cast<MemRefType>(op.getOut().getType());
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
  if (op.getStagesAttr())
    c.stages = op.numStages();
  if (op.getConsumers() != 2)
    c.consumers = op.getConsumers();
  if (op.getSplit() != ConsumerSplit::M)
    c.splitM = false;
  if (op.getClusterM() != 1)
    c.clusterM = op.getClusterM();
  if (op.getSplitK() != 1)
    c.splitK = op.getSplitK();
  if (Value ws = op.getWorkspace())
    c.workspaceWords = cast<MemRefType>(ws.getType()).getNumElements();
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
}

struct ConfigurePipelinesPass
    : public mlir::weave::impl::ConfigurePipelinesPassBase<
          ConfigurePipelinesPass> {
  using Base::Base;

  void runOnOperation() override {
    WalkResult result = getOperation()->walk([&](gpu::GPUFuncOp func) {
      return failed(configure(func)) ? WalkResult::interrupt()
                                     : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

  LogicalResult configure(gpu::GPUFuncOp func) {
    auto kernel =
        func->getAttrOfType<KernelAttr>(WeaveDialect::getKernelAttrName());
    SmallVector<MatmulPipelineOp> autos;
    func.walk([&](MatmulPipelineOp op) {
      if (op.isAutoTile())
        autos.push_back(op);
    });
    if (kernel && kernel.hasAutoFields() && autos.size() != 1)
      return func.emitError()
             << "weave kernel with 'auto' launch fields (block, cluster or "
                "smem) expects exactly one weave.matmul_pipeline with "
                "tile(auto) to choose them, found "
             << autos.size();
    for (MatmulPipelineOp op : autos) {
      auto [problem, constraints] = describe(op, kernel, smCount);
      std::optional<MatmulConfig> config =
          chooseMatmulConfig(problem, constraints);
      if (!config)
        return op.emitOpError()
               << "has no tile configuration that satisfies the given "
                  "constraints ("
               << constraintText(constraints) << ")";
      apply(op, *config);
    }
    if (!kernel || !kernel.hasAutoFields())
      return success();
    MatmulPipelineOp op = autos.front();
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
};

} // namespace
