// RUN: weave-opt %s -split-input-file -verify-diagnostics

// weave.copy_gmem_to_smem: a TMA load of a global tile into shared memory,
// completing on an mbarrier (memref<i64> in shared memory).

func.func @load_source_shared(%s: memref<1024x4096xf16, #gpu.address_space<workgroup>>, %t: memref<128x64xf16, #gpu.address_space<workgroup>>, %bar: memref<i64, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @below {{'weave.copy_gmem_to_smem' op expects the source in global memory, got 'memref<1024x4096xf16, #gpu.address_space<workgroup>>'}}
  weave.copy_gmem_to_smem %s[%i, %i], %t, %bar : memref<1024x4096xf16, #gpu.address_space<workgroup>> -> memref<128x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @load_source_private(%s: memref<1024x4096xf16, 5>, %t: memref<128x64xf16, 3>, %bar: memref<i64, 3>, %i: index) {
  // expected-error @below {{'weave.copy_gmem_to_smem' op expects the source in global memory, got 'memref<1024x4096xf16, 5>'}}
  weave.copy_gmem_to_smem %s[%i, %i], %t, %bar : memref<1024x4096xf16, 5> -> memref<128x64xf16, 3>, memref<i64, 3>
  return
}

// -----

func.func @load_target_global(%s: memref<1024x4096xf16>, %t: memref<128x64xf16>, %bar: memref<i64, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @below {{'weave.copy_gmem_to_smem' op expects the target in shared memory (#gpu.address_space<workgroup>), got 'memref<128x64xf16>'}}
  weave.copy_gmem_to_smem %s[%i, %i], %t, %bar : memref<1024x4096xf16> -> memref<128x64xf16>, memref<i64, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @barrier_global(%s: memref<1024x4096xf16>, %t: memref<128x64xf16, #gpu.address_space<workgroup>>, %bar: memref<i64>, %i: index) {
  // expected-error @below {{'weave.copy_gmem_to_smem' op expects the barrier to be a memref<i64> in shared memory (an mbarrier), got 'memref<i64>'}}
  weave.copy_gmem_to_smem %s[%i, %i], %t, %bar : memref<1024x4096xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>, memref<i64>
  return
}

// -----

func.func @barrier_i32(%s: memref<1024x4096xf16>, %t: memref<128x64xf16, #gpu.address_space<workgroup>>, %bar: memref<i32, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @below {{'weave.copy_gmem_to_smem' op expects the barrier to be a memref<i64> in shared memory (an mbarrier), got 'memref<i32, #gpu.address_space<workgroup>>'}}
  weave.copy_gmem_to_smem %s[%i, %i], %t, %bar : memref<1024x4096xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>, memref<i32, #gpu.address_space<workgroup>>
  return
}

// -----

// One mbarrier, not an array of them.
func.func @barrier_ranked(%s: memref<1024x4096xf16>, %t: memref<128x64xf16, #gpu.address_space<workgroup>>, %bar: memref<4xi64, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @below {{'weave.copy_gmem_to_smem' op expects the barrier to be a memref<i64> in shared memory (an mbarrier), got 'memref<4xi64, #gpu.address_space<workgroup>>'}}
  weave.copy_gmem_to_smem %s[%i, %i], %t, %bar : memref<1024x4096xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>, memref<4xi64, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @load_element_types(%s: memref<1024x4096xbf16>, %t: memref<128x64xf16, #gpu.address_space<workgroup>>, %bar: memref<i64, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @below {{'weave.copy_gmem_to_smem' op expects matching element types, got 'bf16' and 'f16'}}
  weave.copy_gmem_to_smem %s[%i, %i], %t, %bar : memref<1024x4096xbf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @load_dynamic_tile(%s: memref<1024x4096xf16>, %t: memref<?x64xf16, #gpu.address_space<workgroup>>, %bar: memref<i64, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @below {{'weave.copy_gmem_to_smem' op expects a static tile shape, got 'memref<?x64xf16, #gpu.address_space<workgroup>>'}}
  weave.copy_gmem_to_smem %s[%i, %i], %t, %bar : memref<1024x4096xf16> -> memref<?x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @load_rank_mismatch(%s: memref<4x1024x4096xf16>, %t: memref<128x64xf16, #gpu.address_space<workgroup>>, %bar: memref<i64, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @below {{'weave.copy_gmem_to_smem' op expects source and target of the same rank, got 3 and 2}}
  weave.copy_gmem_to_smem %s[%i, %i, %i], %t, %bar : memref<4x1024x4096xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @load_index_count(%s: memref<1024x4096xf16>, %t: memref<128x64xf16, #gpu.address_space<workgroup>>, %bar: memref<i64, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @below {{'weave.copy_gmem_to_smem' op expects 2 indices into the source, got 1}}
  weave.copy_gmem_to_smem %s[%i], %t, %bar : memref<1024x4096xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @load_index_count_three(%s: memref<1024x4096xf16>, %t: memref<128x64xf16, #gpu.address_space<workgroup>>, %bar: memref<i64, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @below {{'weave.copy_gmem_to_smem' op expects 2 indices into the source, got 3}}
  weave.copy_gmem_to_smem %s[%i, %i, %i], %t, %bar : memref<1024x4096xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @load_rank_six(%s: memref<2x2x2x2x2x8xf16>, %t: memref<2x2x2x2x2x8xf16, #gpu.address_space<workgroup>>, %bar: memref<i64, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @below {{'weave.copy_gmem_to_smem' op expects a tile of rank 1 to 5, got rank 6}}
  weave.copy_gmem_to_smem %s[%i, %i, %i, %i, %i, %i], %t, %bar : memref<2x2x2x2x2x8xf16> -> memref<2x2x2x2x2x8xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @load_box_too_large(%s: memref<1024x4096xf16>, %t: memref<512x64xf16, #gpu.address_space<workgroup>>, %bar: memref<i64, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @below {{'weave.copy_gmem_to_smem' op expects tile dimensions of at most 256 elements (a TMA box limit), got 512}}
  weave.copy_gmem_to_smem %s[%i, %i], %t, %bar : memref<1024x4096xf16> -> memref<512x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @load_inner_not_16_bytes(%s: memref<1024x4096xf16>, %t: memref<128x4xf16, #gpu.address_space<workgroup>>, %bar: memref<i64, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @below {{'weave.copy_gmem_to_smem' op expects the innermost tile dimension to span a multiple of 16 bytes, got 8}}
  weave.copy_gmem_to_smem %s[%i, %i], %t, %bar : memref<1024x4096xf16> -> memref<128x4xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @load_swizzle_value(%s: memref<1024x4096xf16>, %t: memref<128x64xf16, #gpu.address_space<workgroup>>, %bar: memref<i64, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @below {{'weave.copy_gmem_to_smem' op expects swizzle to be 0, 32, 64 or 128 bytes, got 256}}
  weave.copy_gmem_to_smem %s[%i, %i], %t, %bar {swizzle = 256} : memref<1024x4096xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
  return
}

// -----

// 128 f16 are 256 bytes: wider than the 128-byte swizzle span.
func.func @load_row_wider_than_swizzle(%s: memref<1024x4096xf16>, %t: memref<64x128xf16, #gpu.address_space<workgroup>>, %bar: memref<i64, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @below {{'weave.copy_gmem_to_smem' op expects the innermost tile dimension (256 bytes) to fit the 128-byte swizzle span}}
  weave.copy_gmem_to_smem %s[%i, %i], %t, %bar {swizzle = 128} : memref<1024x4096xf16> -> memref<64x128xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
  return
}

// -----

// 64 f16 (128 bytes) fit 128 but not 64.
func.func @load_row_wider_than_swizzle_64(%s: memref<1024x4096xf16>, %t: memref<64x64xf16, #gpu.address_space<workgroup>>, %bar: memref<i64, #gpu.address_space<workgroup>>, %i: index) {
  weave.copy_gmem_to_smem %s[%i, %i], %t, %bar {swizzle = 128} : memref<1024x4096xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
  // expected-error @below {{'weave.copy_gmem_to_smem' op expects the innermost tile dimension (128 bytes) to fit the 64-byte swizzle span}}
  weave.copy_gmem_to_smem %s[%i, %i], %t, %bar {swizzle = 64} : memref<1024x4096xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
  return
}

// -----

// Only a symmetric buffer has a copy on another device.
func.func @load_on_local_buffer(%s: memref<1024x4096xf16>, %t: memref<128x64xf16, 3>, %bar: memref<i64, 3>, %i: index) {
  // expected-error @below {{'weave.copy_gmem_to_smem' op expects a source in #weave.symmetric memory when loading from another device, got 'memref<1024x4096xf16>'}}
  weave.copy_gmem_to_smem %s[%i, %i], %t, %bar on %i : memref<1024x4096xf16> -> memref<128x64xf16, 3>, memref<i64, 3>
  return
}

// -----

func.func @load_on_negative_device(%s: memref<1024x4096xf16, #weave.symmetric>, %t: memref<128x64xf16, 3>, %bar: memref<i64, 3>, %i: index) {
  %m1 = arith.constant -1 : index
  // expected-error @below {{'weave.copy_gmem_to_smem' op expects a device index of at least 0, got -1}}
  weave.copy_gmem_to_smem %s[%i, %i], %t, %bar on %m1 : memref<1024x4096xf16, #weave.symmetric> -> memref<128x64xf16, 3>, memref<i64, 3>
  return
}
