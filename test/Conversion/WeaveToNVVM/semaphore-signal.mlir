// RUN: weave-opt %s -pass-pipeline='builtin.module(gpu.module(convert-weave-to-nvvm))' | FileCheck %s --implicit-check-not=weave. --implicit-check-not=fence.proxy.async

// Without bulk stores in the kernel no proxy fence precedes the release.

gpu.module @signal {

// Local counter 0: no peer address arithmetic.
// CHECK-LABEL: llvm.func @signal_local
//  CHECK-SAME:   (%[[SEM:[^:]+]]: !llvm.ptr<1>, %[[V:[^:]+]]: i32, %{{[^:]+}}: i32, %{{[^:]+}}: i32, %[[PEERS:[^:]+]]: !llvm.ptr<1>)
//       CHECK:   %[[C0:.*]] = llvm.mlir.constant(0 : i64) : i64
//       CHECK:   %[[CTR:.*]] = llvm.getelementptr %[[SEM]][%[[C0]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
//   CHECK-NOT:   llvm.load
//   CHECK-NOT:   llvm.ptrtoint
//       CHECK:   llvm.inline_asm has_side_effects "red.release.sys.global.add.u32 [$0], $1;", "l,r,~{memory}" %[[CTR]], %[[V]] : (!llvm.ptr<1>, i32) -> ()
//  CHECK-NEXT:   llvm.return
gpu.func @signal_local(%sem: !weave.semaphore, %v: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.semaphore_signal %sem, %v : !weave.semaphore
  gpu.return
}

// An indexed counter is a 4-byte step from the semaphore base.
// CHECK-LABEL: llvm.func @signal_indexed
//  CHECK-SAME:   (%[[SEM:[^:]+]]: !llvm.ptr<1>, %[[I:[^:]+]]: i64, %[[V:[^:]+]]: i32,
//       CHECK:   %[[CTR:.*]] = llvm.getelementptr %[[SEM]][%[[I]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
//   CHECK-NOT:   llvm.ptrtoint
//       CHECK:   llvm.inline_asm has_side_effects "red.release.sys.global.add.u32 [$0], $1;", "l,r,~{memory}" %[[CTR]], %[[V]]
gpu.func @signal_indexed(%sem: !weave.semaphore<8>, %i_i64: i64, %v: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %i = arith.index_cast %i_i64 : i64 to index
  weave.semaphore_signal %sem[%i], %v : !weave.semaphore<8>
  gpu.return
}

// `on` moves the counter address into the peer's signal pad.
// CHECK-LABEL: llvm.func @signal_on_peer
//  CHECK-SAME:   (%[[SEM:[^:]+]]: !llvm.ptr<1>, %[[I:[^:]+]]: i64, %[[V:[^:]+]]: i32, %[[PEER:[^:]+]]: i64, %[[RANK:[^:]+]]: i32, %{{[^:]+}}: i32, %[[PEERS:[^:]+]]: !llvm.ptr<1>)
//       CHECK:   %[[CTR:.*]] = llvm.getelementptr %[[SEM]][%[[I]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
//       CHECK:   %[[R64:.*]] = llvm.zext %[[RANK]] : i32 to i64
//   CHECK-DAG:   %[[PR:.*]] = llvm.getelementptr %[[PEERS]][%[[R64]]]
//   CHECK-DAG:   %[[BR:.*]] = llvm.load %[[PR]] invariant
//   CHECK-DAG:   %[[PD:.*]] = llvm.getelementptr %[[PEERS]][%[[PEER]]]
//   CHECK-DAG:   %[[BD:.*]] = llvm.load %[[PD]] invariant
//       CHECK:   %[[DELTA:.*]] = llvm.sub %[[BD]], %[[BR]] : i64
//       CHECK:   %[[AI:.*]] = llvm.ptrtoint %[[CTR]] : !llvm.ptr<1> to i64
//       CHECK:   %[[AS:.*]] = llvm.add %[[AI]], %[[DELTA]] : i64
//       CHECK:   %[[REMOTE:.*]] = llvm.inttoptr %[[AS]] : i64 to !llvm.ptr<1>
//       CHECK:   llvm.inline_asm has_side_effects "red.release.sys.global.add.u32 [$0], $1;", "l,r,~{memory}" %[[REMOTE]], %[[V]]
gpu.func @signal_on_peer(%sem: !weave.semaphore<8>, %i_i64: i64, %v: i32, %peer_i64: i64) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %i = arith.index_cast %i_i64 : i64 to index
  %peer = arith.index_cast %peer_i64 : i64 to index
  weave.semaphore_signal %sem[%i], %v on %peer : !weave.semaphore<8>
  gpu.return
}

// `on` without an index: counter 0 of the peer.
// CHECK-LABEL: llvm.func @signal_on_peer_counter0
//  CHECK-SAME:   (%[[SEM:[^:]+]]: !llvm.ptr<1>, %[[V:[^:]+]]: i32, %[[PEER:[^:]+]]: i64,
//       CHECK:   %[[C0:.*]] = llvm.mlir.constant(0 : i64) : i64
//       CHECK:   %[[CTR:.*]] = llvm.getelementptr %[[SEM]][%[[C0]]]
//       CHECK:   %[[AI:.*]] = llvm.ptrtoint %[[CTR]] : !llvm.ptr<1> to i64
//       CHECK:   %[[AS:.*]] = llvm.add %[[AI]], %{{.*}} : i64
//       CHECK:   %[[REMOTE:.*]] = llvm.inttoptr %[[AS]] : i64 to !llvm.ptr<1>
//       CHECK:   llvm.inline_asm has_side_effects "red.release.sys.global.add.u32 [$0], $1;", "l,r,~{memory}" %[[REMOTE]], %[[V]]
gpu.func @signal_on_peer_counter0(%sem: !weave.semaphore, %v: i32, %peer_i64: i64) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %peer = arith.index_cast %peer_i64 : i64 to index
  weave.semaphore_signal %sem, %v on %peer : !weave.semaphore
  gpu.return
}

}
