// The GEMM + reduce-scatter template (examples/matmul_reduce_scatter,
// issue #31) with a dynamic m_shard, as weave::ops instantiates it:
//  - the matmul's boxes are plain 16-bit TMA stores into the owner's slot
//    (no reduction: nothing to zero), 4 per consumer tile: a team of one
//    stores them locally only, a team of two also through the by-value
//    peer view of the next member (no per-member table, no tensormap
//    fence: the table's global-memory tensor maps cost 63-92 us at D = 2),
//    a team of four through three peer views, and only a team over 8
//    (12 here) keeps a table, for its distances of 8 and more;
//  - no call in the kernel (no vprintf): a call makes ptxas serialize the
//    mainloop's wgmma (C7510), 30 us of 0.62 ms at D = 2;
//  - after the pipeline, every warpgroup's registers evened out to 168
//    (even_registers: the consumers give back, named barrier 15, the
//    producer takes), one barrier and the sum of the slots, 16 bytes per
//    load (one load per member) and one 16-byte store, with the slot rows
//    two steps ahead prefetched into L2 where the slots hold more than 12M
//    elements (a run-time test: m_shard is dynamic), then the launch
//    count;
//  - no spills at K = 4096 (a 64-bit division by the run-time m_shard in
//    the epilogue region spilled 40-52 bytes; K = 256, whose four k steps
//    the mainloop unrolls, still spills 48).
// RUN: sed -e 's/@D@/2/g; s/@N@/?/g; s/@ROWS@/?/g; s/@K@/4096/g; s/@COLS@/320/g; s/@T@/bf16/g; s/@NARROW@/arith.truncf/g' %templates/matmul_reduce_scatter/matmul_reduce_scatter.mlir.in > %t.d2.mlir
// RUN: weavec %t.d2.mlir --emit=ptx | FileCheck %s --check-prefix=D2
// RUN: sed -e 's/@D@/1/g; s/@N@/?/g; s/@ROWS@/?/g; s/@K@/256/g; s/@COLS@/320/g; s/@T@/f16/g; s/@NARROW@/arith.truncf/g' %templates/matmul_reduce_scatter/matmul_reduce_scatter.mlir.in > %t.d1.mlir
// RUN: weavec %t.d1.mlir --emit=ptx | FileCheck %s --check-prefix=D1
// RUN: %if ptxas %{ weavec %t.d2.mlir --emit=bundle -v -o %t.wbundle 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: sed -e 's/@D@/4/g; s/@N@/?/g; s/@ROWS@/?/g; s/@K@/4096/g; s/@COLS@/320/g; s/@T@/bf16/g; s/@NARROW@/arith.truncf/g' %templates/matmul_reduce_scatter/matmul_reduce_scatter.mlir.in > %t.d4.mlir
// RUN: %if ptxas %{ weavec %t.d4.mlir --emit=bundle -o %t.d4.wbundle && weave-bundle %t.d4.wbundle | FileCheck %s --check-prefix=D4 %}
// RUN: weavec %t.d4.mlir --emit=ptx | FileCheck %s --check-prefix=D4PTX
// RUN: sed -e 's/@D@/12/g; s/@N@/?/g; s/@ROWS@/?/g; s/@K@/4096/g; s/@COLS@/320/g; s/@T@/bf16/g; s/@NARROW@/arith.truncf/g' %templates/matmul_reduce_scatter/matmul_reduce_scatter.mlir.in > %t.d12.mlir
// RUN: weavec %t.d12.mlir --emit=ptx | FileCheck %s --check-prefix=D12
// RUN: weavec %t.d12.mlir --emit=ptx | FileCheck %s --check-prefix=D12PTX
// RUN: %if ptxas %{ weavec %t.d12.mlir --emit=bundle -o %t.d12.wbundle && weave-bundle %t.d12.wbundle | FileCheck %s --check-prefix=D12M %}

// D2-NOT: vprintf
// D2: .visible .entry matmul_reduce_scatter(
// D2-NOT: fence.proxy.tensormap
// D2-NOT: cp.reduce.async.bulk
// D2-COUNT-8: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [
// D2-NOT: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [
// D2: setmaxnreg.dec.sync.aligned.u32 168
// D2: bar.sync 15, 384
// D2: setmaxnreg.inc.sync.aligned.u32 168
// D2: setp.gt.u64 {{.*}}, 12582912
// D2: cp.async.bulk.prefetch.L2.global
// D2-COUNT-2: ld.global.v4.b32
// D2-NOT: ld.global.v4.b32
// D2: st.global.v4.b32
// D2: atom.global.add.u64
// D2-NOT: cp.reduce.async.bulk

// D1: .visible .entry matmul_reduce_scatter(
// D1-NOT: fence.proxy.tensormap
// D1-COUNT-4: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [
// D1-NOT: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [
// D1: ld.global.v4.b32
// D1-NOT: ld.global.v4.b32
// D1: st.global.v4.b32

// PTXAS-NOT: C7510
// PTXAS: Compiling entry function 'matmul_reduce_scatter' for 'sm_90a'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill

// The manifest of D = 4: the own map and one peer view per distance, by
// value; no table.
// D4-NOT: tma_table
// D4: param tma slots.tma{{[0-9]+}} dtype=bf16 source=3 box=64,64 swizzle=128 view=local
// D4-NEXT: param tma slots.tma{{[0-9]+}} dtype=bf16 source=3 box=64,64 swizzle=128 view=peer offset=1
// D4-NEXT: param tma slots.tma{{[0-9]+}} dtype=bf16 source=3 box=64,64 swizzle=128 view=peer offset=2
// D4-NEXT: param tma slots.tma{{[0-9]+}} dtype=bf16 source=3 box=64,64 swizzle=128 view=peer offset=3
// D4-NEXT: end
// D4-NOT: tma_table

// Each remote box through a by-value map: no table parameter (a pointer
// into global memory) and no tensormap fence.
// D4PTX-NOT: vprintf
// D4PTX: .visible .entry matmul_reduce_scatter(
// D4PTX-NOT: fence.proxy.tensormap
// D4PTX-COUNT-16: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [
// D4PTX-NOT: fence.proxy.tensormap
// D4PTX-NOT: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [

// D12: .visible .entry matmul_reduce_scatter(
// D12: fence.proxy.tensormap::generic.acquire.sys
// D12-NOT: vprintf

// D = 12: peer views for distances 1-7, then the table for 8-11, last in
// the manifest as in the cubin's parameters (listed before the by-value
// maps, it was 8 bytes in the manifest against 128 in the cubin, a load
// error).
// D12M-NOT: tma_table
// D12M: view=peer offset=7
// D12M-NEXT: param tma_table slots.tma_table{{[0-9]+}}
// D12M-NEXT: end
// D12PTX: .param .u64 .ptr .global .align 1 matmul_reduce_scatter_param_{{[0-9]+}}{{$}}
// D12PTX-NEXT: )
