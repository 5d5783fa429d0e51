// RUN: weave-opt %s -split-input-file -verify-diagnostics

// Shapes of weave.matmul_pipeline: (M x K) @ (K x N) -> (M x N), and tiles divide them.

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

func.func @m_not_tiled(%a: memref<1000x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1000x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects M (1000) to be a multiple of its tile (128)}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1000x4096xf16>, memref<4096x1024xf16> into memref<1000x1024xf16>
  return
}

// -----

func.func @n_not_tiled(%a: memref<1024x4096xf16>, %b: memref<4096x1000xf16>, %c: memref<1024x1000xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects N (1000) to be a multiple of its tile (128)}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1000xf16> into memref<1024x1000xf16>
  return
}

// -----

func.func @k_not_tiled(%a: memref<1024x4000xf16>, %b: memref<4000x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects K (4000) to be a multiple of its tile (64)}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4000xf16>, memref<4000x1024xf16> into memref<1024x1024xf16>
  return
}
