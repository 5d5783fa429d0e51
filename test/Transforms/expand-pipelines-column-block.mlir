// RUN: weave-opt %s -split-input-file --weave-expand-pipelines --canonicalize | FileCheck %s --implicit-check-not=weave.matmul_pipeline

// grid_tile_column_block = 512 with 256-column tiles on 1024 columns: two
// runs of 2 column tiles. The producer's walk finds linear tile t's run j
// from the column tile t / rows (rows = the row tiles, known at run time),
// j = ((c + 1) * 256 - 1) / 512, its first column tile min(j * 512 / 256,
// 4) and its width, then walks the run's tiles in groups of 8 row tiles
// (rows fastest) over the run's columns, and adds the run's first column.
// CHECK-LABEL: gpu.func @column_runs
//       CHECK:   scf.for %[[T:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
//  CHECK-NEXT:     %[[C:.+]] = arith.divui %[[T]], %[[ROWS:.+]] : index
//  CHECK-NEXT:     %[[C1:.+]] = arith.addi %[[C]], %c1 : index
//  CHECK-NEXT:     %[[END:.+]] = arith.muli %[[C1]], %c256 : index
//  CHECK-NEXT:     %[[LAST:.+]] = arith.subi %[[END]], %c1 : index
//  CHECK-NEXT:     %[[J:.+]] = arith.divui %[[LAST]], %c512 : index
//  CHECK-NEXT:     %[[JW:.+]] = arith.muli %[[J]], %c512 : index
//  CHECK-NEXT:     %[[JT:.+]] = arith.divui %[[JW]], %c256 : index
//  CHECK-NEXT:     %[[FIRST_N:.+]] = arith.minui %[[JT]], %c4 : index
//  CHECK-NEXT:     %[[J1:.+]] = arith.addi %[[J]], %c1 : index
//  CHECK-NEXT:     %[[J1W:.+]] = arith.muli %[[J1]], %c512 : index
//  CHECK-NEXT:     %[[J1T:.+]] = arith.divui %[[J1W]], %c256 : index
//  CHECK-NEXT:     %[[NEXT_N:.+]] = arith.minui %[[J1T]], %c4 : index
//  CHECK-NEXT:     %[[WIDTH:.+]] = arith.subi %[[NEXT_N]], %[[FIRST_N]] : index
//  CHECK-NEXT:     %[[SKIP:.+]] = arith.muli %[[FIRST_N]], %[[ROWS]] : index
//  CHECK-NEXT:     %[[LOCAL:.+]] = arith.subi %[[T]], %[[SKIP]] : index
//  CHECK-NEXT:     %[[PER_GROUP:.+]] = arith.muli %[[WIDTH]], %c8 : index
//  CHECK-NEXT:     %[[GROUP:.+]] = arith.divui %[[LOCAL]], %[[PER_GROUP]] : index
//       CHECK:     %[[IN:.+]] = arith.remui %[[LOCAL]], %[[PER_GROUP]] : index
//       CHECK:     %[[N:.+]] = arith.divui %[[IN]], %{{.+}} : index
//  CHECK-NEXT:     %{{.+}} = arith.addi %[[N]], %[[FIRST_N]] : index
gpu.module @m {
  gpu.func @column_runs(%a: memref<?x128xf16>, %b: memref<128x1024xf16>, %c: memref<?x1024xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) {grid_tile_column_block = 512 : i64} : memref<?x128xf16>, memref<128x1024xf16> into memref<?x1024xf16>
    gpu.return
  }
}

// -----

// The default (grid_tile_column_block = 0) builds none of it: the walk
// starts with the group (8 row tiles x 4 column tiles a group).
// CHECK-LABEL: gpu.func @one_run
//       CHECK:   scf.for %[[T:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
//  CHECK-NEXT:     %[[GROUP:.+]] = arith.divui %[[T]], %c32 : index
//  CHECK-NEXT:     %{{.+}} = arith.muli %[[GROUP]], %c8 : index
//       CHECK:   gpu.return
gpu.module @m {
  gpu.func @one_run(%a: memref<?x128xf16>, %b: memref<128x1024xf16>, %c: memref<?x1024xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) : memref<?x128xf16>, memref<128x1024xf16> into memref<?x1024xf16>
    gpu.return
  }
}
