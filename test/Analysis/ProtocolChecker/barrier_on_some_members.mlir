// A broken twin of examples/all_gather: the barrier that keeps a member from
// writing into a peer before the peer's previous launch has ended is under a
// condition only some members take (member 0 skips it), so the others would
// wait at it forever. Since issue #29 the verifier rejects a team barrier
// under a condition on the device id, before the checker runs (the checker
// reported it as a deadlock: member 1 waiting at the barrier for
// member 0, member 0 waiting for 'arrived').
// RUN: not weavec --check-protocol %s 2>&1 | FileCheck %s
// CHECK: barrier_on_some_members.mlir:30:7: error: 'weave.barrier' op expects to be reached by every thread of the block on every member of the team, but is inside 'scf.if' whose condition depends on 'weave.device_id'
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
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
    %all = arith.index_cast %n : index to i32
    %thread = gpu.thread_id x
    %not_first = arith.cmpi ne, %me, %c0 : index
    scf.if %not_first {
      weave.barrier %bar scope(team) : !weave.semaphore
    }
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
