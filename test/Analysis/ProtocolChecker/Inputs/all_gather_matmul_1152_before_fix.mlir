// The all-gather matmul instance of weave::ops as of 5784480 (one 'ready'
// counter a shard), m_shard 1152, D = 2, f16, K = 256, N = 512, with the
// grid_tile_width of 8 it had before 980758f: the input of
// collective_matmul_1152_hang.mlir (the checker must report its deadlock).
// C = AllGather(A) @ B on a ring of 2 GPUs, fused into one matmul pipeline.
//
// Every device holds a symmetric `a` of 2 row shards (? x 256 each,
// its own shard written by the host), its column shard `b` of B and the
// output `c` = [A_0; ...; A_1] @ b. The pipeline visits row tiles
// starting with the device's own shard (rotate_m), so it computes on the
// rows it has while the ring brings the rest:
//   - callback (one elected thread beside the producer): sends lhs tiles
//     straight from shared memory to the same rows of the previous device's `a` (a TMA
//     store over NVLink), unless that device owns the shard. The column
//     tiles of a row tile share the work: column tile n sends the k steps
//     k = n (mod column tiles), then waits for its stores and signals
//     ready[shard] on that device once;
//   - before_load: before the first k step of a row tile of another
//     device's shard, the producer waits until every part of the shard has
//     arrived.
// The tiles go in groups of GROUP_ROWS row tiles, a divisor of the shard's
// row tiles: a group never holds rows of two shards, so every block visits
// the shards in ring order. (A group straddling shards deadlocks: a block
// waiting for shard s + 1 would hold back a tile of shard s that a peer
// needs before it can forward shard s + 1.)
// Counters only grow: launch number `epoch` (0, 1, ...) of the kernel waits
// for (epoch + 1) * (parts of a shard). The epoch is kept on the device, so
// that a CUDA graph replay (same arguments every time) still counts
// launches: every block adds 1 to the member's `launches` (zeroed once by
// the host) when it ends, and reads it when it starts; the launches before
// added exactly `blocks` each and this one's other blocks fewer than
// `blocks`, so epoch = launches / blocks.
//   - after_loads: once a block's loads have all landed it reads `a` no
//     more, and signals done on the next device, the one that writes into
//     this device's `a`. Before a block's first forwarding store of a tile,
//     the callback waits until every block of the previous device has
//     finished launch epoch - 1 (done >= epoch * blocks): the host may
//     rewrite A between launches without a peer's stores overtaking reads.
// A forwarded tile's store reads its
// slot during the next k step: the callback of that step waits for the
// read, and delay_release(1) hands the slot back only after it. The waits
// stall only the callback warp, never the wgmma warpgroups.
module attributes {gpu.container_module} {
gpu.module @all_gather_matmul {
  gpu.func @all_gather_matmul(
      %a: memref<?x256xf16, #weave.symmetric> {weave.name = "a"},
      %b: memref<256x512xf16> {weave.name = "b"},
      %c: memref<?x512xf16> {weave.name = "c"},
      %ready: !weave.semaphore<2> {weave.name = "ready"},
      %launches: memref<1xi32> {weave.name = "launches"},
      %done: !weave.semaphore {weave.name = "done"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = 2>,
          grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %one = arith.constant 1 : i32
    %col_tiles = arith.constant 2 : index
    %last_k = arith.constant 3 : index
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
    // The shard size comes from `a` (? rows: with ROWS = ?, one bundle
    // serves every m_shard, its rows bound at launch); for a static shape
    // all of this folds to constants. A shard must be whole row tiles: a
    // tile straddling two shards would wait for the wrong one, so another
    // m_shard traps here instead of hanging.
    %rows = memref.dim %a, %c0 : memref<?x256xf16, #weave.symmetric>
    %m_shard = arith.divui %rows, %n : index
    %tiles_per_shard = arith.divui %m_shard, %c128 : index
    %whole_tiles = arith.muli %tiles_per_shard, %c128 : index
    %all_rows = arith.muli %whole_tiles, %n : index
    %ragged = arith.cmpi ne, %all_rows, %rows : index
    scf.if %ragged {
      gpu.printf "all_gather_matmul: %lu rows of a are not 2 shards of whole 128-row tiles\n", %rows : index
      llvm.intr.trap
    }
    // Each shard arrives as (row tiles) x (forwarding column tiles) parts.
    %parts_per_tile = arith.constant 2 : index
    %parts = arith.muli %tiles_per_shard, %parts_per_tile : index
    %parts_per_shard = arith.index_cast %parts : index to i32
    %blocks = gpu.grid_dim x
    %blocks_i32 = arith.index_cast %blocks : index to i32
    %ended = memref.load %launches[%c0] : memref<1xi32>
    %epoch = arith.divui %ended, %blocks_i32 : i32
    %n_minus_1 = arith.subi %n, %c1 : index
    %me_plus = arith.addi %me, %n_minus_1 : index
    %prev = arith.remui %me_plus, %n : index
    %epoch_plus_1 = arith.addi %epoch, %one : i32
    %arrived = arith.muli %epoch_plus_1, %parts_per_shard : i32
    %own_first = arith.muli %me, %tiles_per_shard : index
    %me_plus_1 = arith.addi %me, %c1 : index
    %writer = arith.remui %me_plus_1, %n : index
    %reads_done = arith.muli %epoch, %blocks_i32 : i32
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4)
        delay_release(1) rotate_m(%own_first) {grid_tile_width = 8 : i64}
        : memref<?x256xf16, #weave.symmetric>, memref<256x512xf16>
          into memref<?x512xf16>
        before_load {
    ^bb0(%m: index, %nt: index, %k: index):
      %shard = arith.divui %m, %tiles_per_shard : index
      %remote = arith.cmpi ne, %shard, %me : index
      %first_k = arith.cmpi eq, %k, %c0 : index
      %wait = arith.andi %remote, %first_k : i1
      scf.if %wait {
        weave.semaphore_wait %ready[%shard], %arrived : !weave.semaphore<2>
      }
    }
        callback {
    ^bb0(%lhs: memref<128x64xf16, #gpu.address_space<workgroup>>,
         %rhs: memref<64x256xf16, #gpu.address_space<workgroup>>,
         %m: index, %nt: index, %k: index):
      %shard = arith.divui %m, %tiles_per_shard : index
      %needed = arith.cmpi ne, %shard, %prev : index
      scf.if %needed {
        // The store issued in the previous step has read its slot before
        // the pipeline hands that slot back, after this callback.
        weave.wait_smem_to_gmem 0 read_only
        // The column tiles of a row tile share its forwarding: column tile
        // n sends the k steps k = n (mod column tiles).
        %k_mod = arith.remui %k, %col_tiles : index
        %mine = arith.cmpi eq, %k_mod, %nt : index
        scf.if %mine {
          // The tile's first store (k = nt): the previous device has read
          // the last launch's rows.
          %first = arith.cmpi eq, %k, %nt : index
          scf.if %first {
            weave.semaphore_wait %done, %reads_done : !weave.semaphore
          }
          %row = arith.muli %m, %c128 : index
          %col = arith.muli %k, %c64 : index
          weave.copy_smem_to_gmem %lhs, %a[%row, %col] on %prev
              : memref<128x64xf16, #gpu.address_space<workgroup>>
                -> memref<?x256xf16, #weave.symmetric>
          %next = arith.addi %k, %col_tiles : index
          %last = arith.cmpi ugt, %next, %last_k : index
          scf.if %last {
            weave.wait_smem_to_gmem 0
            weave.semaphore_signal %ready[%shard], %one on %prev
                : !weave.semaphore<2>
          }
        }
      }
    }
        after_loads {
      weave.semaphore_signal %done, %one on %writer : !weave.semaphore
    }
    // Every thread has read `launches` (above) before one adds this block's
    // end to it.
    gpu.barrier
    %thread = gpu.thread_id x
    %leader = arith.cmpi eq, %thread, %c0 : index
    scf.if %leader {
      %ended_now = memref.atomic_rmw addi %one, %launches[%c0]
          : (i32, memref<1xi32>) -> i32
    }
    gpu.return
  }
}
}
