// RUN: weave-opt %s -pass-pipeline='builtin.module(gpu.module(convert-weave-to-nvvm))' | FileCheck %s --implicit-check-not=weave.

gpu.module @ids {

// CHECK-LABEL: llvm.func @device_id
//  CHECK-SAME:   (%[[OUT:[^:]+]]: !llvm.ptr, %[[RANK:[^:]+]]: i32, %[[TEAM:[^:]+]]: i32, %[[PEERS:[^:]+]]: !llvm.ptr<1>)
//       CHECK:   %[[ME:.*]] = llvm.zext %[[RANK]] : i32 to i64
//       CHECK:   llvm.store %[[ME]], %{{.*}} : i64, !llvm.ptr
gpu.func @device_id(%out: memref<1xi64>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %c0 = arith.constant 0 : index
  %me = weave.device_id "x"
  %v = arith.index_cast %me : index to i64
  memref.store %v, %out[%c0] : memref<1xi64>
  gpu.return
}

// CHECK-LABEL: llvm.func @num_devices_dynamic
//  CHECK-SAME:   (%[[OUT:[^:]+]]: !llvm.ptr, %[[RANK:[^:]+]]: i32, %[[TEAM:[^:]+]]: i32, %[[PEERS:[^:]+]]: !llvm.ptr<1>)
//       CHECK:   %[[N:.*]] = llvm.zext %[[TEAM]] : i32 to i64
//       CHECK:   llvm.store %[[N]], %{{.*}} : i64, !llvm.ptr
gpu.func @num_devices_dynamic(%out: memref<1xi64>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %c0 = arith.constant 0 : index
  %n = weave.num_devices "x"
  %v = arith.index_cast %n : index to i64
  memref.store %v, %out[%c0] : memref<1xi64>
  gpu.return
}

}
