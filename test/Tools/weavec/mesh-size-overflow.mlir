// RUN: not weavec %s --emit=ptx 2>&1 | FileCheck %s

// The manifest and the ABI carry the team size as u32: 4294967297 became
// team 1 (and 2^32 "any team") while the code used the full value. The
// attribute verifier may reject it first; either way it is an error, before
// lowering, that names the size.

// CHECK: mesh-size-overflow.mlir:{{[0-9]+}}:{{[0-9]+}}: error: {{.*}}mesh size{{.*}}4294967297
// CHECK-NOT: team 1

gpu.module @m {
  gpu.func @k(%a: memref<16xf32> {weave.name = "a"}) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 4294967297>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
}
