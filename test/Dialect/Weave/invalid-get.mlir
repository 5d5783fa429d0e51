// RUN: weave-opt %s -split-input-file -verify-diagnostics

// get is the mirror of put: the *source* is the symmetric, remote side.

func.func @get_source_not_symmetric(%src: memref<1024xf32>, %dst: memref<1024xf32>, %dev: index) {
  // expected-error @below {{'weave.get' op expects the remote buffer in #weave.symmetric memory, got 'memref<1024xf32>'}}
  weave.get %src on %dev, %dst : memref<1024xf32> -> memref<1024xf32>
  return
}

// -----

func.func @get_target_shared(%src: memref<1024xf32, #weave.symmetric>, %dst: memref<1024xf32, #gpu.address_space<workgroup>>, %dev: index) {
  // expected-error @below {{'weave.get' op expects the local buffer in global memory, got 'memref<1024xf32, #gpu.address_space<workgroup>>'}}
  weave.get %src on %dev, %dst : memref<1024xf32, #weave.symmetric> -> memref<1024xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @get_element_types(%src: memref<256xi32, #weave.symmetric>, %dst: memref<256xf32>, %dev: index) {
  // expected-error @below {{'weave.get' op expects matching element types, got 'f32' and 'i32'}}
  weave.get %src on %dev, %dst : memref<256xi32, #weave.symmetric> -> memref<256xf32>
  return
}

// -----

func.func @get_element_counts(%src: memref<1024xf32, #weave.symmetric>, %dst: memref<2048xf32>, %dev: index) {
  // expected-error @below {{'weave.get' op expects the same number of elements, got 2048 and 1024}}
  weave.get %src on %dev, %dst : memref<1024xf32, #weave.symmetric> -> memref<2048xf32>
  return
}

// -----

func.func @get_missing_device(%src: memref<1024xf32, #weave.symmetric>, %dst: memref<1024xf32>) {
  // expected-error @below {{expected 'on'}}
  weave.get %src, %dst : memref<1024xf32, #weave.symmetric> -> memref<1024xf32>
  return
}
