// RUN: not weavec %s --emit=mlir -o /dev/full 2>&1 | FileCheck %s
// RUN: not weavec %s --emit=ptx -o /dev/full 2>&1 | FileCheck %s

// A failed write is one clean error and exit status 1; the output stream's
// destructor used to add "LLVM ERROR: IO failure on output stream" (and an
// abort) after it.

// CHECK: weavec: error: cannot write output file '/dev/full': No space left on device
// CHECK-NOT: LLVM ERROR

gpu.module @m {
  gpu.func @k(%a: memref<16xf32> {weave.name = "a"}) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
}
