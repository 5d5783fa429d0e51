// A failed compile leaves no output file behind.
// RUN: rm -f %t.out
// RUN: not weavec %s -o %t.out 2>/dev/null
// RUN: not test -e %t.out

gpu.module @m {
  gpu.func @k(%b: memref<16xf32>, %d: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %r = weave.remote_ref %b on %d : memref<16xf32>
    gpu.return
  }
}
