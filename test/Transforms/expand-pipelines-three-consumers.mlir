// RUN: weave-opt %s --weave-configure-pipelines | FileCheck %s --check-prefix=CHOICE
// RUN: weave-opt %s --weave-configure-pipelines --weave-expand-pipelines | FileCheck %s
// RUN: %if ptxas %{ weavec %s --emit=bundle -v -o %t.wbundle 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// The 192 x 192 tile: three consumer warpgroups of 64 x 192 each (split
// M) beside the producer, a block of 512 threads, 3 stages of 48 KB. At
// 1152 x 4096 its 6 x 22 = 132 tiles fill one round of 132 SMs, where 128
// x 256 leaves 12 of 144 tiles to a second round (docs/PERF.md "The 192 x
// 192 tile": 0.0515 against 0.0595 ms on one H200, cuBLAS 0.0520).
// CHOICE: #weave.kernel<{{.*}}block = [512, 1, 1]
// CHOICE: weave.matmul_pipeline {{.*}} tile(192, 192, 64) stages(3) {consumers = 3 : i64}

// 512 threads start at 128 registers each: the producer keeps 48 and the
// consumers take 152 (128 x 48 + 384 x 152 = 64512 of 65536). Each
// consumer issues tile_k / 16 = 4 wgmma of m64n192k16 a step, and all
// three hand the slot back (three arrivals on its empty barrier).
// CHECK-LABEL: gpu.func @mm
//       CHECK:   nvvm.mbarrier.init %{{.*}}, %c3_i32
//       CHECK:   nvvm.setmaxregister decrease 48
//       CHECK:   nvvm.setmaxregister increase 152
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 192, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
//   CHECK-NOT: nvvm.wgmma.mma_async
// PTXAS: Compiling entry function 'mm'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
module attributes {gpu.container_module} {
gpu.module @m {
  gpu.func @mm(%a: memref<1152x4096xbf16> {weave.name = "a"},
               %b: memref<4096x4096xbf16> {weave.name = "b"},
               %c: memref<1152x4096xbf16> {weave.name = "c"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1],
          block = auto, cluster = auto, smem = auto>} {
    weave.matmul_pipeline %a, %b into %c tile(auto)
        : memref<1152x4096xbf16>, memref<4096x4096xbf16> into memref<1152x4096xbf16>
    gpu.return
  }
}
}
