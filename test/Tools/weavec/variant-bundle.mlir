// REQUIRES: ptxas
// RUN: weavec %s --emit=bundle -o %t.wbundle
// RUN: grep -a -E "^(kernel| *variant_of| *param buffer a )" %t.wbundle | FileCheck %s

// A tile(auto) matmul with a dynamic row count compiles to one kernel per
// range of rows the chooser configures differently; the manifest marks each
// `variant_of` the kernel's name and bounds the rows of `a` with `range`,
// from 1 with no upper bound on the last. The runtime's
// Kernel::get("matmul") loads them all and launches the one whose range
// holds M.

// CHECK:      kernel matmul__m1_[[HI:[0-9]+]]
// CHECK-NEXT:   variant_of matmul
// CHECK-NEXT:   param buffer a dtype=f16 shape=?,4096 range=1..[[HI]],4096..4096 align=16
// CHECK:      kernel matmul__m{{[0-9]+}}_{{[0-9]+}}
// CHECK-NEXT:   variant_of matmul
// CHECK-NEXT:   param buffer a dtype=f16 shape=?,4096 range={{[0-9]+}}..{{[0-9]+}},4096..4096 align=16
// CHECK:      kernel matmul__m{{[0-9]+}}_up
// CHECK-NEXT:   variant_of matmul
// CHECK-NEXT:   param buffer a dtype=f16 shape=?,4096 range={{[0-9]+}}..,4096..4096 align=16
// CHECK-NOT:  kernel

module attributes {gpu.container_module} {
gpu.module @matmul {
  gpu.func @matmul(%a: memref<?x4096xf16> {weave.name = "a"},
                   %b: memref<4096x4096xf16> {weave.name = "b"},
                   %c: memref<?x4096xf16> {weave.name = "c"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1],
          block = auto, cluster = auto, smem = auto>} {
    weave.matmul_pipeline %a, %b into %c tile(auto)
        : memref<?x4096xf16>, memref<4096x4096xf16> into memref<?x4096xf16>
    gpu.return
  }
}
}
