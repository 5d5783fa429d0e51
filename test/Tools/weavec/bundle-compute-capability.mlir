// REQUIRES: ptxas
// RUN: weavec %s --emit=bundle --arch=sm_80 -o %t.sm80.wbundle
// RUN: grep -a -E "^(arch| *cc)" %t.sm80.wbundle | FileCheck %s --check-prefix=SM80
// RUN: weavec %s --emit=bundle -o %t.sm90a.wbundle
// RUN: grep -a -E "^(arch| *cc)" %t.sm90a.wbundle | FileCheck %s --check-prefix=SM90A

// The manifest's compute capability follows --arch: an sm_80 bundle said
// cc 90, so the runtime refused to launch it on the A100 it was built for.

// SM80: arch sm_80
// SM80: cc 80
// SM90A: arch sm_90a
// SM90A: cc 90

gpu.module @m {
  gpu.func @k(%a: memref<16xf32> {weave.name = "a"}) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
}
