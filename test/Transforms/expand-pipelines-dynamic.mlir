// RUN: weave-opt %s -split-input-file --weave-expand-pipelines --canonicalize | FileCheck %s --implicit-check-not=weave.matmul_pipeline

// A dynamic row count: the row tiles are counted at run time from the
// argument's size, ceil(M / 128), and the persistent schedule walks
// (row tiles) x (2 column tiles of 256) tiles; the TMA copies take the
// argument itself (their tensor maps are built at launch with M rows).
// A launch whose out has another row count than lhs traps (the tiles are
// counted from lhs, the stores clip at out's rows).
// CHECK-LABEL: gpu.func @dynamic_rows
//       CHECK:   %[[M:.+]] = memref.dim %arg0, %c0 : memref<?x128xf16>
//       CHECK:   %[[OUTM:.+]] = memref.dim %arg2, %c0 : memref<?x512xf16>
//       CHECK:   %[[DIFF:.+]] = arith.cmpi ne, %[[M]], %[[OUTM]] : index
//       CHECK:   scf.if %[[DIFF]] {
//       CHECK:     gpu.printf "weave: matmul_pipeline at {{.*}}: lhs has %ld rows but out has %ld (they must be equal)
//       CHECK:     llvm.intr.trap
//       CHECK:   %[[M127:.+]] = arith.addi %[[M]], %c127 : index
//       CHECK:   %[[ROWT:.+]] = arith.divui %[[M127]], %c128 : index
//       CHECK:   %[[TILES:.+]] = arith.muli %[[ROWT]], %c2 : index
//       CHECK:   scf.for %{{.+}} = %{{.+}} to %[[TILES]] step
//       CHECK:   weave.copy_gmem_to_smem %arg0[{{.*}}]{{.*}} : memref<?x128xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>, memref<i64
//       CHECK:   weave.copy_smem_to_gmem %{{.+}}, %arg2[{{.*}}] {{.*}} -> memref<?x512xf16>
gpu.module @m {
  gpu.func @dynamic_rows(%a: memref<?x128xf16>, %b: memref<128x512xf16>, %c: memref<?x512xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) : memref<?x128xf16>, memref<128x512xf16> into memref<?x512xf16>
    gpu.return
  }
}

// -----

// A range of whole rows of lhs (per-expert GEMMs on slices of one buffer):
// a subview at a run-time row offset with a run-time row count. The tiles
// are counted from the view's rows, and the lhs loads go through the
// argument's tensor map at row offset + the tile's row.
// CHECK-LABEL: gpu.func @lhs_row_range
//       CHECK:   %[[OUTM:.+]] = memref.dim %arg1, %c0 : memref<?x512xf16>
//       CHECK:   arith.cmpi ne, %arg4, %[[OUTM]] : index
//       CHECK:   %[[ROW:.+]] = arith.addi %arg3, %{{.+}} : index
//       CHECK:   weave.copy_gmem_to_smem %arg0[%[[ROW]], %{{.+}}], {{.*}} : memref<?x128xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>
gpu.module @m {
  gpu.func @lhs_row_range(%a: memref<?x128xf16>, %c: memref<?x512xf16>, %b: memref<128x512xf16>, %off: index, %m: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>} {
    %rows = memref.subview %a[%off, 0] [%m, 128] [1, 1] : memref<?x128xf16> to memref<?x128xf16, strided<[128, 1], offset: ?>>
    weave.matmul_pipeline %rows, %b into %c tile(128, 256, 64) stages(4) : memref<?x128xf16, strided<[128, 1], offset: ?>>, memref<128x512xf16> into memref<?x512xf16>
    gpu.return
  }
}
