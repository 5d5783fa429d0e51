// RUN: weave-opt %s -weave-expand-pipelines | FileCheck %s

// before_load's six-argument form: the producer is told the tile's shape
// (tile_m, tile_n) as constants, so a region can turn the tile indices into
// element offsets (ig_matmul_add waits for the rows part a tile reads).

// CHECK-LABEL: gpu.func @before_load_tile
//       CHECK:   nvvm.setmaxregister  decrease 40
//       CHECK:   scf.for %[[K:.*]] = %[[C0:.*]] to %{{.*}} step
//       CHECK:     %[[ROW:.*]] = arith.muli %{{.*}}, %c128{{.*}} : index
//  CHECK-NEXT:     %[[COL:.*]] = arith.muli %{{.*}}, %c256{{.*}} : index
//  CHECK-NEXT:     %[[AT:.*]] = arith.addi %[[ROW]], %[[COL]] : index
//  CHECK-NEXT:     weave.semaphore_wait %{{.*}}[%[[AT]]]
gpu.module @m {
  gpu.func @before_load_tile(%a: memref<1024x4096xf16>,
                             %b: memref<4096x4096xf16>,
                             %c: memref<1024x4096xf16>,
                             %ready: !weave.semaphore<8192>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>,
                  grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230000>} {
    %one = arith.constant 1 : i32
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4)
        : memref<1024x4096xf16>, memref<4096x4096xf16> into memref<1024x4096xf16>
        before_load {
    ^bb0(%m: index, %n: index, %k: index, %first: i1, %tm: index, %tn: index):
      %row = arith.muli %m, %tm : index
      %col = arith.muli %n, %tn : index
      %at = arith.addi %row, %col : index
      weave.semaphore_wait %ready[%at], %one cmp(ge) : !weave.semaphore<8192>
    }
    gpu.return
  }
}
