// RUN: weavec %examples/ring_exchange/ring_exchange.mlir --emit=ptx --wait-timeout-ms=5 | FileCheck %s
// RUN: weavec %examples/ring_exchange/ring_exchange.mlir --emit=ptx | FileCheck %s --check-prefix=OFF

// Debug mode: the spin reads the global timer and traps after vprintf.
// CHECK: .extern .func (.param .b32 func_retval0) vprintf
// CHECK: .b8 printfFormat_0[{{[0-9]+}}] = {119, 101, 97, 118, 101, 58,
// CHECK-LABEL: .visible .entry ring_exchange(
// CHECK: mov.u64 %rd{{[0-9]+}}, %globaltimer;
// CHECK: ld.acquire.sys.global.u32
// CHECK: mov.u64 %rd{{[0-9]+}}, %globaltimer;
// CHECK: call.uni (retval0), vprintf,
// CHECK: trap;

// OFF-NOT: globaltimer
// OFF-NOT: vprintf
// OFF-NOT: trap
