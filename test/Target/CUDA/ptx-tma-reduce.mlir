// RUN: weavec %s --emit=ptx | FileCheck %s
// RUN: %if ptxas %{ weavec %s --emit=cubin -o %t.cubin %}

// A TMA reduction: reduce(add) of an f32 box and reduce(max) of a bf16
// box, each one bulk group; ptxas accepts them.
// CHECK-LABEL: .visible .entry reduce(
//       CHECK: cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [%rd{{[0-9]+}}];
//  CHECK-NEXT: cp.async.bulk.commit_group;
//       CHECK: cp.reduce.async.bulk.tensor.2d.global.shared::cta.max.tile.bulk_group
//  CHECK-NEXT: cp.async.bulk.commit_group;
gpu.module @m {
gpu.func @reduce(%out: memref<256x64xf32> {weave.name = "out"}, %hout: memref<256x64xbf16> {weave.name = "hout"})
    workgroup(%box: memref<64x32xf32, #gpu.address_space<workgroup>>, %hbox: memref<64x64xbf16, #gpu.address_space<workgroup>>) kernel
    attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %c0 = arith.constant 0 : index
  %row = arith.constant 64 : index
  weave.copy_smem_to_gmem %box, %out[%row, %c0] reduce(add) : memref<64x32xf32, #gpu.address_space<workgroup>> -> memref<256x64xf32>
  weave.copy_smem_to_gmem %hbox, %hout[%row, %c0] reduce(max) : memref<64x64xbf16, #gpu.address_space<workgroup>> -> memref<256x64xbf16>
  weave.wait_smem_to_gmem 0
  gpu.return
}
}
