// RUN: weave-opt %s -split-input-file --weave-expand-pipelines | FileCheck %s --implicit-check-not=weave.matmul_pipeline
// RUN: weavec %s --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ weavec %s --emit=bundle -v -o %t.wbundle 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// The epilogue region replaces the store of each box: on the consumer's
// leader, with the box (swizzle 128 given to its stores), the tile indices
// and the box index in the tile; here a TMA reduce-add into the next
// device's f32 output, at the box's rows and columns. Each consumer owns 64
// rows x 256 columns: 8 boxes of 64 x 32 f32.
// CHECK-LABEL: gpu.func @reduce_to_next
//       CHECK: nvvm.fence.proxy
//       CHECK: scf.if %{{.*}} {
//       CHECK:   %[[BOX:.*]] = memref.view {{.*}} to memref<64x32xf32, #gpu.address_space<workgroup>>
//       CHECK:   weave.device_id "x"
//       CHECK:   weave.copy_smem_to_gmem %[[BOX]], %{{.*}}[%{{.*}}, %{{.*}}] reduce(add) on %{{.*}} {swizzle = 128 : i64} : memref<64x32xf32, #gpu.address_space<workgroup>> -> memref<1024x1024xf32, #weave.symmetric>
// CHECK-COUNT-7: weave.copy_smem_to_gmem {{.*}} reduce(add) on
//   CHECK-NOT: weave.copy_smem_to_gmem
//       CHECK: weave.wait_smem_to_gmem 0 read_only
// PTX-COUNT-8: cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group
// PTXAS: 0 bytes spill stores
module attributes {gpu.container_module} {
gpu.module @m {
  gpu.func @reduce_to_next(%a: memref<1024x512xbf16> {weave.name = "a"},
                           %b: memref<512x1024xbf16> {weave.name = "b"},
                           %c: memref<1024x1024xf32, #weave.symmetric> {weave.name = "c"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>,
          grid = [132, 1, 1], block = [384, 1, 1], smem = 230464>} {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4)
        : memref<1024x512xbf16>, memref<512x1024xbf16> into memref<1024x1024xf32, #weave.symmetric>
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
      weave.copy_smem_to_gmem %box, %c[%row, %col] reduce(add) on %next
          : memref<64x32xf32, #gpu.address_space<workgroup>> -> memref<1024x1024xf32, #weave.symmetric>
    }
    gpu.return
  }
}
}
