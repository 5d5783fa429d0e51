// RUN: weave-opt %s --weave-expand-pipelines --canonicalize | FileCheck %s
// RUN: %if ptxas %{ weavec %s --emit=bundle -v -o %t.wbundle 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// Edge tiles moved inside (MatmulTiling::shiftsEdgeTiles). 770 rows in
// tiles of 128 and 1000 columns in tiles of 64: the last row tile would
// hold rows 768-895 (126 past the edge) and the last column tile columns
// 960-1023. TMA zero-fills a box's part past the edge, and a load-bound
// step pays for it (128 x 64 at 770 x 1024 x 4096: 27.3 us, 768 rows
// 16.1, one H200, docs/PERF.md "Edge tiles moved inside"). So the tile
// starts no later than 770 - 128 = 642 and 1000 - 64 = 936: the loads stay
// in bounds.
// CHECK-LABEL: gpu.func @edge
//   CHECK-DAG:   %[[LASTN:.*]] = arith.constant 936 : index
//   CHECK-DAG:   %[[LASTM:.*]] = arith.constant 642 : index
// The producer's loads.
//       CHECK:   %[[ROW:.*]] = arith.minui %{{.*}}, %[[LASTM]] : index
//       CHECK:   weave.copy_gmem_to_smem %arg0[%[[ROW]], %{{.*}}]
//       CHECK:   %[[COL:.*]] = arith.minui %{{.*}}, %[[LASTN]] : index
//       CHECK:   weave.copy_gmem_to_smem %arg1[%{{.*}}, %[[COL]]]
// The epilogue: the consumer's part (64 rows of the moved tile) starts at
// the same place. The moved tile lies 126 rows before row m x 128, so a
// 64-row box may lie wholly on the neighbouring tile's rows: it is stored
// only where it reaches past m x 128. (A 64-column box never lies wholly
// on the neighbour's columns: the tile moved back by 24 of its 64.)
//       CHECK:   %[[TROW:.*]] = arith.minui %{{.*}}, %[[LASTM]] : index
//       CHECK:   %[[TCOL:.*]] = arith.minui %{{.*}}, %[[LASTN]] : index
//       CHECK:   %[[BROW:.*]] = arith.addi %[[TROW]], %{{.*}} : index
//       CHECK:   %[[BEND:.*]] = arith.addi %[[BROW]], %c64 : index
//       CHECK:   %[[FROMM:.*]] = arith.muli %{{.*}}, %c128 : index
//       CHECK:   %[[PASTM:.*]] = arith.cmpi ugt, %[[BEND]], %[[FROMM]] : index
//   CHECK-NOT:   arith.cmpi ugt
//       CHECK:   scf.if %[[PASTM]] {
//       CHECK:     weave.copy_smem_to_gmem %{{.*}}, %arg2[%[[BROW]], %[[TCOL]]]

// Whole tiles: nothing moves, nothing is checked.
// CHECK-LABEL: gpu.func @whole
//   CHECK-NOT:   arith.cmpi ugt
//   CHECK-NOT:   arith.maxsi
//       CHECK:   gpu.return

// A single row tile (100 rows) has nowhere to move: its box past row 100
// is zero-filled as before.
// CHECK-LABEL: gpu.func @one_row_tile
//   CHECK-NOT:   arith.cmpi ugt
//       CHECK:   gpu.return

// A row count known at run time: the last start is max(M - 128, 0).
// CHECK-LABEL: gpu.func @dynamic
//       CHECK:   %[[M:.*]] = memref.dim %arg0, %c0
//       CHECK:   scf.for
//       CHECK:   %[[LESS:.*]] = arith.subi %{{.*}}, %c128 : index
//       CHECK:   %[[LAST:.*]] = arith.maxsi %[[LESS]], %c0 : index
//       CHECK:   arith.minui %{{.*}}, %[[LAST]] : index
//       CHECK:   weave.copy_gmem_to_smem %arg0

