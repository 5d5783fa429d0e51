// RUN: weavec %s --emit=ptx | FileCheck %s
// RUN: %if ptxas %{ weavec %s --emit=bundle -o %t.wbundle %}
// RUN: %if ptxas %{ grep -a -E "^ *param tma" %t.wbundle | FileCheck %s --check-prefix=MANIFEST %}

// TMA loads from other members' copies of a symmetric buffer: from the next
// member (a by-value peer view) and from a member known only at run time
// (entry %owner of the per-member table, fenced first). ptxas accepts both.
// CHECK-LABEL: .visible .entry peer_load(
//       CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd[[DST:[0-9]+]]], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], {{\[}}[[BAR:__wg_peer_load_[0-9]+]]{{\]}};
//   CHECK-NOT: cp.async.bulk.tensor
//       CHECK: fence.proxy.tensormap::generic.acquire.sys [%rd[[MAP:[0-9]+]]], 128;
//  CHECK-NEXT: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd[[DST]]], [%rd[[MAP]], {%r{{[0-9]+}}, %r{{[0-9]+}}}], {{\[}}[[BAR]]{{\]}};

// MANIFEST:      param tma src.tma0 dtype=f16 source=0 box=64,128 swizzle=128 view=peer offset=1
// MANIFEST-NEXT: param tma_table src.tma_table1 dtype=f16 source=0 box=64,128 swizzle=128
gpu.module @m {
gpu.func @peer_load(%src: memref<1024x4096xf16, #weave.symmetric> {weave.name = "src"}, %owner: i32 {weave.name = "owner"})
    workgroup(%tile: memref<128x64xf16, #gpu.address_space<workgroup>>, %bar: memref<i64, #gpu.address_space<workgroup>>) kernel
    attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %me = weave.device_id "x"
  %n = weave.num_devices "x"
  %next = arith.addi %me, %c1 : index
  %right = arith.remui %next, %n : index
  weave.copy_gmem_to_smem %src[%c0, %c0], %tile, %bar on %right {swizzle = 128} : memref<1024x4096xf16, #weave.symmetric> -> memref<128x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
  %dev = arith.index_cast %owner : i32 to index
  weave.copy_gmem_to_smem %src[%c0, %c0], %tile, %bar on %dev {swizzle = 128} : memref<1024x4096xf16, #weave.symmetric> -> memref<128x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
  gpu.return
}
}
