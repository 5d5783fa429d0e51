// RUN: weave-opt %s -split-input-file -pass-pipeline='builtin.module(gpu.module(weave-peer-view-stores))' | FileCheck %s
// RUN: cp %S/Inputs/peer-view-store.mlir %t.d4.mlir
// RUN: weavec %t.d4.mlir --emit=ptx | FileCheck %s --check-prefix=D4PTX
// RUN: %if ptxas %{ weavec %t.d4.mlir --emit=bundle -o %t.d4.wbundle && weave-bundle %t.d4.wbundle | FileCheck %s --check-prefix=D4M %}
// RUN: sed -e 's/size = 4>/size = 12>/' %t.d4.mlir > %t.d12.mlir
// RUN: weavec %t.d12.mlir --emit=ptx | FileCheck %s --check-prefix=D12PTX
// RUN: %if ptxas %{ weavec %t.d12.mlir --emit=bundle -o %t.d12.wbundle && weave-bundle %t.d12.wbundle | FileCheck %s --check-prefix=D12M %}

// weave-peer-view-stores: a TMA store `on` a device known only at run time,
// in a kernel of a static team of D, becomes a switch on the distance
// (device + D - device_id) mod D whose case k is the same store `on
// (device_id + k) mod D` (a by-value peer view, offset k; k = 0 the
// member's own map, no `on`). Up to 8 distances; a team over 8 keeps the
// per-member table for distances of 8 and more, in a store after the
// switch.

