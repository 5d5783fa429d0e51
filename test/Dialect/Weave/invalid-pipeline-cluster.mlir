// RUN: weave-opt %s -split-input-file -verify-diagnostics

// cluster_m: which cluster sizes and shapes a pipeline can share rhs tiles
// over.

func.func @cluster_three(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects cluster_m to be 1, 2 or 4, got 3}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) cluster_m(3) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @cluster_zero(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op attribute 'cluster_m' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) cluster_m(0) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

// A 128-column tile is two 64-column boxes: four blocks cannot share them.
func.func @boxes_do_not_divide(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects the 2 rhs boxes of a tile (64 columns each) to divide among the 4 blocks of a cluster}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) cluster_m(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @width_not_multiple(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects grid_tile_width (3) to be a multiple of cluster_m (2): a cluster's tiles are in one group}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) cluster_m(2) {grid_tile_width = 3 : i64} : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

// 1100 rows are 9 row tiles of 128: with a region, one block of a pair
// would see a tile past the last row.
func.func @odd_row_tiles_with_region(%a: memref<1100x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1100x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects the number of row tiles (9 of 128 rows) to be a multiple of cluster_m (2) with a region; use a smaller cluster_m for this shape}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) cluster_m(2) : memref<1100x4096xf16>, memref<4096x1024xf16> into memref<1100x1024xf16>
      before_load {
  ^bb0(%m: index, %n: index, %k: index):
  }
  return
}

// -----

func.func @dynamic_rows_with_region(%a: memref<?x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<?x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects a static row count with cluster_m(2) and a region (the row tiles must divide among the blocks of a cluster), got 'memref<?x4096xf16>' into 'memref<?x1024xf16>'}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) cluster_m(2) : memref<?x4096xf16>, memref<4096x1024xf16> into memref<?x1024xf16>
      before_load {
  ^bb0(%m: index, %n: index, %k: index):
  }
  return
}

// -----

// Without a region, an odd row-tile count and a dynamic one are padded to
// whole clusters (the padded tile loads zeros and stores nothing).
func.func @odd_row_tiles(%a: memref<1100x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1100x1024xf16>) {
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) cluster_m(2) : memref<1100x4096xf16>, memref<4096x1024xf16> into memref<1100x1024xf16>
  return
}
func.func @dynamic_rows(%a: memref<?x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<?x1024xf16>) {
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) cluster_m(2) : memref<?x4096xf16>, memref<4096x1024xf16> into memref<?x1024xf16>
  return
}

// -----

// 1000 rows are 8 row tiles (the last one partial): fine for pairs.
func.func @edge_rows_even_tiles(%a: memref<1000x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1000x1024xf16>) {
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) cluster_m(2) : memref<1000x4096xf16>, memref<4096x1024xf16> into memref<1000x1024xf16>
  return
}
