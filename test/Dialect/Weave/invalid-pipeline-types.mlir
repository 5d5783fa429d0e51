// RUN: weave-opt %s -split-input-file -verify-diagnostics

// Operand types of weave.matmul_pipeline.

func.func @lhs_rank_1(%a: memref<1024xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects a 2-d lhs, got 'memref<1024xf16>'}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @rhs_shared(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16, #gpu.address_space<workgroup>>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects rhs in global memory, got 'memref<4096x1024xf16, #gpu.address_space<workgroup>>'}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16, #gpu.address_space<workgroup>> into memref<1024x1024xf16>
  return
}

// -----

func.func @out_strided(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16, strided<[2048, 1]>>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects a row-major out (identity layout), got 'memref<1024x1024xf16, strided<[2048, 1]>>'}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16, strided<[2048, 1]>>
  return
}

// -----

func.func @lhs_f32(%a: memref<1024x4096xf32>, %b: memref<4096x1024xf32>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects f16 or bf16 operands, got 'f32'}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf32>, memref<4096x1024xf32> into memref<1024x1024xf16>
  return
}

// -----

func.func @rhs_bf16(%a: memref<1024x4096xf16>, %b: memref<4096x1024xbf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects lhs and rhs of the same element type, got 'f16' and 'bf16'}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xbf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @out_i32(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xi32>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects an f16, bf16 or f32 output, got 'i32'}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xi32>
  return
}
