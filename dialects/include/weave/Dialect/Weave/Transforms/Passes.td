//===- Passes.td - weave dialect passes ---------------------*- tablegen -*-===//

#ifndef WEAVE_DIALECT_WEAVE_TRANSFORMS_PASSES_TD
#define WEAVE_DIALECT_WEAVE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConfigurePipelinesPass : Pass<"weave-configure-pipelines", "mlir::ModuleOp"> {
  let summary = "Choose the configuration of every tile(auto) matmul pipeline";
  let description = [{
    For each `weave.matmul_pipeline` with `tile(auto)` (or no tile clause),
    chooses the tile, stage count, consumer warpgroups and their split and
    `cluster_m` with the least estimated time for its shape
    (`pipeline::chooseMatmulConfig`, Transforms/Pipeline/ConfigChooser.h:
    wave quantization of the persistent tiles over `sm-count` SMs times a
    per-configuration cost) and writes them on the op. What the op states
    (stages, consumers, split, cluster_m) and what the kernel's
    `#weave.kernel` fixes (block: the consumers; cluster: cluster_m; smem:
    an upper bound; an odd fixed grid: no cluster) constrain the choice.
    The kernel's `auto` fields (`block`, `cluster`, `smem`) are then set to
    what the chosen configuration needs; they require exactly one
    `tile(auto)` pipeline in the kernel. A dynamic row count is chosen for
    the row counts a launch may have (see the chooser). Runs before
    `weave-verify-kernel`; configured pipelines are left alone.
  }];
  let options = [Option<"smCount", "sm-count", "int64_t", "132",
                        "SMs of the target GPU (H100 SXM and H200: 132)">];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def VerifyKernelPass : Pass<"weave-verify-kernel", "mlir::ModuleOp"> {
  let summary = "Check the whole-kernel rules of weave kernels";
  let description = [{
    Checks what no single op verifier can see: every weave op sits in a
    `gpu.func` kernel carrying `#weave.kernel`; symmetric buffers and
    semaphores reach the kernel only as its arguments (or views of them);
    kernel buffers are non-empty and under 2^63 bytes (a dynamic dimension,
    whose size comes from the launch, counting as 1); a matmul
    pipeline's warpgroups fit the kernel's block; the kernel's dynamic
    shared memory covers its pipelines, and its static shared memory
    (workgroup attributions, workgroup `memref.global`s) plus the dynamic
    fits the 227 KB of a Hopper block; no atomic (`memref.atomic_rmw`,
    `memref.generic_atomic_rmw`, `llvm.atomicrmw`, `llvm.cmpxchg`) touches
    symmetric or peer memory, since they lower to GPU-scope atomics.

    It also rejects, in every `gpu.module`, what the lowering after it
    cannot take: symbol names PTX cannot spell (`[a-zA-Z][a-zA-Z0-9_$]*`
    or `[_$][a-zA-Z0-9_$]+`), functions beside the weave kernels whose
    memrefs have dynamic shapes, strides or offsets (the lowering passes
    memrefs as bare pointers; only a kernel's own arguments get their
    sizes as hidden parameters), and `vector.transfer_read` /
    `vector.transfer_write` (use `vector.load` / `vector.store`).
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def ExpandPipelinesPass : Pass<"weave-expand-pipelines", "mlir::ModuleOp"> {
  let summary = "Expand weave.matmul_pipeline into warp-specialized TMA + wgmma code";
  let description = [{
    Replaces every `weave.matmul_pipeline` with the body of a persistent,
    warp-specialized Hopper matmul (see the op's description): mbarrier
    initialization, a producer warpgroup issuing `weave.copy_gmem_to_smem`
    TMA loads into a ring of 128-byte-swizzled shared-memory slots, consumer
    warpgroups issuing `nvvm.wgmma.mma_async`, `setmaxnreg` rebalancing, the
    inlined `before_load` and `callback` regions, and an epilogue that
    stores the output tile with `weave.copy_smem_to_gmem`. Operands must be
    kernel arguments or unit-stride subviews of them, because their tensor
    maps are built on the host.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::gpu::GPUDialect",
    "mlir::LLVM::LLVMDialect", "mlir::NVVM::NVVMDialect",
    "mlir::memref::MemRefDialect", "mlir::scf::SCFDialect"
  ];
}

#endif // WEAVE_DIALECT_WEAVE_TRANSFORMS_PASSES_TD
