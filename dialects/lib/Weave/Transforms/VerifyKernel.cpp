//===- VerifyKernel.cpp - whole-kernel checks of weave kernels ------------===//
//
// Op verifiers see one op; this pass checks the rules that span a kernel:
// where weave ops may appear, where symmetric buffers and semaphores come
// from, and whether the launch shape fits the pipelines in the kernel.
//
//===----------------------------------------------------------------------===//

#include "weave/Dialect/Weave/IR/WeaveOps.h"
#include "weave/Dialect/Weave/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::weave {
#define GEN_PASS_DEF_VERIFYKERNELPASS
#include "weave/Dialect/Weave/Transforms/Passes.h.inc"
} // namespace mlir::weave

using namespace mlir;
using namespace mlir::weave;

namespace {

/// Follows view-like ops (subview, cast, remote_ref) back to their source.
Value getRootBuffer(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      value = view.getViewSource();
      continue;
    }
    if (auto remote = dyn_cast<RemoteRefOp>(def)) {
      value = remote.getBuffer();
      continue;
    }
    break;
  }
  return value;
}

LogicalResult verifyKernel(gpu::GPUFuncOp func, KernelAttr kernel) {
  for (BlockArgument arg : func.getArguments()) {
    auto memref = dyn_cast<MemRefType>(arg.getType());
    if (memref && !memref.hasStaticShape())
      return func.emitError() << "weave kernel argument #" << arg.getArgNumber()
                              << " expects a static shape, got " << memref;
  }

  WalkResult result = func.walk([&](Operation *op) -> WalkResult {
    // Symmetric buffers and semaphores must be kernel arguments (or views of
    // them): only those have the same offset on every device.
    for (Value operand : op->getOperands()) {
      auto memref = dyn_cast<MemRefType>(operand.getType());
      bool tracked = isa<SemaphoreType>(operand.getType()) ||
                     (memref && isSymmetric(memref));
      if (!tracked)
        continue;
      auto root = dyn_cast<BlockArgument>(getRootBuffer(operand));
      if (!root || root.getOwner() != &func.getBody().front()) {
        op->emitOpError() << "expects symmetric buffers and semaphores to be "
                             "arguments of the kernel (or views of them)";
        return WalkResult::interrupt();
      }
    }
    auto pipeline = dyn_cast<MatmulPipelineOp>(op);
    if (!pipeline)
      return WalkResult::advance();
    int64_t warpgroups = pipeline.getConsumers() + 1;
    if (kernel.getNumThreads() != warpgroups * 128) {
      pipeline.emitOpError()
          << "needs " << warpgroups << " warpgroups (" << warpgroups * 128
          << " threads: one producer and " << pipeline.getConsumers()
          << " consumers), but the kernel's block has "
          << kernel.getNumThreads() << " threads";
      return WalkResult::interrupt();
    }
    int64_t cluster = pipeline.getClusterM();
    ArrayRef<int32_t> dims = kernel.getCluster();
    if (cluster != 1 &&
        (dims.empty() || dims[0] != cluster ||
         llvm::any_of(dims.drop_front(), [](int32_t d) { return d != 1; }))) {
      pipeline.emitOpError()
          << "with cluster_m(" << cluster
          << ") needs the kernel's cluster to be [" << cluster
          << ", 1, 1] (set cluster = [" << cluster
          << ", 1, 1] in #weave.kernel)";
      return WalkResult::interrupt();
    }
    if (kernel.getSmem() < pipeline.getSharedMemoryBytes()) {
      pipeline.emitOpError()
          << "needs " << pipeline.getSharedMemoryBytes()
          << " bytes of dynamic shared memory, but the kernel declares smem = "
          << kernel.getSmem();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

struct VerifyKernelPass
    : public mlir::weave::impl::VerifyKernelPassBase<VerifyKernelPass> {
  using Base::Base;

  void runOnOperation() override {
    bool failed = false;
    getOperation().walk([&](Operation *op) {
      if (auto func = dyn_cast<gpu::GPUFuncOp>(op)) {
        if (auto kernel = func->getAttrOfType<KernelAttr>(
                WeaveDialect::getKernelAttrName()))
          failed |= mlir::failed(verifyKernel(func, kernel));
        return;
      }
      if (isa<WeaveDialect>(op->getDialect()) && !getEnclosingKernelAttr(op)) {
        op->emitOpError() << "expects to be inside a gpu.func kernel with a "
                             "'weave.kernel' attribute";
        failed = true;
      }
    });
    if (failed)
      signalPassFailure();
  }
};

} // namespace
