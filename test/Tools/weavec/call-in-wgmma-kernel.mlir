// REQUIRES: ptxas
// RUN: weavec %s --emit=bundle -o %t.wbundle 2>&1 | FileCheck %s
// RUN: sed -e 's/?x4096/1024x4096/g' %s | weavec - --emit=bundle -o %t.static.wbundle 2>&1 | FileCheck %s --check-prefix=STATIC --allow-empty

// A printf before a trap in a kernel that issues wgmma: its vprintf call
// makes ptxas serialize every wgmma of the kernel (C7510), however cold the
// branch. weavec warns at the printf, and passes ptxas's own advice on at
// the kernel. With static shapes the check folds away and nothing is said.

// CHECK: call-in-wgmma-kernel.mlir:28:7: warning: a call (gpu.printf, which lowers to vprintf) in kernel 'matmul', which issues wgmma: ptxas serializes every wgmma of a kernel that makes a call (C7510)
// CHECK: call-in-wgmma-kernel.mlir:16:3: warning: ptxas: (C7510) Potential Performance Loss: wgmma.mma_async instructions are serialized
// STATIC-NOT: warning

module attributes {gpu.container_module} {
gpu.module @matmul {
  gpu.func @matmul(%a: memref<?x4096xbf16> {weave.name = "a"},
                   %b: memref<4096x4096xbf16> {weave.name = "b"},
                   %c: memref<?x4096xbf16> {weave.name = "c"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1],
          block = [384, 1, 1], smem = 230464>} {
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %rows = memref.dim %a, %c0 : memref<?x4096xbf16>
    %tail = arith.remui %rows, %c128 : index
    %ragged = arith.cmpi ne, %tail, %c0 : index
    scf.if %ragged {
      gpu.printf "matmul: %lu rows\n", %rows : index
      llvm.intr.trap
    }
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4)
        : memref<?x4096xbf16>, memref<4096x4096xbf16> into memref<?x4096xbf16>
    gpu.return
  }
}
}
