// RUN: weave-opt %s -weave-to-llvm | FileCheck %s --implicit-check-not=weave.

// On a static mesh the pipeline's canonicalizer folds num_devices to the
// mesh size before the conversion: no read of the team_size parameter.

module {
gpu.module @ids {

// CHECK-LABEL: llvm.func @num_devices_static
//  CHECK-SAME:   (%[[OUT:[^:]+]]: !llvm.ptr, %[[RANK:[^:]+]]: i32, %[[TEAM:[^:]+]]: i32, %[[PEERS:[^:]+]]: !llvm.ptr<1>)
//   CHECK-NOT:   llvm.zext %[[TEAM]]
//       CHECK:   %[[C4:.*]] = llvm.mlir.constant(4 : {{index|i64}}) : i64
//   CHECK-NOT:   llvm.zext %[[TEAM]]
//       CHECK:   llvm.store %[[C4]], %{{.*}} : i64, !llvm.ptr
gpu.func @num_devices_static(%out: memref<1xi64>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 4>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %c0 = arith.constant 0 : index
  %n = weave.num_devices "x"
  %v = arith.index_cast %n : index to i64
  memref.store %v, %out[%c0] : memref<1xi64>
  gpu.return
}

}
}
