// A broken twin of examples/ring_exchange that reads its inbox after the
// wait: the signal is not under the leader's condition, so every thread of
// the block adds 1 and the decrementing wait consumes only one of them. The
// next launch's wait passes at once, before the neighbour's put of that
// launch: the read races with it.
// RUN: not weavec --check-protocol %s 2>&1 | FileCheck %s
// CHECK: over_signalling.mlir:31:5: error: race: a put (remote write) by member 1 (launch 1) writes bytes [0, 4096) of member 0's 'inbox' while a load by member 0 (launch 1) reads bytes [0, 512), and no signal/wait or barrier orders the two
// CHECK: over_signalling.mlir:40:12: note: the other access: a load by member 0 (launch 1)
module attributes {gpu.container_module} {
gpu.module @ring {
  gpu.func @ring(%src: memref<1024xf32> {weave.name = "src"},
                 %out: memref<1024xf32> {weave.name = "out"},
                 %inbox: memref<1024xf32, #weave.symmetric> {weave.name = "inbox"},
                 %ready: !weave.semaphore {weave.name = "ready"},
                 %bar: !weave.semaphore {weave.name = "barrier"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>,
          grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c1024 = arith.constant 1024 : index
    %one = arith.constant 1 : i32
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
    %next = arith.addi %me, %c1 : index
    %right = arith.remui %next, %n : index
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    weave.barrier %bar scope(team) : !weave.semaphore
    weave.put %src, %inbox on %right : memref<1024xf32> -> memref<1024xf32, #weave.symmetric>
    gpu.barrier
    // The bug: every thread signals.
    weave.semaphore_signal %ready, %one on %right : !weave.semaphore
    scf.if %leader {
      weave.semaphore_wait %ready, %one decrement : !weave.semaphore
    }
    gpu.barrier
    scf.for %i = %tid to %c1024 step %c128 {
      %v = memref.load %inbox[%i] : memref<1024xf32, #weave.symmetric>
      memref.store %v, %out[%i] : memref<1024xf32>
    }
    weave.barrier %bar scope(team) : !weave.semaphore
    gpu.return
  }
}
}
