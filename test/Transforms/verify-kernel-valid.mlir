// RUN: weave-opt %s -weave-verify-kernel | FileCheck %s

// The pass only checks: a valid kernel comes out unchanged.

gpu.module @m {

// CHECK-LABEL: gpu.func @ring_exchange
//  CHECK-SAME:   (%[[SRC:.*]]: memref<1024xf32>, %[[BUF:.*]]: memref<1024xf32, #weave.symmetric>, %[[SEM:.*]]: !weave.semaphore)
//       CHECK:   %[[ME:.*]] = weave.device_id "x"
//       CHECK:   %[[N:.*]] = weave.num_devices "x"
//       CHECK:   %[[RIGHT:.*]] = arith.remui
//       CHECK:   weave.put %[[SRC]], %[[BUF]] on %[[RIGHT]]
//       CHECK:   gpu.barrier
//       CHECK:   weave.semaphore_signal %[[SEM]], %{{.*}} on %[[RIGHT]] : !weave.semaphore
//       CHECK:   weave.semaphore_wait %[[SEM]], %{{.*}} decrement scope(block) : !weave.semaphore
gpu.func @ring_exchange(%src: memref<1024xf32>, %buf: memref<1024xf32, #weave.symmetric>, %sem: !weave.semaphore) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %me = weave.device_id "x"
  %n = weave.num_devices "x"
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %s = arith.addi %me, %c1 : index
  %right = arith.remui %s, %n : index
  weave.put %src, %buf on %right : memref<1024xf32> -> memref<1024xf32, #weave.symmetric>
  gpu.barrier
  weave.semaphore_signal %sem, %one on %right : !weave.semaphore
  weave.semaphore_wait %sem, %one decrement scope(block) : !weave.semaphore
  gpu.return
}

// A non-weave gpu.func is left alone. (With a dynamic shape it is
// rejected: the lowering cannot pass it; see verify-kernel-lowering.mlir.)
// CHECK-LABEL: gpu.func @plain_kernel
//  CHECK-SAME:   memref<16xf32>
gpu.func @plain_kernel(%a: memref<16xf32>) kernel {
  gpu.return
}

}

// Functions without weave ops are ignored.
// CHECK-LABEL: func.func @host
func.func @host() {
  return
}
