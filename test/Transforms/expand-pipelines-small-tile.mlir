// REQUIRES: ptxas
// RUN: weavec %s --emit=bundle -v -o %t.wbundle 2>&1 | FileCheck %s

// The 64 x 128 tile (one consumer of 64 accumulators a thread, a block of
// 256 threads): without a known register count at entry ptxas compiled it
// in 128 registers and ignored setmaxnreg (warning C7508, printed by
// weavec for every such kernel). The kernel declares one block an SM, as
// the 128 x 64 tile does (expand-pipelines-narrow-tile.mlir): the count at
// entry is known and setmaxnreg holds (240 for the consumer).
// CHECK-NOT: C7508
// CHECK: Compiling entry function 'mm'
// CHECK-NOT: C7508
// CHECK: 0 bytes spill stores, 0 bytes spill loads
// CHECK-NEXT: Used 240 registers
// CHECK-NOT: C7508
module attributes {gpu.container_module} {
gpu.module @m {
  gpu.func @mm(%a: memref<64x4096xbf16> {weave.name = "a"},
               %b: memref<4096x4096xbf16> {weave.name = "b"},
               %c: memref<64x4096xbf16> {weave.name = "c"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1],
          block = auto, cluster = auto, smem = auto>} {
    weave.matmul_pipeline %a, %b into %c tile(64, 128, 64) stages(8) {consumers = 1 : i64}
        : memref<64x4096xbf16>, memref<4096x4096xbf16> into memref<64x4096xbf16>
    gpu.return
  }
}
}
