// The owner-reduce GEMM + reduce-scatter (ops/templates/
// matmul_reduce_scatter/owner_combine.mlir.in: the owner sums its own rows
// in the pipeline's combine region, the other sources' flags raised by
// deferred signals) passes at D = 2, 3, 4 and 8, and fails with one of its
// synchronizations broken at a time, found by pattern so that the test
// follows the template.
//
// RUN: for d in 2 3 4 8; do \
// RUN:   weave-ops instantiate %templates/matmul_reduce_scatter/owner_combine.mlir.in --team-size $d --dtype bf16 --count 256 --set K=256 --set COLS=320 --set N=? --set ROWS=? -o %t.d$d.mlir && \
// RUN:   weavec --check-protocol --team-size $d --check-shape a=$((256 * d))x256 --check-shape partial=$((256 * d))x320 --check-shape slots=$((512 * d))x320 --check-shape c=256x320 %t.d$d.mlir || exit 1; \
// RUN: done | FileCheck %s --check-prefix=OK
// OK-COUNT-4: protocol check passed: 1 kernel
// RUN: cp %t.d2.mlir %t.mlir
//
// The owner does not wait for the other sources' flags (a target of 0):
// it reads a slot while the peer's bulk store still writes it.
// RUN: sed -e 's/weave.semaphore_wait %flags\[%counter\], [%]target cmp(ge_wrap)/weave.semaphore_wait %flags[%counter], %zero_i32 cmp(ge_wrap)/' %t.mlir > %t.nowait.mlir
// RUN: not weavec --check-protocol --team-size 2 --check-shape a=512x256 --check-shape partial=512x320 --check-shape slots=1024x320 --check-shape c=256x320 %t.nowait.mlir 2>&1 | FileCheck %s --check-prefix=NOWAIT
// NOWAIT: error: race: {{.*(remote bulk \(TMA\) store.*'slots'|'slots'.*remote bulk \(TMA\) store).*}}no signal/wait or barrier orders the two
//
// The deferred signals are never sent before a wait (only at the kernel's
// end): every owner waits for flags its peers raise only after their own
// waits.
// RUN: sed -e 's/%flush = arith.andi %leader, %first_box : i1/%flush = arith.cmpi ne, %lane, %lane : index/' %t.mlir > %t.noflush.mlir
// RUN: not weavec --check-protocol --team-size 2 --check-shape a=512x256 --check-shape partial=512x320 --check-shape slots=1024x320 --check-shape c=256x320 %t.noflush.mlir 2>&1 | FileCheck %s --check-prefix=NOFLUSH
// NOFLUSH: error: deadlock at team size 2 {{.*}}waits for 'flags'[{{[0-9]+}}] >= (mod 2^32) 2 (it holds 0)
//
// A signal without the wait for its bulk stores to complete publishes rows
// that have not landed.
// RUN: grep -v 'weave.wait_smem_to_gmem 0$' %t.mlir > %t.nocomplete.mlir
// RUN: not weavec --check-protocol --team-size 2 --check-shape a=512x256 --check-shape partial=512x320 --check-shape slots=1024x320 --check-shape c=256x320 %t.nocomplete.mlir 2>&1 | FileCheck %s --check-prefix=NOCOMPLETE
// NOCOMPLETE: error: race: {{.*}}(the earlier bulk store is not complete: wait for it with weave.wait_smem_to_gmem 0 before signalling)
//
// One parity of slots for every launch: launch 1 of a source stores into
// a slot its owner still reads in launch 0.
// RUN: sed -e '/[%]parity_i32 = arith.andi %epoch, %one_i32 : i32/s/%one_i32/%zero_i32/' %t.mlir > %t.parity.mlir
// RUN: not weavec --check-protocol --team-size 2 --check-shape a=512x256 --check-shape partial=512x320 --check-shape slots=1024x320 --check-shape c=256x320 %t.parity.mlir 2>&1 | FileCheck %s --check-prefix=PARITY
// (Either access may be the one reported first: the race is the same.)
// PARITY: error: race: {{(a remote bulk \(TMA\) store by member [01] \(launch 1, .*'slots' while a load by member [01] \(launch 0|a load by member [01] \(launch 0, .*'slots' while a remote bulk \(TMA\) store by member [01] \(launch 1)}}
