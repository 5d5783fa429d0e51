// RUN: weavec %s --emit=ptx | FileCheck %s
// RUN: %if ptxas %{ weavec %s --emit=bundle -o %t.wbundle %}
// RUN: %if ptxas %{ grep -a -E "^ *param" %t.wbundle | FileCheck %s --check-prefix=MANIFEST %}

// A TMA reduce-add into a member known only at run time: the kernel's last
// parameter is a pointer to a table of one tensor map per member; it reads
// entry %owner (128 bytes apart), fences the tensormap proxy at system
// scope, and hands that address to cp.reduce.async.bulk.tensor. ptxas
// accepts it.
// (PTX ISA 8.3 for the fence; kernels without a table keep 8.0.)
//       CHECK: .version 8.3
// CHECK-LABEL: .visible .entry table(
//   CHECK-NOT: .param .align 64
//       CHECK: .param .u64 .ptr .global .align 1 table_param_5
//  CHECK-NEXT: )
//       CHECK: mul.wide.s32 %rd[[OFF:[0-9]+]], %r{{[0-9]+}}, 128;
//       CHECK: ld.param.b64 %rd[[TABLE:[0-9]+]], [table_param_5];
//       CHECK: add.s64 %rd[[ENTRY:[0-9]+]], %rd[[TABLE]], %rd[[OFF]];
//       CHECK: cvta.global.u64 %rd[[MAP:[0-9]+]], %rd[[ENTRY]];
//       CHECK: fence.proxy.tensormap::generic.acquire.sys [%rd[[MAP]]], 128;
//       CHECK: cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd[[MAP]], {%r{{[0-9]+}}, %r{{[0-9]+}}}], [%rd{{[0-9]+}}];

// MANIFEST:      param symmetric acc dtype=f32 shape=256,64 align=16
// MANIFEST-NEXT: param scalar owner dtype=i32
// MANIFEST-NEXT: param rank rank
// MANIFEST-NEXT: param team_size team_size
// MANIFEST-NEXT: param peer_bases peer_bases
// MANIFEST-NEXT: param tma_table acc.tma_table0 dtype=f32 source=0 box=32,64 swizzle=0
gpu.module @m {
gpu.func @table(%acc: memref<256x64xf32, #weave.symmetric> {weave.name = "acc"}, %owner: i32 {weave.name = "owner"})
    workgroup(%box: memref<64x32xf32, #gpu.address_space<workgroup>>) kernel
    attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %c0 = arith.constant 0 : index
  %row = arith.constant 64 : index
  %dev = arith.index_cast %owner : i32 to index
  weave.copy_smem_to_gmem %box, %acc[%row, %c0] reduce(add) on %dev : memref<64x32xf32, #gpu.address_space<workgroup>> -> memref<256x64xf32, #weave.symmetric>
  weave.wait_smem_to_gmem 0
  gpu.return
}
}
