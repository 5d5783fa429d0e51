// The collective matmul (weave::ops' all_gather_matmul template) with one
// of its synchronizations removed at a time, found by pattern so that the
// test follows the template.
//
// The op's instance pushes at these small shards (PUSH = 1): the ring's
// mutants are made on its ring variant (ring_variants.py ring, PUSH = 0).
// RUN: weave-ops source all_gather_matmul --team-size 2 --dtype bf16 --m-shard 256 --k 256 --n 512 --algorithm ring -o %t.op.mlir
// RUN: python3 %weave_src_root/bench/collective_matmul/ring_variants.py %t.op.mlir %t.v ring
// RUN: mv %t.v_ring.mlir %t.mlir
//
// Without lhs_rows the own tiles load rows r of the gathered `a`, which no
// member writes (the ring and the push fill only the peers' rows): with
// `a` declared kernel-written, the checker reports the read, in the ring
// and in the op's push instance; without the declaration such bytes are
// the host's inputs and nothing is reported.
// RUN: sed -e 's/ lhs_rows(%%own at %%shard_row0 : memref<[^>]*>)//' %t.mlir > %t.nolhs.mlir
// RUN: not weavec --check-protocol --team-size 2 --check-kernel-written a --check-shape a=512x256 --check-shape own=256x256 --check-shape c=512x512 %t.nolhs.mlir 2>&1 | FileCheck %s --check-prefix=UNWRITTEN
// RUN: sed -e 's/ lhs_rows(%%own at %%shard_row0 : memref<[^>]*>)//' %t.op.mlir > %t.nolhs-push.mlir
// RUN: not weavec --check-protocol --team-size 2 --check-kernel-written a --check-shape a=512x256 --check-shape own=256x256 --check-shape c=512x512 %t.nolhs-push.mlir 2>&1 | FileCheck %s --check-prefix=UNWRITTEN
// UNWRITTEN: error: read of memory nothing wrote: the pipeline's TMA load by member {{[01]}} (launch 0, pipeline producer) reads bytes [{{[0-9]+}}, {{[0-9]+}}) of member {{[01]}}'s 'a', which no member has written before it (--check-kernel-written a: it holds only what the kernels write;
// RUN: weavec --check-protocol --team-size 2 --check-shape a=512x256 --check-shape own=256x256 --check-shape c=512x512 %t.nolhs.mlir | FileCheck %s --check-prefix=UNDECLARED
// UNDECLARED: protocol check passed
// RUN: not weavec --check-protocol --team-size 2 --check-kernel-written b --check-shape a=512x256 --check-shape own=256x256 --check-shape c=512x512 %t.mlir 2>&1 | FileCheck %s --check-prefix=NOT-SYMMETRIC
// NOT-SYMMETRIC: error: protocol check: --check-kernel-written names 'b', which is no symmetric buffer parameter of a kernel here (they are: a)
//
// Without the callback's read_only wait, the producer refills a ring slot
// that the previous step's bulk store is still reading.
// RUN: grep -v 'weave.wait_smem_to_gmem 0 read_only' %t.mlir > %t.slot.mlir
// RUN: not weavec --check-protocol --team-size 2 --check-shape a=512x256 --check-shape own=256x256 --check-shape c=512x512 %t.slot.mlir 2>&1 | FileCheck %s --check-prefix=SLOT
// SLOT: error: race: the pipeline's TMA load into its ring by member {{[01]}} (launch {{[01]}}, pipeline producer) writes bytes [0, 16384) of member {{[01]}}'s 'lhs ring (shared memory) of the pipeline at {{.*}}' while a bulk store's read of its source by member {{[01]}} (launch {{[01]}}, pipeline callback) reads bytes [0, 16384), and no signal/wait or barrier orders the two (the bulk store has not finished reading its source: wait with weave.wait_smem_to_gmem N read_only before the slot is reused)
// SLOT: note: the other access: a bulk store's read of its source
//
// Without the wait for the previous device's `done`, the next launch's
// forwarding overwrites rows of `a` that device still loads.
// RUN: sed -e '/weave.semaphore_wait %%done, %%reads_done/,/: !weave.semaphore/d' %t.mlir > %t.done.mlir
// RUN: not weavec --check-protocol --team-size 2 --check-shape a=512x256 --check-shape own=256x256 --check-shape c=512x512 %t.done.mlir 2>&1 | FileCheck %s --check-prefix=DONE
// DONE: error: race: the pipeline's TMA load by member {{[01]}} (launch 0, {{(block [0-9], )?}}pipeline producer) reads {{.*}} of member {{[01]}}'s 'a' while a remote bulk (TMA) store by member {{[01]}} (launch 1, {{(block [0-9], )?}}pipeline callback) writes
// DONE: note: the other access: a remote bulk (TMA) store
//
// Without the final wait for the bulk stores, the signal publishes rows
// that have not landed.
// RUN: grep -v 'weave.wait_smem_to_gmem 0$' %t.mlir > %t.store.mlir
// RUN: not weavec --check-protocol --team-size 2 --check-shape a=512x256 --check-shape own=256x256 --check-shape c=512x512 %t.store.mlir 2>&1 | FileCheck %s --check-prefix=STORE
// STORE: error: race: {{.*}}(the earlier bulk store is not complete: wait for it with weave.wait_smem_to_gmem 0 before signalling)
//
// The chunk's signal comes a few k steps after a column tile's last store
// (not right after it: that wait held the callback warp, and with it the
// ring's slots, for an NVLink round trip). With K = N = 4096 and a k
// rotation of 4 (ring_variants.py krot4: the ring with the rotation, which
// the op no longer takes) a column tile stores the first 4 steps of its
// loop and signals a few steps after the last one, inside the tile: every
// variant passes.
// Signalling at the first position of the loop instead publishes rows whose
// later stores have not landed (the last column tile's, which no later
// signal of its block follows).
// RUN: weave-ops source all_gather_matmul --team-size 2 --dtype bf16 --m-shard 128 --k 4096 --n 4096 --algorithm ring -o %t.delay.op.mlir
// RUN: python3 %weave_src_root/bench/collective_matmul/ring_variants.py %t.delay.op.mlir %t.delay krot4
// RUN: mv %t.delay_krot4.mlir %t.delay.mlir
// RUN: weavec --check-protocol --team-size 2 --check-shape a=256x4096 --check-shape own=128x4096 --check-shape c=256x4096 %t.delay.mlir | FileCheck %s --check-prefix=DELAY
// DELAY: protocol check passed: 7 kernels, team sizes 2
// RUN: sed -e 's/%%signal_k = arith.minui %%delayed, %%last_k : index/%%signal_k = arith.addi %%c0, %%c0 : index/' %t.delay.mlir > %t.early.mlir
// RUN: not weavec --check-protocol --team-size 2 --check-shape a=256x4096 --check-shape own=128x4096 --check-shape c=256x4096 %t.early.mlir 2>&1 | FileCheck %s --check-prefix=EARLY
// EARLY: error: race: a remote bulk (TMA) store by member {{[01]}} (launch 0, pipeline callback) writes {{.*}} of member {{[01]}}'s 'a' while the pipeline's TMA load by member {{[01]}} (launch 0, pipeline producer) reads
