// RUN: weavec %s --emit=ptx | FileCheck %s
// RUN: weave-opt %s --verify-roundtrip | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: %if ptxas %{ weavec %s --emit=cubin -o %t.cubin %}

// weave.prefetch_l2: one cp.async.bulk.prefetch.L2 of the element's address
// in the global state space, the byte count as given (a run-time value
// here), for a symmetric buffer (this device's copy) and a plain one.
// CHECK-LABEL: .visible .entry prefetch(
// CHECK: cp.async.bulk.prefetch.L2.global [%rd{{[0-9]+}}], %r{{[0-9]+}};
// CHECK: cp.async.bulk.prefetch.L2.global [%rd{{[0-9]+}}], %r{{[0-9]+}};
// CHECK-NOT: cp.async.bulk.prefetch
// ROUNDTRIP: weave.prefetch_l2 %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : memref<256x512xbf16, #weave.symmetric>
// ROUNDTRIP: weave.prefetch_l2 %{{.*}}[%{{.*}}], %{{.*}} : memref<4096xf32>
module attributes {gpu.container_module} {
gpu.module @m {
  gpu.func @prefetch(%slots: memref<256x512xbf16, #weave.symmetric> {weave.name = "slots"},
                     %x: memref<4096xf32> {weave.name = "x"},
                     %bytes: i32 {weave.name = "bytes"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = 2>,
          grid = [1, 1, 1], block = [32, 1, 1]>} {
    %row = gpu.thread_id x
    %c0 = arith.constant 0 : index
    weave.prefetch_l2 %slots[%row, %c0], %bytes : memref<256x512xbf16, #weave.symmetric>
    weave.prefetch_l2 %x[%row], %bytes : memref<4096xf32>
    gpu.return
  }
}
}
