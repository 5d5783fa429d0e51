// A broken twin of examples/ring_exchange: every member waits for its right
// neighbour's signal before it signals its left neighbour, so every member
// waits and nobody signals (a cycle of waits).
// RUN: not weavec --check-protocol %s 2>&1 | FileCheck %s
// CHECK: cycle_of_waits.mlir:30:7: error: deadlock at team size 2 (grid of 1): member 0 (launch 0) waits for 'ready' >= 1 (it holds 0); every member waits (a cycle of waits)
// CHECK: cycle_of_waits.mlir:30:7: note: member 0 (launch 0) waits for 'ready' >= 1 (it holds 0)
// CHECK: cycle_of_waits.mlir:30:7: note: member 1 (launch 0) waits for 'ready' >= 1 (it holds 0)
// CHECK: cycle_of_waits.mlir:31:7: note: a signal of the same semaphore
module attributes {gpu.container_module} {
gpu.module @ring {
  gpu.func @ring(%src: memref<1024xf32> {weave.name = "src"},
                 %inbox: memref<1024xf32, #weave.symmetric> {weave.name = "inbox"},
                 %ready: !weave.semaphore {weave.name = "ready"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>,
          grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
    %next = arith.addi %me, %c1 : index
    %right = arith.remui %next, %n : index
    %nm1 = arith.subi %n, %c1 : index
    %prev = arith.addi %me, %nm1 : index
    %left = arith.remui %prev, %n : index
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      weave.semaphore_wait %ready, %one decrement : !weave.semaphore
      weave.semaphore_signal %ready, %one on %left : !weave.semaphore
    }
    gpu.return
  }
}
}
