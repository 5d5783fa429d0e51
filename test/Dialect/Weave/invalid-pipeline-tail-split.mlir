// RUN: weave-opt %s -split-input-file -verify-diagnostics

// tail_split on weave.matmul_pipeline: a workspace, and none of what a
// split unit could not serve (split_k, clusters, interleaved shards, a
// k rotation).

func.func @no_workspace(%a: memref<?x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<?x4096xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects workspace(%ws : memref<Nxf32>) with tail_split (4)}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) {tail_split = 4 : i64} : memref<?x4096xf16>, memref<4096x4096xf16> into memref<?x4096xf16>
  return
}

// -----

func.func @with_split_k(%a: memref<256x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<256x4096xf16>, %ws: memref<1048576xf32>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects split_k (2) or tail_split (4), not both}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) split_k(2) workspace(%ws : memref<1048576xf32>) {tail_split = 4 : i64} : memref<256x4096xf16>, memref<4096x4096xf16> into memref<256x4096xf16>
  return
}

// -----

func.func @with_cluster(%a: memref<256x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<256x4096xf16>, %ws: memref<1048576xf32>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects cluster_m(1) with tail_split (4)}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) cluster_m(2) workspace(%ws : memref<1048576xf32>) {tail_split = 4 : i64} : memref<256x4096xf16>, memref<4096x4096xf16> into memref<256x4096xf16>
  return
}

// -----

func.func @with_interleave(%a: memref<1024x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<1024x4096xf16>, %ws: memref<1048576xf32>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects no grid_tile_interleave with tail_split (4)}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) workspace(%ws : memref<1048576xf32>) {grid_tile_interleave = 2 : i64, tail_split = 4 : i64} : memref<1024x4096xf16>, memref<4096x4096xf16> into memref<1024x4096xf16>
  return
}

// -----

func.func @with_k_rotation(%a: memref<1024x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<1024x4096xf16>, %ws: memref<1048576xf32>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects k_rotation (4) to be 0 with tail_split (4)}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) workspace(%ws : memref<1048576xf32>) {k_rotation = 4 : i64, tail_split = 4 : i64} : memref<1024x4096xf16>, memref<4096x4096xf16> into memref<1024x4096xf16>
  return
}

// -----

// The step regions are allowed (a split unit runs them for its own
// steps); before_load's fourth argument, the unit's first step, is an i1.
func.func @with_region_bad_first(%a: memref<1024x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<1024x4096xf16>, %ws: memref<1048576xf32>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects before_load to take 3 index arguments (m, n, k), those and an i1 (m, n, k, first step of the unit), or those and 2 indices (m, n, k, first, tile_m, tile_n), got 4 arguments}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) workspace(%ws : memref<1048576xf32>) {tail_split = 4 : i64} : memref<1024x4096xf16>, memref<4096x4096xf16> into memref<1024x4096xf16>
      before_load {
  ^bb0(%m: index, %n: index, %k: index, %first: index):
  }
  return
}

// -----

func.func @workspace_too_small(%a: memref<1024x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<1024x4096xf16>, %ws: memref<1024xf32>) {
  // expected-error @below {{'weave.matmul_pipeline' op needs a workspace of at least 65568 f32 (counters, then 2 128 x 256 partial tiles: one tile split the fewest ways) with tail_split (4), got 1024}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) workspace(%ws : memref<1024xf32>) {tail_split = 4 : i64} : memref<1024x4096xf16>, memref<4096x4096xf16> into memref<1024x4096xf16>
  return
}
