// REQUIRES: ptxas
// RUN: weavec %examples/ring_exchange/ring_exchange.mlir --emit=cubin -v -o %t.cubin 2>&1 | FileCheck %s
// RUN: test -s %t.cubin

// CHECK: Compiling entry function 'ring_exchange' for 'sm_90a'
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
