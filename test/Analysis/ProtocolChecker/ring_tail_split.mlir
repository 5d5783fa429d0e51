// The all-gather matmul's ring (the op's template, on its ring variant)
// with the tail split: a split unit of the last segment starts inside its
// tile, so it must wait for its rows at its own first step (before_load's
// fourth argument), not at the tile's k = 0. A team of 2 at m_shard 256,
// k 1024, n 512 runs the instance's 128 x 128 variant: 16 tiles (2 x 4 a
// shard), 16 k steps; at grid 7 the last round's 2 tiles (the previous
// member's shard) split 3 ways. The op does not take the split (it
// measured slower, docs/PERF.md); this is the dialect's contract.
// RUN: weave-ops source all_gather_matmul --team-size 2 --dtype bf16 --m-shard 256 --k 1024 --n 512 --algorithm ring -o %t.op.mlir
// RUN: python3 %weave_src_root/bench/collective_matmul/ring_variants.py %t.op.mlir %t.v ring
// RUN: sed -e 's/%%done: !weave.semaphore {weave.name = "done"}) kernel/%%done: !weave.semaphore {weave.name = "done"}, %%ws: memref<4194848xf32> {weave.name = "ws"}) kernel/' -e 's/rotate_m(%%own_first)/rotate_m(%%own_first) workspace(%%ws : memref<4194848xf32>)/' -e 's/k_rotation = 0 : i64}/k_rotation = 0 : i64, tail_split = 8 : i64}/' %t.v_ring.mlir > %t.split.mlir
// RUN: grep -c 'tail_split = 8' %t.split.mlir | FileCheck %s --check-prefix=KERNELS
// RUN: weavec --check-protocol --team-size 2 --check-grid 7 --check-kernel-written a --check-shape a=512x1024 --check-shape own=256x1024 --check-shape c=512x512 %t.split.mlir | FileCheck %s --check-prefix=PASS
// The mutant: the wait at the tile's k = 0 only.
// RUN: sed -e 's/\^bb0(%%m: index, %%nt: index, %%k: index, %%first_k: i1):/^bb0(%%m: index, %%nt: index, %%k: index):\n      %%first_k = arith.cmpi eq, %%k, %%c0 : index/' %t.split.mlir > %t.mutant.mlir
// At grid 3 the last tile splits too (1 tile, 3 ways), but after 5 rounds
// each unit's block has waited for those rows on an earlier tile of the
// same row tile: the mutant's missing wait races with nothing there.
// RUN: weavec --check-protocol --team-size 2 --check-grid 3 --check-kernel-written a --check-shape a=512x1024 --check-shape own=256x1024 --check-shape c=512x512 %t.mutant.mlir | FileCheck %s --check-prefix=PASS3
// RUN: not weavec --check-protocol --team-size 2 --check-grid 7 --check-kernel-written a --check-shape a=512x1024 --check-shape own=256x1024 --check-shape c=512x512 %t.mutant.mlir 2>&1 | FileCheck %s --check-prefix=RACE

// KERNELS: {{[1-9]}}
// PASS: protocol check passed: {{.*}} grids 7, {{.*}} no deadlock, race or out-of-bounds access
// PASS3: protocol check passed: {{.*}} grids 3,
// RACE: error: race: the pipeline's TMA load by member {{[01]}} (launch {{[01]}}, block {{[0-9]}}, pipeline producer) reads bytes
