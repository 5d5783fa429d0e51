// The matmul example expands into a warp-specialized TMA + wgmma kernel.
// RUN: weavec %examples/matmul/matmul.mlir --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ weavec %examples/matmul/matmul.mlir --emit=bundle -v -o %t.wbundle 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// PTX: .visible .entry matmul(
// Three tensor maps (a, b, c) after the team parameters, by value.
// PTX-COUNT-3: .param .align 64 .b8 matmul_param_{{[0-9]+}}[128]
// PTX: .maxntid 384, 1, 1
// PTX: mbarrier.init.shared.b64
// PTX: fence.mbarrier_init
// PTX-DAG: setmaxnreg.dec.sync.aligned.u32 {{.*}}40;
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 {{.*}}232;
// PTX-DAG: mbarrier.arrive.expect_tx
// PTX-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-DAG: mbarrier.try_wait.parity
// PTX-DAG: wgmma.fence.sync.aligned
// lhs K-major, rhs N-major (imm-trans-b = 1).
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 1;
// PTX-DAG: wgmma.commit_group.sync.aligned
// PTX-DAG: wgmma.wait_group.sync.aligned 0
// PTX-DAG: fence.proxy.async.shared::cta
// PTX-DAG: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group

// PTXAS: Compiling entry function 'matmul' for 'sm_90a'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill
