// REQUIRES: ptxas
// RUN: weavec %s --emit=mlir | FileCheck %s --check-prefix=MLIR
// RUN: weavec %s --emit=bundle -o %t.wbundle
// RUN: grep -a -E "^ *(block|cluster|smem) " %t.wbundle | FileCheck %s --check-prefix=BUNDLE
// RUN: weave-bundle %t.wbundle | FileCheck %s --check-prefix=SHOW

// weavec resolves tile(auto) and the kernel's `auto` fields before it
// verifies the kernel, and the manifest carries the chosen launch shape:
// 1000x4040x4000 f16 has rhs rows off the 32-byte grid and 8 row tiles of
// 128, so a cluster of 2 that loads each rhs box once for both blocks
// (ConfigChooser.cpp: 0.979 of cuBLAS so, docs/PERF.md "Rows off the
// 32-byte grid").

// MLIR: grid = [persistent, 1, 1], block = [384, 1, 1], cluster = [2, 1, 1], smem = 230464>
// MLIR: weave.matmul_pipeline %{{.*}}, %{{.*}} into %{{.*}} tile(128, 256, 64) stages(4) cluster_m(2) :

// BUNDLE-DAG: block 384 1 1
// BUNDLE-DAG: cluster 2 1 1
// BUNDLE-DAG: smem 230464

// weave-bundle shows the configuration chosen (a `# config:` line of the
// manifest, which readers that predate it skip as a comment).
// SHOW: kernel matmul
// SHOW: # config: matmul_pipeline tile=128x256x64 stages=4 consumers=2 split=m cluster_m=2 split_k=1
// SHOW: end

module attributes {gpu.container_module} {
gpu.module @matmul {
  gpu.func @matmul(%a: memref<1000x4000xf16> {weave.name = "a"},
                   %b: memref<4000x4040xf16> {weave.name = "b"},
                   %c: memref<1000x4040xf16> {weave.name = "c"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1],
          block = auto, cluster = auto, smem = auto>} {
    weave.matmul_pipeline %a, %b into %c tile(auto)
        : memref<1000x4000xf16>, memref<4000x4040xf16> into memref<1000x4040xf16>
    gpu.return
  }
}
}
