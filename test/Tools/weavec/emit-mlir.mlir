// --emit=mlir is the default: both print the verified IR back.
// RUN: weavec %s | FileCheck %s
// RUN: weavec --emit=mlir %s | FileCheck %s

// CHECK-LABEL: gpu.func @ring
//  CHECK-SAME:   weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>
//       CHECK:   %[[ME:.*]] = weave.device_id "x"
//       CHECK:   weave.semaphore_signal %{{.*}}, %{{.*}} on %{{.*}} : !weave.semaphore

gpu.module @m {
  gpu.func @ring(%sem: !weave.semaphore) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %s = arith.addi %me, %c1 : index
    %right = arith.remui %s, %n : index
    weave.semaphore_signal %sem, %one on %right : !weave.semaphore
    gpu.return
  }
}
