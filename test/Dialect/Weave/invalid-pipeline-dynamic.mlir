// RUN: weave-opt %s -split-input-file -verify-diagnostics

// Only the row count M (dim 0 of lhs and out) may be dynamic: K and N set
// the k loop, the column tiles and the boxes at compile time (before,
// every dynamic size was taken as 2^63, and a dynamic subview compiled with
// exit 0 without reading its size).

func.func @dynamic_rhs(%a: memref<1024x4096xf16>, %b: memref<4096x?xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects a static shape for rhs (only the row count of lhs and out may be dynamic), got 'memref<4096x?xf16>'}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) : memref<1024x4096xf16>, memref<4096x?xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @dynamic_out_columns(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<?x?xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects a static column count for out (only the row count of lhs and out may be dynamic), got 'memref<?x?xf16>'}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<?x?xf16>
  return
}

// -----

func.func @dynamic_k(%a: memref<?x?xf16>, %b: memref<4096x1024xf16>, %c: memref<?x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects a static column count for lhs (only the row count of lhs and out may be dynamic), got 'memref<?x?xf16>'}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) : memref<?x?xf16>, memref<4096x1024xf16> into memref<?x1024xf16>
  return
}

// -----

// Dynamic rows still match the static shapes they can be checked against.
func.func @dynamic_rows_wrong_columns(%a: memref<?x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<?x512xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects out of shape ?x1024, got 'memref<?x512xf16>'}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) : memref<?x4096xf16>, memref<4096x1024xf16> into memref<?x512xf16>
  return
}

// -----

// A stage count that overflows the shared memory sum (it wrapped to a
// small number before) is rejected before the sum is taken.
func.func @stages_overflow(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects at most 4 stages of 49152 bytes (the shared memory a Hopper block can have), got 4611686018427387904}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4611686018427387904) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

// A dynamic lhs row count with a static out row count (and the reverse):
// the tiles are counted from lhs and stored through out, and no launch
// compared the two.
func.func @dynamic_lhs_static_out(%a: memref<?x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<256x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects the row counts of lhs and out both static or both dynamic (a launch checks two dynamic ones against each other), got 'memref<?x4096xf16>' and 'memref<256x1024xf16>'; make both '?' or give both the same size}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) : memref<?x4096xf16>, memref<4096x1024xf16> into memref<256x1024xf16>
  return
}

// -----

func.func @static_lhs_dynamic_out(%a: memref<256x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<?x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects the row counts of lhs and out both static or both dynamic}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) : memref<256x4096xf16>, memref<4096x1024xf16> into memref<?x1024xf16>
  return
}
