// The smallest complete use of the communication ops: every device of the
// team copies its `src` block into the `inbox` of its right neighbour with a
// one-sided `weave.put`, tells the neighbour with a semaphore, and waits
// until its left neighbour has done the same for it. After the kernel,
// device d's inbox holds device (d - 1) mod N's src.
//
//   weavec ring_exchange.mlir --emit=bundle -o ring_exchange.wbundle
module attributes {gpu.container_module} {
gpu.module @ring_exchange {
  gpu.func @ring_exchange(
      %src: memref<65536xf32> {weave.name = "src"},
      %inbox: memref<65536xf32, #weave.symmetric> {weave.name = "inbox"},
      %ready: !weave.semaphore {weave.name = "ready"}) kernel
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

    // The whole block writes 256 KiB over NVLink in 16-byte vectors.
    weave.put %src, %inbox on %right
        : memref<65536xf32> -> memref<65536xf32, #weave.symmetric>
    // Every thread's stores happen before thread 0's release below.
    gpu.barrier

    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      // Release at system scope: the put is visible once `ready` is seen.
      weave.semaphore_signal %ready, %one on %right : !weave.semaphore
      // Acquire: our inbox is complete; decrement leaves the counter at 0.
      weave.semaphore_wait %ready, %one decrement : !weave.semaphore
    }
    gpu.barrier
    gpu.return
  }
}
}
