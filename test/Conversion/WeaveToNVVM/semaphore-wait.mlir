// RUN: weave-opt %s -pass-pipeline='builtin.module(gpu.module(convert-weave-to-nvvm))' | FileCheck %s --implicit-check-not=weave. --implicit-check-not=globaltimer --implicit-check-not=vprintf

gpu.module @wait {

// Spin on an acquire load until the counter reaches the value; no decrement.
// CHECK-LABEL: llvm.func @wait_plain
//  CHECK-SAME:   (%[[SEM:[^:]+]]: !llvm.ptr<1>, %[[V:[^:]+]]: i32,
//       CHECK:   %[[CTR:.*]] = llvm.getelementptr %[[SEM]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
//       CHECK:   llvm.br ^[[SPIN:bb[0-9]+]]
//       CHECK: ^[[SPIN]]:
//  CHECK-NEXT:   %[[OBS:.*]] = llvm.inline_asm has_side_effects "ld.acquire.sys.global.u32 $0, [$1];", "=r,l,~{memory}" %[[CTR]] : (!llvm.ptr<1>) -> i32
//  CHECK-NEXT:   %[[OK:.*]] = llvm.icmp "uge" %[[OBS]], %[[V]] : i32
//  CHECK-NEXT:   llvm.cond_br %[[OK]], ^[[DONE:bb[0-9]+]], ^[[SPIN]]
//       CHECK: ^[[DONE]]:
//   CHECK-NOT:   red.relaxed
//  CHECK-NEXT:   llvm.return
gpu.func @wait_plain(%sem: !weave.semaphore, %v: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.semaphore_wait %sem, %v : !weave.semaphore
  gpu.return
}

// `decrement` subtracts the awaited value with a relaxed reduction.
// CHECK-LABEL: llvm.func @wait_decrement
//  CHECK-SAME:   (%[[SEM:[^:]+]]: !llvm.ptr<1>, %[[I:[^:]+]]: i64, %[[V:[^:]+]]: i32,
//       CHECK:   %[[CTR:.*]] = llvm.getelementptr %[[SEM]][%[[I]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
//       CHECK: ^[[SPIN:bb[0-9]+]]:
//  CHECK-NEXT:   %[[OBS:.*]] = llvm.inline_asm has_side_effects "ld.acquire.sys.global.u32 $0, [$1];", "=r,l,~{memory}" %[[CTR]]
//  CHECK-NEXT:   %[[OK:.*]] = llvm.icmp "uge" %[[OBS]], %[[V]] : i32
//  CHECK-NEXT:   llvm.cond_br %[[OK]], ^[[DONE:bb[0-9]+]], ^[[SPIN]]
//       CHECK: ^[[DONE]]:
//  CHECK-NEXT:   %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
//  CHECK-NEXT:   %[[NEG:.*]] = llvm.sub %[[ZERO]], %[[V]] : i32
//  CHECK-NEXT:   llvm.inline_asm has_side_effects "red.relaxed.sys.global.add.u32 [$0], $1;", "l,r,~{memory}" %[[CTR]], %[[NEG]] : (!llvm.ptr<1>, i32) -> ()
//  CHECK-NEXT:   llvm.return
gpu.func @wait_decrement(%sem: !weave.semaphore<4>, %i_i64: i64, %v: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [1, 1, 1]>} {
  %i = arith.index_cast %i_i64 : i64 to index
  weave.semaphore_wait %sem[%i], %v decrement : !weave.semaphore<4>
  gpu.return
}

// scope(block): thread 0 spins and decrements, then the block synchronizes.
// CHECK-LABEL: llvm.func @wait_block_scope
//  CHECK-SAME:   (%[[SEM:[^:]+]]: !llvm.ptr<1>, %[[V:[^:]+]]: i32,
//       CHECK:   %[[TID:.*]] = llvm.add %{{.*}}, %{{.*}} : i32
//       CHECK:   %[[FIRST:.*]] = llvm.icmp "eq" %{{.*}}, %{{.*}} : i64
//       CHECK:   llvm.cond_br %[[FIRST]], ^[[LEADER:bb[0-9]+]], ^[[JOIN:bb[0-9]+]]
//       CHECK: ^[[LEADER]]:
//       CHECK:   ld.acquire.sys.global.u32
//       CHECK:   red.relaxed.sys.global.add.u32
//       CHECK:   llvm.br ^[[JOIN]]
//       CHECK: ^[[JOIN]]:
//  CHECK-NEXT:   nvvm.barrier0
//  CHECK-NEXT:   llvm.return
gpu.func @wait_block_scope(%sem: !weave.semaphore, %v: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.semaphore_wait %sem, %v decrement scope(block) : !weave.semaphore
  gpu.return
}

// scope(warp): lane 0 of each warp waits, then the warp synchronizes.
// CHECK-LABEL: llvm.func @wait_warp_scope
//       CHECK:   %[[LANE:.*]] = llvm.and %{{.*}}, %{{.*}} : i64
//       CHECK:   %[[FIRST:.*]] = llvm.icmp "eq" %[[LANE]], %{{.*}} : i64
//       CHECK:   llvm.cond_br %[[FIRST]], ^[[LEADER:bb[0-9]+]], ^[[JOIN:bb[0-9]+]]
//       CHECK: ^[[LEADER]]:
//       CHECK:   ld.acquire.sys.global.u32
//   CHECK-NOT:   red.relaxed
//       CHECK: ^[[JOIN]]:
//  CHECK-NEXT:   nvvm.bar.warp.sync
//  CHECK-NEXT:   llvm.return
gpu.func @wait_warp_scope(%sem: !weave.semaphore, %v: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.semaphore_wait %sem, %v scope(warp) : !weave.semaphore
  gpu.return
}

}
