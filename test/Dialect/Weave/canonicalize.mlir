// RUN: weave-opt %s -canonicalize | FileCheck %s

gpu.module @fold {

// A static mesh folds num_devices to its size.
// CHECK-LABEL: gpu.func @num_devices_static
//  CHECK-SAME:   (%[[OUT:.*]]: memref<1xindex>)
//       CHECK:   %[[C4:.*]] = arith.constant 4 : index
//   CHECK-NOT:   weave.num_devices
//       CHECK:   memref.store %[[C4]], %[[OUT]]
gpu.func @num_devices_static(%out: memref<1xindex>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 4>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %n = weave.num_devices "x"
  %c0 = arith.constant 0 : index
  memref.store %n, %out[%c0] : memref<1xindex>
  gpu.return
}

// `size = ?` is chosen at launch: nothing to fold.
// CHECK-LABEL: gpu.func @num_devices_dynamic
//  CHECK-SAME:   (%[[OUT:.*]]: memref<1xindex>)
//       CHECK:   %[[N:.*]] = weave.num_devices "x"
//       CHECK:   memref.store %[[N]], %[[OUT]]
gpu.func @num_devices_dynamic(%out: memref<1xindex>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %n = weave.num_devices "x"
  %c0 = arith.constant 0 : index
  memref.store %n, %out[%c0] : memref<1xindex>
  gpu.return
}

// The ring arithmetic on a static mesh of one device folds away entirely:
// (device_id + 1) mod 1 is 0.
// CHECK-LABEL: gpu.func @ring_single_device
//  CHECK-SAME:   (%[[OUT:.*]]: memref<1xindex>)
//       CHECK:   %[[C0:.*]] = arith.constant 0 : index
//   CHECK-NOT:   arith.remui
//       CHECK:   memref.store %[[C0]], %[[OUT]][%[[C0]]]
gpu.func @ring_single_device(%out: memref<1xindex>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 1>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %me = weave.device_id "x"
  %n = weave.num_devices "x"
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %s = arith.addi %me, %c1 : index
  %next = arith.remui %s, %n : index
  memref.store %next, %out[%c0] : memref<1xindex>
  gpu.return
}

// device_id never folds, even on a static mesh.
// CHECK-LABEL: gpu.func @device_id_not_folded
//       CHECK:   weave.device_id "x"
gpu.func @device_id_not_folded(%out: memref<1xindex>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 4>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %me = weave.device_id "x"
  %c0 = arith.constant 0 : index
  memref.store %me, %out[%c0] : memref<1xindex>
  gpu.return
}

// Unused pure ops are erased.
// CHECK-LABEL: gpu.func @dead_pure_ops
//  CHECK-NEXT:   gpu.return
gpu.func @dead_pure_ops(%buf: memref<16xf32, #weave.symmetric>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %me = weave.device_id "x"
  %n = weave.num_devices "x"
  %r = weave.remote_ref %buf on %n : memref<16xf32, #weave.symmetric>
  gpu.return
}

// Side-effecting ops survive canonicalization.
// CHECK-LABEL: gpu.func @effects_kept
//       CHECK:   weave.semaphore_signal
//       CHECK:   weave.semaphore_wait
//       CHECK:   weave.wait_smem_to_gmem 0
gpu.func @effects_kept(%sem: !weave.semaphore) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %c1 = arith.constant 1 : i32
  weave.semaphore_signal %sem, %c1 : !weave.semaphore
  weave.semaphore_wait %sem, %c1 decrement scope(block) : !weave.semaphore
  weave.wait_smem_to_gmem 0
  gpu.return
}

}
