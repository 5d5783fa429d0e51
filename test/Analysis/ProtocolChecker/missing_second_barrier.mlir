// A broken twin of ops/templates/all_reduce/one_shot_all_reduce.mlir.in (f32, 1024
// elements, as weave-ops instantiates it) without its second barrier: a
// member may finish while a peer still reads its input, and the host then
// writes the next launch's input under the peer's loads.
// RUN: not weavec --check-protocol %s 2>&1 | FileCheck %s
// CHECK: missing_second_barrier.mlir:51:18: error: race: a remote load by member 1 (launch 0) reads bytes [0, 4096) of member 0's 'input' while the host stream of member 0 (writing the input before launch 1) writes bytes [0, 4096), and no signal/wait or barrier orders the two
// CHECK: missing_second_barrier.mlir:26:7: note: the other access: the host stream of member 0 (writing the input before launch 1)
//
// output = sum over the team of every member's `input` (1024 x f32), on every
// member: the one-shot all-reduce. One bundle serves any team size.
//
// Each member writes its own symmetric `input` before launching. The first
// barrier says every member's input is there; every element is then summed
// in f32 from the members' copies in rank order (the same order everywhere,
// so every member gets the same bits) and rounded once to f32; the second
// barrier keeps every input unchanged until all members have read it, so a
// host may write the next input right after this launch on the same stream,
// with no host synchronization. The barrier's counters only grow: no reset
// between launches or graph replays. Each thread moves vectors of 4
// elements (16 bytes where 1024 allows it: the largest power of two up to 16
// bytes that divides it, so no tail is left; 256 vectors). (arith.bitcast /
// arith.bitcast are arith.extf / arith.truncf for bf16 and an identity
// arith.bitcast for f32.)
gpu.module @all_reduce {
  gpu.func @one_shot_all_reduce(
      %input: memref<1024xf32, #weave.symmetric> {weave.name = "input"},
      %output: memref<1024xf32> {weave.name = "output"},
      %bar: !weave.semaphore<2> {weave.name = "barrier"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>,
          grid = [persistent, 1, 1], block = [256, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %width = arith.constant 4 : index
    %vectors = arith.constant 256 : index
    %zero = arith.constant dense<0.0> : vector<4xf32>
    %members = weave.num_devices "x"
    %block = gpu.block_id x
    %blocks = gpu.grid_dim x
    %thread = gpu.thread_id x
    %threads = gpu.block_dim x
    %first = arith.muli %block, %threads : index
    %start = arith.addi %first, %thread : index
    %stride = arith.muli %blocks, %threads : index
    weave.barrier %bar scope(team_blocks) : !weave.semaphore<2>
    scf.for %v = %start to %vectors step %stride {
      %i = arith.muli %v, %width : index
      %sum = scf.for %member = %c0 to %members step %c1
          iter_args(%acc = %zero) -> (vector<4xf32>) {
        %theirs = weave.remote_ref %input on %member : memref<1024xf32, #weave.symmetric>
        %value = vector.load %theirs[%i] {alignment = 16 : i64}
            : memref<1024xf32, #weave.symmetric>, vector<4xf32>
        %wide = arith.bitcast %value : vector<4xf32> to vector<4xf32>
        %next = arith.addf %acc, %wide : vector<4xf32>
        scf.yield %next : vector<4xf32>
      }
      %narrow = arith.bitcast %sum : vector<4xf32> to vector<4xf32>
      vector.store %narrow, %output[%i] {alignment = 16 : i64}
          : memref<1024xf32>, vector<4xf32>
    }
    gpu.return
  }
}
