// RUN: weave-opt %s --weave-configure-pipelines | FileCheck %s --check-prefix=CHOICE
// RUN: weave-opt %s --weave-configure-pipelines --weave-expand-pipelines | FileCheck %s
// RUN: %if ptxas %{ weavec %s --emit=bundle -v -o %t.wbundle 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// The 128 x 64 tile: two consumers of 64 x 64, 8 stages of 24 KB. At 256
// x 4096 x 4096 its 2 x 64 = 128 tiles fill one round of 132 SMs with
// little lhs traffic per tile (docs/PERF.md "Small M: the rhs streams, the
// lhs does not": 17.0 us against 20.1 for main's 64 x 256 split_k(2), one
// H200, cuBLAS 17.9).
// CHOICE: #weave.kernel<{{.*}}block = [384, 1, 1]
// CHOICE: weave.matmul_pipeline {{.*}} tile(128, 64, 64) stages(8) :

// A consumer holds 32 accumulators a thread: ptxas compiles the kernel in
// fewer registers than a block of 384 threads starts with and, not knowing
// the count at entry, would ignore setmaxnreg (warning C7508). The kernel
// declares one block an SM (.minnctapersm 1), which fixes the count at
// entry: setmaxnreg holds (without any, the kernel ran 19.5 us against
// 16.7). Each consumer issues tile_k / 16 = 4 wgmma of m64n64k16 a step.
// CHECK-LABEL: gpu.func @mm
//  CHECK-SAME:   nvvm.minctasm = 1 : i32
//       CHECK:   nvvm.setmaxregister decrease 40
//       CHECK:   nvvm.setmaxregister increase 232
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
//   CHECK-NOT: nvvm.wgmma.mma_async
// PTXAS-NOT: C7508
// PTXAS: Compiling entry function 'mm'
// PTXAS-NOT: C7508
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NEXT: Used 168 registers
// PTXAS-NOT: C7508
module attributes {gpu.container_module} {
gpu.module @m {
  gpu.func @mm(%a: memref<256x4096xbf16> {weave.name = "a"},
               %b: memref<4096x4096xbf16> {weave.name = "b"},
               %c: memref<256x4096xbf16> {weave.name = "c"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1],
          block = auto, cluster = auto, smem = auto>} {
    weave.matmul_pipeline %a, %b into %c tile(auto)
        : memref<256x4096xbf16>, memref<4096x4096xbf16> into memref<256x4096xbf16>
    gpu.return
  }
}
}
