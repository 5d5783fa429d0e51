// RUN: weave-opt %s -pass-pipeline='builtin.module(gpu.module(convert-weave-to-nvvm))' | FileCheck %s --implicit-check-not=weave.

// A gpu.func without #weave.kernel is lowered as an ordinary kernel: no
// team parameters are appended and no block size is made up.

gpu.module @plain {

// CHECK-LABEL: llvm.func @plain_kernel
//  CHECK-SAME:   (%{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: i32)
//  CHECK-SAME:   attributes {gpu.kernel, nvvm.kernel}
//   CHECK-NOT:   nvvm.maxntid
//       CHECK:   llvm.return
gpu.func @plain_kernel(%buf: memref<4xf32>, %x: i32) kernel {
  gpu.return
}

}
