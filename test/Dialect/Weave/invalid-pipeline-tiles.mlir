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
  // expected-error @below {{'weave.matmul_pipeline' op expects tile_k to be 64 or 32 (lhs rows of one 128- or 64-byte swizzle span), got 16}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 16) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

// An f16 lhs row of a 128-byte swizzle span is 64 elements, of a 64-byte
// one 32: tile_k is one of those.
func.func @tile_k_two_rows(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects tile_k to be 64 or 32 (lhs rows of one 128- or 64-byte swizzle span), got 128}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 128) stages(2) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @tile_k_32(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 32) stages(8) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

// Each consumer warpgroup owns one or two 64-row wgmma blocks.
func.func @consumer_rows_192(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects each consumer to own 64 or 128 rows (tile_m = 64 or 128 times consumers for split M, 64 or 128 for split N) and, for split N, a multiple of 64 columns; got 192x128}}
  weave.matmul_pipeline %a, %b into %c tile(384, 128, 64) stages(2) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

// 128 rows x 256 columns per consumer would need 256 accumulator registers
// per thread.
func.func @consumer_accumulators(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects each consumer's part of the tile to have at most 64x256 elements (its f32 accumulators take subM * subN / 128 registers per thread), got 128x256}}
  weave.matmul_pipeline %a, %b into %c tile(256, 256, 64) stages(2) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

// Split N: each consumer's columns are whole 64-column rhs boxes.
func.func @split_n_cols_not_64(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects each consumer to own 64 or 128 rows (tile_m = 64 or 128 times consumers for split M, 64 or 128 for split N) and, for split N, a multiple of 64 columns; got 64x96}}
  weave.matmul_pipeline %a, %b into %c tile(64, 192, 64) stages(4) {split = #weave<split n>} : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @tile_n_not_64(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects tile_n to be a multiple of 64 (rhs tiles are loaded as 64-column boxes), got 96}}
  weave.matmul_pipeline %a, %b into %c tile(64, 96, 64) stages(4) {consumers = 1 : i64} : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @four_consumers(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects 1, 2 or 3 consumer warpgroups, got 4}}
  weave.matmul_pipeline %a, %b into %c tile(256, 128, 64) stages(4) {consumers = 4 : i64} : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

// tile_n can only exceed 256 with split N (2 x 256 columns); a TMA box
// cannot.
func.func @tile_n_box(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects tile_m and tile_n of at most 256 (a TMA box limit), got 64x512}}
  weave.matmul_pipeline %a, %b into %c tile(64, 512, 64) stages(2) {split = #weave<split n>} : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @delay_release_stages(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects delay_release (2) to be smaller than stages (2)}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(2) delay_release(2) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

// 7 stages of 128x64 + 64x128 f16 tiles (229376 bytes), the 32768-byte
// epilogue, 14 mbarriers and 1024 bytes of alignment slack: 263280 bytes.
// (6 stages would fit: 230496 bytes.)
func.func @smem_too_big(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op needs 263280 bytes of shared memory, more than the 232448 a Hopper block can have; reduce stages or tiles}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(7) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}
