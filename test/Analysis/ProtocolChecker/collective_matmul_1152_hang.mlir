// The hang fixed by commit 980758f ("row-tile groups no longer straddle two
// shards"), reconstructed: the collective matmul (the all-gather matmul of
// weave::ops, from examples/collective_matmul/all_gather_matmul.mlir.in) at
// m_shard 1152 (9 row tiles per shard) with the schedule it had before the
// fix: groups of 8 row tiles over the whole lhs. A group of 8 row tiles then
// holds rows of two shards, and a block waiting for the next shard holds back a tile of its own that the
// peer needs first: every producer waits for the other member's shard.
// K and N are small (the protocol does not depend on them).
//
// The instance is kept in Inputs/ as weave::ops built it then: today's
// template waits per chunk of a shard's rows, and with that the old schedule
// no longer hangs (checked last below).
// RUN: not weavec --check-protocol --check-shape a=2304x256 --check-shape c=2304x512 %S/Inputs/all_gather_matmul_1152_before_fix.mlir 2>&1 | FileCheck %s
// CHECK: error: deadlock at team size 2 (grid of 1): member 0 (launch 0, pipeline producer) waits for 'ready'[{{[0-9]+}}] >= {{.*}}{{[0-9]+}} (it holds {{[0-9]+}}); every member waits (a cycle of waits)
// CHECK: note: member 1 (launch 0, pipeline producer) waits for 'ready'[
// CHECK: note: a signal of the same semaphore
//
// The instance as weave::ops builds it today (groups inside a shard, readiness
// per chunk) passes on persistent grids of 1, 3 and 16 blocks, and so does it
// with the old schedule (groups of 8 over the whole lhs).
// RUN: weave-ops source all_gather_matmul --team-size 2 --dtype f16 --m-shard 1152 --k 256 --n 512 --algorithm ring -o %t.fixed.mlir
// RUN: sed -e 's/grid_tile_segments = [0-9]* : i64/grid_tile_segments = 1 : i64/' %t.fixed.mlir > %t.old_schedule.mlir
// RUN: weavec --check-protocol --check-shape a=2304x256 --check-shape own=1152x256 --check-shape c=2304x512 --check-grid 1,3,16 %t.old_schedule.mlir | FileCheck %s --check-prefix=FIXED
// RUN: weavec --check-protocol --check-shape a=2304x256 --check-shape own=1152x256 --check-shape c=2304x512 --check-grid 1,3,16 %t.fixed.mlir | FileCheck %s --check-prefix=FIXED
// (The op's instance is variants over ranges of m_shard, 128 x 128 and
// 128 x 256 tiles: every one of them is checked.)
// FIXED: protocol check passed: {{[0-9]+}} kernels, team sizes 2, grids 1,3,16, 2 launches
