// RUN: weave-opt %s -split-input-file -verify-diagnostics

// Tile sizes of weave.matmul_pipeline against wgmma, TMA and shared memory.

func.func @split_not_divisible(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects the split dimension of the tile to be divisible by 3 consumer warpgroups}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) {consumers = 3 : i64} : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @consumer_m_not_64(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects each consumer's tile_m to be a multiple of 64 (the wgmma M), got 32}}
  weave.matmul_pipeline %a, %b into %c tile(64, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @consumer_n_too_wide(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects each consumer's tile_n to be a multiple of 8 and at most 256 (legal wgmma N), got 512}}
  weave.matmul_pipeline %a, %b into %c tile(128, 512, 64) stages(2) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @consumer_n_not_8(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects each consumer's tile_n to be a multiple of 8 and at most 256 (legal wgmma N), got 4}}
  weave.matmul_pipeline %a, %b into %c tile(128, 8, 64) stages(4) {split = #weave<split n>} : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @tile_k_swizzle(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects tile_k to be a multiple of 64 (one 128-byte swizzle row), got 32}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 32) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @tile_m_box(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects tile_m and tile_n of at most 256 (a TMA box limit), got 512x128}}
  weave.matmul_pipeline %a, %b into %c tile(512, 128, 64) stages(2) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @delay_release_stages(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects delay_release (2) to be smaller than stages (2)}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(2) delay_release(2) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @smem_too_big(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op needs 656512 bytes of shared memory, more than the 232448 a Hopper block can have; reduce stages or tiles}}
  weave.matmul_pipeline %a, %b into %c tile(256, 256, 64) stages(8) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}
