// RUN: weave-opt %s -pass-pipeline='builtin.module(gpu.module(convert-weave-to-nvvm))' | FileCheck %s --implicit-check-not=weave. --implicit-check-not=globaltimer
// RUN: weave-opt %s -pass-pipeline='builtin.module(gpu.module(convert-weave-to-nvvm{wait-timeout-ns=1000}))' | FileCheck %s --check-prefix=TIMEOUT

gpu.module @modes {

// mode(set) is a release store at system scope on the peer's counter.
// CHECK-LABEL: llvm.func @signal_set
//  CHECK-SAME:   (%[[SEM:[^:]+]]: !llvm.ptr<1>, %[[I:[^:]+]]: i64, %[[V:[^:]+]]: i32,
//       CHECK:   %[[CTR:.*]] = llvm.getelementptr %[[SEM]][%[[I]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
//       CHECK:   %[[PEER:.*]] = llvm.inttoptr
//   CHECK-NOT:   red.release
//  CHECK-NEXT:   llvm.inline_asm has_side_effects "st.release.sys.global.u32 [$0], $1;", "l,r,~{memory}" %[[PEER]], %[[V]] : (!llvm.ptr<1>, i32) -> ()
//  CHECK-NEXT:   llvm.return
gpu.func @signal_set(%sem: !weave.semaphore<8>, %i_i64: i64, %v: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %i = arith.index_cast %i_i64 : i64 to index
  weave.semaphore_signal %sem[%i], %v on %i mode(set) : !weave.semaphore<8>
  gpu.return
}

// mode(add), written out, is the reduction it always was.
// CHECK-LABEL: llvm.func @signal_add_explicit
//       CHECK:   llvm.inline_asm has_side_effects "red.release.sys.global.add.u32 [$0], $1;"
gpu.func @signal_add_explicit(%sem: !weave.semaphore, %v: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.semaphore_signal %sem, %v mode(add) : !weave.semaphore
  gpu.return
}

// cmp(eq) spins on the same acquire load until the counter equals the value.
// CHECK-LABEL: llvm.func @wait_eq
//  CHECK-SAME:   (%[[SEM:[^:]+]]: !llvm.ptr<1>, %[[V:[^:]+]]: i32,
//       CHECK:   %[[CTR:.*]] = llvm.getelementptr %[[SEM]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
//       CHECK:   llvm.br ^[[SPIN:bb[0-9]+]]
//       CHECK: ^[[SPIN]]:
//  CHECK-NEXT:   %[[OBS:.*]] = llvm.inline_asm has_side_effects "ld.acquire.sys.global.u32 $0, [$1];", "=r,l,~{memory}" %[[CTR]] : (!llvm.ptr<1>) -> i32
//  CHECK-NEXT:   %[[OK:.*]] = llvm.icmp "eq" %[[OBS]], %[[V]] : i32
//  CHECK-NEXT:   llvm.cond_br %[[OK]], ^[[DONE:bb[0-9]+]], ^[[SPIN]]
//       CHECK: ^[[DONE]]:
//  CHECK-NEXT:   llvm.return
gpu.func @wait_eq(%sem: !weave.semaphore, %v: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.semaphore_wait %sem, %v cmp(eq) : !weave.semaphore
  gpu.return
}

// cmp(eq) decrement: subtract the value it saw, as with ge.
// CHECK-LABEL: llvm.func @wait_eq_decrement
//  CHECK-SAME:   (%[[SEM:[^:]+]]: !llvm.ptr<1>, %[[V:[^:]+]]: i32,
//       CHECK: ^[[SPIN:bb[0-9]+]]:
//  CHECK-NEXT:   %[[OBS:.*]] = llvm.inline_asm has_side_effects "ld.acquire.sys.global.u32 $0, [$1];", "=r,l,~{memory}" %[[CTR:[^ ]+]]
//  CHECK-NEXT:   %[[OK:.*]] = llvm.icmp "eq" %[[OBS]], %[[V]] : i32
//  CHECK-NEXT:   llvm.cond_br %[[OK]], ^[[DONE:bb[0-9]+]], ^[[SPIN]]
//       CHECK: ^[[DONE]]:
//  CHECK-NEXT:   %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
//  CHECK-NEXT:   %[[NEG:.*]] = llvm.sub %[[ZERO]], %[[V]] : i32
//  CHECK-NEXT:   llvm.inline_asm has_side_effects "red.relaxed.sys.global.add.u32 [$0], $1;", "l,r,~{memory}" %[[CTR]], %[[NEG]]
gpu.func @wait_eq_decrement(%sem: !weave.semaphore, %v: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [1, 1, 1]>} {
  weave.semaphore_wait %sem, %v cmp(eq) decrement : !weave.semaphore
  gpu.return
}

}

