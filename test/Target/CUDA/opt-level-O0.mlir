// RUN: weavec %examples/ring_exchange/ring_exchange.mlir --emit=ptx -O0 | FileCheck %s
// RUN: %if ptxas %{ weavec %examples/ring_exchange/ring_exchange.mlir --emit=cubin -O0 -o %t.cubin %}

// CHECK: .target sm_90a
// CHECK-LABEL: .visible .entry ring_exchange(
// CHECK: red.release.sys.global.add.u32
// CHECK: ld.acquire.sys.global.u32
// CHECK: red.relaxed.sys.global.add.u32
