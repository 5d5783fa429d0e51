// REQUIRES: ptxas
// RUN: weavec %s --emit=bundle -o %t.wbundle
// RUN: grep -a -E "^(kernel| *variant_of| *param buffer a )" %t.wbundle | FileCheck %s
// RUN: grep -a -E "^(kernel|  function)" %t.wbundle | FileCheck %s --check-prefix=SHARED
// RUN: weavec %s --emit=ptx | grep -c "^.visible .entry" | FileCheck %s --check-prefix=FUNCTIONS
// RUN: grep -a -c "^kernel " %t.wbundle | FileCheck %s --check-prefix=ENTRIES

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

// A configuration the chooser picks for several ranges (the 128 x 256
// tile at 769-1024 rows and again from 1537; the 192 x 192 tile where its
// rows fill whole rounds, 1025-1152 and 2049-2304) is one function of the
// cubin: the later ranges' entries name it (`function`), each keeping its
// own range (compiler/include/weave/Pipeline/SharedVariants.h). So the PTX
// has fewer entry points than the manifest has kernels.
// SHARED:      kernel matmul__m769_1024
// SHARED-NEXT: kernel matmul__m1025_1152
// SHARED-NEXT: kernel matmul__m1153_1536
// SHARED-NEXT:   function matmul__m257_512
// SHARED-NEXT: kernel matmul__m1537_2048
// SHARED-NEXT:   function matmul__m769_1024
// SHARED-NEXT: kernel matmul__m2049_2304
// SHARED-NEXT:   function matmul__m1025_1152
// FUNCTIONS: {{^}}6{{$}}
// ENTRIES: {{^}}29{{$}}

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
