// RUN: weave-opt %s -split-input-file -verify-diagnostics

// lhs_rows: a part of lhs's rows from another buffer, loaded by lhs's box,
// so it has lhs's element type and columns.

func.func @lhs_rows_type(%a: memref<1024x4096xf16>, %own: memref<?x4096xbf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>, %at: index) {
  // expected-error @below {{'weave.matmul_pipeline' op expects lhs_rows of lhs's element type ('f16'), got 'bf16'}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) lhs_rows(%own at %at : memref<?x4096xbf16>) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @lhs_rows_columns(%a: memref<1024x4096xf16>, %own: memref<256x2048xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>, %at: index) {
  // expected-error @below {{'weave.matmul_pipeline' op expects lhs_rows with lhs's 4096 columns, got 'memref<256x2048xf16>'}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) lhs_rows(%own at %at : memref<256x2048xf16>) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @lhs_rows_rank(%a: memref<1024x4096xf16>, %own: memref<4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>, %at: index) {
  // expected-error @below {{'weave.matmul_pipeline' op expects lhs_rows to be a row-major 2-d buffer in global memory, got 'memref<4096xf16>'}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) lhs_rows(%own at %at : memref<4096xf16>) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

// The generic form can give the part without its row.
func.func @lhs_rows_without_at(%a: memref<1024x4096xf16>, %own: memref<256x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects `lhs_rows` with its first row (`at`)}}
  "weave.matmul_pipeline"(%a, %b, %c, %own) ({}, {}, {}, {}, {}) {tile_m = 128 : i64, tile_n = 256 : i64, tile_k = 64 : i64, stages = 4 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 1, 0>} : (memref<1024x4096xf16>, memref<4096x1024xf16>, memref<1024x1024xf16>, memref<256x4096xf16>) -> ()
  return
}
