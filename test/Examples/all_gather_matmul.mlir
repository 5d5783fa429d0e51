// The collective matmul compiles: ring forwarding from the pipeline callback
// (TMA store to the previous device), shard waits before loads.
// RUN: weavec %examples/collective_matmul/all_gather_matmul.mlir --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: weavec %examples/collective_matmul/all_gather_matmul.mlir --emit=ptx | tac | FileCheck %s --check-prefix=END
// RUN: %if ptxas %{ weavec %examples/collective_matmul/all_gather_matmul.mlir --emit=bundle -v -o %t.wbundle 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// PTX: .visible .entry all_gather_matmul(
// a (peer view and local), b, c: four tensor maps.
// PTX-COUNT-4: .param .align 64 .b8 all_gather_matmul_param_{{[0-9]+}}[128]
// PTX-DAG: ld.acquire.sys.global.u32
// TMA loads after an acquire see what the peer stored through the async proxy.
// PTX-DAG: fence.proxy.async.global
// PTX-DAG: cp.async.bulk.tensor.2d.shared::cluster.global
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// PTX-DAG: cp.async.bulk.wait_group.read 0
// PTX-DAG: red.release.sys.global.add.u32
// Waits compare in serial-number order (the counters wrap after 2^32).
// PTX-DAG: sub.s32
// PTX-DAG: setp.{{ge|lt}}.s32
// The epoch is the 64-bit launch count read at the start (divided by the
// grid)...
// PTX-DAG: ld.global.b64 %rd{{[0-9]+}}, [%rd{{[0-9]+}}];
// ...and every block adds its end to it once all its threads have read it:
// the kernel's last lines, read from the end (tac).
// END: ret;
// END-NEXT: $L__BB0_[[SKIP:[0-9]+]]:
// END-NEXT: atom.global.add.u64 %rd{{[0-9]+}}, [%rd{{[0-9]+}}], 1;
// END-NEXT: @%p{{[0-9]+}} bra $L__BB0_[[SKIP]];
// END-NEXT: bar.sync 0;

// PTXAS: 0 bytes spill stores, 0 bytes spill loads
