// RUN: weave-opt %s -pass-pipeline='builtin.module(gpu.module(convert-weave-to-nvvm))' | FileCheck %s --implicit-check-not=weave.

gpu.module @remote {

// Both descriptor pointers move by peer_bases[dev] - peer_bases[rank].
// CHECK-LABEL: llvm.func @remote_ref
//  CHECK-SAME:   (%[[SYM:[^:]+]]: !llvm.ptr<1>, %[[DEV:[^:]+]]: i64, %[[RANK:[^:]+]]: i32, %[[TEAM:[^:]+]]: i32, %[[PEERS:[^:]+]]: !llvm.ptr<1>)
//       CHECK:   %[[R64:.*]] = llvm.zext %[[RANK]] : i32 to i64
//   CHECK-DAG:   %[[PR:.*]] = llvm.getelementptr %[[PEERS]][%[[R64]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i64
//   CHECK-DAG:   %[[BR:.*]] = llvm.load %[[PR]] invariant {alignment = 8 : i64} : !llvm.ptr<1> -> i64
//   CHECK-DAG:   %[[PD:.*]] = llvm.getelementptr %[[PEERS]][%[[DEV]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i64
//   CHECK-DAG:   %[[BD:.*]] = llvm.load %[[PD]] invariant {alignment = 8 : i64} : !llvm.ptr<1> -> i64
//       CHECK:   %[[DELTA:.*]] = llvm.sub %[[BD]], %[[BR]] : i64
//       CHECK:   %[[ALLOC:.*]] = llvm.extractvalue %[[DESC:.*]][0]
//       CHECK:   %[[AI:.*]] = llvm.ptrtoint %[[ALLOC]] : !llvm.ptr<1> to i64
//       CHECK:   %[[AS:.*]] = llvm.add %[[AI]], %[[DELTA]] : i64
//       CHECK:   %[[AP:.*]] = llvm.inttoptr %[[AS]] : i64 to !llvm.ptr<1>
//       CHECK:   %[[D1:.*]] = llvm.insertvalue %[[AP]], %[[DESC]][0]
//       CHECK:   %[[ALIGNED:.*]] = llvm.extractvalue %[[D1]][1]
//       CHECK:   %[[LI:.*]] = llvm.ptrtoint %[[ALIGNED]] : !llvm.ptr<1> to i64
//       CHECK:   %[[LS:.*]] = llvm.add %[[LI]], %[[DELTA]] : i64
//       CHECK:   %[[LP:.*]] = llvm.inttoptr %[[LS]] : i64 to !llvm.ptr<1>
//       CHECK:   llvm.insertvalue %[[LP]], %[[D1]][1]
//       CHECK:   llvm.store
gpu.func @remote_ref(%sym: memref<64xf32, #weave.symmetric>, %dev_i64: i64) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %dev = arith.index_cast %dev_i64 : i64 to index
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  %r = weave.remote_ref %sym on %dev : memref<64xf32, #weave.symmetric>
  memref.store %f, %r[%c0] : memref<64xf32, #weave.symmetric>
  gpu.return
}

}
