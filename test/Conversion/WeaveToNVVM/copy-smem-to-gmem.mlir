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

// The host builds a peer view's tensor map, so it must be able to compute
// the peer: anything but (device_id + c) mod num_devices is an error.
gpu.module @m {
  gpu.func @bad_peer(%dst: memref<256x64xf32, #weave.symmetric>, %peer: i32)
      workgroup(%tile: memref<64x64xf32, #gpu.address_space<workgroup>>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %dev = arith.index_cast %peer : i32 to index
    // expected-error @below {{expects the device of a TMA store to another device to be (device_id + c) mod num_devices for a constant c}}
    weave.copy_smem_to_gmem %tile, %dst[%c0, %c0] on %dev
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
