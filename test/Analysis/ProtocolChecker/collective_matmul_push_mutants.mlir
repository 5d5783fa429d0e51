// The collective matmul's PUSH mode (weave::ops' all_gather_matmul template
// with %push = 1 and no k rotation, as bench/collective_matmul/
// ring_variants.py's `push` variant makes it): every block puts its share of
// the own shard into every peer's `a` and adds 1 to the peer's
// ready[me * chunks]; a peer's tile of that shard waits until the counter
// holds one add per block of the owner and launch; a block's end signals
// `done` on every peer, and a push of launch e waits for (D - 1) x blocks x e
// of them. The mutants are found by pattern so that the test follows the
// template.
//
// RUN: weave-ops source all_gather_matmul --team-size 2 --dtype bf16 --m-shard 256 --k 256 --n 512 --algorithm ring -o %t.gen.mlir
// RUN: sed -e 's/%%push = arith.constant [0-9]* : index/%%push = arith.constant 1 : index/' -e 's/%%rot = arith.constant [0-9]* : index/%%rot = arith.constant 0 : index/' -e 's/k_rotation = [0-9]* : i64/k_rotation = 0 : i64/' %t.gen.mlir > %t.mlir
// RUN: grep -c '%%chunk_parts = arith.select %%pushing, %%pushers_i32, %%ring_parts : i32' %t.mlir | FileCheck %s --check-prefix=FOUND
// RUN: grep -c 'weave.semaphore_wait %%done, %%peers_done' %t.mlir | FileCheck %s --check-prefix=FOUND
// FOUND: {{[1-9]}}
//
// The kernel passes at grids 1 to 3.
// Grid 10 has more blocks than a shard's own tiles (8 of 128 x 128 at
// m_shard 256, n 512): blocks 8 and 9 push, the others compute at once.
// RUN: weavec --check-protocol --team-size 2 --check-grid 1,2,3,10 --check-shape a=512x256 --check-shape own=256x256 --check-shape c=512x512 %t.mlir | FileCheck %s --check-prefix=PUSH
// PUSH: protocol check passed: {{[0-9]+}} kernels, team sizes 2, grids 1,2,3,10, 2 launches
//
// A tile that waits for 1 add instead of one per block (with 2 blocks) reads
// rows the other block has not put yet. Found in the first schedule: a
// passing wait synchronizes with the adds up to the first value that
// satisfies it. When a wait joined every add so far, no schedule at grid 2
// showed it: the other block's put came either before the wait (joined) or
// after the reader's end (ordered by the reader's `done`).
// RUN: sed -e 's/%%chunk_parts = arith.select %%pushing, %%pushers_i32,/%%chunk_parts = arith.select %%pushing, %%one,/' %t.mlir > %t.one.mlir
// RUN: not weavec --check-protocol --team-size 2 --check-grid 2 --check-shape a=512x256 --check-shape own=256x256 --check-shape c=512x512 %t.one.mlir 2>&1 | FileCheck %s --check-prefix=UNDER
// RUN: not weavec --check-protocol --team-size 2 --check-grid 10 --check-shape a=512x256 --check-shape own=256x256 --check-shape c=512x512 %t.one.mlir 2>&1 | FileCheck %s --check-prefix=UNDER10
// UNDER10: error: race: a put (remote write) by member 1 (launch 0, block 9) writes bytes {{.*}} of member 0's 'a' while the pipeline's TMA load by member 0 (launch 0, block {{[0-9]}}, pipeline producer) reads
// UNDER: error: race: a put (remote write) by member 1 (launch 0, block {{[01]}}) writes bytes {{.*}} of member 0's 'a' while the pipeline's TMA load by member 0 (launch 0, block {{[01]}}, pipeline producer) reads {{.*}}members in rank order]
// UNDER: note: the other access: the pipeline's TMA load
//
// Waiting for no add at all: the same race, at one block.
// RUN: sed -e 's/%%chunk_parts = arith.select %%pushing, %%pushers_i32,/%%chunk_parts = arith.select %%pushing, %%zero_32,/' %t.mlir > %t.zero.mlir
// RUN: not weavec --check-protocol --team-size 2 --check-grid 1 --check-shape a=512x256 --check-shape own=256x256 --check-shape c=512x512 %t.zero.mlir 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: error: race: a put (remote write) by member 1 (launch 0) writes bytes {{.*}} of member 0's 'a' while the pipeline's TMA load by member 0 (launch 0, pipeline producer) reads {{.*}}members in rank order]
//
// Without the push's wait for the peers' `done`, the next launch's put
// overwrites rows a peer still loads.
// RUN: sed -e '/weave.semaphore_wait %%done, %%peers_done/d' %t.mlir > %t.done.mlir
// RUN: not weavec --check-protocol --team-size 2 --check-shape a=512x256 --check-shape own=256x256 --check-shape c=512x512 %t.done.mlir 2>&1 | FileCheck %s --check-prefix=DONE
// DONE: error: race: {{(the pipeline's TMA load by member [0-9] \(launch 0, pipeline producer\) reads .* while a put \(remote write\) by member [0-9] \(launch 1\)|a put \(remote write\) by member [0-9] \(launch 1\) writes .* while the pipeline's TMA load by member [0-9] \(launch 0, pipeline producer\))}}
//
// A push that waits for one `done` per block and launch instead of one per
// block of each of the D - 1 peers (the same at D = 2): at D = 3 it passes
// once one peer has ended and overwrites rows the other still loads.
// RUN: weave-ops source all_gather_matmul --team-size 3 --dtype bf16 --m-shard 256 --k 256 --n 512 --algorithm ring -o %t.gen3.mlir
// RUN: sed -e 's/%%push = arith.constant [0-9]* : index/%%push = arith.constant 1 : index/' -e 's/%%rot = arith.constant [0-9]* : index/%%rot = arith.constant 0 : index/' -e 's/k_rotation = [0-9]* : i64/k_rotation = 0 : i64/' %t.gen3.mlir > %t.three.mlir
// RUN: weavec --check-protocol --team-size 3 --check-grid 1,2,3 --check-shape a=768x256 --check-shape own=256x256 --check-shape c=768x512 %t.three.mlir | FileCheck %s --check-prefix=PUSH3
// PUSH3: protocol check passed: {{[0-9]+}} kernels, team sizes 3, grids 1,2,3, 2 launches
// RUN: sed -e 's/%%peers_done = arith.muli %%reads_done, %%n_minus_1_32 : i32/%%peers_done = arith.muli %%reads_done, %%one : i32/' %t.three.mlir > %t.peers.mlir
// RUN: not weavec --check-protocol --team-size 3 --check-shape a=768x256 --check-shape own=256x256 --check-shape c=768x512 %t.peers.mlir 2>&1 | FileCheck %s --check-prefix=DONE
