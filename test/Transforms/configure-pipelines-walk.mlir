// RUN: weave-opt %s -weave-configure-pipelines -split-input-file | FileCheck %s

// A shape where the chooser shares the rhs over a cluster of 2
// (configure-pipelines.mlir's @rhs_off_grid) keeps one block per cluster
// with walk_m: a bound known only at run time must be whole clusters or
// the kernel traps, so the choice adds no cluster the op did not write.
// CHECK-LABEL: gpu.func @walk_no_cluster
//  CHECK-SAME:   grid = [persistent, 1, 1], block = [384, 1, 1], smem = {{[0-9]+}}>} {
//  CHECK-NEXT:   weave.matmul_pipeline {{.*}} tile({{[0-9, ]+}}) stages({{[0-9]+}}) walk_m(%arg3) :
gpu.module @m {
  gpu.func @walk_no_cluster(%a: memref<1000x4000xf16>, %b: memref<4000x4040xf16>, %c: memref<1000x4040xf16>, %w: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = auto, cluster = auto, smem = auto>} {
    weave.matmul_pipeline %a, %b into %c tile(auto) walk_m(%w) : memref<1000x4000xf16>, memref<4000x4040xf16> into memref<1000x4040xf16>
    gpu.return
  }
}

// -----

// A cluster the op writes stays.
// CHECK-LABEL: gpu.func @walk_written_cluster
//  CHECK-SAME:   cluster = [2, 1, 1]
//       CHECK:   weave.matmul_pipeline {{.*}} cluster_m(2) walk_m(%arg3) :
gpu.module @m {
  gpu.func @walk_written_cluster(%a: memref<1000x4000xf16>, %b: memref<4000x4040xf16>, %c: memref<1000x4040xf16>, %w: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = auto, cluster = auto, smem = auto>} {
    weave.matmul_pipeline %a, %b into %c tile(auto) cluster_m(2) walk_m(%w) : memref<1000x4000xf16>, memref<4000x4040xf16> into memref<1000x4040xf16>
    gpu.return
  }
}
