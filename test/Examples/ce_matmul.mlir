// The copy-engine GEMM + reduce-scatter's template
// (ops/templates/matmul_reduce_scatter/ce_matmul.mlir.in: the op's
// algorithm "copy_engine" and `weave_bench_matmul_reduce_scatter --ce`).
// ce_matmul: the plain matmul with a dynamic row count, one kernel per
// range of rows the compiler's chooser configures differently (variants
// from 1 row, the last unbounded). ce_sum, the owner's sum: one 16-byte
// load per source slot, all D of a vector unrolled (in flight together,
// before any addition is rounded), the sum rounded once (four cvt.rn of
// two lanes each) into one 16-byte store; no call; the trap for too few
// slot rows.
// RUN: sed -e 's/@D@/2/g; s/@T@/f16/g; s/@COLS@/320/g; s/@K@/256/g' %weave_src_root/ops/templates/matmul_reduce_scatter/ce_matmul.mlir.in > %t.d2.mlir
// RUN: weavec %t.d2.mlir --emit=ptx | FileCheck %s --check-prefix=D2
// RUN: sed -e 's/@D@/4/g; s/@T@/bf16/g; s/@COLS@/8192/g; s/@K@/14336/g' %weave_src_root/ops/templates/matmul_reduce_scatter/ce_matmul.mlir.in > %t.d4.mlir
// RUN: weavec %t.d4.mlir --emit=ptx | FileCheck %s --check-prefix=D4
// RUN: weavec %t.d2.mlir --emit=bundle -o %t.d2.wbundle
// RUN: weave-bundle %t.d2.wbundle | FileCheck %s --check-prefix=MANIFEST
// The sum's grid is persistent (0 in the manifest): the runtime sizes it to
// what is resident, divided among the members sharing a GPU (a fixed 1056
// blocks was refused on a loopback team of 2: only 528 a member fit).
// MANIFEST: kernel ce_sum
// MANIFEST-NEXT: grid 0 1 1
// MANIFEST-NEXT: block 256 1 1

// D2-LABEL: .visible .entry ce_matmul__m1_{{[0-9]+}}(
// D2: cp.async.bulk.tensor
// D2: .visible .entry ce_matmul__m{{[0-9]+}}_up(
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
// D4: .visible .entry ce_matmul__m{{[0-9]+}}_up(
// D4: wgmma.mma_async
// D4: .visible .entry ce_sum(
// D4-NOT: call
// D4-COUNT-4: ld.global.v4.b32
// D4-NOT: ld.global
// D4-COUNT-4: cvt.rn.bf16x2.f32
// D4-NOT: cvt.rn
// D4: st.global.v4.b32
// D4-NOT: st.global
// D4: trap;
