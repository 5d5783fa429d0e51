// RUN: weavec %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: test $(grep -c "bar.sync[[:space:]]*15," %t.ptx) -eq $((2 * $(grep -c "^.visible .entry" %t.ptx)))

// `even_registers` on a tile(auto) pipeline with a dynamic row count: the
// chooser's variants (one kernel per range of M) each keep it, and each
// evens the registers after its roles: two named barriers 15 an entry (the
// consumers' after their setmaxnreg.dec, the producer's before its inc).
// CHECK: .visible .entry mm_
// CHECK: setmaxnreg.inc.sync.aligned.u32 {{[0-9]+}};
// CHECK: bar.sync 15, {{[0-9]+}};
// CHECK: bar.sync 15, {{[0-9]+}};
// CHECK-NEXT: setmaxnreg.inc.sync.aligned.u32 {{[0-9]+}};
module attributes {gpu.container_module} {
gpu.module @m {
  gpu.func @mm(%a: memref<?x4096xbf16> {weave.name = "a"},
               %b: memref<4096x4096xbf16> {weave.name = "b"},
               %c: memref<?x4096xbf16> {weave.name = "c"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1],
          block = auto, cluster = auto, smem = auto>} {
    weave.matmul_pipeline %a, %b into %c tile(auto) {even_registers}
        : memref<?x4096xbf16>, memref<4096x4096xbf16> into memref<?x4096xbf16>
    gpu.barrier
    gpu.return
  }
}
}
