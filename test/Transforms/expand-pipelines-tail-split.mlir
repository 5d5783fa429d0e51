// RUN: weave-opt %s -weave-expand-pipelines | FileCheck %s

// tail_split = 4: the launch's split s of the last round's tiles is
// computed at run time (min(4, workers / tail tiles, k steps / 4, the
// workspace's room), none below 3, or below 2 after 2 whole rounds); a
// whole tile keeps the constant k loop
// and the plain store, a split unit runs its k range and meets the others
// in the split-K fix-up (TileScheduler.h, SplitKFixup.h).

// CHECK-LABEL: gpu.func @tail_split
// The split: at most 4, W / tail, k steps / 4; none below 3, or below 2
// after 2 whole rounds (kLateTailSplitRounds).
//       CHECK:   %[[MAX:.*]] = arith.constant 4 : index
//       CHECK:   arith.minui %[[MAX]], %{{.*}} : index
//       CHECK:   %[[ROUNDS:.*]] = arith.constant 2 : index
//       CHECK:   %[[TWO:.*]] = arith.muli %{{.*}}, %[[ROUNDS]] : index
//       CHECK:   %[[EARLY:.*]] = arith.cmpi ult, %{{.*}}, %[[TWO]] : index
//       CHECK:   %[[MIN:.*]] = arith.constant 3 : index
//       CHECK:   %[[BELOW3:.*]] = arith.cmpi ult, %[[S:.*]], %[[MIN]] : index
//       CHECK:   arith.andi %[[BELOW3]], %[[EARLY]] : i1
//       CHECK:   %[[LATE:.*]] = arith.constant 2 : index
//       CHECK:   arith.cmpi ult, %[[S]], %[[LATE]] : index
// The producer: whole tiles from k step 0 to the constant 64 steps, split
// units over their range.
//       CHECK:   nvvm.setmaxregister  decrease 40
//       CHECK:   scf.if %{{.*}} -> (index) {
//       CHECK:     scf.for %{{.*}} = %c0{{.*}} to %[[NUMK:[0-9]+]] step
//       CHECK:   } else {
//       CHECK:     scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// The consumers: a whole tile stores at once; a split unit stores its
// partial, arrives (release) and waits for all the splits (acquire),
// counts itself past the wait, sums the splits' partials of the boxes it
// owns (kRegionsInFlight regions' loads at a time) and stores those boxes
// only; the split past the wait last resets the counter.
//       CHECK:   nvvm.setmaxregister  increase 232
//       CHECK:   scf.if %{{.*}} -> (index) {
//       CHECK:     scf.for %{{.*}} = %c0{{.*}} to %[[NUMK]] step
//       CHECK:     weave.copy_smem_to_gmem
// M is known at run time only, so a thread whose rows of the tile all lie
// past M neither stores nor sums its partial (SplitKFixup::skipRowsPast).
//       CHECK:   } else {
//       CHECK:     %[[PRESENT:.*]] = arith.cmpi ult, %{{.*}}, %dim{{.*}} : index
//       CHECK:     scf.if %[[PRESENT]] {
//       CHECK:       llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
//       CHECK:     fence.acq_rel.gpu;
//  CHECK-SAME:     red.relaxed.gpu.global.add.u32 [$0], 1;
//  CHECK-SAME:     ld.acquire.gpu.global.u32 arrived, [$0];
//       CHECK:     atom.relaxed.gpu.global.add.u32 $0, [$1], 1;
//       CHECK:     %[[OWNED:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
//       CHECK:     %[[SUMS:.*]] = arith.andi %[[OWNED]], %[[PRESENT]] : i1
//       CHECK:     scf.if %[[SUMS]] -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
//       CHECK:       scf.for
//       CHECK:         llvm.load volatile %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
//       CHECK:         llvm.load volatile %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// (M is known at run time only: the edge tile's boxes on its neighbour's
// rows are not stored either, MatmulTiling::shiftsEdgeTiles.)
//       CHECK:     %[[WRITES:.*]] = arith.andi %[[OWNED]], %{{.*}} : i1
//       CHECK:     scf.if %[[WRITES]] {
//       CHECK:       weave.copy_smem_to_gmem
//       CHECK:     st.relaxed.gpu.global.u32 [$0], 0;
gpu.module @m {
  gpu.func @tail_split(%a: memref<?x4096xf16>, %b: memref<4096x4096xf16>,
                       %c: memref<?x4096xf16>, %ws: memref<4194848xf32>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 1>,
                  grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230000>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4)
        workspace(%ws : memref<4194848xf32>) {tail_split = 4 : i64}
        : memref<?x4096xf16>, memref<4096x4096xf16> into memref<?x4096xf16>
    gpu.return
  }
}
