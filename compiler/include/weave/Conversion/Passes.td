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

def PeerViewStoresPass : Pass<"weave-peer-view-stores", "mlir::gpu::GPUModuleOp"> {
  let summary = "Store to a run-time device through by-value peer views";
  let description = [{
    Rewrites each `weave.copy_smem_to_gmem ... on %device` of a weave kernel
    with a static mesh size D whose device is known only at run time into
    a switch on the distance `(%device - device_id) mod D`: distance k < 8
    is the same store `on (device_id + k) mod D`, whose tensor map the host
    passes by value (a peer view; k = 0 the member's own map), and only a
    team over 8 keeps the per-member table of tensor maps in global memory,
    for distances of 8 and more (PeerViewStores.h, expandPeerViewStores). A store
    through the table reads its tensor map from global memory, which cost
    the GEMM + reduce-scatter 63-92 us at D = 2 (docs/PERF.md). Runs after
    the pipeline expansion, before the manifest is computed.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::arith::ArithDialect"];
}

#endif // WEAVE_CONVERSION_PASSES_TD
