// RUN: weavec %examples/ring_exchange/ring_exchange.mlir --emit=ptx --print-ir-after-all -o %t.ptx 2>&1 | FileCheck %s

// CHECK: IR Dump After ConvertWeaveToNVVMPass (convert-weave-to-nvvm) ('gpu.module' operation: @ring_exchange)
// CHECK: llvm.func @ring_exchange
// CHECK: IR Dump After GpuModuleToBinaryPass
