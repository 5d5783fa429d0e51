// RUN: weave-opt %s -split-input-file -verify-diagnostics

// The rules of tile(auto) on weave.matmul_pipeline and of `auto` fields in
// #weave.kernel.

func.func @partial_tile(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects tile_m, tile_n and tile_k together, or none of them (tile(auto)); got 1 of 3}}
  weave.matmul_pipeline %a, %b into %c {tile_m = 128 : i64} : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

// tile(auto) with a callback: its tile arguments fix the tile, and must
// agree on tile_k.
func.func @auto_with_callback_disagreeing_k(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects the callback's lhs tile columns (64) to equal its rhs tile rows (32): they fix tile_k}}
  weave.matmul_pipeline %a, %b into %c tile(auto) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> callback {
  ^bb0(%l: memref<128x64xf16, #gpu.address_space<workgroup>>, %r: memref<32x128xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %k: index):
    weave.yield
  }
  return
}

// -----

func.func @auto_with_callback_global_tile(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects callback argument #1 to be a static 2-d tile of the rhs element type in workgroup memory, got 'memref<64x128xf16>'}}
  weave.matmul_pipeline %a, %b into %c tile(auto) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> callback {
  ^bb0(%l: memref<128x64xf16, #gpu.address_space<workgroup>>, %r: memref<64x128xf16>, %m: index, %n: index, %k: index):
    weave.yield
  }
  return
}

// -----

func.func @auto_with_epilogue(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf32>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects the tile fixed with an epilogue or combine region that takes the tile indices (m, n, box index): write tile(M, N, K) (without stages(N) the chooser picks the stages), or take the box's row and column instead (box, row, col[, lane]), got tile(auto)}}
  weave.matmul_pipeline %a, %b into %c tile(auto) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf32> epilogue {
  ^bb0(%box: memref<64x32xf32, #gpu.address_space<workgroup>>, %m: index, %n: index, %i: index):
    weave.yield
  }
  return
}

// -----

// grid_tile_segments: a static row count must split into whole segments.
func.func @segments_not_dividing(%a: memref<1152x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1152x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects the 9 row tiles to divide into 2 grid_tile_segments of whole clusters of 1}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) {grid_tile_segments = 2 : i64} : memref<1152x4096xf16>, memref<4096x1024xf16> into memref<1152x1024xf16>
  return
}

// -----

func.func @segments_dynamic_cluster(%a: memref<?x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<?x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects a static row count with grid_tile_segments and cluster_m}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) cluster_m(2) {grid_tile_segments = 2 : i64} : memref<?x4096xf16>, memref<4096x1024xf16> into memref<?x1024xf16>
  return
}

// -----

// grid_tile_keep_width keeps the segments' groups from narrowing: without
// segments it would say something the schedule does not do.
func.func @keep_width_without_segments(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects grid_tile_keep_width only with grid_tile_segments (the width narrows only there)}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) {grid_tile_keep_width} : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

// grid_tile_interleave and grid_tile_segments are two orders of the shards:
// one or the other.
func.func @interleave_and_segments(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects grid_tile_segments (2) or grid_tile_interleave (2), not both}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) {grid_tile_segments = 2 : i64, grid_tile_interleave = 2 : i64} : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @interleave_zero(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op attribute 'grid_tile_interleave' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) {grid_tile_interleave = 0 : i64} : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}
