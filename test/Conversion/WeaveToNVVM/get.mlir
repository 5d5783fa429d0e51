// RUN: weave-opt %s -pass-pipeline='builtin.module(gpu.module(convert-weave-to-nvvm))' | FileCheck %s --implicit-check-not=weave.

gpu.module @one_sided {

// Every thread loads 16-byte vectors of the peer's copy of the source into
// the local target.
// Thread tid copies elements tid, tid + ntid, ... of a scalar head, then
// 16-byte vectors tid, tid + ntid, ..., then elements of the scalar tail.
// CHECK-LABEL: llvm.func @get
//  CHECK-SAME:   (%[[SRC:[^:]+]]: !llvm.ptr<1>, %[[DST:[^:]+]]: !llvm.ptr, %[[PEER:[^:]+]]: i64, %[[RANK:[^:]+]]: i32, %{{[^:]+}}: i32, %[[PEERS:[^:]+]]: !llvm.ptr<1>)
//       CHECK:   %[[SRCB:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
//       CHECK:   %[[DSTB:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
//       CHECK:   %[[PD:.*]] = llvm.getelementptr %[[PEERS]][%[[PEER]]]
//       CHECK:   %[[DELTA:.*]] = llvm.sub
//       CHECK:   %[[SI:.*]] = llvm.ptrtoint %[[SRCB]] : !llvm.ptr<1> to i64
//       CHECK:   %[[DA:.*]] = llvm.add %[[SI]], %[[DELTA]] : i64
//       CHECK:   %[[REMOTE:.*]] = llvm.inttoptr %[[DA]] : i64 to !llvm.ptr<1>
//       CHECK:   %[[N:.*]] = llvm.mlir.constant(256 : i64) : i64
//       CHECK:   %[[TX:.*]] = nvvm.read.ptx.sreg.tid.x : i32
//       CHECK:   %[[NX:.*]] = nvvm.read.ptx.sreg.ntid.x : i32
//       CHECK:   %[[TID:.*]] = llvm.zext %{{.*}} : i32 to i64
//       CHECK:   %[[STRIDE:.*]] = llvm.zext %{{.*}} : i32 to i64
// Vectors only where both addresses agree modulo 16 (a get has no shifted
// path: its loads cross NVLink); the head runs up to the first 16-byte
// boundary of the target (the source's too then), at most N elements.
//       CHECK:   %[[FROMI:.*]] = llvm.ptrtoint %[[REMOTE]]
//       CHECK:   %[[TOI:.*]] = llvm.ptrtoint %[[DSTB]]
//       CHECK:   %[[XOR:.*]] = llvm.xor %[[FROMI]], %[[TOI]] : i64
//       CHECK:   %[[EQUAL:.*]] = llvm.icmp "eq"
//       CHECK:   %[[MIS:.*]] = llvm.and %[[TOI]], %{{.*}} : i64
//       CHECK:   %[[HEADB:.*]] = llvm.sub %{{.*}}, %[[MIS]] : i64
//       CHECK:   %[[HEADE:.*]] = llvm.lshr
//       CHECK:   %[[HEADMIN:.*]] = llvm.intr.umin(%[[HEADE]], %[[N]])
//       CHECK:   %[[HEAD:.*]] = llvm.select %[[EQUAL]], %[[HEADMIN]], %{{.*}} : i1, i64
//       CHECK:   %[[REST:.*]] = llvm.sub %[[N]], %[[HEAD]] : i64
//       CHECK:   %[[VQ:.*]] = llvm.udiv %[[REST]], %{{.*}} : i64
//       CHECK:   %[[VECS:.*]] = llvm.select %[[EQUAL]], %[[VQ]], %{{.*}} : i1, i64
//       CHECK:   %[[VELTS:.*]] = llvm.mul %[[VECS]], %{{.*}} : i64
//       CHECK:   %[[TAIL:.*]] = llvm.add %[[HEAD]], %[[VELTS]] : i64
// Head: one element per thread.
// Each loop is built rotated: a guard, then a body that tests at its end.
//       CHECK:   %[[H0:.*]] = llvm.add %{{.*}}, %[[TID]] : i64
//  CHECK-NEXT:   %[[HANY:.*]] = llvm.icmp "ult" %[[H0]], %[[HEAD]] : i64
//  CHECK-NEXT:   llvm.cond_br %[[HANY]], ^[[HH:bb[0-9]+]](%[[H0]] : i64), ^{{bb[0-9]+}}
//       CHECK: ^[[HH]](%[[HI:.*]]: i64):
//       CHECK:   llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// Vectors, from the head on: where every thread has four or more, four
// loaded before any is stored (the later ones at an index clamped to the
// last vector, stored where in range), else 16 bytes per thread and step.
//       CHECK:   %[[VSRC:.*]] = llvm.getelementptr %[[REMOTE]][%[[HEAD]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
//       CHECK:   %[[VDST:.*]] = llvm.getelementptr %[[DSTB]][%[[HEAD]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
//       CHECK:   %[[STEP4:.*]] = llvm.mul %[[STRIDE]], %{{.*}} : i64
//       CHECK:   %[[LASTV:.*]] = llvm.sub %[[VECS]], %{{.*}} : i64
//  CHECK-NEXT:   %[[MANY:.*]] = llvm.icmp "uge" %[[VECS]], %[[STEP4]] : i64
//  CHECK-NEXT:   llvm.cond_br %[[MANY]], ^[[FOURS:bb[0-9]+]], ^[[ONES:bb[0-9]+]]
//       CHECK: ^[[FOURS]]:
//  CHECK-NEXT:   %[[V4ANY:.*]] = llvm.icmp "ult" %[[TID]], %[[VECS]] : i64
//  CHECK-NEXT:   llvm.cond_br %[[V4ANY]], ^[[BODY4:bb[0-9]+]](%[[TID]] : i64), ^{{bb[0-9]+}}
//       CHECK: ^[[BODY4]](%[[IV4:.*]]: i64):
//  CHECK-NEXT:   %[[F0:.*]] = llvm.getelementptr %[[VSRC]][%[[IV4]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, vector<4xi32>
//  CHECK-NEXT:   %[[D0:.*]] = llvm.load %[[F0]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
//   CHECK-NOT:   llvm.store
//       CHECK:   llvm.intr.umin(%{{.*}}, %[[LASTV]])
//   CHECK-NOT:   llvm.store
//       CHECK:   llvm.load
//   CHECK-NOT:   llvm.store
//       CHECK:   llvm.load
//   CHECK-NOT:   llvm.store
//       CHECK:   llvm.load
//   CHECK-NOT:   llvm.load
//       CHECK:   %[[T0V:.*]] = llvm.getelementptr %[[VDST]][%[[IV4]]] : (!llvm.ptr, i64) -> !llvm.ptr, vector<4xi32>
//  CHECK-NEXT:   llvm.store %[[D0]], %[[T0V]] {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr
//       CHECK:   llvm.store
//       CHECK:   llvm.store
//       CHECK:   llvm.store
//       CHECK:   %[[NEXT4:.*]] = llvm.add %[[IV4]], %[[STEP4]] : i64
//  CHECK-NEXT:   %[[MORE4:.*]] = llvm.icmp "ult" %[[NEXT4]], %[[VECS]] : i64
//  CHECK-NEXT:   llvm.cond_br %[[MORE4]], ^[[BODY4]](%[[NEXT4]] : i64), ^{{bb[0-9]+}}
//       CHECK: ^[[ONES]]:
//  CHECK-NEXT:   %[[VANY:.*]] = llvm.icmp "ult" %[[TID]], %[[VECS]] : i64
//  CHECK-NEXT:   llvm.cond_br %[[VANY]], ^[[BODY:bb[0-9]+]](%[[TID]] : i64), ^[[EXIT1:bb[0-9]+]]
//       CHECK: ^[[BODY]](%[[IV:.*]]: i64):
//  CHECK-NEXT:   %[[FROM:.*]] = llvm.getelementptr %[[VSRC]][%[[IV]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, vector<4xi32>
//  CHECK-NEXT:   %[[TO:.*]] = llvm.getelementptr %[[VDST]][%[[IV]]] : (!llvm.ptr, i64) -> !llvm.ptr, vector<4xi32>
//  CHECK-NEXT:   %[[DATA:.*]] = llvm.load %[[FROM]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
//  CHECK-NEXT:   llvm.store %[[DATA]], %[[TO]] {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr
//  CHECK-NEXT:   %[[NEXT:.*]] = llvm.add %[[IV]], %[[STRIDE]] : i64
//  CHECK-NEXT:   %[[MORE:.*]] = llvm.icmp "ult" %[[NEXT]], %[[VECS]] : i64
//  CHECK-NEXT:   llvm.cond_br %[[MORE]], ^[[BODY]](%[[NEXT]] : i64), ^[[EXIT1]]
//       CHECK: ^[[EXIT1]]:
//  CHECK-NEXT:   llvm.br ^[[EXIT:bb[0-9]+]]
// Tail: the elements after the last vector, one per thread.
//       CHECK: ^[[EXIT]]:
//  CHECK-NEXT:   %[[T0:.*]] = llvm.add %[[TAIL]], %[[TID]] : i64
//  CHECK-NEXT:   %[[TANY:.*]] = llvm.icmp "ult" %[[T0]], %[[N]] : i64
//  CHECK-NEXT:   llvm.cond_br %[[TANY]], ^[[TBODY:bb[0-9]+]](%[[T0]] : i64), ^[[DONE:bb[0-9]+]]
//       CHECK: ^[[TBODY]](%[[TI:.*]]: i64):
//  CHECK-NEXT:   %[[TFROM:.*]] = llvm.getelementptr %[[REMOTE]][%[[TI]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
//  CHECK-NEXT:   %[[TTO:.*]] = llvm.getelementptr %[[DSTB]][%[[TI]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
//  CHECK-NEXT:   %[[TDATA:.*]] = llvm.load %[[TFROM]] : !llvm.ptr<1> -> f32
//  CHECK-NEXT:   llvm.store %[[TDATA]], %[[TTO]] : f32, !llvm.ptr
//  CHECK-NEXT:   %[[TNEXT:.*]] = llvm.add %[[TI]], %[[STRIDE]] : i64
//  CHECK-NEXT:   %[[TMORE:.*]] = llvm.icmp "ult" %[[TNEXT]], %[[N]] : i64
//  CHECK-NEXT:   llvm.cond_br %[[TMORE]], ^[[TBODY]](%[[TNEXT]] : i64), ^[[DONE]]
//       CHECK: ^[[DONE]]:
//  CHECK-NEXT:   llvm.return
gpu.func @get(%src: memref<256xf32, #weave.symmetric>, %dst: memref<256xf32>, %peer_i64: i64) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %peer = arith.index_cast %peer_i64 : i64 to index
  weave.get %src on %peer, %dst : memref<256xf32, #weave.symmetric> -> memref<256xf32>
  gpu.return
}

}
