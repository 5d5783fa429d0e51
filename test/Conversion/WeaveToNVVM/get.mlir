// RUN: weave-opt %s -pass-pipeline='builtin.module(gpu.module(convert-weave-to-nvvm))' | FileCheck %s --implicit-check-not=weave.

gpu.module @one_sided {

// Every thread loads 16-byte vectors of the peer's copy of the source into
// the local target.
// CHECK-LABEL: llvm.func @get
//  CHECK-SAME:   (%[[SRC:[^:]+]]: !llvm.ptr<1>, %[[DST:[^:]+]]: !llvm.ptr, %[[PEER:[^:]+]]: i64, %[[RANK:[^:]+]]: i32, %{{[^:]+}}: i32, %[[PEERS:[^:]+]]: !llvm.ptr<1>)
//       CHECK:   %[[SRCB:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
//       CHECK:   %[[DSTB:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
//       CHECK:   %[[PD:.*]] = llvm.getelementptr %[[PEERS]][%[[PEER]]]
//       CHECK:   %[[DELTA:.*]] = llvm.sub
//       CHECK:   %[[SI:.*]] = llvm.ptrtoint %[[SRCB]] : !llvm.ptr<1> to i64
//       CHECK:   %[[DA:.*]] = llvm.add %[[SI]], %[[DELTA]] : i64
//       CHECK:   %[[REMOTE:.*]] = llvm.inttoptr %[[DA]] : i64 to !llvm.ptr<1>
//       CHECK:   %[[TX:.*]] = nvvm.read.ptx.sreg.tid.x : i32
//       CHECK:   %[[NX:.*]] = nvvm.read.ptx.sreg.ntid.x : i32
//       CHECK:   %[[TID:.*]] = llvm.zext %{{.*}} : i32 to i64
//       CHECK:   %[[STRIDE:.*]] = llvm.zext %{{.*}} : i32 to i64
//       CHECK:   %[[N:.*]] = llvm.mlir.constant(64 : i64) : i64
//       CHECK:   llvm.br ^[[HEAD:bb[0-9]+]](%[[TID]] : i64)
//       CHECK: ^[[HEAD]](%[[IV:.*]]: i64):
//  CHECK-NEXT:   %[[MORE:.*]] = llvm.icmp "ult" %[[IV]], %[[N]] : i64
//  CHECK-NEXT:   llvm.cond_br %[[MORE]], ^[[BODY:bb[0-9]+]], ^[[EXIT:bb[0-9]+]]
//       CHECK: ^[[BODY]]:
//  CHECK-NEXT:   %[[FROM:.*]] = llvm.getelementptr %[[REMOTE]][%[[IV]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, vector<4xi32>
//  CHECK-NEXT:   %[[TO:.*]] = llvm.getelementptr %[[DSTB]][%[[IV]]] : (!llvm.ptr, i64) -> !llvm.ptr, vector<4xi32>
//  CHECK-NEXT:   %[[DATA:.*]] = llvm.load %[[FROM]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
//  CHECK-NEXT:   llvm.store %[[DATA]], %[[TO]] {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr
//  CHECK-NEXT:   %[[NEXT:.*]] = llvm.add %[[IV]], %[[STRIDE]] : i64
//  CHECK-NEXT:   llvm.br ^[[HEAD]](%[[NEXT]] : i64)
//       CHECK: ^[[EXIT]]:
//  CHECK-NEXT:   llvm.return
gpu.func @get(%src: memref<256xf32, #weave.symmetric>, %dst: memref<256xf32>, %peer_i64: i64) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %peer = arith.index_cast %peer_i64 : i64 to index
  weave.get %src on %peer, %dst : memref<256xf32, #weave.symmetric> -> memref<256xf32>
  gpu.return
}

}
