// A broken twin of examples/ring_exchange with a receive buffer the kernel
// prepares: every member clears its `inbox` and then puts into its right
// neighbour's, with no barrier in between, so the put can land before the
// neighbour is ready (its clearing stores overwrite the data).
// RUN: not weavec --check-protocol %s 2>&1 | FileCheck %s
// CHECK: put_before_peer_ready.mlir:31:7: error: race: a store by member 1 (launch 0) writes bytes [0, 512) of member 1's 'inbox' while a put (remote write) by member 0 (launch 0) writes bytes [0, 4096), and no signal/wait or barrier orders the two
// CHECK: put_before_peer_ready.mlir:35:5: note: the other access: a put (remote write) by member 0 (launch 0)
module attributes {gpu.container_module} {
gpu.module @ring {
  gpu.func @ring(%src: memref<1024xf32> {weave.name = "src"},
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
    %zero = arith.constant 0.0 : f32
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
    %next = arith.addi %me, %c1 : index
    %right = arith.remui %next, %n : index
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    weave.barrier %bar scope(team) : !weave.semaphore
    scf.for %i = %tid to %c1024 step %c128 {
      memref.store %zero, %inbox[%i] : memref<1024xf32, #weave.symmetric>
    }
    gpu.barrier
    // The bug: no weave.barrier here says the neighbour has cleared its inbox.
    weave.put %src, %inbox on %right : memref<1024xf32> -> memref<1024xf32, #weave.symmetric>
    gpu.barrier
    scf.if %leader {
      weave.semaphore_signal %ready, %one on %right : !weave.semaphore
      weave.semaphore_wait %ready, %one decrement : !weave.semaphore
    }
    gpu.barrier
    weave.barrier %bar scope(team) : !weave.semaphore
    gpu.return
  }
}
}
