// RUN: weave-opt %s -pass-pipeline='builtin.module(gpu.module(convert-weave-to-nvvm))' | FileCheck %s --implicit-check-not=weave.

gpu.module @one_sided {

// Every thread stores 16-byte vectors tid, tid + ntid, ... of the source to
// the peer's copy of the target.
// Thread tid copies elements tid, tid + ntid, ... of a scalar head, then
// 16-byte vectors tid, tid + ntid, ..., then elements of the scalar tail.
// CHECK-LABEL: llvm.func @put
//  CHECK-SAME:   (%[[SRC:[^:]+]]: !llvm.ptr, %[[DST:[^:]+]]: !llvm.ptr<1>, %[[PEER:[^:]+]]: i64, %[[RANK:[^:]+]]: i32, %{{[^:]+}}: i32, %[[PEERS:[^:]+]]: !llvm.ptr<1>)
//       CHECK:   %[[SRCB:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
//       CHECK:   %[[DSTB:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
//       CHECK:   %[[PD:.*]] = llvm.getelementptr %[[PEERS]][%[[PEER]]]
//       CHECK:   %[[DELTA:.*]] = llvm.sub
//       CHECK:   %[[DI:.*]] = llvm.ptrtoint %[[DSTB]] : !llvm.ptr<1> to i64
//       CHECK:   %[[DA:.*]] = llvm.add %[[DI]], %[[DELTA]] : i64
//       CHECK:   %[[REMOTE:.*]] = llvm.inttoptr %[[DA]] : i64 to !llvm.ptr<1>
//       CHECK:   %[[N:.*]] = llvm.mlir.constant(256 : i64) : i64
//       CHECK:   %[[TX:.*]] = nvvm.read.ptx.sreg.tid.x : i32
//       CHECK:   %[[NX:.*]] = nvvm.read.ptx.sreg.ntid.x : i32
//       CHECK:   %[[TID:.*]] = llvm.zext %{{.*}} : i32 to i64
//       CHECK:   %[[STRIDE:.*]] = llvm.zext %{{.*}} : i32 to i64
// Equal alignments modulo 16 take 16-byte loads; any two element-aligned
// addresses take 16-byte stores. The head runs up to the target's first
// 16-byte boundary (the source's too where they agree), at most N elements.
//       CHECK:   %[[FROMI:.*]] = llvm.ptrtoint %[[SRCB]]
//       CHECK:   %[[TOI:.*]] = llvm.ptrtoint %[[REMOTE]]
//       CHECK:   %[[XOR:.*]] = llvm.xor %[[FROMI]], %[[TOI]] : i64
//       CHECK:   %[[FMIS:.*]] = llvm.and %[[FROMI]], %{{.*}} : i64
//       CHECK:   %[[XMIS:.*]] = llvm.and %[[XOR]], %{{.*}} : i64
//       CHECK:   %[[EQOR:.*]] = llvm.or %[[XMIS]], %[[FMIS]] : i64
//       CHECK:   %[[EQUAL:.*]] = llvm.icmp "eq" %[[EQOR]], %{{.*}} : i64
//       CHECK:   %[[TMIS:.*]] = llvm.and %[[TOI]], %{{.*}} : i64
//       CHECK:   %[[ALOR:.*]] = llvm.or %[[FMIS]], %[[TMIS]] : i64
//       CHECK:   %[[ALIGNED:.*]] = llvm.icmp "eq" %[[ALOR]], %{{.*}} : i64
//       CHECK:   %[[MIS:.*]] = llvm.and %[[TOI]], %{{.*}} : i64
//       CHECK:   %[[HEADB:.*]] = llvm.sub %{{.*}}, %[[MIS]] : i64
//       CHECK:   %[[HEADE:.*]] = llvm.lshr
//       CHECK:   %[[HEADMIN:.*]] = llvm.intr.umin(%[[HEADE]], %[[N]])
//       CHECK:   %[[HEAD:.*]] = llvm.select %[[ALIGNED]], %[[HEADMIN]], %{{.*}} : i1, i64
//       CHECK:   %[[REST:.*]] = llvm.sub %[[N]], %[[HEAD]] : i64
//       CHECK:   %[[VQ:.*]] = llvm.udiv %[[REST]], %{{.*}} : i64
//       CHECK:   %[[VECS:.*]] = llvm.select %[[ALIGNED]], %[[VQ]], %{{.*}} : i1, i64
//       CHECK:   %[[VELTS:.*]] = llvm.mul %[[VECS]], %{{.*}} : i64
//       CHECK:   %[[TAIL:.*]] = llvm.add %[[HEAD]], %[[VELTS]] : i64
// Head: one element per thread.
//       CHECK:   %[[H0:.*]] = llvm.add %{{.*}}, %[[TID]] : i64
//  CHECK-NEXT:   %[[HANY:.*]] = llvm.icmp "ult" %[[H0]], %[[HEAD]] : i64
//  CHECK-NEXT:   llvm.cond_br %[[HANY]], ^[[HH:bb[0-9]+]](%[[H0]] : i64), ^{{bb[0-9]+}}
//       CHECK: ^[[HH]](%[[HI:.*]]: i64):
//       CHECK:   llvm.load %{{.*}} : !llvm.ptr -> f32
// Vectors of equal alignments: from the head on, where every thread has
// four vectors or more four loaded before any is stored (the later ones at
// an index clamped to the last vector, stored where in range), else one
// 16 bytes per thread and step.
//       CHECK:   %[[VSRC:.*]] = llvm.getelementptr %[[SRCB]][%[[HEAD]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
//       CHECK:   %[[VDST:.*]] = llvm.getelementptr %[[REMOTE]][%[[HEAD]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
//       CHECK:   %[[EQV:.*]] = llvm.select %[[EQUAL]], %[[VECS]], %{{.*}} : i1, i64
//       CHECK:   %[[STEP4:.*]] = llvm.mul %[[STRIDE]], %{{.*}} : i64
//       CHECK:   %[[LASTV:.*]] = llvm.sub %[[EQV]], %{{.*}} : i64
//  CHECK-NEXT:   %[[MANY:.*]] = llvm.icmp "uge" %[[EQV]], %[[STEP4]] : i64
//  CHECK-NEXT:   llvm.cond_br %[[MANY]], ^[[FOURS:bb[0-9]+]], ^[[ONES:bb[0-9]+]]
//       CHECK: ^[[FOURS]]:
//  CHECK-NEXT:   %[[V4ANY:.*]] = llvm.icmp "ult" %[[TID]], %[[EQV]] : i64
//  CHECK-NEXT:   llvm.cond_br %[[V4ANY]], ^[[BODY4:bb[0-9]+]](%[[TID]] : i64), ^{{bb[0-9]+}}
//       CHECK: ^[[BODY4]](%[[IV4:.*]]: i64):
//  CHECK-NEXT:   %[[F0:.*]] = llvm.getelementptr %[[VSRC]][%[[IV4]]] : (!llvm.ptr, i64) -> !llvm.ptr, vector<4xi32>
//  CHECK-NEXT:   %[[D0:.*]] = llvm.load %[[F0]] {alignment = 16 : i64} : !llvm.ptr -> vector<4xi32>
//   CHECK-NOT:   llvm.store
//       CHECK:   llvm.intr.umin(%{{.*}}, %[[LASTV]])
//   CHECK-NOT:   llvm.store
//       CHECK:   llvm.load
//   CHECK-NOT:   llvm.store
//       CHECK:   llvm.load
//   CHECK-NOT:   llvm.store
//       CHECK:   llvm.load
//   CHECK-NOT:   llvm.load
//       CHECK:   %[[T0:.*]] = llvm.getelementptr %[[VDST]][%[[IV4]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, vector<4xi32>
//  CHECK-NEXT:   llvm.store %[[D0]], %[[T0]] {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
//  CHECK-NEXT:   llvm.icmp "ult" %{{.*}}, %[[EQV]] : i64
//       CHECK:   llvm.store
//       CHECK:   llvm.store
//       CHECK:   llvm.store
//       CHECK:   %[[NEXT4:.*]] = llvm.add %[[IV4]], %[[STEP4]] : i64
//  CHECK-NEXT:   %[[MORE4:.*]] = llvm.icmp "ult" %[[NEXT4]], %[[EQV]] : i64
//  CHECK-NEXT:   llvm.cond_br %[[MORE4]], ^[[BODY4]](%[[NEXT4]] : i64), ^{{bb[0-9]+}}
//       CHECK: ^[[ONES]]:
//  CHECK-NEXT:   %[[VANY:.*]] = llvm.icmp "ult" %[[TID]], %[[EQV]] : i64
//  CHECK-NEXT:   llvm.cond_br %[[VANY]], ^[[BODY:bb[0-9]+]](%[[TID]] : i64), ^[[EXIT1:bb[0-9]+]]
//       CHECK: ^[[BODY]](%[[IV:.*]]: i64):
//  CHECK-NEXT:   %[[FROM:.*]] = llvm.getelementptr %[[VSRC]][%[[IV]]] : (!llvm.ptr, i64) -> !llvm.ptr, vector<4xi32>
//  CHECK-NEXT:   %[[TO:.*]] = llvm.getelementptr %[[VDST]][%[[IV]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, vector<4xi32>
//  CHECK-NEXT:   %[[DATA:.*]] = llvm.load %[[FROM]] {alignment = 16 : i64} : !llvm.ptr -> vector<4xi32>
//  CHECK-NEXT:   llvm.store %[[DATA]], %[[TO]] {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
//  CHECK-NEXT:   %[[NEXT:.*]] = llvm.add %[[IV]], %[[STRIDE]] : i64
//  CHECK-NEXT:   %[[MORE:.*]] = llvm.icmp "ult" %[[NEXT]], %[[EQV]] : i64
//  CHECK-NEXT:   llvm.cond_br %[[MORE]], ^[[BODY]](%[[NEXT]] : i64), ^[[EXIT1]]
//       CHECK: ^[[EXIT1]]:
//  CHECK-NEXT:   llvm.br ^[[EXIT:bb[0-9]+]]
// Vectors of unequal alignments: the source's words from (source + head)
// & ~3, shifted right by 8 x its remainder; the fifth word is the fourth
// again where the remainder is 0 (the words then end with the vector).
//       CHECK: ^[[EXIT]]:
//       CHECK:   %[[SKEWED:.*]] = llvm.select %[[EQUAL]], %{{.*}}, %[[VECS]] : i1, i64
//       CHECK:   %[[START:.*]] = llvm.ptrtoint %[[VSRC]] : !llvm.ptr to i64
//       CHECK:   %[[SKEW:.*]] = llvm.and %[[START]], %{{.*}} : i64
//       CHECK:   %[[BACK:.*]] = llvm.sub %{{.*}}, %[[SKEW]] : i64
//       CHECK:   %[[WORDS:.*]] = llvm.getelementptr %[[VSRC]][%[[BACK]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
//       CHECK:   %[[SBITS:.*]] = llvm.shl %[[SKEW]], %{{.*}} : i64
//       CHECK:   %[[SHIFT:.*]] = llvm.trunc %[[SBITS]] : i64 to i32
//       CHECK:   %[[THREE:.*]] = llvm.mlir.constant(3 : i64) : i64
//       CHECK:   %[[FOUR:.*]] = llvm.mlir.constant(4 : i64) : i64
//       CHECK:   %[[SKEWS:.*]] = llvm.icmp "ne" %[[SKEW]], %{{.*}} : i64
//       CHECK:   %[[LAST:.*]] = llvm.select %[[SKEWS]], %[[FOUR]], %[[THREE]] : i1, i64
//       CHECK:   %[[SANY:.*]] = llvm.icmp "ult" %[[TID]], %[[SKEWED]] : i64
//  CHECK-NEXT:   llvm.cond_br %[[SANY]], ^[[SBODY:bb[0-9]+]](%[[TID]] : i64), ^[[SEXIT:bb[0-9]+]]
//       CHECK: ^[[SBODY]](%[[SV:.*]]: i64):
//       CHECK:   %[[W0:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
//       CHECK:   %[[W1:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
//       CHECK:   %[[W2:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
//       CHECK:   %[[W3:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
//       CHECK:   %[[W4AT:.*]] = llvm.add %{{.*}}, %[[LAST]] : i64
//  CHECK-NEXT:   %[[W4P:.*]] = llvm.getelementptr %[[WORDS]][%[[W4AT]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
//  CHECK-NEXT:   %[[W4:.*]] = llvm.load %[[W4P]] {alignment = 4 : i64} : !llvm.ptr -> i32
//       CHECK:   llvm.intr.fshr(%[[W1]], %[[W0]], %[[SHIFT]])
//       CHECK:   llvm.intr.fshr(%[[W2]], %[[W1]], %[[SHIFT]])
//       CHECK:   llvm.intr.fshr(%[[W3]], %[[W2]], %[[SHIFT]])
//       CHECK:   %[[R3:.*]] = llvm.intr.fshr(%[[W4]], %[[W3]], %[[SHIFT]])
//       CHECK:   %[[V:.*]] = llvm.insertelement %[[R3]]
//  CHECK-NEXT:   %[[STO:.*]] = llvm.getelementptr %[[VDST]][%[[SV]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, vector<4xi32>
//  CHECK-NEXT:   llvm.store %[[V]], %[[STO]] {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
//  CHECK-NEXT:   %[[SNEXT:.*]] = llvm.add %[[SV]], %[[STRIDE]] : i64
//  CHECK-NEXT:   %[[SMORE:.*]] = llvm.icmp "ult" %[[SNEXT]], %[[SKEWED]] : i64
//  CHECK-NEXT:   llvm.cond_br %[[SMORE]], ^[[SBODY]](%[[SNEXT]] : i64), ^[[SEXIT]]
// Tail: the elements after the last vector, one per thread.
//       CHECK: ^[[SEXIT]]:
//  CHECK-NEXT:   %[[T0:.*]] = llvm.add %[[TAIL]], %[[TID]] : i64
//  CHECK-NEXT:   %[[TANY:.*]] = llvm.icmp "ult" %[[T0]], %[[N]] : i64
//  CHECK-NEXT:   llvm.cond_br %[[TANY]], ^[[TBODY:bb[0-9]+]](%[[T0]] : i64), ^[[DONE:bb[0-9]+]]
//       CHECK: ^[[TBODY]](%[[TI:.*]]: i64):
//  CHECK-NEXT:   %[[TFROM:.*]] = llvm.getelementptr %[[SRCB]][%[[TI]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
//  CHECK-NEXT:   %[[TTO:.*]] = llvm.getelementptr %[[REMOTE]][%[[TI]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
//  CHECK-NEXT:   %[[TDATA:.*]] = llvm.load %[[TFROM]] : !llvm.ptr -> f32
//  CHECK-NEXT:   llvm.store %[[TDATA]], %[[TTO]] : f32, !llvm.ptr<1>
//  CHECK-NEXT:   %[[TNEXT:.*]] = llvm.add %[[TI]], %[[STRIDE]] : i64
//  CHECK-NEXT:   %[[TMORE:.*]] = llvm.icmp "ult" %[[TNEXT]], %[[N]] : i64
//  CHECK-NEXT:   llvm.cond_br %[[TMORE]], ^[[TBODY]](%[[TNEXT]] : i64), ^[[DONE]]
//       CHECK: ^[[DONE]]:
//  CHECK-NEXT:   llvm.return
gpu.func @put(%src: memref<256xf32>, %dst: memref<256xf32, #weave.symmetric>, %peer_i64: i64) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %peer = arith.index_cast %peer_i64 : i64 to index
  weave.put %src, %dst on %peer : memref<256xf32> -> memref<256xf32, #weave.symmetric>
  gpu.return
}


}
