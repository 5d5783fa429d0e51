// The hang fixed by commit 980758f ("row-tile groups no longer straddle two
// shards"), reconstructed: the collective matmul (the all-gather matmul of
// weave::ops, from examples/collective_matmul/all_gather_matmul.mlir.in) at
// m_shard 1152 (9 row tiles per shard) with the grid_tile_width of 8 it had
// before the fix. A group of 8 row tiles then holds rows of two shards, and a
// block waiting for the next shard holds back a tile of its own that the
// peer needs first: every producer waits for the other member's shard.
// K and N are small (the protocol does not depend on them).
//
// RUN: weave-ops source all_gather_matmul --team-size 2 --dtype f16 --m-shard 1152 --k 256 --n 512 -o %t.fixed.mlir
// RUN: sed -e 's/grid_tile_width = [0-9]* : i64/grid_tile_width = 8 : i64/' %t.fixed.mlir > %t.hang.mlir
// RUN: not weavec --check-protocol --check-shape a=2304x256 --check-shape c=2304x512 %t.hang.mlir 2>&1 | FileCheck %s
// CHECK: error: deadlock at team size 2 (grid of 1): member 0 (launch 0, pipeline producer) waits for 'ready'[1] >= {{[0-9]+}} (it holds {{[0-9]+}}); every member waits (a cycle of waits)
// CHECK: note: member 1 (launch 0, pipeline producer) waits for 'ready'[0]
// CHECK: note: a signal of the same semaphore
//
// The instance as weave::ops builds it today (group width 1) passes, on
// persistent grids of 1, 3 and 16 blocks.
// RUN: weavec --check-protocol --check-shape a=2304x256 --check-shape c=2304x512 --check-grid 1,3,16 %t.fixed.mlir | FileCheck %s --check-prefix=FIXED
// FIXED: protocol check passed: 1 kernel, team sizes 2, grids 1,3,16, 2 launches
