// RUN: not weavec %s 2>&1 | FileCheck %s

// An op verifier error surfaces with the op's location, and without the op
// printed back in generic form.
// CHECK: verifier-error.mlir:[[# @LINE + 5]]:10: error: 'weave.remote_ref' op expects a buffer in #weave.symmetric memory, got 'memref<16xf32>'
// CHECK-NOT: see current operation

gpu.module @m {
  gpu.func @k(%b: memref<16xf32>, %d: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %r = weave.remote_ref %b on %d : memref<16xf32>
    gpu.return
  }
}
