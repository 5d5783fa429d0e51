// The owner-reduce GEMM + reduce-scatter (ops/templates/
// matmul_reduce_scatter/owner_combine.mlir.in, issue #31: measured slower
// than the op's per-source slots with a pass, docs/PERF.md "the owner sums
// its own rows"; kept, with these checks, as the combine region's and
// grid_tile_lag's use) with a dynamic m_shard:
//  - another member's box is a plain 16-bit TMA store into its owner's
//    slot (no reduction: nothing to zero): a team of two through the
//    by-value map of its slot on the next member (the compiler's switch on
//    the distance also has the own map's case), a team of four through
//    three peer views, and only a team over 8 (12 here) keeps a table, for
//    its distances of 8 and more (no per-member table, no tensormap fence:
//    the table's global-memory tensor maps cost 63-92 us at D = 2); the own
//    rows' box goes to `c`: three stores per box at D = 2, five at D = 4;
//  - each consumer's signal to an owner is one release add (system scope)
//    after its stores completed, and the own boxes wait for the other
//    members' flags with acquire loads before they load their slot rows,
//    16 bytes per load (D - 1 loads per 8 elements) and store the sum into
//    the box in shared memory, 16 bytes at a time;
//  - no team barrier and no pass after the pipeline: the deferred signals,
//    one block barrier and the launch count;
//  - no call in the kernel (no vprintf): a call makes ptxas serialize the
//    mainloop's wgmma (C7510), 30 us of 0.62 ms at D = 2.
// RUN: sed -e 's/@D@/2/g; s/@N@/?/g; s/@ROWS@/?/g; s/@K@/4096/g; s/@COLS@/320/g; s/@T@/bf16/g; s/@NARROW@/arith.truncf/g' %templates/matmul_reduce_scatter/owner_combine.mlir.in > %t.d2.mlir
// RUN: weavec %t.d2.mlir --emit=ptx | FileCheck %s --check-prefix=D2
// RUN: weavec %t.d2.mlir --emit=ptx | FileCheck %s --check-prefix=D2STORES
// RUN: sed -e 's/@D@/1/g; s/@N@/?/g; s/@ROWS@/?/g; s/@K@/256/g; s/@COLS@/320/g; s/@T@/f16/g; s/@NARROW@/arith.truncf/g' %templates/matmul_reduce_scatter/owner_combine.mlir.in > %t.d1.mlir
// RUN: weavec %t.d1.mlir --emit=ptx | FileCheck %s --check-prefix=D1
// RUN: %if ptxas %{ weavec %t.d2.mlir --emit=bundle -v -o %t.wbundle 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: sed -e 's/@D@/4/g; s/@N@/?/g; s/@ROWS@/?/g; s/@K@/4096/g; s/@COLS@/320/g; s/@T@/bf16/g; s/@NARROW@/arith.truncf/g' %templates/matmul_reduce_scatter/owner_combine.mlir.in > %t.d4.mlir
// RUN: %if ptxas %{ weavec %t.d4.mlir --emit=bundle -o %t.d4.wbundle && weave-bundle %t.d4.wbundle | FileCheck %s --check-prefix=D4 %}
// RUN: weavec %t.d4.mlir --emit=ptx | FileCheck %s --check-prefix=D4PTX
// RUN: sed -e 's/@D@/12/g; s/@N@/?/g; s/@ROWS@/?/g; s/@K@/4096/g; s/@COLS@/320/g; s/@T@/bf16/g; s/@NARROW@/arith.truncf/g' %templates/matmul_reduce_scatter/owner_combine.mlir.in > %t.d12.mlir
// RUN: weavec %t.d12.mlir --emit=ptx | FileCheck %s --check-prefix=D12
// RUN: weavec %t.d12.mlir --emit=ptx | FileCheck %s --check-prefix=D12PTX
// RUN: %if ptxas %{ weavec %t.d12.mlir --emit=bundle -o %t.d12.wbundle && weave-bundle %t.d12.wbundle | FileCheck %s --check-prefix=D12M %}

// D2-NOT: vprintf
// D2: .visible .entry owner_combine(
// D2-NOT: fence.proxy.tensormap
// D2-NOT: cp.reduce.async.bulk
// D2: red.release.sys.global.add.u32
// D2: ld.acquire.sys.global.u32
// D2: ld.global.v4.b32
// D2: st.shared.v4.b32
// D2: red.release.sys.global.add.u32
// D2: bar.sync 0;
// D2: atom.global.add.u64
// D2-NOT: cp.reduce.async.bulk
// D2-NOT: ld.global.v4.b32
// D2-NOT: st.global.v4.b32
// D2STORES-COUNT-12: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [
// D2STORES-NOT: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [

// D1: .visible .entry owner_combine(
// D1-NOT: fence.proxy.tensormap
// D1-COUNT-8: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [
// D1-NOT: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [
// D1-NOT: ld.global.v4.b32

// PTXAS-NOT: C7510
// PTXAS: Compiling entry function 'owner_combine' for 'sm_90a'
// PTXAS: bytes spill stores

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
// D4PTX: .visible .entry owner_combine(
// D4PTX-NOT: fence.proxy.tensormap
// D4PTX-COUNT-20: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [
// D4PTX-NOT: fence.proxy.tensormap
// D4PTX-NOT: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [

// D12: .visible .entry owner_combine(
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
// D12PTX: .param .u64 .ptr .global .align 1 owner_combine_param_{{[0-9]+}}{{$}}
// D12PTX-NEXT: )
