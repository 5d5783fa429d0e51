// A wait whose target counts too few signals: every block of every member
// puts its half of `input` into every peer's `gathered` and adds 1 to the
// peer's ready[me]; a reader waits until ready[peer] holds one add per block
// of the peer (per launch), reads the rows and, at its end, signals `done`
// on every peer; a push of launch e waits until (D - 1) x blocks x e blocks
// have ended (the all-gather matmul's PUSH mode in small).
//
// With the target counting 1 add instead of one per block, or none, the
// other block's put races with the read. A passing wait synchronizes with
// the adds up to the first value that satisfies it, not with every add the
// schedule happened to run before it, so the race shows in the first
// schedule (members in rank order), whichever adds that schedule ran before
// the wait. Before (a wait joined every add so far) only a random schedule
// found it here, and none in the all-gather matmul, where the reader's
// `done` orders a late put after the reads unless the put lands between
// the wait and the reader's end (collective_matmul_push_mutants.mlir).
// RUN: weavec --check-protocol --team-size 2,3 %s | FileCheck %s --check-prefix=OK
// OK: protocol check passed: 1 kernel, team sizes 2,3, grids 2, 2 launches
// RUN: sed -e 's/%%need = arith.index_cast %%blocks : index to i32/%%need = arith.constant 1 : i32/' %s > %t.one.mlir
// RUN: not weavec --check-protocol --team-size 2 %t.one.mlir 2>&1 | FileCheck %s --check-prefix=UNDER
// RUN: sed -e 's/%%need = arith.index_cast %%blocks : index to i32/%%need = arith.constant 0 : i32/' %s > %t.zero.mlir
// RUN: not weavec --check-protocol --team-size 2 %t.zero.mlir 2>&1 | FileCheck %s --check-prefix=UNDER
// UNDER: error: race: {{.*}}(launch 0, block {{[01]}}) {{.*}}of member {{[01]}}'s 'gathered' while {{.*}}(launch 0, block {{[01]}}) {{.*}}[team size 2, grid 2, 2 launches, members in rank order]
// UNDER: note: the other access: {{a load|a put \(remote write\)}} by member
//
// Without the done wait the next launch's put overwrites rows a peer still
// reads.
// RUN: sed -e '/weave.semaphore_wait %%done/d' %s > %t.nodone.mlir
// RUN: not weavec --check-protocol --team-size 2 %t.nodone.mlir 2>&1 | FileCheck %s --check-prefix=NODONE
// NODONE: error: race: a put (remote write) by member {{[01]}} (launch 1, block {{[01]}}) writes {{.*}} of member {{[01]}}'s 'gathered' while a load by member {{[01]}} (launch 0, block {{[01]}}) reads
module attributes {gpu.container_module} {
gpu.module @gather {
  gpu.func @gather(
      %input: memref<512xf32> {weave.name = "input"},
      %gathered: memref<4096xf32, #weave.symmetric> {weave.name = "gathered"},
      %out: memref<4096xf32> {weave.name = "out"},
      %ready: !weave.semaphore<8> {weave.name = "ready"},
      %done: !weave.semaphore {weave.name = "done"},
      %launch: i32 {weave.name = "launch"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>,
          grid = [2, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %c512 = arith.constant 512 : index
    %one = arith.constant 1 : i32
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
    %bid = gpu.block_id x
    %blocks = gpu.grid_dim x
    %tid = gpu.thread_id x
    %leader = arith.cmpi eq, %tid, %c0 : index
    // `launch` is the launch number + 1 (the checker's by-value parameter).
    %epoch = arith.subi %launch, %one : i32
    %blocks_i32 = arith.index_cast %blocks : index to i32
    %n_minus_1 = arith.subi %n, %c1 : index
    %peers_i32 = arith.index_cast %n_minus_1 : index to i32
    %ended = arith.muli %epoch, %blocks_i32 : i32
    %peers_done = arith.muli %ended, %peers_i32 : i32
    // Push this block's half of the own rows to every peer.
    scf.if %leader {
      weave.semaphore_wait %done, %peers_done cmp(ge_wrap) : !weave.semaphore
    }
    gpu.barrier
    %half = arith.muli %bid, %c256 : index
    %src = memref.subview %input[%half] [256] [1]
        : memref<512xf32> to memref<256xf32, strided<[1], offset: ?>>
    %own_row = arith.muli %me, %c512 : index
    %row = arith.addi %own_row, %half : index
    %dst = memref.subview %gathered[%row] [256] [1]
        : memref<4096xf32, #weave.symmetric>
          to memref<256xf32, strided<[1], offset: ?>, #weave.symmetric>
    scf.for %i = %c1 to %n step %c1 {
      %sum = arith.addi %me, %i : index
      %peer = arith.remui %sum, %n : index
      weave.put %src, %dst on %peer signal %ready[%me], %one
          : memref<256xf32, strided<[1], offset: ?>>
            -> memref<256xf32, strided<[1], offset: ?>, #weave.symmetric>,
               !weave.semaphore<8>
    }
    // Read every peer's rows once all its blocks' adds of this launch are
    // in: one add per block.
    %need = arith.index_cast %blocks : index to i32
    %target = arith.muli %launch, %need : i32
    scf.for %i = %c1 to %n step %c1 {
      %sum = arith.addi %me, %i : index
      %peer = arith.remui %sum, %n : index
      scf.if %leader {
        weave.semaphore_wait %ready[%peer], %target cmp(ge_wrap)
            : !weave.semaphore<8>
      }
      gpu.barrier
      %base = arith.muli %peer, %c512 : index
      scf.for %e = %tid to %c512 step %c128 {
        %at = arith.addi %base, %e : index
        %v = memref.load %gathered[%at] : memref<4096xf32, #weave.symmetric>
        memref.store %v, %out[%at] : memref<4096xf32>
      }
    }
    // This block has read every peer's rows: tell the peers.
    gpu.barrier
    scf.if %leader {
      scf.for %i = %c1 to %n step %c1 {
        %sum = arith.addi %me, %i : index
        %peer = arith.remui %sum, %n : index
        weave.semaphore_signal %done, %one on %peer : !weave.semaphore
      }
    }
    gpu.return
  }
}
}
