// RUN: weave-opt %s -split-input-file --weave-expand-pipelines --canonicalize | FileCheck %s --implicit-check-not=weave.matmul_pipeline

// walk_m(%w) with rotate_m(%r) on 20 x 4 tiles (2560 x 1024 in 128 x 256):
// the walk covers min(%w, 20) row tiles, so the persistent schedule shares
// min(%w, 20) * 4 tiles (the loop's bound and the idle blocks' begin), its
// step kept at least 1; the groups of 8 row tiles are cut at the walk's
// rows; the rotation still wraps at all 20 row tiles. The producer's walk:
// CHECK-LABEL: gpu.func @walk
//       CHECK:   %[[ROWS:.+]] = arith.minui %arg4, %c20 : index
//       CHECK:   %[[TILES:.+]] = arith.muli %[[ROWS]], %c4 : index
//       CHECK:   %[[ROUNDS:.+]] = arith.maxui %{{.+}}, %c1 : index
//  CHECK-NEXT:   %{{.+}} = arith.addi %[[TILES]], %[[ROUNDS]] : index
//  CHECK-NEXT:   %{{.+}} = arith.subi %{{.+}}, %c1 : index
//  CHECK-NEXT:   %[[SHARE:.+]] = arith.divui %{{.+}}, %[[ROUNDS]] : index
//  CHECK-NEXT:   %[[STEP:.+]] = arith.maxui %[[SHARE]], %c1 : index
//  CHECK-NEXT:   %[[BUSY:.+]] = arith.cmpi ult, %block_id_x, %[[STEP]] : index
//  CHECK-NEXT:   %[[BEGIN:.+]] = arith.select %[[BUSY]], %block_id_x, %[[TILES]] : index
//       CHECK:   scf.for %[[T:.+]] = %[[BEGIN]] to %[[TILES]] step %[[STEP]] iter_args
//  CHECK-NEXT:     %[[GROUP:.+]] = arith.divui %[[T]], %c32 : index
//  CHECK-NEXT:     %[[FIRST:.+]] = arith.muli %[[GROUP]], %c8 : index
//  CHECK-NEXT:     %[[LEFT:.+]] = arith.subi %[[ROWS]], %[[FIRST]] : index
//  CHECK-NEXT:     %[[GROWS:.+]] = arith.minui %[[LEFT]], %c8 : index
//  CHECK-NEXT:     %[[IN:.+]] = arith.remui %[[T]], %c32 : index
//  CHECK-NEXT:     %[[R:.+]] = arith.remui %[[IN]], %[[GROWS]] : index
//  CHECK-NEXT:     %[[Q:.+]] = arith.addi %[[FIRST]], %[[R]] : index
//  CHECK-NEXT:     %{{.+}} = arith.divui %[[IN]], %[[GROWS]] : index
//  CHECK-NEXT:     %[[ROT:.+]] = arith.addi %[[Q]], %arg3 : index
//  CHECK-NEXT:     %{{.+}} = arith.remui %[[ROT]], %c20 : index
//   CHECK-NOT:   llvm.intr.trap
//       CHECK:   gpu.return
gpu.module @m {
  gpu.func @walk(%a: memref<2560x128xf16>, %b: memref<128x1024xf16>, %c: memref<2560x1024xf16>, %r: index, %w: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) rotate_m(%r) walk_m(%w) : memref<2560x128xf16>, memref<128x1024xf16> into memref<2560x1024xf16>
    gpu.return
  }
}

// -----

// A constant bound below the row tiles: 15 x 4 tiles.
// CHECK-LABEL: gpu.func @walk_15
//       CHECK:   scf.for %{{.+}} = %{{.+}} to %c60 step
gpu.module @m {
  gpu.func @walk_15(%a: memref<2560x128xf16>, %b: memref<128x1024xf16>, %c: memref<2560x1024xf16>, %r: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>} {
    %w = arith.constant 15 : index
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) rotate_m(%r) walk_m(%w) : memref<2560x128xf16>, memref<128x1024xf16> into memref<2560x1024xf16>
    gpu.return
  }
}

