// The smallest complete use of the communication ops: every device of the
// team copies its `src` block into the `inbox` of its right neighbour with a
// one-sided `weave.put`, tells the neighbour with a semaphore, and waits
// until its left neighbour has done the same for it. After the kernel,
// device d's inbox holds device (d - 1) mod N's src.
//
// Safe back to back: before writing, a device waits for a credit from its
// right neighbour, which that neighbour gives at the start of each launch.
// So launch L + 1 writes a neighbour's inbox only once that neighbour's
// stream has reached launch L + 1, i.e. once whatever it queued after launch
// L (reading the inbox) has run. The contract: read the inbox on the
// stream that launches the kernel (or synchronize before the next launch).
// `ready` counter 0 says "your inbox is full", counter 1 "my inbox is free".
//
//   weavec ring_exchange.mlir --emit=bundle -o ring_exchange.wbundle
module attributes {gpu.container_module} {
gpu.module @ring_exchange {
  gpu.func @ring_exchange(
      %src: memref<65536xf32> {weave.name = "src"},
      %inbox: memref<65536xf32, #weave.symmetric> {weave.name = "inbox"},
      %ready: !weave.semaphore<2> {weave.name = "ready"}) kernel
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
    %last = arith.subi %n, %c1 : index
    %prev = arith.addi %me, %last : index
    %left = arith.remui %prev, %n : index

    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      // Our inbox is free: this stream is past everything queued before
      // this launch. Then wait until the right neighbour says the same.
      weave.semaphore_signal %ready[%c1], %one on %left : !weave.semaphore<2>
      weave.semaphore_wait %ready[%c1], %one decrement : !weave.semaphore<2>
    }
    gpu.barrier

    // The whole block writes 256 KiB over NVLink in 16-byte vectors.
    weave.put %src, %inbox on %right
        : memref<65536xf32> -> memref<65536xf32, #weave.symmetric>
    // Every thread's stores happen before thread 0's release below.
    gpu.barrier

    scf.if %leader {
      // Release at system scope: the put is visible once `ready` is seen.
      weave.semaphore_signal %ready[%c0], %one on %right : !weave.semaphore<2>
      // Acquire: our inbox is complete; decrement leaves the counter at 0.
      weave.semaphore_wait %ready[%c0], %one decrement : !weave.semaphore<2>
    }
    gpu.barrier
    gpu.return
  }
}
}
