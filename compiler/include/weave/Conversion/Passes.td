//===- Passes.td - Weave conversion passes ------------------*- tablegen -*-===//

#ifndef WEAVE_CONVERSION_PASSES_TD
#define WEAVE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertWeaveToNVVMPass : Pass<"convert-weave-to-nvvm", "mlir::gpu::GPUModuleOp"> {
  let summary = "Lower weave kernels to the LLVM and NVVM dialects";
  let description = [{
    Gives every weave kernel the kernel ABI of docs/ABI.md (appends the team
    parameters rank, team size and peer base table), then lowers the weave
    ops together with the upstream gpu, nvgpu, memref, arith, cf, vector and
    func ops to the LLVM and NVVM dialects. Memref kernel parameters become
    bare pointers; `#weave.symmetric` memory is global memory (address
    space 1); `!weave.semaphore<N>` is a pointer to N u32 counters.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::NVVM::NVVMDialect",
                           "mlir::gpu::GPUDialect", "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
  let options = [
    Option<"waitTimeoutNs", "wait-timeout-ns", "uint64_t", "0",
           "If non-zero, a weave.semaphore_wait that spins longer than this "
           "many nanoseconds prints what it waited for and traps (debug mode)">,
  ];
}

#endif // WEAVE_CONVERSION_PASSES_TD
