// RUN: weavec %examples/ring_exchange/ring_exchange.mlir --emit=ptx --arch=sm_80 | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ weavec %examples/ring_exchange/ring_exchange.mlir --emit=cubin --arch=sm_80 -v -o %t.cubin 2>&1 | FileCheck %s --check-prefix=CUBIN %}

// The ring exchange uses only sm_70+ instructions, so Ampere works.
// PTX: .target sm_80
// PTX: red.release.sys.global.add.u32
// PTX: ld.acquire.sys.global.u32

// CUBIN: Compiling entry function 'ring_exchange' for 'sm_80'
// CUBIN: 0 bytes spill stores, 0 bytes spill loads
