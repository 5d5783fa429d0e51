// RUN: weave-opt %s -weave-expand-pipelines | FileCheck %s

// tail_split with step regions and grid_tile_segments: with segments only
// a partial round that lies in the last segment splits (t <= its tiles:
// the segments are phases whose tiles may wait for earlier ones'
// forwarding elsewhere), and before_load's fourth argument is true on the
// first step of each unit: a whole tile's step 0, a split unit's first
// step inside the tile (where a region that waits once per tile must wait
// too).

// CHECK-LABEL: gpu.func @tail_split_regions
// None below 3 ways (2 after 2 whole rounds), none where the tail is more
// than the last segment's tiles.
//       CHECK:   arith.cmpi ult, %{{.*}}, %c3 : index
//       CHECK:   arith.cmpi ult, %{{.*}}, %c2{{.*}} : index
//       CHECK:   %[[SEG:.*]] = arith.muli %{{.*}}, %{{.*}} : index
//  CHECK-NEXT:   arith.cmpi ugt, %{{.*}}, %[[SEG]] : index
// The producer: a whole tile's loop from 0 and a split unit's from its
// first step, each telling before_load its first step.
//       CHECK:   nvvm.setmaxregister  decrease 40
//       CHECK:   scf.if %{{.*}} -> (index) {
//       CHECK:     scf.for %[[K:.*]] = %[[C0:.*]] to %{{.*}} step
//  CHECK-NEXT:     %[[F:.*]] = arith.cmpi eq, %[[K]], %[[C0]] : index
//  CHECK-NEXT:     scf.if %[[F]] {
//  CHECK-NEXT:       weave.semaphore_wait
//       CHECK:   } else {
//       CHECK:     scf.for %[[K2:.*]] = %[[B:.*]] to %{{.*}} step
//  CHECK-NEXT:     %[[F2:.*]] = arith.cmpi eq, %[[K2]], %[[B]] : index
//  CHECK-NEXT:     scf.if %[[F2]] {
//  CHECK-NEXT:       weave.semaphore_wait
gpu.module @m {
  gpu.func @tail_split_regions(%a: memref<?x4096xf16, #weave.symmetric>,
                               %b: memref<4096x4096xf16>,
                               %c: memref<?x4096xf16>,
                               %ready: !weave.semaphore<16>,
                               %ws: memref<4194848xf32>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>,
                  grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230000>} {
    %one = arith.constant 1 : i32
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4)
        workspace(%ws : memref<4194848xf32>)
        {grid_tile_segments = 2 : i64, tail_split = 4 : i64}
        : memref<?x4096xf16, #weave.symmetric>, memref<4096x4096xf16>
          into memref<?x4096xf16>
        before_load {
    ^bb0(%m: index, %n: index, %k: index, %first: i1):
      scf.if %first {
        weave.semaphore_wait %ready[%m], %one cmp(ge) : !weave.semaphore<16>
      }
    }
    gpu.return
  }
}
