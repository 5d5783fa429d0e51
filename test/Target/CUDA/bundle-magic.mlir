// REQUIRES: ptxas
// RUN: weavec %examples/ring_exchange/ring_exchange.mlir --emit=bundle -o %t.wbundle
// RUN: head -c 8 %t.wbundle | FileCheck %s

// CHECK: WEAVEBND
