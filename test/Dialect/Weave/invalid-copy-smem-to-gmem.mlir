// RUN: weave-opt %s -split-input-file -verify-diagnostics

func.func @copy_source_global(%t: memref<128x64xf16>, %g: memref<1024x4096xf16>, %i: index) {
  // expected-error @below {{'weave.copy_smem_to_gmem' op expects the source in shared memory (#gpu.address_space<workgroup>), got 'memref<128x64xf16>'}}
  weave.copy_smem_to_gmem %t, %g[%i, %i] : memref<128x64xf16> -> memref<1024x4096xf16>
  return
}

// -----

func.func @copy_target_shared(%t: memref<128x64xf16, #gpu.address_space<workgroup>>, %g: memref<1024x4096xf16, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @below {{'weave.copy_smem_to_gmem' op expects the target in global memory, got 'memref<1024x4096xf16, #gpu.address_space<workgroup>>'}}
  weave.copy_smem_to_gmem %t, %g[%i, %i] : memref<128x64xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xf16, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @copy_remote_not_symmetric(%t: memref<128x64xf16, #gpu.address_space<workgroup>>, %g: memref<1024x4096xf16>, %i: index, %d: index) {
  // expected-error @below {{'weave.copy_smem_to_gmem' op expects a target in #weave.symmetric memory when storing to another device, got 'memref<1024x4096xf16>'}}
  weave.copy_smem_to_gmem %t, %g[%i, %i] on %d : memref<128x64xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xf16>
  return
}

// -----

func.func @copy_element_types(%t: memref<128x64xf16, #gpu.address_space<workgroup>>, %g: memref<1024x4096xbf16>, %i: index) {
  // expected-error @below {{'weave.copy_smem_to_gmem' op expects matching element types, got 'f16' and 'bf16'}}
  weave.copy_smem_to_gmem %t, %g[%i, %i] : memref<128x64xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xbf16>
  return
}

// -----

func.func @copy_dynamic_tile(%t: memref<?x64xf16, #gpu.address_space<workgroup>>, %g: memref<1024x4096xf16>, %i: index) {
  // expected-error @below {{'weave.copy_smem_to_gmem' op expects a static tile shape, got 'memref<?x64xf16, #gpu.address_space<workgroup>>'}}
  weave.copy_smem_to_gmem %t, %g[%i, %i] : memref<?x64xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xf16>
  return
}

// -----

func.func @copy_rank_mismatch(%t: memref<128x64xf16, #gpu.address_space<workgroup>>, %g: memref<4x1024x4096xf16>, %i: index) {
  // expected-error @below {{'weave.copy_smem_to_gmem' op expects source and target of the same rank, got 2 and 3}}
  weave.copy_smem_to_gmem %t, %g[%i, %i, %i] : memref<128x64xf16, #gpu.address_space<workgroup>> -> memref<4x1024x4096xf16>
  return
}

// -----

func.func @copy_index_count(%t: memref<128x64xf16, #gpu.address_space<workgroup>>, %g: memref<1024x4096xf16>, %i: index) {
  // expected-error @below {{'weave.copy_smem_to_gmem' op expects 2 indices into the target, got 1}}
  weave.copy_smem_to_gmem %t, %g[%i] : memref<128x64xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xf16>
  return
}
