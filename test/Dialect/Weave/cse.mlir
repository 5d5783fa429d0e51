// RUN: weave-opt %s -cse | FileCheck %s

// device_id, num_devices and remote_ref are pure: identical ones merge.

gpu.module @cse {

// CHECK-LABEL: gpu.func @identity_merged
//       CHECK:   %[[ME:.*]] = weave.device_id "x"
//   CHECK-NOT:   weave.device_id
//       CHECK:   arith.addi %[[ME]], %[[ME]]
gpu.func @identity_merged(%out: memref<1xindex>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %a = weave.device_id "x"
  %b = weave.device_id "x"
  %s = arith.addi %a, %b : index
  %c0 = arith.constant 0 : index
  memref.store %s, %out[%c0] : memref<1xindex>
  gpu.return
}

// CHECK-LABEL: gpu.func @remote_ref_merged
//  CHECK-SAME:   (%[[BUF:.*]]: memref<16xf32, #weave.symmetric>, %[[DEV:.*]]: index,
//       CHECK:   %[[R:.*]] = weave.remote_ref %[[BUF]] on %[[DEV]]
//   CHECK-NOT:   weave.remote_ref
//       CHECK:   %[[X:.*]] = memref.load %[[R]]
//       CHECK:   memref.store %[[X]]
//       CHECK:   memref.store %[[X]]
gpu.func @remote_ref_merged(%buf: memref<16xf32, #weave.symmetric>, %dev: index, %out: memref<2xf32>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %c0 = arith.constant 0 : index
  %r1 = weave.remote_ref %buf on %dev : memref<16xf32, #weave.symmetric>
  %x = memref.load %r1[%c0] : memref<16xf32, #weave.symmetric>
  %r2 = weave.remote_ref %buf on %dev : memref<16xf32, #weave.symmetric>
  %y = memref.load %r2[%c0] : memref<16xf32, #weave.symmetric>
  %c1 = arith.constant 1 : index
  memref.store %x, %out[%c0] : memref<2xf32>
  memref.store %y, %out[%c1] : memref<2xf32>
  gpu.return
}

// Waits have effects and are never merged.
// CHECK-LABEL: gpu.func @waits_not_merged
//       CHECK:   weave.semaphore_wait
//       CHECK:   weave.semaphore_wait
gpu.func @waits_not_merged(%sem: !weave.semaphore) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %c1 = arith.constant 1 : i32
  weave.semaphore_wait %sem, %c1 : !weave.semaphore
  weave.semaphore_wait %sem, %c1 : !weave.semaphore
  gpu.return
}

}
