// Input from stdin, implicitly and as "-".
// RUN: weavec < %s | FileCheck %s
// RUN: weavec - < %s | FileCheck %s

// CHECK-LABEL: gpu.func @k
//  CHECK-SAME:   (%[[SEM:.*]]: !weave.semaphore)
//       CHECK:   weave.semaphore_wait %[[SEM]], %{{.*}} decrement scope(block) : !weave.semaphore

gpu.module @m {
  gpu.func @k(%sem: !weave.semaphore) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %one = arith.constant 1 : i32
    weave.semaphore_wait %sem, %one decrement scope(block) : !weave.semaphore
    gpu.return
  }
}
