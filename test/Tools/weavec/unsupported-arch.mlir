// RUN: not weavec %s --emit=ptx --arch=sm_100a 2>&1 | FileCheck %s -DARCH=sm_100a
// RUN: not weavec %s --emit=ptx --arch=sm_abc 2>&1 | FileCheck %s -DARCH=sm_abc
// RUN: not weavec %s --emit=ptx --arch=sm_ 2>&1 | FileCheck %s -DARCH=sm_
// RUN: not weavec %s --emit=ptx --arch=sm_70 2>&1 | FileCheck %s -DARCH=sm_70
// RUN: not weavec %s --emit=ptx --arch=gfx90a 2>&1 | FileCheck %s -DARCH=gfx90a
// RUN: weavec %s --emit=ptx --arch=sm_75 | FileCheck %s --check-prefix=SM75
// RUN: weavec %s --emit=ptx --arch=sm_90 | FileCheck %s --check-prefix=SM90

// An architecture the pipeline cannot build for is a flag error that names
// the supported ones, not an LLVM abort (sm_100a needs a newer PTX ISA), a
// warning printed three times (sm_abc) or a ptxas failure (sm_70, which
// CUDA 13's ptxas no longer knows).

// CHECK: weavec: error: --arch: unsupported GPU architecture '[[ARCH]]'; supported: sm_75, sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a
// CHECK-NOT: LLVM ERROR
// CHECK-NOT: not a recognized processor

// SM75: .target sm_75
// SM90: .target sm_90

gpu.module @m {
  gpu.func @k(%a: memref<16xf32> {weave.name = "a"}) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
}
