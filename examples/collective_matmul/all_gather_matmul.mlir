// Instance of ops/templates/collective_matmul/all_gather_matmul.mlir.in
// for 2 GPUs, m_shard = 1024, K = 4096, n_shard = 4096, f16 (PUSH 0 and
// K_ROTATION 0, as the op takes at this shard: ops::AllGatherMatmul::pushes).
//
// C = AllGather(A) @ B on a ring of 2 GPUs, fused into one matmul pipeline.
//
// Every device holds a symmetric `a` of 2 row shards (1024 x 4096 each),
// its own shard `own` (the caller's rows: a plain buffer, or in place rows
// r of `a` itself), its column shard `b` of B and the output `c` =
// [A_0; ...; A_1] @ b. The own shard's row tiles are loaded from `own`
// (the pipeline's lhs_rows), so the host copies nothing into `a` before
// the launch and rows r of `a` are neither read nor written; the peers'
// shards arrive in `a`. (The copy was on the critical path: the own
// shard's tiles go first; issue #32.) The pipeline visits row tiles
// starting with the device's own shard (rotate_m), so it computes on the
// rows it has while the ring brings the rest:
//   - callback (one elected thread beside the producer): sends lhs tiles
//     straight from shared memory to the same rows of the previous device's `a` (a TMA
//     store over NVLink; evict-first in its L2 at D = 2), unless that device owns the shard. The column
//     tiles of a row tile share the work: column tile n sends the k steps
//     k = n (mod column tiles); a few k steps after its last store (at the
//     row tile's last step at the latest) it waits for its stores to land
//     and signals the row tile's chunk on that device once;
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
//
// With PUSH = 1 (the op's choice for small shards,
// ops::AllGatherMatmul::pushes) there is no ring: the blocks that start on
// no own tile first put a share of the own shard into every peer's `a` and
// signal the shard's first counter there; done goes to every peer (see the
// kernel below).
//
// The output tile is 128 x 256 (4 stages): the row tile is the
// ring's unit (128 rows forwarded and counted), the column tile is chosen
// per shape (ops/lib/Instances.cpp, allGatherMatmulTileN), 128 where whole
// waves of 128 x 256 tiles would leave a round mostly idle. The kernel
// lies between the "kernel begin" and "kernel end" lines: the op's
// dynamic-m_shard instance repeats it once per range of m_shard
// (KernelInstance::variants), each copy renamed and marked `weave.variant`
// with its own tile, so that the runtime picks the tile at launch.
module attributes {gpu.container_module} {
gpu.module @all_gather_matmul {
  // kernel begin
  gpu.func @all_gather_matmul(
      %a: memref<2048x4096xf16, #weave.symmetric> {weave.name = "a"},
      %own: memref<1024x4096xf16> {weave.name = "own"},
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
    // The k steps between a column tile's last forwarding store and its
    // signal (see the callback): 4 steps (about 2.5 us at 128 x 256 x 64)
    // let the NVLink write land before the callback waits for it. 4 and 8
    // measured alike, both faster than 0 (2 x H100, docs/PERF.md).
    %signal_delay = arith.constant 4 : index
    // k_rotation (0: none): column tile n runs its k steps from n * rot
    // on (the first ceil(k steps / rot) column tiles; the others from 0),
    // and forwards the k steps [n * rot, (n + 1) * rot), the first rot of
    // its loop, so a row tile is forwarded within rot (+ the delay) steps
    // of its column tiles' starts instead of over their whole k loops.
    // The op takes 0: where the ring's latency is the kernel's critical
    // path (small shards) the push below beat the rotation (docs/PERF.md,
    // ops::AllGatherMatmul::pushes); ring_variants.py krotS sets it for
    // an A/B. With rot = 0 the selects below fold to the plain assignment
    // (column tile n forwards k = n mod column tiles).
    %rot = arith.constant 0 : index
    %rotated = arith.cmpi ugt, %rot, %c0 : index
    %rot_or_1 = arith.maxui %rot, %c1 : index
    %num_k = arith.addi %last_k, %c1 : index
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
    // The shard size comes from `a` (2048 rows: with ROWS = ?, one bundle
    // serves every m_shard, its rows bound at launch); for a static shape
    // all of this folds to constants. A shard must be whole row tiles: a
    // tile straddling two shards would wait for the wrong one, so another
    // m_shard traps here instead of hanging. No printf before the trap:
    // its vprintf call made ptxas serialize every wgmma of the kernel
    // (C7510; weavec warns), which the static instances escaped only
    // because the check folds away there: the dynamic instance was 2.7-5%
    // slower than the static one with it, 0-0.9% without (2 x H100,
    // docs/PERF.md). The ops check m_shard on the host with a message
    // (ops/lib/Instances.cpp). m_shard is `own`'s rows, which stand for
    // rows [me * m_shard, (me + 1) * m_shard) of `a`: so `a` must be D of
    // them. (From `own` rather than `a` / D: the pipeline's lhs_rows
    // computes its tile range from `own`'s rows and the first row below,
    // and the same values here fold into one set of registers. Two sets
    // made the producer warpgroup's 40 registers spill in the dynamic
    // instance: ptxas, 20 bytes of spill stores.)
    %rows = memref.dim %a, %c0 : memref<2048x4096xf16, #weave.symmetric>
    %m_shard = memref.dim %own, %c0 : memref<1024x4096xf16>
    %tiles_per_shard = arith.divui %m_shard, %c128 : index
    %whole_tiles = arith.muli %tiles_per_shard, %c128 : index
    %all_rows = arith.muli %whole_tiles, %n : index
    %ragged = arith.cmpi ne, %all_rows, %rows : index
    %partial_tile = arith.cmpi ne, %whole_tiles, %m_shard : index
    %wrong = arith.ori %ragged, %partial_tile : i1
    scf.if %wrong {
      llvm.intr.trap
    }
    // Each shard arrives as (row tiles) x (forwarding column tiles) parts:
    // min(column tiles, k steps) column tiles forward, or with k_rotation
    // those with n * rot < k steps, ceil(k steps / rot) (no more than the
    // column tiles: a rot below ceil(k steps / column tiles) traps below).
    %plain_parts = arith.minui %col_tiles, %num_k : index
    %rot_parts_up = arith.addi %num_k, %rot : index
    %rot_parts_up_1 = arith.subi %rot_parts_up, %c1 : index
    %rot_parts = arith.divui %rot_parts_up_1, %rot_or_1 : index
    %parts_per_tile = arith.select %rotated, %rot_parts, %plain_parts : index
    // A rotation too short to cover every k step with the column tiles'
    // first rot steps would leave steps unforwarded: trap (folds away).
    %rot_cover = arith.muli %col_tiles, %rot : index
    %uncovered = arith.cmpi ult, %rot_cover, %num_k : index
    %short = arith.andi %rotated, %uncovered : i1
    scf.if %short {
      llvm.intr.trap
    }
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
    // (nuw: the first row over 128 folds back to %own_first.)
    %shard_row0 = arith.muli %own_first, %c128 overflow<nuw> : index
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
    // PUSH (0: the ring): the blocks whose first tile is not one of the
    // own shard's (block b < W takes tile b first, rotate_m puts the own
    // tiles first: the first own-tiles blocks compute at once, the others
    // would wait for a peer or have no tile) first copy `own`'s rows, a
    // share each, into the shard's rows of every peer's `a` (weave.put),
    // to the previous member first, whose walk needs this shard first, and
    // add 1 to the peer's ready[me * 16]; a peer's tile of this shard waits
    // for every pusher's add; the callback forwards nothing, and a block's
    // end is signalled as done on every peer, since every peer writes into
    // this member's `a`: a push of launch epoch waits until (D - 1) x
    // blocks of launch epoch - 1 have ended. Where the own tiles fill the
    // grid every block pushes. For small shards, where the ring's
    // forwarding from the computing tiles makes a peer's rows a whole tile
    // late (docs/PERF.md). Measured (4 x H100, K = N = 4096, bf16, with
    // weave.put's four vectors in flight): against every block pushing,
    // 0.139-0.142 against 0.149 ms at m_shard 384, D = 4, 0.062-0.064
    // against 0.065 at 384, D = 2, 2-5% faster at 256 and 512, the same
    // at 128 (without the four vectors in flight it had been slower: a
    // push by half the blocks took longer than the own tiles' head start).
    %push = arith.constant 0 : index
    %pushing = arith.cmpi ne, %push, %c0 : index
    %true = arith.constant true
    %n_minus_1_32 = arith.index_cast %n_minus_1 : index to i32
    %peers_done = arith.muli %reads_done, %n_minus_1_32 : i32
    // Pushers: blocks [first_pusher, blocks).
    %own_tiles = arith.muli %tiles_per_shard, %col_tiles : index
    %own_fits = arith.cmpi ult, %own_tiles, %blocks : index
    %first_pusher = arith.select %own_fits, %own_tiles, %c0 : index
    %pushers = arith.subi %blocks, %first_pusher : index
    %pushers_i32 = arith.index_cast %pushers : index to i32
    %bid = gpu.block_id x
    %pusher = arith.cmpi uge, %bid, %first_pusher : index
    %pushes = arith.andi %pushing, %pusher : i1
    scf.if %pushes {
      %share = arith.subi %bid, %first_pusher : index
      %pushers_m1 = arith.subi %pushers, %c1 : index
      %per_up = arith.addi %m_shard, %pushers_m1 : index
      %per = arith.divui %per_up, %pushers : index
      %lo_raw = arith.muli %share, %per : index
      %lo_rows = arith.minui %lo_raw, %m_shard : index
      %hi_raw = arith.addi %lo_rows, %per : index
      %hi_rows = arith.minui %hi_raw, %m_shard : index
      %count = arith.subi %hi_rows, %lo_rows : index
      %row0 = arith.addi %shard_row0, %lo_rows : index
      %tid = gpu.thread_id x
      %first_thread = arith.cmpi eq, %tid, %c0 : index
      scf.if %first_thread {
        weave.semaphore_wait %done, %peers_done cmp(ge_wrap) : !weave.semaphore
      }
      gpu.barrier
      // From `own`'s rows [lo, hi) to the same rows of the shard in every
      // peer's `a`.
      %from = memref.subview %own[%lo_rows, 0] [%count, 4096] [1, 1]
          : memref<1024x4096xf16>
            to memref<?x4096xf16, strided<[4096, 1], offset: ?>>
      %mine = memref.subview %a[%row0, 0] [%count, 4096] [1, 1]
          : memref<2048x4096xf16, #weave.symmetric>
            to memref<?x4096xf16, strided<[4096, 1], offset: ?>, #weave.symmetric>
      %own_counter = arith.muli %me, %chunks : index
      scf.for %i = %c1 to %n step %c1 {
        // me - i: the previous member first.
        %peer_sum = arith.subi %n, %i : index
        %peer_up = arith.addi %me, %peer_sum : index
        %peer = arith.remui %peer_up, %n : index
        weave.put %from, %mine on %peer signal %ready[%own_counter], %one
            : memref<?x4096xf16, strided<[4096, 1], offset: ?>>
              -> memref<?x4096xf16, strided<[4096, 1], offset: ?>, #weave.symmetric>,
                 !weave.semaphore<32>
      }
    }
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4)
        delay_release(1) rotate_m(%own_first)
        lhs_rows(%own at %shard_row0 : memref<1024x4096xf16>)
        {grid_tile_width = 8 : i64, grid_tile_segments = 2 : i64,
         k_rotation = 0 : i64}
        : memref<2048x4096xf16, #weave.symmetric>, memref<4096x4096xf16>
          into memref<2048x4096xf16>
        before_load {
    ^bb0(%m: index, %nt: index, %k: index):
      // The tile's first k step (k_rotation moves it: n * rot where that
      // is a step, else 0).
      %start_rot = arith.muli %nt, %rot : index
      %start_in = arith.cmpi ult, %start_rot, %num_k : index
      %start = arith.select %start_in, %start_rot, %c0 : index
      %first_k = arith.cmpi eq, %k, %start : index
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
        %ring_chunk = arith.divui %row_in_shard, %chunk_rows_32 : i32
        %lo = arith.muli %ring_chunk, %chunk_rows_32 : i32
        %lo_next = arith.addi %lo, %chunk_rows_32 : i32
        %hi = arith.minui %lo_next, %tps : i32
        %chunk_tiles = arith.subi %hi, %lo : i32
        %ring_parts = arith.muli %chunk_tiles, %parts_per_tile_32 : i32
        // PUSH: one counter a shard, one add per pusher of its owner.
        %zero_32 = arith.constant 0 : i32
        %chunk = arith.select %pushing, %zero_32, %ring_chunk : i32
        %chunk_parts = arith.select %pushing, %pushers_i32, %ring_parts : i32
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
      %prev_needs = arith.cmpi uge, %prev_offset, %tps : i32
      %ring = arith.xori %pushing, %true : i1
      %needed = arith.andi %ring, %prev_needs : i1
      scf.if %needed {
        // The store issued in the previous step has read its slot before
        // the pipeline hands that slot back, after this callback.
        weave.wait_smem_to_gmem 0 read_only
        // The column tiles of a row tile share its forwarding: column tile
        // n sends the k steps k = n (mod column tiles), or with k_rotation
        // the steps [n * rot, (n + 1) * rot).
        %k_mod = arith.remui %k, %col_tiles : index
        %k_div = arith.divui %k, %rot_or_1 : index
        %k_part = arith.select %rotated, %k_div, %k_mod : index
        %mine = arith.cmpi eq, %k_part, %nt : index
        %nt_rot = arith.muli %nt, %rot : index
        %first_store = arith.select %rotated, %nt_rot, %nt : index
        scf.if %mine {
          // The tile's first store: the previous device has read the last
          // launch's rows.
          %first = arith.cmpi eq, %k, %first_store : index
          scf.if %first {
            weave.semaphore_wait %done, %reads_done cmp(ge_wrap)
                : !weave.semaphore
          }
          %row = arith.muli %m, %c128 : index
          %col = arith.muli %k, %c64 : index
          // At D = 2 the store marks its lines evict-first in the peer's
          // L2: the peer reads these rows only in its second phase, and
          // until then they would push out the A group and B of the
          // matmul it runs. 2 x H100, in alternation: the op's instance
          // at the 70B gate/up shape (4096 x 8192 x 28672) 5.61-5.63 ->
          // 5.41-5.54 ms, at the 8B one 1.366 -> 1.299 (one pair); the
          // static 70B bundle's medians of 5 runs 5.552 -> 5.495 ms
          // (within its 2-4% spread); 4096^3 unchanged. At D = 4
          // (4096^3, 3 pairs) no gain, one pair 3% slower: off at D > 2
          // (docs/PERF.md, round 6). %n folds to a constant: one of the
          // two stores remains.
          %two = arith.constant 2 : index
          %pair = arith.cmpi eq, %n, %two : index
          scf.if %pair {
            weave.copy_smem_to_gmem %lhs, %a[%row, %col] l2(evict_first) on %prev
                : memref<128x64xf16, #gpu.address_space<workgroup>>
                  -> memref<2048x4096xf16, #weave.symmetric>
          } else {
            weave.copy_smem_to_gmem %lhs, %a[%row, %col] on %prev
                : memref<128x64xf16, #gpu.address_space<workgroup>>
                  -> memref<2048x4096xf16, #weave.symmetric>
          }
        }
        // The row tile's chunk is signalled %signal_delay k steps after this
        // column tile's last store (at the tile's last step at the latest),
        // once that store has landed. Waiting for the landing right after
        // the store held the callback warp for the NVLink write's round
        // trip, and with it the release of every later slot (the callback
        // takes part in releasing them): 1-2% slower at m_shard 4096 (K =
        // N = 4096 and the 70B shape, 2 x H100). The store of the last k
        // step signals at once, so a row tile whose column tiles run in one
        // wave (small shards, where the ring's latency shows) completes as
        // early as before; one whose column tiles span waves may complete
        // up to 4 steps later (its last-running column tile's signal).
        // Column tiles past the last k step store nothing and signal
        // nothing (a row tile arrives in min(column tiles, k steps) parts).
        // With k_rotation the same in positions of the tile's loop
        // (position p holds k = first store + p, wrapped): its stores are
        // positions 0 .. min(rot, k steps - first store) - 1.
        %stores = arith.cmpi ule, %first_store, %last_k : index
        %span = arith.subi %last_k, %nt : index
        %laps = arith.divui %span, %col_tiles : index
        %lap_steps = arith.muli %laps, %col_tiles : index
        %plain_last = arith.addi %nt, %lap_steps : index
        %rot_end = arith.addi %first_store, %rot : index
        %rot_end_in = arith.minui %rot_end, %num_k : index
        %rot_stores = arith.subi %rot_end_in, %first_store : index
        %rot_last = arith.subi %rot_stores, %c1 : index
        %last_store = arith.select %rotated, %rot_last, %plain_last : index
        %delayed = arith.addi %last_store, %signal_delay : index
        %signal_k = arith.minui %delayed, %last_k : index
        %behind = arith.cmpi ult, %k, %first_store : index
        %k_wrapped = arith.addi %k, %num_k : index
        %k_unwrapped = arith.select %behind, %k_wrapped, %k : index
        %rot_position = arith.subi %k_unwrapped, %first_store : index
        %position = arith.select %rotated, %rot_position, %k : index
        %at_signal = arith.cmpi eq, %position, %signal_k : index
        %signal = arith.andi %stores, %at_signal : i1
        scf.if %signal {
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
        after_loads {
      scf.if %pushing {
        scf.for %i = %c1 to %n step %c1 {
          %peer_sum = arith.addi %me, %i : index
          %peer = arith.remui %peer_sum, %n : index
          weave.semaphore_signal %done, %one on %peer : !weave.semaphore
        }
      } else {
        weave.semaphore_signal %done, %one on %writer : !weave.semaphore
      }
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
  // kernel end
}
}
