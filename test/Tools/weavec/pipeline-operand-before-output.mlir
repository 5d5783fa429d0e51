// RUN: not weavec %s --emit=mlir 2>&1 | FileCheck %s

// Every rule of a pipeline is checked before weavec prints anything: an
// operand whose tensor map the host cannot build (it is no kernel argument)
// used to pass --emit=mlir and fail only in weave-expand-pipelines.
// CHECK: pipeline-operand-before-output.mlir:[[# @LINE + 6]]:5: error: 'weave.matmul_pipeline' op expects out to be a kernel argument or a subview of one
// CHECK-NOT: gpu.module

gpu.module @m {
  gpu.func @out_cast(%a: memref<256x128xf16>, %b: memref<128x512xf16>, %c: memref<256x512xf16, 1>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 200000>} {
    %c2 = memref.memory_space_cast %c : memref<256x512xf16, 1> to memref<256x512xf16>
    weave.matmul_pipeline %a, %b into %c2 tile(128, 256, 64) stages(3) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16>
    gpu.return
  }
}
