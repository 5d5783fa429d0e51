// RUN: weave-opt %s -split-input-file --weave-expand-pipelines --canonicalize | FileCheck %s --implicit-check-not=weave.matmul_pipeline

// A dynamic row count: the row tiles are counted at run time from the
// argument's size, ceil(M / 128), and the persistent schedule walks
// (row tiles) x (2 column tiles of 256) tiles; the TMA copies take the
// argument itself (their tensor maps are built at launch with M rows).
// A launch whose out has another row count than lhs traps (the tiles are
// counted from lhs, the stores clip at out's rows), checked at the kernel's
// entry, without a printf (a call serializes every wgmma, C7510).
// The equality is recorded for the runtime's launch check (EqualDims.h):
// dimension 0 of argument 2 (out) equals dimension 0 of argument 0 (lhs).
// CHECK-LABEL: gpu.func @dynamic_rows
//  CHECK-SAME: weave.equal_dims = array<i64: 0, 0, 2, 0>
//       CHECK:   %[[M:.+]] = memref.dim %arg0, %c0 : memref<?x128xf16>
//       CHECK:   %[[OUTM:.+]] = memref.dim %arg2, %c0 : memref<?x512xf16>
//       CHECK:   %[[DIFF:.+]] = arith.cmpi ne, %[[M]], %[[OUTM]] : index
//       CHECK:   scf.if %[[DIFF]] {
//   CHECK-NOT:     gpu.printf
//       CHECK:     llvm.intr.trap
//       CHECK:   %[[ROWS:.+]] = memref.dim %arg0, %c0 : memref<?x128xf16>
//       CHECK:   %[[M127:.+]] = arith.addi %[[ROWS]], %c127 : index
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

// -----

// With an epilogue region the pipeline never stores into out (the region
// replaces every store), so out's row count is not checked against lhs's:
// GEMM + reduce-scatter binds its `partial` with one row tile.
// CHECK-LABEL: gpu.func @dynamic_rows_epilogue
//   CHECK-NOT:   llvm.intr.trap
//       CHECK:   gpu.return
module attributes {gpu.container_module} {
gpu.module @m {
  gpu.func @dynamic_rows_epilogue(%a: memref<?x128xf16> {weave.name = "a"},
                                  %b: memref<128x512xf16> {weave.name = "b"},
                                  %out: memref<?x512xf16> {weave.name = "out"},
                                  %c: memref<?x512xf16> {weave.name = "c"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = 1>,
          grid = [persistent, 1, 1], block = [384, 1, 1], smem = 200000>} {
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %c4 = arith.constant 4 : index
    weave.matmul_pipeline %a, %b into %out tile(128, 256, 64) stages(3)
        : memref<?x128xf16>, memref<128x512xf16> into memref<?x512xf16>
        epilogue {
    ^bb0(%box: memref<64x64xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %i: index):
      %rb = arith.divui %i, %c4 : index
      %cb = arith.remui %i, %c4 : index
      %r0 = arith.muli %m, %c128 : index
      %r1 = arith.muli %rb, %c64 : index
      %row = arith.addi %r0, %r1 : index
      %q0 = arith.muli %n, %c256 : index
      %q1 = arith.muli %cb, %c64 : index
      %col = arith.addi %q0, %q1 : index
      weave.copy_smem_to_gmem %box, %c[%row, %col]
          : memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<?x512xf16>
    }
    gpu.return
  }
}
}
