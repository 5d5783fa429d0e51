// RUN: weave-opt %s --weave-expand-pipelines | FileCheck %s --implicit-check-not=weave.matmul_pipeline
// RUN: weavec %s --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ weavec %s --emit=bundle -v -o %t.wbundle 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// The combine region rewrites each box in shared memory before its store,
// on all 128 threads of the consumer warpgroup: here a residual add (out =
// a @ b + r, in f32, rounded once to bf16), each thread taking 4 of the
// box's 512 16-byte chunks. The expansion writes the round's boxes,
// synchronizes the warpgroup (bar.sync on its named barrier), runs the
// region per box with the box view, m, n, the box index and the lane, then
// fences the box to the async proxy and synchronizes before the leader's
// TMA stores. Each consumer owns 64 rows x 256 columns: 4 boxes of 64 x 64
// bf16, 2 per round.
// CHECK-LABEL: gpu.func @residual
//       CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
//       CHECK: memref.view {{.*}} to memref<64x64xbf16, #gpu.address_space<workgroup>>
//       CHECK: vector.load %arg2[
//       CHECK: vector.store {{.*}} : memref<64x64xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
//       CHECK: vector.load %arg2[
//       CHECK: nvvm.fence.proxy
//       CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
//       CHECK: scf.if
//       CHECK: weave.copy_smem_to_gmem
// PTX: bar.sync
// PTX: fence.proxy.async.shared::cta
// PTX: cp.async.bulk.tensor.2d.global.shared::cta
// PTXAS: 0 bytes spill stores
module attributes {gpu.container_module} {
gpu.module @m {
  gpu.func @residual(%a: memref<1024x512xbf16> {weave.name = "a"},
                     %b: memref<512x1024xbf16> {weave.name = "b"},
                     %r: memref<1024x1024xbf16> {weave.name = "r"},
                     %c: memref<1024x1024xbf16> {weave.name = "c"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = 1>,
          grid = [132, 1, 1], block = [384, 1, 1], smem = 230464>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %c512 = arith.constant 512 : index
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4)
        : memref<1024x512xbf16>, memref<512x1024xbf16> into memref<1024x1024xbf16>
        combine {
    ^bb0(%box: memref<64x64xbf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %i: index, %lane: index):
      %rb = arith.divui %i, %c4 : index
      %cb = arith.remui %i, %c4 : index
      %r0 = arith.muli %m, %c128 : index
      %r1 = arith.muli %rb, %c64 : index
      %row0 = arith.addi %r0, %r1 : index
      %q0 = arith.muli %n, %c256 : index
      %q1 = arith.muli %cb, %c64 : index
      %col0 = arith.addi %q0, %q1 : index
      // Chunk v: logical chunk v mod 8 of row v / 8, stored at chunk
      // (v mod 8) xor (row mod 8) of that row.
      scf.for %v = %lane to %c512 step %c128 {
        %row = arith.divui %v, %c8 : index
        %chunk = arith.remui %v, %c8 : index
        %phase = arith.remui %row, %c8 : index
        %swz = arith.xori %chunk, %phase : index
        %at = arith.muli %swz, %c8 : index
        %col = arith.muli %chunk, %c8 : index
        %own = vector.load %box[%row, %at] {alignment = 16 : i64} : memref<64x64xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
        %grow = arith.addi %row0, %row : index
        %gcol = arith.addi %col0, %col : index
        %res = vector.load %r[%grow, %gcol] {alignment = 16 : i64} : memref<1024x1024xbf16>, vector<8xbf16>
        %ownf = arith.extf %own : vector<8xbf16> to vector<8xf32>
        %resf = arith.extf %res : vector<8xbf16> to vector<8xf32>
        %sum = arith.addf %ownf, %resf : vector<8xf32>
        %out = arith.truncf %sum : vector<8xf32> to vector<8xbf16>
        vector.store %out, %box[%row, %at] {alignment = 16 : i64} : memref<64x64xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
      }
    }
    gpu.return
  }
}
}
