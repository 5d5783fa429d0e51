// RUN: weave-opt %s -pass-pipeline='builtin.module(gpu.module(convert-weave-to-nvvm))' | FileCheck %s --implicit-check-not=weave.

// Regression test. At 0a8bb22 computeKernelAbi walked func.getArguments(), which for a gpu.func also
// yields its workgroup attributions, so a kernel with a static shared-memory
// buffer is rejected with "kernel argument #1 of type 'memref<256xf32,
// #gpu.address_space<workgroup>>' cannot be passed: kernel buffers live in
// global memory". Attributions are not parameters. Fixed by the uncommitted
// KernelAbi.cpp change in the shared checkout; fails on a build of 0a8bb22.

gpu.module @smem {

// CHECK-LABEL: llvm.func @with_workgroup_buffer
//  CHECK-SAME:   (%{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: i32, %{{[^:]+}}: i32, %{{[^:]+}}: !llvm.ptr<1>)
//       CHECK:   llvm.mlir.addressof @__wg_with_workgroup_buffer_0 : !llvm.ptr<3>
gpu.func @with_workgroup_buffer(%out: memref<256xf32>) workgroup(%buf: memref<256xf32, #gpu.address_space<workgroup>>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [256, 1, 1]>} {
  %c0 = arith.constant 0 : index
  %v = memref.load %buf[%c0] : memref<256xf32, #gpu.address_space<workgroup>>
  memref.store %v, %out[%c0] : memref<256xf32>
  gpu.return
}

}
