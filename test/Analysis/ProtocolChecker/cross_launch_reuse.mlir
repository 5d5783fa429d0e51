// A broken twin of ops/templates/all_to_all/all_to_all_v.mlir.in (D = 2, f32,
// capacity 64, as weave-ops instantiates it) without the barrier that opens
// it: a member's next launch puts its counts into a peer's count table
// while that peer still reads it in the previous launch (the race a new
// user's first all-to-all-v had).
// RUN: not weavec --check-protocol %s 2>&1 | FileCheck %s
// CHECK: cross_launch_reuse.mlir:34:16: error: race: a load by member 1 (launch 0) reads bytes [4, 8) of member 1's 'table' while a put (remote write) by member 0 (launch 1) writes bytes [0, 8), and no signal/wait or barrier orders the two
// CHECK: cross_launch_reuse.mlir:65:7: note: the other access: a put (remote write) by member 0 (launch 1)
//
// The all-to-all-v of a team of 2, as MoE token dispatch does it: member
// i sends counts_i[j] (0..64) elements of f32 to member j, packed in
// `input` in destination order (the part for j starts at counts_i[0] + ...
// + counts_i[j - 1]); member j receives them packed in source order (the
// part from i starts at counts_0[j] + ... + counts_{i-1}[j]). The rest of
// `output` is left as it was.
//
// The counts live in device memory, so the offsets are worked out here:
// thread t puts this member's counts into row `me` of member t's symmetric
// `table` (scope(thread), signalling arrived[0]); once all 2 rows are
// in, every member knows every count, and the block puts each part
// (scope(block), signalling arrived[1]). One thread waits for exactly 2
// signals each time, which leaves both counters at zero; the barrier keeps
// a member from writing into a peer before that peer's previous launch has
// ended. A count of 0 sends nothing and still signals.
gpu.module @all_to_all_v {
  // table[start] + table[start + stride] + ... (`length` terms).
  func.func @sum_counts(%table: memref<4xi32, #weave.symmetric>,
                        %start: index, %stride: index, %length: index) -> index {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %sum = scf.for %k = %c0 to %length step %c1 iter_args(%acc = %c0) -> (index) {
      %step = arith.muli %k, %stride : index
      %at = arith.addi %start, %step : index
      %count = memref.load %table[%at] : memref<4xi32, #weave.symmetric>
      %wide = arith.index_cast %count : i32 to index
      %next = arith.addi %acc, %wide : index
      scf.yield %next : index
    }
    return %sum : index
  }

  gpu.func @all_to_all_v(
      %input: memref<128xf32> {weave.name = "input"},
      %counts: memref<2xi32> {weave.name = "counts"},
      %output: memref<128xf32, #weave.symmetric> {weave.name = "output"},
      %table: memref<4xi32, #weave.symmetric> {weave.name = "table"},
      %arrived: !weave.semaphore<2> {weave.name = "arrived"},
      %bar: !weave.semaphore {weave.name = "barrier"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = 2>,
          grid = [1, 1, 1], block = [256, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %all = arith.constant 2 : i32
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
    %thread = gpu.thread_id x
    %threads = gpu.block_dim x
    %leader = arith.cmpi eq, %thread, %c0 : index
    %row = arith.muli %me, %n : index
    %mine = memref.subview %table[%row] [2] [1] : memref<4xi32, #weave.symmetric>
        to memref<2xi32, strided<[1], offset: ?>, #weave.symmetric>
    scf.for %peer = %thread to %n step %threads {
      weave.put %counts, %mine on %peer scope(thread) signal %arrived[%c0], %one
          : memref<2xi32> -> memref<2xi32, strided<[1], offset: ?>, #weave.symmetric>,
            !weave.semaphore<2>
    }
    scf.if %leader {
      weave.semaphore_wait %arrived[%c0], %all cmp(eq) decrement : !weave.semaphore<2>
    }
    gpu.barrier
    scf.for %peer = %c0 to %n step %c1 {
      %from = func.call @sum_counts(%table, %row, %c1, %peer) : (memref<4xi32, #weave.symmetric>, index, index, index) -> index
      %to = func.call @sum_counts(%table, %peer, %n, %me) : (memref<4xi32, #weave.symmetric>, index, index, index) -> index
      %count = memref.load %counts[%peer] : memref<2xi32>
      %size = arith.index_cast %count : i32 to index
      %part = memref.subview %input[%from] [%size] [1]
          : memref<128xf32> to memref<?xf32, strided<[1], offset: ?>>
      %there = memref.subview %output[%to] [%size] [1] : memref<128xf32, #weave.symmetric>
          to memref<?xf32, strided<[1], offset: ?>, #weave.symmetric>
      weave.put %part, %there on %peer signal %arrived[%c1], %one
          : memref<?xf32, strided<[1], offset: ?>>
            -> memref<?xf32, strided<[1], offset: ?>, #weave.symmetric>, !weave.semaphore<2>
    }
    scf.if %leader {
      weave.semaphore_wait %arrived[%c1], %all cmp(eq) decrement : !weave.semaphore<2>
    }
    gpu.return
  }
}
