// RUN: weave-opt %s --weave-expand-pipelines | FileCheck %s --implicit-check-not=weave.matmul_pipeline
// RUN: weavec %s --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: weavec %s --emit=mlir | FileCheck %s --check-prefix=ROUNDTRIP

// An epilogue that sends every box elsewhere needs no `into %out`: the
// output is lhs rows x rhs columns of `-> f32`, and no buffer stands
// behind it (the host allocated D x m x n x 4 bytes that were never
// written). Here each box is reduce-added into the next device's `acc`.
// CHECK-LABEL: gpu.func @no_out
//       CHECK:   %[[BOX:.*]] = memref.view {{.*}} to memref<64x32xf32, #gpu.address_space<workgroup>>
//       CHECK:   weave.copy_smem_to_gmem %[[BOX]], %{{.*}}[%{{.*}}, %{{.*}}] reduce(add) on %{{.*}} {swizzle = 128 : i64} : memref<64x32xf32, #gpu.address_space<workgroup>> -> memref<1024x1024xf32, #weave.symmetric>
// CHECK-COUNT-7: weave.copy_smem_to_gmem {{.*}} reduce(add) on
//   CHECK-NOT: weave.copy_smem_to_gmem
// Three tensor maps: a, b and the next device's acc; none for an out.
// PTX: .visible .entry no_out(
// PTX-COUNT-3: .param .align 64 .b8 no_out_param_{{[0-9]+}}[128]
// PTX-NOT: .param .align 64 .b8
// PTX: {
// PTX-COUNT-8: cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group
// ROUNDTRIP: weave.matmul_pipeline %{{.*}}, %{{.*}} tile(128, 256, 64) stages(4) : memref<1024x512xbf16>, memref<512x1024xbf16> -> f32 epilogue {
module attributes {gpu.container_module} {
gpu.module @m {
  gpu.func @no_out(%a: memref<1024x512xbf16> {weave.name = "a"},
                   %b: memref<512x1024xbf16> {weave.name = "b"},
                   %acc: memref<1024x1024xf32, #weave.symmetric> {weave.name = "acc"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>,
          grid = [132, 1, 1], block = [384, 1, 1], smem = 230464>} {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    weave.matmul_pipeline %a, %b tile(128, 256, 64) stages(4)
        : memref<1024x512xbf16>, memref<512x1024xbf16> -> f32
        epilogue {
    ^bb0(%box: memref<64x32xf32, #gpu.address_space<workgroup>>, %m: index, %n: index, %i: index):
      %me = weave.device_id "x"
      %d = weave.num_devices "x"
      %sum = arith.addi %me, %c1 : index
      %next = arith.remui %sum, %d : index
      %rb = arith.divui %i, %c8 : index
      %cb = arith.remui %i, %c8 : index
      %r0 = arith.muli %m, %c128 : index
      %r1 = arith.muli %rb, %c64 : index
      %row = arith.addi %r0, %r1 : index
      %q0 = arith.muli %n, %c256 : index
      %q1 = arith.muli %cb, %c32 : index
      %col = arith.addi %q0, %q1 : index
      weave.copy_smem_to_gmem %box, %acc[%row, %col] reduce(add) on %next
          : memref<64x32xf32, #gpu.address_space<workgroup>> -> memref<1024x1024xf32, #weave.symmetric>
    }
    gpu.return
  }
}
}
