// RUN: not weavec %s 2>&1 | FileCheck %s

// weavec runs weave-verify-kernel: whole-kernel rules surface with a location.
// CHECK: verify-kernel-error.mlir:[[# @LINE + 4]]:5: error: 'weave.matmul_pipeline' op needs 3 warpgroups (384 threads: one producer and 2 consumers), but the kernel's block has 128 threads

gpu.module @m {
  gpu.func @k(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132, 1, 1], block = [128, 1, 1], smem = 200000>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
    gpu.return
  }
}
