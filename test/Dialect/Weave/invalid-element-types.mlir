// RUN: weave-opt %s -split-input-file -verify-diagnostics

// Regression test: weave.put / weave.get / weave.copy_* on memrefs whose
// element type has no bit width (index, complex, vector, memref) segfaulted
// in the verifier (elementBytes() called getIntOrFloatBitWidth()). Each gets
// a located error now; byte sizes that overflow 64 bits are rejected instead
// of sizing to 0. (none, tuple and !weave.semaphore elements are already
// rejected by the memref type parser.)

func.func @put_index(%s: memref<16xindex>, %d: memref<16xindex, #weave.symmetric>, %p: index) {
  // expected-error @below {{'weave.put' op expects a memref of integer or floating-point elements, got 'memref<16xindex>'}}
  weave.put %s, %d on %p : memref<16xindex> -> memref<16xindex, #weave.symmetric>
  return
}

// -----

func.func @put_complex(%s: memref<16xcomplex<f32>>, %d: memref<16xcomplex<f32>, #weave.symmetric>, %p: index) {
  // expected-error @below {{'weave.put' op expects a memref of integer or floating-point elements, got 'memref<16xcomplex<f32>>'}}
  weave.put %s, %d on %p : memref<16xcomplex<f32>> -> memref<16xcomplex<f32>, #weave.symmetric>
  return
}

// -----

func.func @put_vector(%s: memref<16xvector<4xf32>>, %d: memref<16xvector<4xf32>, #weave.symmetric>, %p: index) {
  // expected-error @below {{'weave.put' op expects a memref of integer or floating-point elements, got 'memref<16xvector<4xf32>>'}}
  weave.put %s, %d on %p : memref<16xvector<4xf32>> -> memref<16xvector<4xf32>, #weave.symmetric>
  return
}

// -----

func.func @put_memref_of_memref(%s: memref<16xmemref<4xf32>>, %d: memref<16xmemref<4xf32>, #weave.symmetric>, %p: index) {
  // expected-error @below {{'weave.put' op expects a memref of integer or floating-point elements, got 'memref<16xmemref<4xf32>>'}}
  weave.put %s, %d on %p : memref<16xmemref<4xf32>> -> memref<16xmemref<4xf32>, #weave.symmetric>
  return
}

// -----

func.func @get_index(%s: memref<16xindex, #weave.symmetric>, %d: memref<16xindex>, %p: index) {
  // expected-error @below {{'weave.get' op expects a memref of integer or floating-point elements, got 'memref<16xindex>'}}
  weave.get %s on %p, %d : memref<16xindex, #weave.symmetric> -> memref<16xindex>
  return
}

// -----

func.func @get_vector(%s: memref<16xvector<4xf32>, #weave.symmetric>, %d: memref<16xvector<4xf32>>, %p: index) {
  // expected-error @below {{'weave.get' op expects a memref of integer or floating-point elements, got 'memref<16xvector<4xf32>>'}}
  weave.get %s on %p, %d : memref<16xvector<4xf32>, #weave.symmetric> -> memref<16xvector<4xf32>>
  return
}

// -----

func.func @store_index(%t: memref<16x8xindex, #gpu.address_space<workgroup>>, %g: memref<64x64xindex>, %i: index) {
  // expected-error @below {{'weave.copy_smem_to_gmem' op expects f16, bf16 or f32 elements (the tensor map types the runtime builds), got 'index'}}
  weave.copy_smem_to_gmem %t, %g[%i, %i] : memref<16x8xindex, #gpu.address_space<workgroup>> -> memref<64x64xindex>
  return
}

// -----

func.func @store_complex(%t: memref<16x8xcomplex<f32>, #gpu.address_space<workgroup>>, %g: memref<64x64xcomplex<f32>>, %i: index) {
  // expected-error @below {{'weave.copy_smem_to_gmem' op expects f16, bf16 or f32 elements (the tensor map types the runtime builds), got 'complex<f32>'}}
  weave.copy_smem_to_gmem %t, %g[%i, %i] : memref<16x8xcomplex<f32>, #gpu.address_space<workgroup>> -> memref<64x64xcomplex<f32>>
  return
}

// -----

func.func @store_f64(%t: memref<16x8xf64, #gpu.address_space<workgroup>>, %g: memref<64x64xf64>, %i: index) {
  // expected-error @below {{'weave.copy_smem_to_gmem' op expects f16, bf16 or f32 elements (the tensor map types the runtime builds), got 'f64'}}
  weave.copy_smem_to_gmem %t, %g[%i, %i] : memref<16x8xf64, #gpu.address_space<workgroup>> -> memref<64x64xf64>
  return
}

// -----

func.func @store_i32(%t: memref<16x8xi32, #gpu.address_space<workgroup>>, %g: memref<64x64xi32>, %i: index) {
  // expected-error @below {{'weave.copy_smem_to_gmem' op expects f16, bf16 or f32 elements (the tensor map types the runtime builds), got 'i32'}}
  weave.copy_smem_to_gmem %t, %g[%i, %i] : memref<16x8xi32, #gpu.address_space<workgroup>> -> memref<64x64xi32>
  return
}

// -----

func.func @load_index(%g: memref<64x64xindex>, %t: memref<16x16xindex, #gpu.address_space<workgroup>>, %bar: memref<i64, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @below {{'weave.copy_gmem_to_smem' op expects f16, bf16 or f32 elements (the tensor map types the runtime builds), got 'index'}}
  weave.copy_gmem_to_smem %g[%i, %i], %t, %bar : memref<64x64xindex> -> memref<16x16xindex, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @load_f64(%g: memref<64x64xf64>, %t: memref<16x16xf64, #gpu.address_space<workgroup>>, %bar: memref<i64, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @below {{'weave.copy_gmem_to_smem' op expects f16, bf16 or f32 elements (the tensor map types the runtime builds), got 'f64'}}
  weave.copy_gmem_to_smem %g[%i, %i], %t, %bar : memref<64x64xf64> -> memref<16x16xf64, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @load_i8(%g: memref<64x64xi8>, %t: memref<16x16xi8, #gpu.address_space<workgroup>>, %bar: memref<i64, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @below {{'weave.copy_gmem_to_smem' op expects f16, bf16 or f32 elements (the tensor map types the runtime builds), got 'i8'}}
  weave.copy_gmem_to_smem %g[%i, %i], %t, %bar : memref<64x64xi8> -> memref<16x16xi8, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
  return
}

// -----

// 2^62 x 4 f32 elements: 2^66 bytes, which sized to 0 (a put that moves
// nothing) before.
func.func @put_size_overflow(%s: memref<4611686018427387904x4xf32>, %d: memref<4611686018427387904x4xf32, #weave.symmetric>, %p: index) {
  // expected-error @below {{'weave.put' op expects a buffer of fewer than 2^63 bytes, got 'memref<4611686018427387904x4xf32>'}}
  weave.put %s, %d on %p : memref<4611686018427387904x4xf32> -> memref<4611686018427387904x4xf32, #weave.symmetric>
  return
}

// -----

// 2^61 f32 elements: the element count fits, the byte count does not.
func.func @get_size_overflow(%s: memref<2305843009213693952xf32, #weave.symmetric>, %d: memref<2305843009213693952xf32>, %p: index) {
  // expected-error @below {{'weave.get' op expects a buffer of fewer than 2^63 bytes, got 'memref<2305843009213693952xf32>'}}
  weave.get %s on %p, %d : memref<2305843009213693952xf32, #weave.symmetric> -> memref<2305843009213693952xf32>
  return
}
