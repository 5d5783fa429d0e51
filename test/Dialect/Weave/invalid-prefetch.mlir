// RUN: weave-opt %s -split-input-file -verify-diagnostics

// weave.prefetch_l2 moves 16-byte granules of global memory.
func.func @prefetch_not_granule(%x: memref<4096xf32>, %i: index) {
  %bytes = arith.constant 100 : i32
  // expected-error @below {{'weave.prefetch_l2' op expects a positive multiple of 16 bytes (the bulk prefetch's granule), got 100}}
  weave.prefetch_l2 %x[%i], %bytes : memref<4096xf32>
  return
}

// -----

func.func @prefetch_shared(%x: memref<4096xf32, 3>, %i: index) {
  %bytes = arith.constant 512 : i32
  // expected-error @below {{'weave.prefetch_l2' op expects a buffer in global or #weave.symmetric memory, got 'memref<4096xf32, 3>'}}
  weave.prefetch_l2 %x[%i], %bytes : memref<4096xf32, 3>
  return
}

// -----

func.func @prefetch_indices(%x: memref<64x64xf32>, %i: index) {
  %bytes = arith.constant 512 : i32
  // expected-error @below {{'weave.prefetch_l2' op expects 2 indices, one per dimension of the buffer, got 1}}
  weave.prefetch_l2 %x[%i], %bytes : memref<64x64xf32>
  return
}
