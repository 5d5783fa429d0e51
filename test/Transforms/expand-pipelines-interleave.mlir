// RUN: weave-opt %s -split-input-file --weave-expand-pipelines --canonicalize | FileCheck %s --implicit-check-not=weave.matmul_pipeline

// grid_tile_interleave = 2 on a row count known only at run time: the
// shards are floor(row tiles / 2) rows each (computed once, at entry), and
// the walk's row q (groups of 8 row tiles, row tiles fastest: firstM +
// inGroup mod groupRows) becomes row q / 2 of shard q mod 2 where q lies in
// the two shards, itself past them; then the rotation, mod the row tiles.
// The producer's walk:
// CHECK-LABEL: gpu.func @interleaved
//       CHECK:   %[[ROUND:.+]] = arith.addi %{{.+}}, %c127 : index
//       CHECK:   %[[TILES_M:.+]] = arith.divui %[[ROUND]], %c128 : index
//  CHECK-NEXT:   %[[SHARD:.+]] = arith.divui %[[TILES_M]], %c2 : index
//       CHECK:   scf.for %[[T:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
//  CHECK-NEXT:     %[[GROUP:.+]] = arith.divui %[[T]], %c16 : index
//  CHECK-NEXT:     %[[FIRST:.+]] = arith.muli %[[GROUP]], %c8 : index
//  CHECK-NEXT:     %[[LEFT:.+]] = arith.subi %[[TILES_M]], %[[FIRST]] : index
//  CHECK-NEXT:     %[[GROWS:.+]] = arith.minui %[[LEFT]], %c8 : index
//  CHECK-NEXT:     %[[IN:.+]] = arith.remui %[[T]], %c16 : index
//  CHECK-NEXT:     %[[R:.+]] = arith.remui %[[IN]], %[[GROWS]] : index
//  CHECK-NEXT:     %[[Q:.+]] = arith.addi %[[FIRST]], %[[R]] : index
//  CHECK-NEXT:     %[[N:.+]] = arith.divui %[[IN]], %[[GROWS]] : index
//  CHECK-NEXT:     %[[BOTH:.+]] = arith.muli %[[SHARD]], %c2 : index
//  CHECK-NEXT:     %[[INSIDE:.+]] = arith.cmpi ult, %[[Q]], %[[BOTH]] : index
//  CHECK-NEXT:     %[[ROW:.+]] = arith.divui %[[Q]], %c2 : index
//  CHECK-NEXT:     %[[WHICH:.+]] = arith.remui %[[Q]], %c2 : index
//  CHECK-NEXT:     %[[BASE:.+]] = arith.muli %[[WHICH]], %[[SHARD]] : index
//  CHECK-NEXT:     %[[SPREAD:.+]] = arith.addi %[[BASE]], %[[ROW]] : index
//  CHECK-NEXT:     %[[M:.+]] = arith.select %[[INSIDE]], %[[SPREAD]], %[[Q]] : index
//  CHECK-NEXT:     %[[ROT:.+]] = arith.addi %[[M]], %arg3 : index
//  CHECK-NEXT:     %{{.+}} = arith.remui %[[ROT]], %[[TILES_M]] : index
gpu.module @m {
  gpu.func @interleaved(%a: memref<?x128xf16>, %b: memref<128x512xf16>, %c: memref<?x512xf16>, %r: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) rotate_m(%r) {grid_tile_interleave = 2 : i64} : memref<?x128xf16>, memref<128x512xf16> into memref<?x512xf16>
    gpu.return
  }
}

// -----

// The default (grid_tile_interleave = 1) builds none of it: the walk's row
// goes straight to the rotation.
// CHECK-LABEL: gpu.func @in_order
//       CHECK:   scf.for %[[T:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
//       CHECK:     %[[Q:.+]] = arith.addi %{{.+}}, %{{.+}} : index
//  CHECK-NEXT:     %{{.+}} = arith.divui %{{.+}}, %{{.+}} : index
//  CHECK-NEXT:     %[[ROT:.+]] = arith.addi %[[Q]], %arg3 : index
//  CHECK-NEXT:     %{{.+}} = arith.remui %[[ROT]], %{{.+}} : index
//   CHECK-NOT:     arith.select
//       CHECK:   gpu.return
gpu.module @m {
  gpu.func @in_order(%a: memref<?x128xf16>, %b: memref<128x512xf16>, %c: memref<?x512xf16>, %r: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) rotate_m(%r) : memref<?x128xf16>, memref<128x512xf16> into memref<?x512xf16>
    gpu.return
  }
}
