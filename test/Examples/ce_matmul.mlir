// The copy-engine GEMM + reduce-scatter's template
// (ops/templates/matmul_reduce_scatter/ce_matmul.mlir.in: the op's
// algorithm "copy_engine" and `weave_bench_matmul_reduce_scatter --ce`).
// ce_matmul: the plain matmul with a dynamic row count, one kernel per
// range of rows the compiler's chooser configures differently (variants
// from 1 row, the last unbounded). ce_matmul_sum, the own chunk with the
// owner's sum in its combine region (the same variants, each thread's
// system-scope wait on the peers' ready flags, the peers' slot rows loaded
// 16 bytes at a time, no call). ce_sum, the owner's sum as a pass (where
// the op does not sum in the epilogue, and the bench's copy of the
// design): one 16-byte
// load per source slot, all D of a vector unrolled (in flight together,
// before any addition is rounded), the sum rounded once (four cvt.rn of
// two lanes each) into one 16-byte store; no call; the trap for too few
// slot rows.
// RUN: sed -e 's/@D@/2/g; s/@T@/f16/g; s/@COLS@/320/g; s/@K@/256/g' %weave_src_root/ops/templates/matmul_reduce_scatter/ce_matmul.mlir.in > %t.d2.mlir
// RUN: weavec %t.d2.mlir --emit=ptx | FileCheck %s --check-prefix=D2
// RUN: sed -e 's/@D@/4/g; s/@T@/bf16/g; s/@COLS@/8192/g; s/@K@/14336/g' %weave_src_root/ops/templates/matmul_reduce_scatter/ce_matmul.mlir.in > %t.d4.mlir
// RUN: weavec %t.d4.mlir --emit=ptx | FileCheck %s --check-prefix=D4
// RUN: weavec %t.d4.mlir --emit=mlir | FileCheck %s --check-prefix=TAIL
// RUN: weavec %t.d2.mlir --emit=bundle -o %t.d2.wbundle
// RUN: weave-bundle %t.d2.wbundle | FileCheck %s --check-prefix=MANIFEST
// The sum's grid is persistent (0 in the manifest): the runtime sizes it to
// what is resident, divided among the members sharing a GPU (a fixed 1056
// blocks was refused on a loopback team of 2: only 528 a member fit).
// ce_matmul's workspace `ws` (the tail split's and split-K's partials and
// counters; the ops allocate it per member from this shape).
// MANIFEST: param buffer ws dtype=f32 shape=5243552
// MANIFEST: kernel ce_matmul_sum
// MANIFEST: param buffer slots
// MANIFEST: param semaphore ready count=2
// MANIFEST: param buffer ws dtype=f32 shape=5243552
// MANIFEST: kernel ce_sum
// MANIFEST-NEXT: grid 0 1 1
// MANIFEST-NEXT: block 256 1 1

// D2-LABEL: .visible .entry ce_matmul__m1_{{[0-9]+}}(
// D2: cp.async.bulk.tensor
// (A later range's entry may run an earlier one's function: the PTX
// holds one entry point per configuration, SharedVariants.h.)
// D2: .visible .entry ce_matmul__m{{[0-9]+}}_{{[0-9]+}}(
// D2: wgmma.mma_async
// D2: .visible .entry ce_sum(
// D2-NOT: call
// D2-COUNT-2: ld.global.v4.b32
// D2-NOT: ld.global
// D2-COUNT-4: cvt.rn.f16x2.f32
// D2-NOT: cvt.rn
// D2: st.global.v4.b32
// D2-NOT: st.global
// D2: trap;

// D4-LABEL: .visible .entry ce_matmul__m1_{{[0-9]+}}(
// D4: .visible .entry ce_matmul__m{{[0-9]+}}_{{[0-9]+}}(
// D4: wgmma.mma_async
// D4: .visible .entry ce_matmul_sum__m{{[0-9]+}}_{{[0-9]+}}(
// D4-NOT: call
// D4: ld.acquire.sys.global.u32
// D4-NOT: call
// D4: ld.global.v4.b32
// D4-NOT: call
// D4: wgmma.mma_async
// D4-NOT: call
// D4: .visible .entry ce_sum(
// D4-NOT: call
// D4-COUNT-4: ld.global.v4.b32
// D4-NOT: ld.global
// D4-COUNT-4: cvt.rn.bf16x2.f32
// D4-NOT: cvt.rn
// D4: st.global.v4.b32
// D4-NOT: st.global
// D4: trap;

// The tail split only on 128 x 256 variants whose rows split on 132 SMs
// (ConfigChooser: kTailSplitTile, a band takes it only where its rows
// split): at 8192 columns, 577-640 rows (5 x 32 = 160 tiles: 28 in the
// last round, 4 ways: the idle SMs bind before the template's 8) has it;
// 769-1024 rows (at 1024: 256 tiles, 124 in the last round, too many to
// split 3 ways) runs the plain kernel. 513-576 rows fill one round of
// 192 x 192 tiles (3 x 43 = 129) with three consumers, unsplit.
// TAIL-LABEL: gpu.func @ce_matmul__m513_576(
// TAIL-NOT: tail_split
// TAIL: tile(192, 192, 64) stages(3) workspace({{.*}}) {consumers = 3 : i64}
// TAIL-LABEL: gpu.func @ce_matmul__m577_640(
// TAIL: tile(128, 256, 64) stages(4) workspace({{.*}}) {tail_split = 8 : i64}
// TAIL-LABEL: gpu.func @ce_matmul__m769_1024(
// TAIL-NOT: tail_split
// TAIL: gpu.return
// The own chunk's kernel takes the same choice: its combine region is in
// the coordinate form, which leaves the tile to the chooser.
// TAIL-LABEL: gpu.func @ce_matmul_sum__m513_576(
// TAIL: tile(192, 192, 64) stages(3) workspace({{.*}}) {consumers = 3 : i64} {{.*}} combine {
// TAIL-LABEL: gpu.func @ce_matmul_sum__m577_640(
// TAIL: tile(128, 256, 64) stages(4) workspace({{.*}}) {tail_split = 8 : i64} {{.*}} combine {
// TAIL-LABEL: gpu.func @ce_matmul_sum__m769_1024(
// TAIL-NOT: tail_split
// TAIL: combine {
// TAIL: gpu.return
