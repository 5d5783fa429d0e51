// The GEMM + reduce-scatter template (examples/matmul_reduce_scatter,
// issue #31) with a dynamic m_shard, as weave::ops instantiates it:
//  - the matmul's boxes are plain 16-bit TMA stores into the owner's slot
//    (no reduction: nothing to zero), 4 per consumer tile: a team of one
//    stores them locally only, a team of two also through the peer table;
//  - after the pipeline, one barrier and the sum of the slots, 16 bytes per
//    load (one load per member) and one 16-byte store, then the launch
//    count;
//  - no spills at K = 4096 (a 64-bit division by the run-time m_shard in
//    the epilogue region spilled 40-52 bytes; K = 256, whose four k steps
//    the mainloop unrolls, still spills 48).
// RUN: sed -e 's/@D@/2/g; s/@N@/?/g; s/@ROWS@/?/g; s/@K@/4096/g; s/@COLS@/320/g; s/@T@/bf16/g; s/@NARROW@/arith.truncf/g' %templates/matmul_reduce_scatter/matmul_reduce_scatter.mlir.in > %t.d2.mlir
// RUN: weavec %t.d2.mlir --emit=ptx | FileCheck %s --check-prefix=D2
// RUN: sed -e 's/@D@/1/g; s/@N@/?/g; s/@ROWS@/?/g; s/@K@/256/g; s/@COLS@/320/g; s/@T@/f16/g; s/@NARROW@/arith.truncf/g' %templates/matmul_reduce_scatter/matmul_reduce_scatter.mlir.in > %t.d1.mlir
// RUN: weavec %t.d1.mlir --emit=ptx | FileCheck %s --check-prefix=D1
// RUN: %if ptxas %{ weavec %t.d2.mlir --emit=bundle -v -o %t.wbundle 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// D2: .visible .entry matmul_reduce_scatter(
// D2-NOT: cp.reduce.async.bulk
// D2-COUNT-8: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [
// D2-NOT: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [
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

// PTXAS: Compiling entry function 'matmul_reduce_scatter' for 'sm_90a'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill
