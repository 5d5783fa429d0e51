// RUN: weave-opt %s -split-input-file -verify-diagnostics

// Shapes of weave.matmul_pipeline: (M x K) @ (K x N) -> (M x N), with rows
// a tensor map can stride over.

func.func @inner_mismatch(%a: memref<1024x4096xf16>, %b: memref<2048x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects lhs columns (4096) to equal rhs rows (2048)}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<2048x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @out_shape(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<512x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects out of shape 1024x1024, got 'memref<512x1024xf16>'}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<512x1024xf16>
  return
}

// -----

// M, N and K need not be multiples of the tile (TMA zero-fills loads and
// clips stores past the edges; see ops.mlir), but a tensor map's row stride
// must be a multiple of 16 bytes: 4004 f16 are 8008 bytes.
func.func @lhs_rows_16_bytes(%a: memref<1024x4004xf16>, %b: memref<4004x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects rows of lhs to span a multiple of 16 bytes (a TMA stride rule), got 4004 elements}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4004xf16>, memref<4004x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @rhs_rows_16_bytes(%a: memref<1024x4096xbf16>, %b: memref<4096x1004xbf16>, %c: memref<1024x1004xbf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects rows of rhs to span a multiple of 16 bytes (a TMA stride rule), got 1004 elements}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xbf16>, memref<4096x1004xbf16> into memref<1024x1004xbf16>
  return
}
