// A broken twin of examples/all_gather: the wait's count is written for a
// team of 4 (three peers and this member), so at 4 the check passes, and at
// any other size the count is never reached (or overshot): a deadlock.
// RUN: weavec --check-protocol --team-size 4 %s | FileCheck %s --check-prefix=FOUR
// RUN: not weavec --check-protocol --team-size 3 %s 2>&1 | FileCheck %s
// FOUR: protocol check passed: 1 kernel, team sizes 4,
// CHECK: count_never_signalled.mlir:39:7: error: deadlock at team size 3 (grid of 1): member 0 (launch 0) waits for 'arrived' == 4 (it holds 3); every member waits (a cycle of waits)
// CHECK: count_never_signalled.mlir:33:7: note: a signal of the same semaphore
module attributes {gpu.container_module} {
gpu.module @all_gather {
  gpu.func @all_gather(
      %input: memref<256xf32> {weave.name = "input"},
      %output: memref<2048xf32, #weave.symmetric> {weave.name = "output"},
      %arrived: !weave.semaphore {weave.name = "arrived"},
      %bar: !weave.semaphore {weave.name = "barrier"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>,
          grid = [1, 1, 1], block = [256, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %rows = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %all = arith.constant 4 : i32
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
    %thread = gpu.thread_id x
    weave.barrier %bar scope(team) : !weave.semaphore
    %offset = arith.muli %me, %rows : index
    %mine = memref.subview %output[%offset] [256] [1]
        : memref<2048xf32, #weave.symmetric>
          to memref<256xf32, strided<[1], offset: ?>, #weave.symmetric>
    scf.for %peer = %c0 to %n step %c1 {
      weave.put %input, %mine on %peer signal %arrived, %one
          : memref<256xf32> -> memref<256xf32, strided<[1], offset: ?>, #weave.symmetric>,
            !weave.semaphore
    }
    %leader = arith.cmpi eq, %thread, %c0 : index
    scf.if %leader {
      weave.semaphore_wait %arrived, %all cmp(eq) decrement : !weave.semaphore
    }
    gpu.return
  }
}
}
