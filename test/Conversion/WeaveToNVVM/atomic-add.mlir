// RUN: weave-opt %s -pass-pipeline='builtin.module(gpu.module(convert-weave-to-nvvm))' | FileCheck %s --implicit-check-not=weave.

// weave.atomic_add is a relaxed, system-scope `red` on the element's address
// (moved to the peer's copy with `on`): f32, or a packed f16/bf16 pair in
// one 32-bit register.

#k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>

gpu.module @atomics {

// CHECK-LABEL: llvm.func @add_f32_local
//  CHECK-SAME:   (%[[BUF:[^:]+]]: !llvm.ptr<1>, %[[V:[^:]+]]: f32, %[[I:[^:]+]]: i64,
//       CHECK:   %[[P:.*]] = llvm.getelementptr %{{.*}}[%[[I]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
//  CHECK-NEXT:   llvm.inline_asm has_side_effects "red.relaxed.sys.global.add.f32 [$0], $1;", "l,f,~{memory}" %[[P]], %[[V]] : (!llvm.ptr<1>, f32) -> ()
//  CHECK-NEXT:   llvm.return
gpu.func @add_f32_local(%buf: memref<1024xf32, #weave.symmetric>, %v: f32, %i_i64: i64) kernel attributes {weave.kernel = #k} {
  %i = arith.index_cast %i_i64 : i64 to index
  weave.atomic_add %v, %buf[%i] : f32, memref<1024xf32, #weave.symmetric>
  gpu.return
}

// A 2-d buffer: the address is row * 128 + column; `on` adds the peer delta.
// CHECK-LABEL: llvm.func @add_f16x2_peer
//  CHECK-SAME:   (%[[BUF:[^:]+]]: !llvm.ptr<1>, %[[PAIR:[^:]+]]: i32, %[[R:[^:]+]]: i64, %[[C:[^:]+]]: i64, %[[PEER:[^:]+]]: i64, %[[RANK:[^:]+]]: i32, %{{[^:]+}}: i32, %[[PEERS:[^:]+]]: !llvm.ptr<1>)
//       CHECK:   %[[V:.*]] = llvm.bitcast %[[PAIR]] : i32 to vector<2xf16>
//       CHECK:   %[[ROW:.*]] = llvm.mul %[[R]], %{{.*}} : i64
//       CHECK:   %[[LIN:.*]] = llvm.add %[[ROW]], %[[C]] : i64
//       CHECK:   %[[P:.*]] = llvm.getelementptr %{{.*}}[%[[LIN]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
//       CHECK:   llvm.getelementptr %[[PEERS]][%[[PEER]]]
//       CHECK:   %[[DELTA:.*]] = llvm.sub
//       CHECK:   %[[PI:.*]] = llvm.ptrtoint %[[P]] : !llvm.ptr<1> to i64
//       CHECK:   %[[PA:.*]] = llvm.add %[[PI]], %[[DELTA]] : i64
//       CHECK:   %[[REMOTE:.*]] = llvm.inttoptr %[[PA]] : i64 to !llvm.ptr<1>
//       CHECK:   %[[BITS:.*]] = llvm.bitcast %[[V]] : vector<2xf16> to i32
//  CHECK-NEXT:   llvm.inline_asm has_side_effects "red.relaxed.sys.global.add.noftz.f16x2 [$0], $1;", "l,r,~{memory}" %[[REMOTE]], %[[BITS]] : (!llvm.ptr<1>, i32) -> ()
gpu.func @add_f16x2_peer(%buf: memref<8x128xf16, #weave.symmetric>, %pair: i32, %r_i64: i64, %c_i64: i64, %peer_i64: i64) kernel attributes {weave.kernel = #k} {
  %v = llvm.bitcast %pair : i32 to vector<2xf16>
  %r = arith.index_cast %r_i64 : i64 to index
  %c = arith.index_cast %c_i64 : i64 to index
  %peer = arith.index_cast %peer_i64 : i64 to index
  weave.atomic_add %v, %buf[%r, %c] on %peer : vector<2xf16>, memref<8x128xf16, #weave.symmetric>
  gpu.return
}

// CHECK-LABEL: llvm.func @add_bf16x2
//       CHECK:   %[[BITS:.*]] = llvm.bitcast %{{.*}} : vector<2xbf16> to i32
//  CHECK-NEXT:   llvm.inline_asm has_side_effects "red.relaxed.sys.global.add.noftz.bf16x2 [$0], $1;", "l,r,~{memory}" %{{.*}}, %[[BITS]]
gpu.func @add_bf16x2(%buf: memref<1024xbf16, #weave.symmetric>, %pair: i32, %i_i64: i64) kernel attributes {weave.kernel = #k} {
  %v = llvm.bitcast %pair : i32 to vector<2xbf16>
  %i = arith.index_cast %i_i64 : i64 to index
  weave.atomic_add %v, %buf[%i] : vector<2xbf16>, memref<1024xbf16, #weave.symmetric>
  gpu.return
}

}
