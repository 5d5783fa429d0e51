// RUN: weave-opt %s -split-input-file -verify-diagnostics

// Regression test: a dynamic-size subview given to weave.matmul_pipeline
// compiled with exit 0; the expansion took the dynamic dimension as 2^63
// and never read %m. Every operand must have a static shape.

gpu.module @m {
  gpu.func @dynamic_lhs_subview(%a: memref<8192x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<8192x4096xf16>, %m: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132, 1, 1], block = [384, 1, 1], smem = 230000>} {
    %a2 = memref.subview %a[0, 0] [%m, 4096] [1, 1] : memref<8192x4096xf16> to memref<?x4096xf16>
    // expected-error @below {{'weave.matmul_pipeline' op expects a static shape for lhs (dynamic shapes are not supported yet), got 'memref<?x4096xf16>'}}
    weave.matmul_pipeline %a2, %b into %c tile(128, 256, 64) stages(4) : memref<?x4096xf16>, memref<4096x4096xf16> into memref<8192x4096xf16>
    gpu.return
  }
}

// -----

func.func @dynamic_rhs(%a: memref<1024x4096xf16>, %b: memref<4096x?xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects a static shape for rhs (dynamic shapes are not supported yet), got 'memref<4096x?xf16>'}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) : memref<1024x4096xf16>, memref<4096x?xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @dynamic_out(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<?x?xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects a static shape for out (dynamic shapes are not supported yet), got 'memref<?x?xf16>'}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<?x?xf16>
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
