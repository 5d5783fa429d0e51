// Every example compiles: to PTX anywhere, to a bundle where ptxas is.
// RUN: weavec %examples/ring_exchange/ring_exchange.mlir --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ weavec %examples/ring_exchange/ring_exchange.mlir --emit=bundle -v -o %t.wbundle 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %if ptxas %{ head -c 8 %t.wbundle | FileCheck %s --check-prefix=MAGIC %}

// PTX: .target sm_90a
// PTX: .visible .entry ring_exchange(

// PTXAS: Compiling entry function 'ring_exchange' for 'sm_90a'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill

// MAGIC: WEAVEBND
