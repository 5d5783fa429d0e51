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
//   - callback (one warp beside the producer): its first thread sends lhs
//     tiles straight from shared memory to the same rows of the previous
//     device's `a` (a TMA store over NVLink), unless that device owns the
//     shard. The column tiles of a row tile share the work: column tile n
//     sends the k steps k = n (mod column tiles), so a row tile arrives in
//     chunks of 16 consecutive k steps, counted by ready[row tile,
//     chunk] on the receiver. A store is signalled two steps after it was
//     issued (or at the tile's last step), when it has long completed;
//   - before_load: before the first k step of each chunk of a row tile of
//     another device's shard, the producer waits until that chunk has
//     arrived. Data arrives while the own shard is computed, in the order
//     the next shard reads it.
// Counters only grow: launch number `epoch` (0, 1, ...) waits for
// (epoch + 1) x (parts of the chunk). A store reads its slot during the
// next k step: the callback of that step waits for the read, and
// delay_release(1) hands the slot back only after it. The waits stall only
// the callback warp, never the wgmma warpgroups.
module attributes {gpu.container_module} {
gpu.module @all_gather_matmul {
  gpu.func @all_gather_matmul(
      %a: memref<2048x4096xf16, #weave.symmetric> {weave.name = "a"},
      %b: memref<4096x4096xf16> {weave.name = "b"},
      %c: memref<2048x4096xf16> {weave.name = "c"},
      %ready: !weave.semaphore<64> {weave.name = "ready"},
      %epoch: i32 {weave.name = "epoch"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = 2>,
          grid = [132, 1, 1], block = [384, 1, 1], smem = 230464>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %one = arith.constant 1 : i32
    %tiles_per_shard = arith.constant 8 : index
    %c2 = arith.constant 2 : index
    %col_tiles = arith.constant 16 : index
    %chunks = arith.constant 4 : index
    %k_steps = arith.constant 64 : index
    %last_k = arith.constant 63 : index
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
    %n_minus_1 = arith.subi %n, %c1 : index
    %me_plus = arith.addi %me, %n_minus_1 : index
    %prev = arith.remui %me_plus, %n : index
    %epoch_plus_1 = arith.addi %epoch, %one : i32
    %own_first = arith.muli %me, %tiles_per_shard : index
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4)
        delay_release(1) rotate_m(%own_first)
        : memref<2048x4096xf16, #weave.symmetric>, memref<4096x4096xf16>
          into memref<2048x4096xf16>
        before_load {
    ^bb0(%m: index, %nt: index, %k: index):
      %shard = arith.divui %m, %tiles_per_shard : index
      %remote = arith.cmpi ne, %shard, %me : index
      %k_mod = arith.remui %k, %col_tiles : index
      %chunk_start = arith.cmpi eq, %k_mod, %c0 : index
      %wait = arith.andi %remote, %chunk_start : i1
      scf.if %wait {
        %chunk = arith.divui %k, %col_tiles : index
        %row_chunks = arith.muli %m, %chunks : index
        %counter = arith.addi %row_chunks, %chunk : index
        %left = arith.subi %k_steps, %k : index
        %parts = arith.minui %left, %col_tiles : index
        %parts_i32 = arith.index_cast %parts : index to i32
        %expected = arith.muli %parts_i32, %epoch_plus_1 : i32
        weave.semaphore_wait %ready[%counter], %expected
            : !weave.semaphore<64>
      }
    }
        callback {
    ^bb0(%lhs: memref<128x64xf16, #gpu.address_space<workgroup>>,
         %rhs: memref<64x256xf16, #gpu.address_space<workgroup>>,
         %m: index, %nt: index, %k: index):
      %shard = arith.divui %m, %tiles_per_shard : index
      %tid = gpu.thread_id x
      %leader = arith.cmpi eq, %tid, %c32 : index
      %needed = arith.cmpi ne, %shard, %prev : index
      %forwarder = arith.andi %leader, %needed : i1
      scf.if %forwarder {
        // The store issued in the previous step has read its slot before
        // the pipeline hands that slot back, after this callback.
        weave.wait_smem_to_gmem 0 read_only
        %row_chunks = arith.muli %m, %chunks : index
        // Signal the store of step k - 2 (this column tile's, if any).
        %two_done = arith.cmpi uge, %k, %c2 : index
        %k2 = arith.subi %k, %c2 : index
        %k2_mod = arith.remui %k2, %col_tiles : index
        %k2_mine = arith.cmpi eq, %k2_mod, %nt : index
        %signal_k2 = arith.andi %two_done, %k2_mine : i1
        scf.if %signal_k2 {
          weave.wait_smem_to_gmem 0
          %chunk = arith.divui %k2, %col_tiles : index
          %counter = arith.addi %row_chunks, %chunk : index
          weave.semaphore_signal %ready[%counter], %one on %prev
              : !weave.semaphore<64>
        }
        // Send this step's tile if it is this column tile's share.
        %k_mod = arith.remui %k, %col_tiles : index
        %mine = arith.cmpi eq, %k_mod, %nt : index
        scf.if %mine {
          %row = arith.muli %m, %c128 : index
          %col = arith.muli %k, %c64 : index
          weave.copy_smem_to_gmem %lhs, %a[%row, %col] on %prev
              : memref<128x64xf16, #gpu.address_space<workgroup>>
                -> memref<2048x4096xf16, #weave.symmetric>
        }
        // The tile's last step: signal the stores of steps k - 1 and k.
        %last = arith.cmpi eq, %k, %last_k : index
        scf.if %last {
          weave.wait_smem_to_gmem 0
          %k1 = arith.subi %k, %c1 : index
          %k1_mod = arith.remui %k1, %col_tiles : index
          %k1_mine = arith.cmpi eq, %k1_mod, %nt : index
          %one_done = arith.cmpi uge, %k, %c1 : index
          %signal_k1 = arith.andi %one_done, %k1_mine : i1
          scf.if %signal_k1 {
            %chunk = arith.divui %k1, %col_tiles : index
            %counter = arith.addi %row_chunks, %chunk : index
            weave.semaphore_signal %ready[%counter], %one on %prev
                : !weave.semaphore<64>
          }
          scf.if %mine {
            %chunk = arith.divui %k, %col_tiles : index
            %counter = arith.addi %row_chunks, %chunk : index
            weave.semaphore_signal %ready[%counter], %one on %prev
                : !weave.semaphore<64>
          }
        }
      }
    }
    gpu.return
  }
}
}