// cluster_m(2) over 5 row tiles (600 rows) pads them to 6. The last real
// tile moves back 40 rows: no 64-row box of it can lie wholly on its
// neighbour. The padded tile (rows 768-895, wholly past M) moves back 168
// rows, onto the last real rows: each consumer's box is stored only where
// it reaches past m x 128, which the padded tile's never does.
// CHECK-LABEL: gpu.func @padded_cluster
//       CHECK:   %[[PPAST:.*]] = arith.cmpi ugt, %{{.*}}, %{{.*}} : index
//  CHECK-NEXT:   scf.if %[[PPAST]] {
//       CHECK:     weave.copy_smem_to_gmem
//       CHECK:   gpu.return

// An epilogue region sees the tiles' places: nothing moves.
// CHECK-LABEL: gpu.func @region
//   CHECK-NOT:   arith.maxsi
//   CHECK-NOT:   arith.cmpi ugt
//       CHECK:   gpu.return

// Nothing spills (ptxas lists the functions last to first).
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill
// PTXAS: Compiling entry function 'dynamic'
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill
// PTXAS: Compiling entry function 'edge'
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill
module attributes {gpu.container_module} {
gpu.module @m {
  gpu.func @edge(%a: memref<770x4096xbf16> {weave.name = "a"},
                 %b: memref<4096x1000xbf16> {weave.name = "b"},
                 %c: memref<770x1000xbf16> {weave.name = "c"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1],
          block = [384, 1, 1], smem = 214144>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 64, 64) stages(8)
        : memref<770x4096xbf16>, memref<4096x1000xbf16> into memref<770x1000xbf16>
    gpu.return
  }
  gpu.func @whole(%a: memref<768x4096xbf16> {weave.name = "a"},
                  %b: memref<4096x1024xbf16> {weave.name = "b"},
                  %c: memref<768x1024xbf16> {weave.name = "c"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1],
          block = [384, 1, 1], smem = 214144>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 64, 64) stages(8)
        : memref<768x4096xbf16>, memref<4096x1024xbf16> into memref<768x1024xbf16>
    gpu.return
  }
  gpu.func @one_row_tile(%a: memref<100x4096xbf16> {weave.name = "a"},
                         %b: memref<4096x1024xbf16> {weave.name = "b"},
                         %c: memref<100x1024xbf16> {weave.name = "c"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1],
          block = [384, 1, 1], smem = 214144>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 64, 64) stages(8)
        : memref<100x4096xbf16>, memref<4096x1024xbf16> into memref<100x1024xbf16>
    gpu.return
  }
  gpu.func @dynamic(%a: memref<?x4096xbf16> {weave.name = "a"},
                    %b: memref<4096x1024xbf16> {weave.name = "b"},
                    %c: memref<?x1024xbf16> {weave.name = "c"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1],
          block = [384, 1, 1], smem = 214144>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 64, 64) stages(8)
        : memref<?x4096xbf16>, memref<4096x1024xbf16> into memref<?x1024xbf16>
    gpu.return
  }
  gpu.func @padded_cluster(%a: memref<600x4096xbf16> {weave.name = "a"},
                           %b: memref<4096x1024xbf16> {weave.name = "b"},
                           %c: memref<600x1024xbf16> {weave.name = "c"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1],
          cluster = [2, 1, 1], block = [384, 1, 1], smem = 214144>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) cluster_m(2)
        : memref<600x4096xbf16>, memref<4096x1024xbf16> into memref<600x1024xbf16>
    gpu.return
  }
  gpu.func @region(%a: memref<770x4096xbf16> {weave.name = "a"},
                   %b: memref<4096x1000xbf16> {weave.name = "b"},
                   %c: memref<770x1000xbf16> {weave.name = "c"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1],
          block = [384, 1, 1], smem = 214144>} {
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    weave.matmul_pipeline %a, %b into %c tile(128, 64, 64) stages(8)
        : memref<770x4096xbf16>, memref<4096x1000xbf16> into memref<770x1000xbf16>
        epilogue {
    ^bb0(%box: memref<64x64xbf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %i: index):
      %r0 = arith.muli %m, %c128 : index
      %r1 = arith.muli %i, %c64 : index
      %row = arith.addi %r0, %r1 : index
      %col = arith.muli %n, %c64 : index
      weave.copy_smem_to_gmem %box, %c[%row, %col]
          : memref<64x64xbf16, #gpu.address_space<workgroup>> -> memref<770x1000xbf16>
    }
    gpu.return
  }
}
}
