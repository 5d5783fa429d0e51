// RUN: weave-opt %s -split-input-file -weave-to-llvm -verify-diagnostics | FileCheck %s --implicit-check-not=weave.

// A remote TMA store gets a 128-byte grid-constant tensor-map parameter after
// the team parameters and becomes cp.async.bulk.tensor + commit_group, with
// coordinates innermost first.
// CHECK-LABEL: llvm.func @remote_store
//  CHECK-SAME: %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: !llvm.ptr<1>,
//  CHECK-SAME: %[[MAP:.*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAP]], %{{.*}}, box[%[[COL:.*]], %[[ROW:.*]]]
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
gpu.module @m {
  gpu.func @remote_store(%dst: memref<256x64xf32, #weave.symmetric>)
      workgroup(%tile: memref<64x64xf32, #gpu.address_space<workgroup>>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
    %next = arith.addi %me, %c1 : index
    %right = arith.remui %next, %n : index
    %row = arith.muli %me, %c64 : index
    weave.copy_smem_to_gmem %tile, %dst[%row, %c0] on %right
        : memref<64x64xf32, #gpu.address_space<workgroup>> -> memref<256x64xf32, #weave.symmetric>
    gpu.return
  }
}

// -----

// A device known only at run time: the kernel gets a per-member table (a
// plain global pointer after the team parameters, no by-value tensor map)
// and uses entry %dev, 128 bytes apart, after a tensormap proxy fence at
// system scope (the host wrote the table).
// CHECK-LABEL: llvm.func @table_store
//  CHECK-SAME: %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: !llvm.ptr<1>, %[[TABLE:arg[0-9]+]]: !llvm.ptr<1>)
//   CHECK-DAG: %[[C128:.*]] = llvm.mlir.constant(128 : i64) : i64
//   CHECK-DAG: %[[BYTES:.*]] = llvm.mlir.constant(128 : i32) : i32
//       CHECK: %[[OFF:.*]] = llvm.mul %{{.*}}, %[[C128]] : i64
//       CHECK: %[[ENTRY:.*]] = llvm.getelementptr %[[TABLE]][%[[OFF]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
//       CHECK: %[[MAP:.*]] = llvm.addrspacecast %[[ENTRY]] : !llvm.ptr<1> to !llvm.ptr
//       CHECK: nvvm.fence.proxy.acquire <sys> %[[MAP]], %[[BYTES]]
//       CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAP]], %{{.*}}, box[%{{.*}}, %{{.*}}]
//  CHECK-NEXT: nvvm.cp.async.bulk.commit.group
gpu.module @m {
  gpu.func @table_store(%dst: memref<256x64xf32, #weave.symmetric>, %peer: i32)
      workgroup(%tile: memref<64x64xf32, #gpu.address_space<workgroup>>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %dev = arith.index_cast %peer : i32 to index
    weave.copy_smem_to_gmem %tile, %dst[%c0, %c0] on %dev
        : memref<64x64xf32, #gpu.address_space<workgroup>> -> memref<256x64xf32, #weave.symmetric>
    gpu.return
  }
}

// -----

// A peer view and a table over the same buffer are two parameters: the
// tensor map stays by value and grid-constant, the table a plain pointer;
// a reduce through the table reads the entry the same way.
// CHECK-LABEL: llvm.func @view_and_table
//  CHECK-SAME: %[[VIEW:arg[0-9]+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %[[TABLE:arg[0-9]+]]: !llvm.ptr<1>)
//       CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %[[VIEW]]
//       CHECK: %[[ENTRY:.*]] = llvm.getelementptr %[[TABLE]]
//       CHECK: %[[MAP:.*]] = llvm.addrspacecast %[[ENTRY]]
//       CHECK: nvvm.fence.proxy.acquire <sys> %[[MAP]]
//       CHECK: nvvm.cp.async.bulk.tensor.reduce %[[MAP]], %{{.*}} {redKind = #nvvm.tma_redux_kind<add>}
gpu.module @m {
  gpu.func @view_and_table(%dst: memref<256x64xf32, #weave.symmetric>, %owner: i32)
      workgroup(%tile: memref<64x64xf32, #gpu.address_space<workgroup>>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
    %next = arith.addi %me, %c1 : index
    %right = arith.remui %next, %n : index
    weave.copy_smem_to_gmem %tile, %dst[%c0, %c0] on %right
        : memref<64x64xf32, #gpu.address_space<workgroup>> -> memref<256x64xf32, #weave.symmetric>
    %dev = arith.index_cast %owner : i32 to index
    weave.copy_smem_to_gmem %tile, %dst[%c0, %c0] reduce(add) on %dev
        : memref<64x64xf32, #gpu.address_space<workgroup>> -> memref<256x64xf32, #weave.symmetric>
    gpu.return
  }
}

// -----

// The tensor map is built from a kernel argument, not from a view of one.
gpu.module @m {
  gpu.func @view_target(%dst: memref<256x64xf32>)
      workgroup(%tile: memref<64x64xf32, #gpu.address_space<workgroup>>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %view = memref.subview %dst[64, 0] [64, 64] [1, 1] : memref<256x64xf32> to memref<64x64xf32, strided<[64, 1], offset: 4096>>
    %cast = memref.cast %view : memref<64x64xf32, strided<[64, 1], offset: 4096>> to memref<64x64xf32, strided<[64, 1], offset: ?>>
    // expected-error @below {{'weave.copy_smem_to_gmem' op expects its global buffer to be a kernel argument: the tensor map of a TMA copy is built on the host from the argument}}
    weave.copy_smem_to_gmem %tile, %cast[%c0, %c0]
        : memref<64x64xf32, #gpu.address_space<workgroup>> -> memref<64x64xf32, strided<[64, 1], offset: ?>>
    gpu.return
  }
}

// -----

// reduce(add) into a peer's symmetric buffer: cp.reduce.async.bulk.tensor
// through the same tensor-map parameter, then commit_group.
// CHECK-LABEL: llvm.func @remote_reduce
//  CHECK-SAME: %[[MAP:arg[0-9]+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}
// CHECK: nvvm.cp.async.bulk.tensor.reduce %[[MAP]], %{{.*}}, box[%{{.*}}, %{{.*}}] {redKind = #nvvm.tma_redux_kind<add>}
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
gpu.module @m {
  gpu.func @remote_reduce(%dst: memref<256x64xf32, #weave.symmetric>)
      workgroup(%tile: memref<64x32xf32, #gpu.address_space<workgroup>>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
    %next = arith.addi %me, %c1 : index
    %right = arith.remui %next, %n : index
    weave.copy_smem_to_gmem %tile, %dst[%c0, %c0] reduce(add) on %right
        : memref<64x32xf32, #gpu.address_space<workgroup>> -> memref<256x64xf32, #weave.symmetric>
    gpu.return
  }
}

// -----

// (me + -1) remui n is not the host's (rank - 1) mod n: remui computes
// (rank + 2^64 - 1) mod n, another member at n = 3. It is not matched as a
// peer view (whose tensor map the host builds for the floored modulo) but
// goes through the per-member table, which uses the device the kernel
// computes; (me + n - 1) remui n stays a by-value peer view.
// CHECK-LABEL: llvm.func @negative_offset
//  CHECK-SAME:   %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %[[TABLE:arg[0-9]+]]: !llvm.ptr<1>)
//   CHECK-NOT:   llvm.byval
gpu.module @m {
  gpu.func @negative_offset(%dst: memref<256x64xf32, #weave.symmetric>)
      workgroup(%tile: memref<64x64xf32, #gpu.address_space<workgroup>>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cm1 = arith.constant -1 : index
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
    %last = arith.subi %n, %c1 : index
    %prev = arith.addi %me, %last : index
    %left = arith.remui %prev, %n : index
    weave.copy_smem_to_gmem %tile, %dst[%c0, %c0] on %left
        : memref<64x64xf32, #gpu.address_space<workgroup>> -> memref<256x64xf32, #weave.symmetric>
    %wrapped = arith.addi %me, %cm1 : index
    %bad = arith.remui %wrapped, %n : index
    weave.copy_smem_to_gmem %tile, %dst[%c0, %c0] on %bad
        : memref<64x64xf32, #gpu.address_space<workgroup>> -> memref<256x64xf32, #weave.symmetric>
    gpu.return
  }
}

// -----

// l2(evict_first) / l2(evict_last): the cache policy createpolicy.fractional
// gives for a fraction of 1.0, as the 64-bit l2_cache_hint operand of the
// store (0x12F0000000000000, 0x14F0000000000000); none without l2(...).
// CHECK-LABEL: llvm.func @store_l2_policy
//   CHECK-DAG: %[[FIRST:.*]] = llvm.mlir.constant(1364590687093260288 : i64) : i64
//   CHECK-DAG: %[[LAST:.*]] = llvm.mlir.constant(1508705875169116160 : i64) : i64
//       CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] l2_cache_hint = %[[FIRST]] :
//       CHECK: nvvm.cp.async.bulk.tensor.reduce %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] l2_cache_hint = %[[LAST]] {redKind = #nvvm.tma_redux_kind<add>}
//       CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] :
gpu.module @m {
  gpu.func @store_l2_policy(%dst: memref<256x64xf32, #weave.symmetric>)
      workgroup(%tile: memref<64x64xf32, #gpu.address_space<workgroup>>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
    %next = arith.addi %me, %c1 : index
    %right = arith.remui %next, %n : index
    weave.copy_smem_to_gmem %tile, %dst[%c0, %c0] l2(evict_first) on %right
        : memref<64x64xf32, #gpu.address_space<workgroup>> -> memref<256x64xf32, #weave.symmetric>
    weave.copy_smem_to_gmem %tile, %dst[%c0, %c0] reduce(add) l2(evict_last) on %right
        : memref<64x64xf32, #gpu.address_space<workgroup>> -> memref<256x64xf32, #weave.symmetric>
    weave.copy_smem_to_gmem %tile, %dst[%c0, %c0] on %right
        : memref<64x64xf32, #gpu.address_space<workgroup>> -> memref<256x64xf32, #weave.symmetric>
    gpu.return
  }
}
