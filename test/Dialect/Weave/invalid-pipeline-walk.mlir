// RUN: weave-opt %s -split-input-file -verify-diagnostics

// walk_m: what a bound on the walk's row tiles cannot be combined with, and
// the constants it cannot be.

func.func @walk_with_segments(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>, %w: index) {
  // expected-error @below {{'weave.matmul_pipeline' op expects walk_m without grid_tile_segments (2): a bound would cut through the segments}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) walk_m(%w) {grid_tile_segments = 2 : i64} : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @walk_with_interleave(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>, %r: index, %w: index) {
  // expected-error @below {{'weave.matmul_pipeline' op expects walk_m without grid_tile_interleave (4): a bound would cut through the shards}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) rotate_m(%r) walk_m(%w) {grid_tile_interleave = 4 : i64} : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

// (With the lag as well: the interleave's rule comes first.)
func.func @walk_with_lag(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>, %w: index) {
  // expected-error @below {{'weave.matmul_pipeline' op expects walk_m without grid_tile_interleave (2): a bound would cut through the shards}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) walk_m(%w) {grid_tile_interleave = 2 : i64, grid_tile_lag = 1 : i64} : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @walk_negative(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  %w = arith.constant -1 : index
  // expected-error @below {{'weave.matmul_pipeline' op expects walk_m to be at least 0, got -1}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) walk_m(%w) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

// A cluster's row tiles are walked together: a bound of 3 row tiles would
// split the second cluster of two.
func.func @walk_partial_cluster(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  %w = arith.constant 3 : index
  // expected-error @below {{'weave.matmul_pipeline' op expects walk_m (3) to be a multiple of cluster_m (2): a cluster's row tiles are walked together}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) cluster_m(2) walk_m(%w) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

// grid_tile_column_block walks the columns in runs; segments, the
// interleave's shards and walk_m cut the rows: one at a time.
func.func @column_block_with_segments(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects grid_tile_column_block (512) without grid_tile_segments, grid_tile_interleave or walk_m}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) {grid_tile_segments = 2 : i64, grid_tile_column_block = 512 : i64} : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @column_block_with_interleave(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects grid_tile_column_block (256) without grid_tile_segments, grid_tile_interleave or walk_m}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) {grid_tile_interleave = 2 : i64, grid_tile_column_block = 256 : i64} : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @column_block_with_walk(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>, %w: index) {
  // expected-error @below {{'weave.matmul_pipeline' op expects grid_tile_column_block (512) without grid_tile_segments, grid_tile_interleave or walk_m}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) walk_m(%w) {grid_tile_column_block = 512 : i64} : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @column_block_negative(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op attribute 'grid_tile_column_block' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) {grid_tile_column_block = -1 : i64} : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}
