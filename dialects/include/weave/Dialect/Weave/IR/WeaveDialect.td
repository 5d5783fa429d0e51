//===- WeaveDialect.td - The weave dialect ------------------*- tablegen -*-===//

#ifndef WEAVE_DIALECT_WEAVE_IR_WEAVEDIALECT_TD
#define WEAVE_DIALECT_WEAVE_IR_WEAVEDIALECT_TD

include "mlir/IR/OpBase.td"

def Weave_Dialect : Dialect {
  let name = "weave";
  let summary = "Kernels that fuse inter-GPU communication with computation";
  let description = [{
    The `weave` dialect expresses GPU kernels that run on a team of GPUs at
    once and talk to each other over NVLink: symmetric buffers addressable on
    any peer (`weave.remote_ref`), semaphores in a symmetric signal pad
    (`weave.semaphore_signal` / `weave.semaphore_wait`), one-sided copies
    (`weave.put`, `weave.get`, `weave.copy_smem_to_gmem`) and a
    warp-specialized, TMA-fed wgmma pipeline (`weave.matmul_pipeline`).

    Kernels are `gpu.func` kernels carrying a `weave.kernel` attribute that
    names the device mesh axis and the launch shape. See docs/Rationale.md
    for the memory model.
  }];
  let cppNamespace = "::mlir::weave";
  let dependentDialects = [
    "::mlir::memref::MemRefDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::arith::ArithDialect"
  ];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();

    /// Name of the discardable attribute that marks a `gpu.func` as a weave
    /// kernel and carries its launch configuration.
    static constexpr ::llvm::StringLiteral getKernelAttrName() {
      return ::llvm::StringLiteral("weave.kernel");
    }
  }];
}

class Weave_Op<string mnemonic, list<Trait> traits = []>
    : Op<Weave_Dialect, mnemonic, traits>;

#endif // WEAVE_DIALECT_WEAVE_IR_WEAVEDIALECT_TD
