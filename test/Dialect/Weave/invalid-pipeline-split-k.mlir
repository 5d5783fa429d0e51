// RUN: weave-opt %s -split-input-file -verify-diagnostics

// split_k and its workspace on weave.matmul_pipeline.

func.func @no_workspace(%a: memref<64x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<64x4096xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects workspace(%ws : memref<Nxf32>) with split_k(4)}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) split_k(4) : memref<64x4096xf16>, memref<4096x4096xf16> into memref<64x4096xf16>
  return
}

// -----

func.func @workspace_type(%a: memref<64x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<64x4096xf16>, %ws: memref<1024x1024xf32>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects a static 1-d f32 workspace in global memory, got 'memref<1024x1024xf32>'}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) split_k(4) workspace(%ws : memref<1024x1024xf32>) : memref<64x4096xf16>, memref<4096x4096xf16> into memref<64x4096xf16>
  return
}

// -----

func.func @dynamic_rows(%a: memref<?x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<?x4096xf16>, %ws: memref<1048576xf32>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects a static row count, or a kernel argument whose rows a weave.variant bounds (hi), with split_k(4) (the workspace holds one region per tile)}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) split_k(4) workspace(%ws : memref<1048576xf32>) : memref<?x4096xf16>, memref<4096x4096xf16> into memref<?x4096xf16>
  return
}

// -----

func.func @with_cluster(%a: memref<256x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<256x4096xf16>, %ws: memref<1048576xf32>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects cluster_m(1) with split_k(2)}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) cluster_m(2) split_k(2) workspace(%ws : memref<1048576xf32>) : memref<256x4096xf16>, memref<4096x4096xf16> into memref<256x4096xf16>
  return
}

// -----

func.func @too_many_splits(%a: memref<64x256xf16>, %b: memref<256x4096xf16>, %c: memref<64x4096xf16>, %ws: memref<1048576xf32>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects split_k (8) to be at most the 4 k steps of a tile}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) split_k(8) workspace(%ws : memref<1048576xf32>) : memref<64x256xf16>, memref<256x4096xf16> into memref<64x4096xf16>
  return
}

// -----

// 16 tiles of 128x256 in 4 splits: 16 x 3 x 32768 words of partials
// after the counters (splitKCounterWords: 224 for this size).
func.func @workspace_too_small(%a: memref<64x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<64x4096xf16>, %ws: memref<4096xf32>) {
  // expected-error @below {{'weave.matmul_pipeline' op needs a workspace of at least 1573088 f32 (counters, then tiles x (split_k - 1) x tile_m x tile_n partials), got 4096}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) split_k(4) workspace(%ws : memref<4096xf32>) : memref<64x4096xf16>, memref<4096x4096xf16> into memref<64x4096xf16>
  return
}

// -----

func.func @with_epilogue(%a: memref<64x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<64x4096xf32>, %ws: memref<1048576xf32>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects no callback, combine or epilogue region with split_k(2) (units see partial sums)}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) split_k(2) workspace(%ws : memref<1048576xf32>) : memref<64x4096xf16>, memref<4096x4096xf16> into memref<64x4096xf32> epilogue {
  ^bb0(%box: memref<64x32xf32, #gpu.address_space<workgroup>>, %m: index, %n: index, %i: index):
    weave.yield
  }
  return
}

// -----

// A dynamic row count bounded by the kernel's weave.variant (at most 256
// rows): the workspace must hold the split-K regions of 256 rows (2 x 16
// tiles of 128x256, 3 partials each, and the counters).
gpu.module @m {
  gpu.func @bounded_rows_small_workspace(%a: memref<?x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<?x4096xf16>, %ws: memref<1048576xf32>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>, weave.variant = {of = "mm", arg = 0, axis = 0, lo = 1, hi = 256}} {
    // expected-error @below {{'weave.matmul_pipeline' op needs a workspace of at least 3146144 f32}}
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) split_k(4) workspace(%ws : memref<1048576xf32>) : memref<?x4096xf16>, memref<4096x4096xf16> into memref<?x4096xf16>
    gpu.return
  }
}

// -----

// A bound on another argument's rows does not bound the lhs.
gpu.module @m {
  gpu.func @bound_on_the_output(%a: memref<?x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<?x4096xf16>, %ws: memref<4194304xf32>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>, weave.variant = {of = "mm", arg = 2, axis = 0, lo = 1, hi = 256}} {
    // expected-error @below {{expects a static row count, or a kernel argument whose rows a weave.variant bounds (hi), with split_k(4)}}
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) split_k(4) workspace(%ws : memref<4194304xf32>) : memref<?x4096xf16>, memref<4096x4096xf16> into memref<?x4096xf16>
    gpu.return
  }
}

// -----

// A row bound near 2^63: the workspace size overflows 64 bits (it wrapped
// to a small size that a 4096-word workspace passed).
gpu.module @m {
  gpu.func @rows_near_2_63(%a: memref<?x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<?x4096xf16>, %ws: memref<4096xf32>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>, weave.variant = {of = "mm", arg = 0, axis = 0, lo = 1, hi = 9223372036854775000}} {
    // expected-error @below {{'weave.matmul_pipeline' op needs a split-K workspace of more than 2^63 f32 for up to 9223372036854775000 lhs rows, which no buffer holds; bound the rows (a smaller weave.variant hi) or use split_k(1)}}
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) split_k(4) workspace(%ws : memref<4096xf32>) : memref<?x4096xf16>, memref<4096x4096xf16> into memref<?x4096xf16>
    gpu.return
  }
}

// -----

// A row bound of 2^50 with one column tile and split_k(2): the partials fit
// 64 bits, the counters' share needed 2^40 steps of 8192 words (a hang).
gpu.module @m {
  gpu.func @rows_2_50(%a: memref<?x256xf16>, %b: memref<256x64xf16>, %c: memref<?x64xf16>, %ws: memref<4096xf32>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>, weave.variant = {of = "mm", arg = 0, axis = 0, lo = 1, hi = 1125899906842624}} {
    // expected-error @below {{'weave.matmul_pipeline' op needs a workspace of at least}}
    weave.matmul_pipeline %a, %b into %c tile(128, 64, 64) stages(4) split_k(2) workspace(%ws : memref<4096xf32>) : memref<?x256xf16>, memref<256x64xf16> into memref<?x64xf16>
    gpu.return
  }
}

// -----

// k_rotation moves a tile's k steps around its loop; a split covers a
// range of them.
func.func @k_rotation_split(%a: memref<256x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<256x4096xf16>, %ws: memref<1048576xf32>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects k_rotation (3) without split_k (2)}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) split_k(2) workspace(%ws : memref<1048576xf32>) {k_rotation = 3 : i64} : memref<256x4096xf16>, memref<4096x4096xf16> into memref<256x4096xf16>
  return
}
