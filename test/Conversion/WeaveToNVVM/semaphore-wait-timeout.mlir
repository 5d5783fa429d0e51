// RUN: weave-opt %s -pass-pipeline='builtin.module(gpu.module(convert-weave-to-nvvm{wait-timeout-ns=1000}))' | FileCheck %s --implicit-check-not=weave.
// RUN: weave-opt %s -weave-to-llvm='wait-timeout-ns=1000' | FileCheck %s --check-prefix=PIPE --implicit-check-not=weave.

gpu.module @debug {

// The format names the kernel and the timeout.
// CHECK: llvm.mlir.global internal constant @[[$FMT:[A-Za-z0-9_]+]]("weave: semaphore_wait timed out after 1000 ns in kernel 'stuck' at loc({{.*}}semaphore-wait-timeout.mlir{{.*}}): device %u, block %u, thread %u, counter %u expected >= %u, observed %u\0A\00")
// CHECK: llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32

// CHECK-LABEL: llvm.func @stuck
//  CHECK-SAME:   (%[[SEM:[^:]+]]: !llvm.ptr<1>, %[[V:[^:]+]]: i32, %[[RANK:[^:]+]]: i32,
//       CHECK:   %[[START:.*]] = nvvm.read.ptx.sreg.globaltimer : i64
//       CHECK:   llvm.br ^[[SPIN:bb[0-9]+]]
//       CHECK: ^[[SPIN]]:
//  CHECK-NEXT:   %[[OBS:.*]] = llvm.inline_asm has_side_effects "ld.acquire.sys.global.u32 $0, [$1];"
//  CHECK-NEXT:   %[[OK:.*]] = llvm.icmp "uge" %[[OBS]], %[[V]] : i32
//  CHECK-NEXT:   llvm.cond_br %[[OK]], ^[[DONE:bb[0-9]+]], ^[[CHECK:bb[0-9]+]]
//       CHECK: ^[[CHECK]]:
//  CHECK-NEXT:   %[[NOW:.*]] = nvvm.read.ptx.sreg.globaltimer : i64
//  CHECK-NEXT:   %[[EL:.*]] = llvm.sub %[[NOW]], %[[START]] : i64
//  CHECK-NEXT:   %[[LIMIT:.*]] = llvm.mlir.constant(1000 : i64) : i64
//  CHECK-NEXT:   %[[LATE:.*]] = llvm.icmp "ugt" %[[EL]], %[[LIMIT]] : i64
//  CHECK-NEXT:   llvm.cond_br %[[LATE]], ^[[EXPIRE:bb[0-9]+]], ^[[SPIN]]
//       CHECK: ^[[EXPIRE]]:
//       CHECK:   llvm.mlir.addressof @[[$FMT]]
//       CHECK:   llvm.store %[[RANK]]
//       CHECK:   llvm.call @vprintf(
//  CHECK-NEXT:   llvm.intr.trap
//  CHECK-NEXT:   llvm.unreachable
//       CHECK: ^[[DONE]]:
//  CHECK-NEXT:   llvm.return
gpu.func @stuck(%sem: !weave.semaphore, %v: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.semaphore_wait %sem, %v : !weave.semaphore
  gpu.return
}

}

// The pipeline option reaches the conversion.
// PIPE-LABEL: llvm.func @stuck
//   PIPE-DAG:   llvm.mlir.constant(1000 : i64)
//   PIPE-DAG:   nvvm.read.ptx.sreg.globaltimer
//       PIPE:   llvm.call @vprintf
//       PIPE:   llvm.intr.trap
