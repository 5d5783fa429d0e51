// RUN: weave-opt %s -split-input-file -verify-diagnostics

// Limits of the tensor memory accelerator on the tile of a bulk store,
// and its swizzle mode.

func.func @copy_rank_six(%t: memref<2x2x2x2x2x8xf16, #gpu.address_space<workgroup>>, %g: memref<2x2x2x2x2x8xf16>, %i: index) {
  // expected-error @below {{'weave.copy_smem_to_gmem' op expects a tile of rank 1 to 5, got rank 6}}
  weave.copy_smem_to_gmem %t, %g[%i, %i, %i, %i, %i, %i] : memref<2x2x2x2x2x8xf16, #gpu.address_space<workgroup>> -> memref<2x2x2x2x2x8xf16>
  return
}

// -----

func.func @copy_rank_zero(%t: memref<f32, #gpu.address_space<workgroup>>, %g: memref<f32>) {
  // expected-error @below {{'weave.copy_smem_to_gmem' op expects a tile of rank 1 to 5, got rank 0}}
  weave.copy_smem_to_gmem %t, %g[] : memref<f32, #gpu.address_space<workgroup>> -> memref<f32>
  return
}

// -----

func.func @copy_box_too_large(%t: memref<512x64xf16, #gpu.address_space<workgroup>>, %g: memref<1024x4096xf16>, %i: index) {
  // expected-error @below {{'weave.copy_smem_to_gmem' op expects tile dimensions of at most 256 elements (a TMA box limit), got 512}}
  weave.copy_smem_to_gmem %t, %g[%i, %i] : memref<512x64xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xf16>
  return
}

// -----

func.func @copy_inner_not_16_bytes(%t: memref<128x4xf16, #gpu.address_space<workgroup>>, %g: memref<1024x4096xf16>, %i: index) {
  // expected-error @below {{'weave.copy_smem_to_gmem' op expects the innermost tile dimension to span a multiple of 16 bytes, got 8}}
  weave.copy_smem_to_gmem %t, %g[%i, %i] : memref<128x4xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xf16>
  return
}

// -----

func.func @copy_swizzle_value(%t: memref<64x64xf16, #gpu.address_space<workgroup>>, %g: memref<1024x4096xf16>, %i: index) {
  // expected-error @below {{'weave.copy_smem_to_gmem' op expects swizzle to be 0, 32, 64 or 128 bytes, got 16}}
  weave.copy_smem_to_gmem %t, %g[%i, %i] {swizzle = 16} : memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xf16>
  return
}

// -----

// A swizzled box row (128 f16 = 256 bytes) must fit the swizzle span.
func.func @copy_row_wider_than_swizzle(%t: memref<64x128xf16, #gpu.address_space<workgroup>>, %g: memref<1024x4096xf16>, %i: index) {
  // expected-error @below {{'weave.copy_smem_to_gmem' op expects the innermost tile dimension (256 bytes) to fit the 128-byte swizzle span}}
  weave.copy_smem_to_gmem %t, %g[%i, %i] {swizzle = 128} : memref<64x128xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xf16>
  return
}

// -----

func.func @copy_row_wider_than_swizzle_32(%t: memref<64x16xf32, #gpu.address_space<workgroup>>, %g: memref<1024x4096xf32>, %i: index) {
  // expected-error @below {{'weave.copy_smem_to_gmem' op expects the innermost tile dimension (64 bytes) to fit the 32-byte swizzle span}}
  weave.copy_smem_to_gmem %t, %g[%i, %i] {swizzle = 32} : memref<64x16xf32, #gpu.address_space<workgroup>> -> memref<1024x4096xf32>
  return
}

// -----

// Unswizzled boxes have no such limit; a negative swizzle is rejected.
func.func @copy_wide_row_unswizzled(%t: memref<64x128xf16, #gpu.address_space<workgroup>>, %g: memref<1024x4096xf16>, %i: index) {
  weave.copy_smem_to_gmem %t, %g[%i, %i] : memref<64x128xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xf16>
  // expected-error @below {{'weave.copy_smem_to_gmem' op expects swizzle to be 0, 32, 64 or 128 bytes, got -128}}
  weave.copy_smem_to_gmem %t, %g[%i, %i] {swizzle = -128} : memref<64x128xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xf16>
  return
}

// -----

// cp.reduce.async.bulk.tensor has min/max for halves only.
func.func @reduce_max_f32(%t: memref<64x32xf32, #gpu.address_space<workgroup>>, %g: memref<1024x4096xf32>, %i: index) {
  // expected-error @below {{'weave.copy_smem_to_gmem' op expects f16 or bf16 elements for a TMA reduce(max) (cp.reduce.async.bulk.tensor has no f32 max), got 'f32'}}
  weave.copy_smem_to_gmem %t, %g[%i, %i] reduce(max) : memref<64x32xf32, #gpu.address_space<workgroup>> -> memref<1024x4096xf32>
  return
}

// -----

func.func @reduce_min_f32(%t: memref<64x32xf32, #gpu.address_space<workgroup>>, %g: memref<1024x4096xf32>, %i: index) {
  // expected-error @below {{'weave.copy_smem_to_gmem' op expects f16 or bf16 elements for a TMA reduce(min) (cp.reduce.async.bulk.tensor has no f32 min), got 'f32'}}
  weave.copy_smem_to_gmem %t, %g[%i, %i] reduce(min) : memref<64x32xf32, #gpu.address_space<workgroup>> -> memref<1024x4096xf32>
  return
}

// -----

// A reduction into another device's buffer needs that buffer symmetric.
func.func @reduce_remote_not_symmetric(%t: memref<64x64xf16, #gpu.address_space<workgroup>>, %g: memref<1024x4096xf16>, %i: index, %d: index) {
  // expected-error @below {{'weave.copy_smem_to_gmem' op expects a target in #weave.symmetric memory when storing to another device, got 'memref<1024x4096xf16>'}}
  weave.copy_smem_to_gmem %t, %g[%i, %i] reduce(add) on %d : memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xf16>
  return
}

// -----

// A TMA reduction at a negative coordinate faults on H100 (a store there is
// clipped): rejected where the coordinate is a constant.
func.func @reduce_at_negative_row(%tile: memref<64x32xf32, #gpu.address_space<workgroup>>, %out: memref<256x64xf32, #weave.symmetric>) {
  %c0 = arith.constant 0 : index
  %m8 = arith.constant -8 : index
  // expected-error @below {{'weave.copy_smem_to_gmem' op expects TMA reduction coordinates of at least 0, got -8 for index 0 (a reduction at a negative coordinate faults on H100, where a store is clipped); pad the target with a halo and reduce there}}
  weave.copy_smem_to_gmem %tile, %out[%m8, %c0] reduce(add) : memref<64x32xf32, #gpu.address_space<workgroup>> -> memref<256x64xf32, #weave.symmetric>
  return
}
