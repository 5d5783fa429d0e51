// RUN: weave-opt %s -split-input-file -weave-to-llvm -verify-diagnostics | FileCheck %s --implicit-check-not=weave.

// A TMA load gets a 128-byte grid-constant tensor-map parameter after the
// team parameters and becomes cp.async.bulk.tensor (global to
// shared::cluster) completing on the mbarrier, coordinates innermost first.
// CHECK-LABEL: llvm.func @load
//  CHECK-SAME:   (%[[SRC:[^:]*]]: !llvm.ptr, %[[R:[^:]*]]: i32, %[[C:[^:]*]]: i32,
//  CHECK-SAME:    %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: !llvm.ptr<1>,
//  CHECK-SAME:    %[[MAP:[^:]*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
//   CHECK-NOT:   !llvm.ptr {llvm.align
//   CHECK-DAG:   %[[MAX:.*]] = llvm.mlir.constant(2147483647 : i64) : i64
//   CHECK-DAG:   %[[MIN:.*]] = llvm.mlir.constant(-2147483648 : i64) : i64
//       CHECK:   %[[SMEM:.*]] = llvm.mlir.addressof @{{.*}} : !llvm.ptr<3>
//   CHECK-DAG:   %[[ROW:.*]] = llvm.sext %[[R]] : i32 to i64
//   CHECK-DAG:   %[[COL:.*]] = llvm.sext %[[C]] : i32 to i64
//   CHECK-DAG:   %[[BAR:.*]] = llvm.getelementptr %[[SMEM]][16384] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
//       CHECK:   %[[DST:.*]] = llvm.addrspacecast %[[SMEM]] : !llvm.ptr<3> to !llvm.ptr<7>
// Coordinates are clamped to [INT32_MIN, INT32_MAX] before the truncation
// (a row past 2^32 was stored at a small row).
//   CHECK-DAG:   %[[COLLO:.*]] = llvm.intr.smin(%[[COL]], %[[MAX]]) : (i64, i64) -> i64
//   CHECK-DAG:   %[[COLC:.*]] = llvm.intr.smax(%[[COLLO]], %[[MIN]]) : (i64, i64) -> i64
//   CHECK-DAG:   %[[COL32:.*]] = llvm.trunc %[[COLC]] : i64 to i32
//   CHECK-DAG:   %[[ROWLO:.*]] = llvm.intr.smin(%[[ROW]], %[[MAX]]) : (i64, i64) -> i64
//   CHECK-DAG:   %[[ROWC:.*]] = llvm.intr.smax(%[[ROWLO]], %[[MIN]]) : (i64, i64) -> i64
//   CHECK-DAG:   %[[ROW32:.*]] = llvm.trunc %[[ROWC]] : i64 to i32
//       CHECK:   nvvm.cp.async.bulk.tensor.shared.cluster.global %[[DST]], %[[MAP]], %[[BAR]], box[%[[COL32]], %[[ROW32]]] : !llvm.ptr<7>, !llvm.ptr
//   CHECK-NOT:   nvvm.cp.async.bulk.commit.group
//       CHECK:   llvm.return
gpu.module @m {
  gpu.func @load(%src: memref<1024x4096xf16>, %r: i32, %c: i32) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1], smem = 32768>} {
    %row = arith.index_cast %r : i32 to index
    %col = arith.index_cast %c : i32 to index
    %c0 = arith.constant 0 : index
    %c16384 = arith.constant 16384 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %tile = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
    %bar = memref.view %smem[%c16384][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<i64, #gpu.address_space<workgroup>>
    weave.copy_gmem_to_smem %src[%row, %col], %tile, %bar {swizzle = 128} : memref<1024x4096xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// One tensor map per (buffer, box, swizzle): two loads of the same box
// share one; another swizzle, another box or another buffer need their own.
// A copy whose builder promises coordinates inside the tensor map (the
// matmul pipeline's, weave.coordinates_in_range) is truncated unclamped.
// CHECK-LABEL: llvm.func @load_in_range
//   CHECK-NOT:   llvm.intr.smin
//   CHECK-NOT:   llvm.intr.smax
//       CHECK:   nvvm.cp.async.bulk.tensor.shared.cluster.global
//       CHECK:   llvm.return
gpu.module @m {
  gpu.func @load_in_range(%src: memref<1024x4096xf16>, %r: i32, %c: i32) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1], smem = 32768>} {
    %row = arith.index_cast %r : i32 to index
    %col = arith.index_cast %c : i32 to index
    %c0 = arith.constant 0 : index
    %c16384 = arith.constant 16384 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %tile = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
    %bar = memref.view %smem[%c16384][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<i64, #gpu.address_space<workgroup>>
    weave.copy_gmem_to_smem %src[%row, %col], %tile, %bar {swizzle = 128, weave.coordinates_in_range} : memref<1024x4096xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// The promise belongs to TMA copies only.
gpu.module @m {
  gpu.func @misplaced(%s: !weave.semaphore, %v: i32) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    // expected-error @below {{'weave.coordinates_in_range' expects to be a unit attribute of weave.copy_gmem_to_smem or weave.copy_smem_to_gmem}}
    weave.semaphore_signal %s, %v {weave.coordinates_in_range} : !weave.semaphore
    gpu.return
  }
}

// -----

// CHECK-LABEL: llvm.func @maps
//  CHECK-SAME:   %{{[^:]*}}: !llvm.ptr<1>,
//  CHECK-SAME:   %[[M0:[^:]*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
//  CHECK-SAME:   %[[M1:[^:]*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
//  CHECK-SAME:   %[[M2:[^:]*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
//  CHECK-SAME:   %[[M3:[^:]*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
//       CHECK:   nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[M0]],
//       CHECK:   nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[M0]],
//       CHECK:   nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[M1]],
//       CHECK:   nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[M2]],
//       CHECK:   nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[M3]],
// A store of the same box and swizzle reuses the load's map.
//       CHECK:   nvvm.cp.async.bulk.tensor.global.shared.cta %[[M0]],
gpu.module @m {
  gpu.func @maps(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1], smem = 65536>} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c32768 = arith.constant 32768 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %tile = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
    %box = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
    %bar = memref.view %smem[%c32768][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<i64, #gpu.address_space<workgroup>>
    weave.copy_gmem_to_smem %a[%c0, %c0], %tile, %bar {swizzle = 128} : memref<1024x4096xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
    weave.copy_gmem_to_smem %a[%c0, %c64], %tile, %bar {swizzle = 128} : memref<1024x4096xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
    weave.copy_gmem_to_smem %a[%c0, %c0], %tile, %bar : memref<1024x4096xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
    weave.copy_gmem_to_smem %a[%c0, %c0], %box, %bar {swizzle = 128} : memref<1024x4096xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
    weave.copy_gmem_to_smem %b[%c0, %c0], %tile, %bar {swizzle = 128} : memref<4096x1024xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
    weave.copy_smem_to_gmem %tile, %a[%c64, %c0] {swizzle = 128} : memref<128x64xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xf16>
    gpu.return
  }
}

// -----

// In a kernel with TMA loads, an acquiring semaphore_wait is followed by
// fence.proxy.async.global: data a peer released is read by the async proxy.
// CHECK-LABEL: llvm.func @wait_then_load
//       CHECK:   ^[[SPIN:bb[0-9]+]]:
//  CHECK-NEXT:   llvm.inline_asm has_side_effects "ld.acquire.sys.global.u32 $0, [$1];"
//  CHECK-NEXT:   llvm.icmp "uge"
//  CHECK-NEXT:   llvm.cond_br %{{.*}}, ^[[DONE:bb[0-9]+]], ^[[SPIN]]
//       CHECK: ^[[DONE]]:
//  CHECK-NEXT:   nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
//       CHECK:   nvvm.cp.async.bulk.tensor.shared.cluster.global
gpu.module @m {
  gpu.func @wait_then_load(%src: memref<1024x4096xf16>, %sem: !weave.semaphore, %v: i32) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1], smem = 32768>} {
    %c0 = arith.constant 0 : index
    %c16384 = arith.constant 16384 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %tile = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
    %bar = memref.view %smem[%c16384][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<i64, #gpu.address_space<workgroup>>
    weave.semaphore_wait %sem, %v : !weave.semaphore
    weave.copy_gmem_to_smem %src[%c0, %c0], %tile, %bar {swizzle = 128} : memref<1024x4096xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// With decrement, the fence comes right after the spin, before the
// decrement.
// CHECK-LABEL: llvm.func @wait_decrement_then_load
//       CHECK:   llvm.cond_br %{{.*}}, ^[[DONE:bb[0-9]+]], ^{{bb[0-9]+}}
//       CHECK: ^[[DONE]]:
//  CHECK-NEXT:   nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
//       CHECK:   red.relaxed.sys.global.add.u32
//       CHECK:   nvvm.cp.async.bulk.tensor.shared.cluster.global
gpu.module @m {
  gpu.func @wait_decrement_then_load(%src: memref<1024x4096xf16>, %sem: !weave.semaphore, %v: i32) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [1, 1, 1], smem = 32768>} {
    %c0 = arith.constant 0 : index
    %c16384 = arith.constant 16384 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %tile = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
    %bar = memref.view %smem[%c16384][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<i64, #gpu.address_space<workgroup>>
    weave.semaphore_wait %sem, %v decrement : !weave.semaphore
    weave.copy_gmem_to_smem %src[%c0, %c0], %tile, %bar {swizzle = 128} : memref<1024x4096xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Without TMA loads (here with a TMA store only), no fence after the wait.
// CHECK-LABEL: llvm.func @wait_no_load
//       CHECK:   llvm.cond_br %{{.*}}, ^[[DONE:bb[0-9]+]], ^{{bb[0-9]+}}
//       CHECK: ^[[DONE]]:
//   CHECK-NOT:   nvvm.fence.proxy
//       CHECK:   nvvm.cp.async.bulk.tensor.global.shared.cta
//   CHECK-NOT:   nvvm.fence.proxy
//       CHECK:   llvm.return
gpu.module @m {
  gpu.func @wait_no_load(%dst: memref<1024x4096xf16>, %sem: !weave.semaphore, %v: i32) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1], smem = 32768>} {
    %c0 = arith.constant 0 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %tile = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
    weave.semaphore_wait %sem, %v : !weave.semaphore
    weave.copy_smem_to_gmem %tile, %dst[%c0, %c0] {swizzle = 128} : memref<128x64xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xf16>
    gpu.return
  }
}

// -----

// The tensor map is built from a kernel argument.
gpu.module @m {
  gpu.func @load_from_view(%src: memref<1024x4096xf16>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1], smem = 32768>} {
    %c0 = arith.constant 0 : index
    %c16384 = arith.constant 16384 : index
    %view = memref.subview %src[0, 0] [512, 4096] [1, 1] : memref<1024x4096xf16> to memref<512x4096xf16>
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %tile = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
    %bar = memref.view %smem[%c16384][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<i64, #gpu.address_space<workgroup>>
    // expected-error @below {{'weave.copy_gmem_to_smem' op expects its global buffer to be a kernel argument: the tensor map of a TMA copy is built on the host from the argument}}
    weave.copy_gmem_to_smem %view[%c0, %c0], %tile, %bar {swizzle = 128} : memref<512x4096xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// multicast(%mask): the same instruction with the 16-bit cluster mask, so
// every block whose bit is set gets the tile (and the complete_tx) at the
// same offset. The tensor map is the one an ordinary load would use.
// CHECK-LABEL: llvm.func @multicast
//       CHECK:   %[[MASK:.*]] = llvm.mlir.constant(3 : i16) : i16
//       CHECK:   nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] multicast_mask = %[[MASK]] : !llvm.ptr<7>, !llvm.ptr
gpu.module @m {
  gpu.func @multicast(%src: memref<1024x4096xf16>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [2, 1, 1], cluster = [2, 1, 1], block = [128, 1, 1], smem = 32768>} {
    %c0 = arith.constant 0 : index
    %c16384 = arith.constant 16384 : index
    %mask = arith.constant 3 : i16
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %tile = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
    %bar = memref.view %smem[%c16384][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<i64, #gpu.address_space<workgroup>>
    weave.copy_gmem_to_smem %src[%c0, %c0], %tile, %bar multicast(%mask) {swizzle = 128} : memref<1024x4096xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Loads from another device: a constant offset gets a by-value peer view,
// a run-time device entry %dev of a per-member table (a global pointer, after
// a tensormap proxy fence), as stores do.
// CHECK-LABEL: llvm.func @peer_loads
//  CHECK-SAME:   %[[VIEW:arg[0-9]+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %[[TABLE:arg[0-9]+]]: !llvm.ptr<1>)
//       CHECK:   nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[VIEW]], %{{.*}}, box
//       CHECK:   %[[ENTRY:.*]] = llvm.getelementptr %[[TABLE]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
//       CHECK:   %[[MAP:.*]] = llvm.addrspacecast %[[ENTRY]] : !llvm.ptr<1> to !llvm.ptr
//       CHECK:   nvvm.fence.proxy.acquire <sys> %[[MAP]]
//       CHECK:   nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAP]], %{{.*}}, box
gpu.module @m {
  gpu.func @peer_loads(%src: memref<1024x4096xf16, #weave.symmetric>, %owner: i32)
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

// -----

// l2(evict_last) on a load: the policy as the load's l2_cache_hint operand.
// CHECK-LABEL: llvm.func @load_l2_policy
//       CHECK:   %[[LAST:.*]] = llvm.mlir.constant(1508705875169116160 : i64) : i64
//       CHECK:   nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] l2_cache_hint = %[[LAST]] :
gpu.module @m {
  gpu.func @load_l2_policy(%src: memref<1024x4096xf16>, %r: i32, %c: i32) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1], smem = 32768>} {
    %row = arith.index_cast %r : i32 to index
    %col = arith.index_cast %c : i32 to index
    %c0 = arith.constant 0 : index
    %c16384 = arith.constant 16384 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %tile = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
    %bar = memref.view %smem[%c16384][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<i64, #gpu.address_space<workgroup>>
    weave.copy_gmem_to_smem %src[%row, %col], %tile, %bar l2(evict_last) {swizzle = 128} : memref<1024x4096xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
    gpu.return
  }
}
