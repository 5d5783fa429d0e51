// RUN: weave-opt %s -split-input-file -verify-diagnostics

// Limits of the tensor memory accelerator on the tile of a bulk store.

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
