//===- Passes.td - weave dialect passes ---------------------*- tablegen -*-===//

#ifndef WEAVE_DIALECT_WEAVE_TRANSFORMS_PASSES_TD
#define WEAVE_DIALECT_WEAVE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def VerifyKernelPass : Pass<"weave-verify-kernel", "mlir::ModuleOp"> {
  let summary = "Check the whole-kernel rules of weave kernels";
  let description = [{
    Checks what no single op verifier can see: every weave op sits in a
    `gpu.func` kernel carrying `#weave.kernel`; symmetric buffers and
    semaphores reach the kernel only as its arguments (or views of them);
    a matmul pipeline's warpgroups fit the kernel's block; the kernel's
    dynamic shared memory covers its pipelines.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

#endif // WEAVE_DIALECT_WEAVE_TRANSFORMS_PASSES_TD