// CHECK-LABEL: gpu.func @team_of_four
//       CHECK:   %[[DEV:.+]] = arith.index_cast
//       CHECK:   %[[ME:.+]] = weave.device_id "x"
//       CHECK:   %[[D:.+]] = arith.constant 4 : index
//       CHECK:   %[[UP:.+]] = arith.addi %[[DEV]], %[[D]] : index
//       CHECK:   %[[GAP:.+]] = arith.subi %[[UP]], %[[ME]] : index
//       CHECK:   %[[DIST:.+]] = arith.remui %[[GAP]], %[[D]] : index
//       CHECK:   scf.index_switch %[[DIST]]
//  CHECK-NEXT:   case 0 {
//  CHECK-NEXT:     weave.copy_smem_to_gmem %{{.+}}, %arg0[%{{.+}}, %{{.+}}] reduce(add) :
//  CHECK-NEXT:     scf.yield
//       CHECK:   case 1 {
//  CHECK-NEXT:     %[[C1:.+]] = arith.constant 1 : index
//  CHECK-NEXT:     %[[P1:.+]] = arith.addi %[[ME]], %[[C1]] : index
//  CHECK-NEXT:     %[[R1:.+]] = arith.remui %[[P1]], %[[D]] : index
//  CHECK-NEXT:     weave.copy_smem_to_gmem %{{.+}}, %arg0[%{{.+}}, %{{.+}}] reduce(add) on %[[R1]] :
//       CHECK:   case 2 {
//       CHECK:     on %{{.+}} :
//       CHECK:   case 3 {
//       CHECK:     on %{{.+}} :
//   CHECK-NOT:   case 4
//       CHECK:   default {
//  CHECK-NEXT:   }
//   CHECK-NOT:   weave.copy_smem_to_gmem
//       CHECK:   gpu.return
gpu.module @m {
  gpu.func @team_of_four(%dst: memref<256x64xf32, #weave.symmetric>, %owner: i32)
      workgroup(%tile: memref<64x32xf32, #gpu.address_space<workgroup>>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 4>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %dev = arith.index_cast %owner : i32 to index
    weave.copy_smem_to_gmem %tile, %dst[%c64, %c0] reduce(add) on %dev : memref<64x32xf32, #gpu.address_space<workgroup>> -> memref<256x64xf32, #weave.symmetric>
    gpu.return
  }
}

// -----

// Twelve members: distances 0-7 by value, then the table after the switch.
// CHECK-LABEL: gpu.func @team_of_twelve
//       CHECK:   %[[DEV:.+]] = arith.index_cast
//       CHECK:   %[[D:.+]] = arith.constant 12 : index
//       CHECK:   %[[DIST:.+]] = arith.remui %{{.+}}, %[[D]] : index
//       CHECK:   scf.index_switch %[[DIST]]
//       CHECK:   case 7 {
//       CHECK:     on %{{.+}} :
//   CHECK-NOT:   case 8
//       CHECK:   default {
//  CHECK-NEXT:   }
//       CHECK:   %[[C8:.+]] = arith.constant 8 : index
//       CHECK:   %[[FAR:.+]] = arith.cmpi uge, %[[DIST]], %[[C8]] : index
//       CHECK:   scf.if %[[FAR]] {
//  CHECK-NEXT:     weave.copy_smem_to_gmem %{{.+}}, %arg0[%{{.+}}, %{{.+}}] on %[[DEV]] :
//  CHECK-NEXT:   }
gpu.module @m {
  gpu.func @team_of_twelve(%dst: memref<256x64xf32, #weave.symmetric>, %owner: i32)
      workgroup(%tile: memref<64x32xf32, #gpu.address_space<workgroup>>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 12>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %dev = arith.index_cast %owner : i32 to index
    weave.copy_smem_to_gmem %tile, %dst[%c0, %c0] on %dev : memref<64x32xf32, #gpu.address_space<workgroup>> -> memref<256x64xf32, #weave.symmetric>
    gpu.return
  }
}

// -----

// Left as they are: a team whose size is known only at launch (the table),
// and a store to a constant offset from this member (already a peer view).
// CHECK-LABEL: gpu.func @dynamic_team
//   CHECK-NOT:   scf.index_switch
//       CHECK:   weave.copy_smem_to_gmem %{{.+}}, %arg0[%{{.+}}, %{{.+}}] on %{{.+}} :
//   CHECK-NOT:   scf.index_switch
// CHECK-LABEL: gpu.func @constant_offset
//   CHECK-NOT:   scf.index_switch
//       CHECK:   weave.copy_smem_to_gmem %{{.+}}, %arg0[%{{.+}}, %{{.+}}] on %{{.+}} :
//   CHECK-NOT:   scf.index_switch
gpu.module @m {
  gpu.func @dynamic_team(%dst: memref<256x64xf32, #weave.symmetric>, %owner: i32)
      workgroup(%tile: memref<64x32xf32, #gpu.address_space<workgroup>>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %dev = arith.index_cast %owner : i32 to index
    weave.copy_smem_to_gmem %tile, %dst[%c0, %c0] on %dev : memref<64x32xf32, #gpu.address_space<workgroup>> -> memref<256x64xf32, #weave.symmetric>
    gpu.return
  }
  gpu.func @constant_offset(%dst: memref<256x64xf32, #weave.symmetric>)
      workgroup(%tile: memref<64x32xf32, #gpu.address_space<workgroup>>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 4>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %me = weave.device_id "x"
    %next = arith.addi %me, %c1 : index
    %right = arith.remui %next, %c4 : index
    weave.copy_smem_to_gmem %tile, %dst[%c0, %c0] on %right : memref<64x32xf32, #gpu.address_space<workgroup>> -> memref<256x64xf32, #weave.symmetric>
    gpu.return
  }
}

// Through weavec (the pass is in its pipeline, before the manifest): at
// D = 4 the manifest lists the member's own map and one peer view per
// distance, no table, and the kernel fences no tensor map (no global-memory
// map); at D = 12 peer views 1-7, then the table, last in the manifest as
// in the cubin.
// D4PTX: .visible .entry store_to_owner(
// D4PTX-NOT: fence.proxy.tensormap
// D4PTX-COUNT-4: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [
// D4PTX-NOT: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [
// D4PTX-NOT: fence.proxy.tensormap
// D4M: kernel store_to_owner
// D4M-NOT: tma_table
// D4M: param tma dst.tma{{[0-9]+}} dtype=f32 source=0 box=32,64 swizzle=0 view=local
// D4M-NEXT: param tma dst.tma{{[0-9]+}} dtype=f32 source=0 box=32,64 swizzle=0 view=peer offset=1
// D4M-NEXT: param tma dst.tma{{[0-9]+}} dtype=f32 source=0 box=32,64 swizzle=0 view=peer offset=2
// D4M-NEXT: param tma dst.tma{{[0-9]+}} dtype=f32 source=0 box=32,64 swizzle=0 view=peer offset=3
// D4M-NEXT: end
// D12PTX: .visible .entry store_to_owner(
// D12PTX-COUNT-8: .param .align 64 .b8 store_to_owner_param_{{[0-9]+}}[128]
// D12PTX-NEXT: .param .u64 .ptr .global .align 1 store_to_owner_param_{{[0-9]+}}{{$}}
// D12PTX-NEXT: )
// D12PTX-COUNT-8: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [
// D12PTX: fence.proxy.tensormap::generic.acquire.sys
// D12PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [
// D12M: kernel store_to_owner
// D12M: view=local
// D12M-NEXT: view=peer offset=1
// D12M: view=peer offset=7
// D12M-NEXT: param tma_table dst.tma_table{{[0-9]+}}
// D12M-NEXT: end

