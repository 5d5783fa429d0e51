// RUN: weave-opt %s -split-input-file -verify-diagnostics

// Constraints on the attributes of weave.matmul_pipeline checked by ODS.

func.func @tile_m_zero(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op attribute 'tile_m' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  weave.matmul_pipeline %a, %b into %c tile(0, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @tile_k_zero(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op attribute 'tile_k' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 0) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @stages_zero(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op attribute 'stages' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(0) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @delay_release_negative(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op attribute 'delay_release' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) delay_release(-1) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @consumers_zero(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op attribute 'consumers' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) {consumers = 0 : i64} : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @grid_tile_width_zero(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op attribute 'grid_tile_width' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) {grid_tile_width = 0 : i64} : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @unknown_split(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{expected ::mlir::weave::ConsumerSplit to be one of: m, n}}
  // expected-error @below {{failed to parse Weave_ConsumerSplitAttr parameter 'value'}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) {split = #weave<split k>} : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}
