// Instance of all_gather_matmul.mlir.in (next to it) for 2 GPUs,
// m_shard = 1024, K = 4096, n_shard = 4096, f16.
//
// C = AllGather(A) @ B on a ring of 2 GPUs, fused into one matmul pipeline.
//
// Every device holds a symmetric `a` of 2 row shards (1024 x 4096 each,
// its own shard written by the host), its column shard `b` of B and the
// output `c` = [A_0; ...; A_1] @ b. The pipeline visits row tiles
// starting with the device's own shard (rotate_m), so it computes on the
// rows it has while the ring brings the rest:
//   - callback (one elected thread beside the producer): sends lhs tiles
//     straight from shared memory to the same rows of the previous device's `a` (a TMA
//     store over NVLink), unless that device owns the shard. The column
//     tiles of a row tile share the work: column tile n sends the k steps
//     k = n (mod column tiles), then waits for its stores and signals the
//     row tile's chunk on that device once;
//   - before_load: before the first k step of a row tile of another
//     device's shard, the producer waits until every part of the row
//     tile's chunk has arrived.
// A shard's row tiles arrive in CHUNKS (16) chunks of ceil(tiles / 16) row
// tiles, each with its own counter ready[shard * 16 + chunk]: a block
// waits for the rows it reads, not for the whole shard. (With one counter
// per shard, a shard of 9 row tiles x 16 column tiles = 144 tiles, more
// than one wave of 132 blocks, made the blocks of the next shard wait a
// whole tile for the last 12 tiles of the peer: 4 tile times where 3 do,
// 1.6-1.8x cuBLAS at m_shard 1152.)
// The tiles go in groups of at most GROUP_ROWS row tiles inside segments
// of one shard (grid_tile_segments = D): a group never holds rows of two
// shards (a shard's last group is narrower), so every block visits the
// shards in ring order and a tile waits only for tiles of lower linear index
// on the next device; and the scheduler narrows the groups where a wave is
// long against a shard, so that a row tile's forwarding (spread over all its
// column tiles) completes a wave before the next device needs it. (A group straddling shards deadlocks: a block waiting for
// shard s + 1 would hold back a tile of shard s that a peer needs before
// it can forward shard s + 1.)
// Counters only grow and may wrap past 2^32 (a long training run gets
// there): launch number `epoch` (0, 1, ...) of the kernel waits for
// (epoch + 1) * (parts of a chunk), modulo 2^32, with cmp(ge_wrap) (each
// counter is within 2^31 of its target when waited on). The epoch is kept
// on the device, so that a CUDA graph replay (same arguments every time)
// still counts launches: every block adds 1 to the member's 64-bit
// `launches` (zeroed once by the host) when it ends, and reads it when it
// starts; the launches before added exactly `blocks` each and this one's
// other blocks fewer than `blocks`, so epoch = launches / blocks (64 bits:
// a 32-bit count would break the division after 2^32 / blocks launches).
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
      %a: memref<2048x4096xf16, #weave.symmetric> {weave.name = "a"},
      %b: memref<4096x4096xf16> {weave.name = "b"},
      %c: memref<2048x4096xf16> {weave.name = "c"},
      %ready: !weave.semaphore<32> {weave.name = "ready"},
      %launches: memref<1xi64> {weave.name = "launches"},
      %done: !weave.semaphore {weave.name = "done"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = 2>,
          grid = [persistent, 1, 1], block = [384, 1, 1], smem = auto>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %one = arith.constant 1 : i32
    %one_i64 = arith.constant 1 : i64
    %chunks = arith.constant 16 : index
    %col_tiles = arith.constant 16 : index
    %last_k = arith.constant 63 : index
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
    // The shard size comes from `a` (2048 rows: with ROWS = ?, one bundle
    // serves every m_shard, its rows bound at launch); for a static shape
    // all of this folds to constants. A shard must be whole row tiles: a
    // tile straddling two shards would wait for the wrong one, so another
    // m_shard traps here instead of hanging.
    %rows = memref.dim %a, %c0 : memref<2048x4096xf16, #weave.symmetric>
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
    %parts_per_tile = arith.constant 16 : index
    // Chunks of ceil(tiles / 16) row tiles (the last one shorter, the
    // ones past the shard empty).
    %c15 = arith.constant 15 : index
    %tiles_up = arith.addi %tiles_per_shard, %c15 : index
    %chunk_rows = arith.divui %tiles_up, %chunks : index
    %blocks = gpu.grid_dim x
    %blocks_i64 = arith.index_cast %blocks : index to i64
    // One aligned 64-bit load (without the alignment it is split into two
    // 32-bit halves, which a block of this launch adding its end could
    // tear; the runtime aligns buffers to 16 bytes).
    %launches_8 = memref.assume_alignment %launches, 8 : memref<1xi64>
    %ended = memref.load %launches_8[%c0] : memref<1xi64>
    %epoch_i64 = arith.divui %ended, %blocks_i64 : i64
    // Targets modulo 2^32, compared with cmp(ge_wrap).
    %epoch = arith.trunci %epoch_i64 : i64 to i32
    %blocks_i32 = arith.index_cast %blocks : index to i32
    %n_minus_1 = arith.subi %n, %c1 : index
    %me_plus = arith.addi %me, %n_minus_1 : index
    %prev = arith.remui %me_plus, %n : index
    %epoch_plus_1 = arith.addi %epoch, %one : i32
    %own_first = arith.muli %me, %tiles_per_shard : index
    // Row-tile ranges of the own shard and of the previous device's: the
    // regions test a tile against them on every k step, where a division
    // by a dynamic shard size cost the dynamic instance about 5% (the
    // producer and the callback warp are on every step's path).
    %prev_first = arith.muli %prev, %tiles_per_shard : index
    // The regions' arithmetic in 32 bits (row tiles number far fewer than
    // 2^31): half the registers of index values and no 64-bit division,
    // in the producer warpgroup's 40 registers a thread (64-bit versions
    // spilled in the dynamic instance).
    %tps = arith.index_cast %tiles_per_shard : index to i32
    %own_first_32 = arith.index_cast %own_first : index to i32
    %prev_first_32 = arith.index_cast %prev_first : index to i32
    %chunk_rows_32 = arith.index_cast %chunk_rows : index to i32
    %parts_per_tile_32 = arith.index_cast %parts_per_tile : index to i32
    %chunks_32 = arith.constant 16 : i32
    %me_plus_1 = arith.addi %me, %c1 : index
    %writer = arith.remui %me_plus_1, %n : index
    %reads_done = arith.muli %epoch, %blocks_i32 : i32
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4)
        delay_release(1) rotate_m(%own_first)
        {grid_tile_width = 8 : i64, grid_tile_segments = 2 : i64}
        : memref<2048x4096xf16, #weave.symmetric>, memref<4096x4096xf16>
          into memref<2048x4096xf16>
        before_load {
    ^bb0(%m: index, %nt: index, %k: index):
      %first_k = arith.cmpi eq, %k, %c0 : index
      // (Unsigned: a row tile below the shard wraps to a large offset.)
      %m32 = arith.index_cast %m : index to i32
      %own_offset = arith.subi %m32, %own_first_32 : i32
      %remote = arith.cmpi uge, %own_offset, %tps : i32
      %wait = arith.andi %remote, %first_k : i1
      scf.if %wait {
        // The row tile's chunk: its rows [lo, hi) of the shard arrive in
        // (hi - lo) * parts_per_tile parts per launch.
        %shard = arith.divui %m32, %tps : i32
        %shard_row = arith.muli %shard, %tps : i32
        %row_in_shard = arith.subi %m32, %shard_row : i32
        %chunk = arith.divui %row_in_shard, %chunk_rows_32 : i32
        %lo = arith.muli %chunk, %chunk_rows_32 : i32
        %lo_next = arith.addi %lo, %chunk_rows_32 : i32
        %hi = arith.minui %lo_next, %tps : i32
        %chunk_tiles = arith.subi %hi, %lo : i32
        %chunk_parts = arith.muli %chunk_tiles, %parts_per_tile_32 : i32
        %arrived = arith.muli %epoch_plus_1, %chunk_parts : i32
        %shard_first = arith.muli %shard, %chunks_32 : i32
        %counter_32 = arith.addi %shard_first, %chunk : i32
        %counter = arith.index_cast %counter_32 : i32 to index
        weave.semaphore_wait %ready[%counter], %arrived cmp(ge_wrap)
            : !weave.semaphore<32>
      }
    }
        callback {
    ^bb0(%lhs: memref<128x64xf16, #gpu.address_space<workgroup>>,
         %rhs: memref<64x256xf16, #gpu.address_space<workgroup>>,
         %m: index, %nt: index, %k: index):
      %m32 = arith.index_cast %m : index to i32
      %prev_offset = arith.subi %m32, %prev_first_32 : i32
      %needed = arith.cmpi uge, %prev_offset, %tps : i32
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
            weave.semaphore_wait %done, %reads_done cmp(ge_wrap)
                : !weave.semaphore
          }
          %row = arith.muli %m, %c128 : index
          %col = arith.muli %k, %c64 : index
          weave.copy_smem_to_gmem %lhs, %a[%row, %col] on %prev
              : memref<128x64xf16, #gpu.address_space<workgroup>>
                -> memref<2048x4096xf16, #weave.symmetric>
          %next = arith.addi %k, %col_tiles : index
          %last = arith.cmpi ugt, %next, %last_k : index
          scf.if %last {
            weave.wait_smem_to_gmem 0
            %shard = arith.divui %m32, %tps : i32
            %shard_row = arith.muli %shard, %tps : i32
            %row_in_shard = arith.subi %m32, %shard_row : i32
            %chunk = arith.divui %row_in_shard, %chunk_rows_32 : i32
            %shard_first = arith.muli %shard, %chunks_32 : i32
            %counter_32 = arith.addi %shard_first, %chunk : i32
            %counter = arith.index_cast %counter_32 : i32 to index
            weave.semaphore_signal %ready[%counter], %one on %prev
                : !weave.semaphore<32>
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
      %ended_now = memref.atomic_rmw addi %one_i64, %launches[%c0]
          : (i64, memref<1xi64>) -> i64
    }
    gpu.return
  }
}
}