// -----

// A bound past the row tiles is the whole walk: 20 x 4 tiles.
// CHECK-LABEL: gpu.func @walk_past
//       CHECK:   scf.for %{{.+}} = %{{.+}} to %c80 step
gpu.module @m {
  gpu.func @walk_past(%a: memref<2560x128xf16>, %b: memref<128x1024xf16>, %c: memref<2560x1024xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>} {
    %w = arith.constant 40 : index
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) walk_m(%w) : memref<2560x128xf16>, memref<128x1024xf16> into memref<2560x1024xf16>
    gpu.return
  }
}

// -----

// walk_m(0): no tile, and still a positive step (a zero one would fail the
// scf.for verifier once it folds to a constant).
// CHECK-LABEL: gpu.func @walk_empty
//       CHECK:   %[[ROUNDS:.+]] = arith.maxui %{{.+}}, %c1 : index
//  CHECK-NEXT:   %{{.+}} = arith.subi %[[ROUNDS]], %c1 : index
//  CHECK-NEXT:   %[[SHARE:.+]] = arith.divui %{{.+}}, %[[ROUNDS]] : index
//  CHECK-NEXT:   %[[STEP:.+]] = arith.maxui %[[SHARE]], %c1 : index
//       CHECK:   scf.for %{{.+}} = %{{.+}} to %c0 step %[[STEP]]
gpu.module @m {
  gpu.func @walk_empty(%a: memref<2560x128xf16>, %b: memref<128x1024xf16>, %c: memref<2560x1024xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>} {
    %w = arith.constant 0 : index
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) walk_m(%w) : memref<2560x128xf16>, memref<128x1024xf16> into memref<2560x1024xf16>
    gpu.return
  }
}

// -----

// With cluster_m(2) a run-time bound that is not whole clusters traps
// before the walk, which covers min(%w, 20) / 2 cluster-high rows.
// CHECK-LABEL: gpu.func @walk_cluster
//       CHECK:   %[[ODD:.+]] = arith.remui %arg3, %c2 : index
//  CHECK-NEXT:   %[[PARTIAL:.+]] = arith.cmpi ne, %[[ODD]], %c0 : index
//  CHECK-NEXT:   scf.if %[[PARTIAL]] {
//  CHECK-NEXT:     llvm.intr.trap
//  CHECK-NEXT:   }
//  CHECK-NEXT:   %[[ROWS:.+]] = arith.minui %arg3, %c20 : index
//  CHECK-NEXT:   %[[CROWS:.+]] = arith.divui %[[ROWS]], %c2 : index
//       CHECK:   %[[TILES:.+]] = arith.muli %[[CROWS]], %c4 : index
//       CHECK:   scf.for %{{.+}} = %{{.+}} to %[[TILES]] step
gpu.module @m {
  gpu.func @walk_cluster(%a: memref<2560x128xf16>, %b: memref<128x1024xf16>, %c: memref<2560x1024xf16>, %w: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [384, 1, 1], cluster = [2, 1, 1], smem = 230464>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) cluster_m(2) walk_m(%w) : memref<2560x128xf16>, memref<128x1024xf16> into memref<2560x1024xf16>
    gpu.return
  }
}

// -----

// A constant of whole clusters needs no check: 6 / 2 cluster-high rows x 4.
// CHECK-LABEL: gpu.func @walk_cluster_constant
//   CHECK-NOT:   llvm.intr.trap
//       CHECK:   scf.for %{{.+}} = %{{.+}} to %c12 step
//   CHECK-NOT:   llvm.intr.trap
//       CHECK:   gpu.return
gpu.module @m {
  gpu.func @walk_cluster_constant(%a: memref<2560x128xf16>, %b: memref<128x1024xf16>, %c: memref<2560x1024xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [384, 1, 1], cluster = [2, 1, 1], smem = 230464>} {
    %w = arith.constant 6 : index
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) cluster_m(2) walk_m(%w) : memref<2560x128xf16>, memref<128x1024xf16> into memref<2560x1024xf16>
    gpu.return
  }
}
