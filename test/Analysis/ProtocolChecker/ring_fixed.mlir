// The control for the broken twins: examples/ring_exchange with a team
// barrier first (a member's next put waits until its neighbour has started
// the next launch, so its host has read the inbox) passes.
// RUN: weavec --check-protocol %s | FileCheck %s
// CHECK: protocol check passed: 1 kernel, team sizes 2,3,4,8, grids 1, 2 launches, 128 schedules (seed 1)
module attributes {gpu.container_module} {
gpu.module @ring_exchange {
  gpu.func @ring_exchange(
      %src: memref<65536xf32> {weave.name = "src"},
      %inbox: memref<65536xf32, #weave.symmetric> {weave.name = "inbox"},
      %ready: !weave.semaphore {weave.name = "ready"},
      %bar: !weave.semaphore {weave.name = "barrier"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>,
          grid = [1, 1, 1], block = [512, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
    %next = arith.addi %me, %c1 : index
    %right = arith.remui %next, %n : index
    weave.barrier %bar scope(team) : !weave.semaphore
    weave.put %src, %inbox on %right
        : memref<65536xf32> -> memref<65536xf32, #weave.symmetric>
    gpu.barrier
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      weave.semaphore_signal %ready, %one on %right : !weave.semaphore
      weave.semaphore_wait %ready, %one decrement : !weave.semaphore
    }
    gpu.barrier
    gpu.return
  }
}
}
