// lhs_rows in the protocol checker: the pipeline loads the row tiles of
// lhs_rows' range from the part, not from lhs. Here member r's pipeline
// reads row tile 0 of its `a` from `own` (lhs_rows at row 0) while the
// previous member puts row tile 0 of its `a`: the put and the loads touch
// different buffers, so nothing orders them and nothing needs to. Without
// the part, or with it at another row, the pipeline loads row tile 0 of
// `a` and races with the put. One launch: no protocol between launches.
//
// RUN: weavec --check-protocol --launches 1 %s | FileCheck %s
// CHECK: protocol check passed: 1 kernel, team sizes 2,3,4,8, {{.*}} 1 launches
//
// RUN: sed -e 's/ lhs_rows(.*)$//' %s > %t.nopart.mlir
// RUN: not weavec --check-protocol --launches 1 %t.nopart.mlir 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: sed -e 's/own at %%c0/own at %%c128/' %s > %t.moved.mlir
// RUN: not weavec --check-protocol --launches 1 %t.moved.mlir 2>&1 | FileCheck %s --check-prefix=RACE
// RACE: error: race: a put (remote write) by member {{[0-9]}} (launch 0) writes bytes [0, 16384) of member {{[0-9]}}'s 'a' while the pipeline's TMA load by member {{[0-9]}} (launch 0, pipeline producer) reads bytes [0, 16384)
module attributes {gpu.container_module} {
gpu.module @part {
  gpu.func @part(%a: memref<512x64xbf16, #weave.symmetric> {weave.name = "a"},
                 %own: memref<128x64xbf16> {weave.name = "own"},
                 %b: memref<64x256xbf16> {weave.name = "b"},
                 %c: memref<512x256xbf16> {weave.name = "c"},
                 %src: memref<128x64xbf16> {weave.name = "src"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>,
          grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %me = weave.device_id "x"
    %d = weave.num_devices "x"
    %sum = arith.addi %me, %c1 : index
    %next = arith.remui %sum, %d : index
    %blk = gpu.block_id x
    %b0 = arith.cmpi eq, %blk, %c0 : index
    scf.if %b0 {
      %rows = memref.subview %a[0, 0] [128, 64] [1, 1] : memref<512x64xbf16, #weave.symmetric> to memref<128x64xbf16, strided<[64, 1]>, #weave.symmetric>
      weave.put %src, %rows on %next : memref<128x64xbf16> -> memref<128x64xbf16, strided<[64, 1]>, #weave.symmetric>
    }
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) lhs_rows(%own at %c0 : memref<128x64xbf16>)
        : memref<512x64xbf16, #weave.symmetric>, memref<64x256xbf16> into memref<512x256xbf16>
    gpu.return
  }
}
}
