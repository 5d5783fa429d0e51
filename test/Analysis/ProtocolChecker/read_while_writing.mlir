// A broken twin of examples/ring_exchange that reads its inbox in the
// kernel: the read comes before the wait for the neighbour's signal, so it
// reads the buffer the neighbour is still writing.
// RUN: not weavec --check-protocol %s 2>&1 | FileCheck %s
// CHECK: read_while_writing.mlir:29:5: error: race: a put (remote write) by member 1 (launch 0) writes bytes [0, 4096) of member 0's 'inbox' while a load by member 0 (launch 0) reads bytes [0, 512), and no signal/wait or barrier orders the two
// CHECK: read_while_writing.mlir:36:12: note: the other access: a load by member 0 (launch 0)
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
    scf.if %leader {
      weave.semaphore_signal %ready, %one on %right : !weave.semaphore
    }
    // The bug: the inbox is read before the wait below says it is complete.
    scf.for %i = %tid to %c1024 step %c128 {
      %v = memref.load %inbox[%i] : memref<1024xf32, #weave.symmetric>
      memref.store %v, %out[%i] : memref<1024xf32>
    }
    scf.if %leader {
      weave.semaphore_wait %ready, %one decrement : !weave.semaphore
    }
    gpu.barrier
    weave.barrier %bar scope(team) : !weave.semaphore
    gpu.return
  }
}
}
