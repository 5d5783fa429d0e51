// walk_m in the protocol checker: the pipeline loads only the row tiles of
// its bounded walk, rotated. Here member r's pipeline walks row tiles
// 1, 2, 3 of its 4 (rotate_m(1) walk_m(3)) while the previous member puts
// row tile 0 of its `a`: the put and the loads touch different rows, so
// nothing orders them and nothing needs to. Without the bound the walk
// loads row tile 0 too, and without the rotation it loads rows 0..2: both
// race with the put. A bound that is not whole clusters, where the kernel
// traps, is reported as not modelled. One launch: no protocol between
// launches here.
//
// RUN: weavec --check-protocol --launches 1 %s | FileCheck %s
// CHECK: protocol check passed: 1 kernel, team sizes 2,3,4,8, {{.*}} 1 launches
//
// RUN: sed -e 's/ walk_m(%%c3)//' %s > %t.nowalk.mlir
// RUN: not weavec --check-protocol --launches 1 %t.nowalk.mlir 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: sed -e 's/rotate_m(%%c1) //' %s > %t.norot.mlir
// RUN: not weavec --check-protocol --launches 1 %t.norot.mlir 2>&1 | FileCheck %s --check-prefix=RACE
// RACE: error: race: a put (remote write) by member {{[0-9]}} (launch 0) writes bytes [0, 16384) of member {{[0-9]}}'s 'a' while the pipeline's TMA load by member {{[0-9]}} (launch 0, pipeline producer) reads bytes [0, 16384)
//
// RUN: sed -e 's/stages(4)$/stages(4) cluster_m(2)/' -e 's/walk_m(%%c3)/walk_m(%%me)/' -e 's/block = \[384, 1, 1\],/block = [384, 1, 1], cluster = [2, 1, 1],/' %s > %t.cluster.mlir
// RUN: not weavec --check-protocol --launches 1 %t.cluster.mlir 2>&1 | FileCheck %s --check-prefix=CLUSTER
// CLUSTER: error: protocol check: not modelled: a walk_m (1) that is not a multiple of cluster_m (2), where the kernel traps
module attributes {gpu.container_module} {
gpu.module @walk {
  gpu.func @walk(%a: memref<512x64xbf16, #weave.symmetric> {weave.name = "a"},
                 %b: memref<64x256xbf16> {weave.name = "b"},
                 %c: memref<512x256xbf16> {weave.name = "c"},
                 %src: memref<128x64xbf16> {weave.name = "src"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>,
          grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>} {
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %me = weave.device_id "x"
    %d = weave.num_devices "x"
    %sum = arith.addi %me, %c1 : index
    %next = arith.remui %sum, %d : index
    %blk = gpu.block_id x
    %c0 = arith.constant 0 : index
    %b0 = arith.cmpi eq, %blk, %c0 : index
    scf.if %b0 {
      %rows = memref.subview %a[0, 0] [128, 64] [1, 1] : memref<512x64xbf16, #weave.symmetric> to memref<128x64xbf16, strided<[64, 1]>, #weave.symmetric>
      weave.put %src, %rows on %next : memref<128x64xbf16> -> memref<128x64xbf16, strided<[64, 1]>, #weave.symmetric>
    }
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4)
        rotate_m(%c1) walk_m(%c3)
        : memref<512x64xbf16, #weave.symmetric>, memref<64x256xbf16> into memref<512x256xbf16>
    gpu.return
  }
}
}