// In a kernel that issues bulk (TMA) stores, mode(set) orders the async proxy
// first, as mode(add) does.
gpu.module @tma_set {
// CHECK-LABEL: llvm.func @copy_remote_then_set
//       CHECK:   nvvm.cp.async.bulk.wait_group 0
//       CHECK:   llvm.inline_asm has_side_effects "fence.proxy.async.global;", "~{memory}"
//  CHECK-NEXT:   llvm.inline_asm has_side_effects "st.release.sys.global.u32 [$0], $1;"
gpu.func @copy_remote_then_set(%out: memref<1024x4096xf16, #weave.symmetric>, %sem: !weave.semaphore, %epoch: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 4>, grid = [1, 1, 1], block = [128, 1, 1], smem = 16384>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %raw = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
  %tile = memref.view %raw[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
  %me = weave.device_id "x"
  %n = weave.num_devices "x"
  %s = arith.addi %me, %c1 : index
  %next = arith.remui %s, %n : index
  weave.copy_smem_to_gmem %tile, %out[%c0, %c0] on %next : memref<128x64xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xf16, #weave.symmetric>
  weave.wait_smem_to_gmem 0
  weave.semaphore_signal %sem, %epoch on %next mode(set) : !weave.semaphore
  gpu.return
}

// cmp(ge_wrap) compares in serial-number order: the signed difference of
// the observed counter and the value, so a target that wrapped past 2^32
// is not taken as reached by a counter just below the wrap.
// CHECK-LABEL: llvm.func @wait_ge_wrap
//  CHECK-SAME:   (%[[SEM:[^:]+]]: !llvm.ptr<1>, %[[V:[^:]+]]: i32,
//       CHECK: ^[[SPIN:bb[0-9]+]]:
//  CHECK-NEXT:   %[[OBS:.*]] = llvm.inline_asm has_side_effects "ld.acquire.sys.global.u32 $0, [$1];", "=r,l,~{memory}" %[[CTR:[^ ]+]]
//  CHECK-NEXT:   %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
//  CHECK-NEXT:   %[[DIFF:.*]] = llvm.sub %[[OBS]], %[[V]] : i32
//  CHECK-NEXT:   %[[OK:.*]] = llvm.icmp "sge" %[[DIFF]], %[[ZERO]] : i32
//  CHECK-NEXT:   llvm.cond_br %[[OK]], ^[[DONE:bb[0-9]+]], ^[[SPIN]]
gpu.func @wait_ge_wrap(%sem: !weave.semaphore, %v: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.semaphore_wait %sem, %v cmp(ge_wrap) : !weave.semaphore
  gpu.return
}
}

// The debug timeout covers both comparisons and says which one it waited for.
// TIMEOUT-DAG: llvm.mlir.global internal constant @[[$EQDEC:[A-Za-z0-9_]+]]("weave: semaphore_wait timed out after 1000 ns in kernel 'wait_eq_decrement' at {{.*}}: device %u, block %u, thread %u, counter %u expected == %u, observed %u\0A\00")
// TIMEOUT-DAG: llvm.mlir.global internal constant @[[$EQ:[A-Za-z0-9_]+]]("weave: semaphore_wait timed out after 1000 ns in kernel 'wait_eq' at {{.*}}: device %u, block %u, thread %u, counter %u expected == %u, observed %u\0A\00")
// TIMEOUT-LABEL: llvm.func @wait_eq(
//       TIMEOUT:   nvvm.read.ptx.sreg.globaltimer
//       TIMEOUT:   ld.acquire.sys.global.u32
//  TIMEOUT-NEXT:   llvm.icmp "eq"
//       TIMEOUT:   nvvm.read.ptx.sreg.globaltimer
//       TIMEOUT:   llvm.mlir.addressof @[[$EQ]]
//       TIMEOUT:   llvm.call @vprintf(
//  TIMEOUT-NEXT:   llvm.intr.trap

// cmp(ge_wrap) says so in its timeout report.
// TIMEOUT: llvm.mlir.global internal constant @{{[A-Za-z0-9_]+}}("weave: semaphore_wait timed out after 1000 ns in kernel 'wait_ge_wrap' at {{.*}}: device %u, block %u, thread %u, counter %u expected >= (mod 2^32) %u, observed %u\0A\00")
