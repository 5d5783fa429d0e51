// -o writes the file and nothing to stdout.
// RUN: rm -f %t.out
// RUN: weavec %s -o %t.out | count 0
// RUN: FileCheck %s < %t.out

// CHECK-LABEL: gpu.func @k
//       CHECK:   weave.device_id "x"

gpu.module @m {
  gpu.func @k() kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %me = weave.device_id "x"
    gpu.return
  }
}
