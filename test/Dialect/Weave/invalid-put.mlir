// RUN: weave-opt %s -split-input-file -verify-diagnostics

func.func @put_target_not_symmetric(%src: memref<1024xf32>, %dst: memref<1024xf32>, %dev: index) {
  // expected-error @below {{'weave.put' op expects the remote buffer in #weave.symmetric memory, got 'memref<1024xf32>'}}
  weave.put %src, %dst on %dev : memref<1024xf32> -> memref<1024xf32>
  return
}

// -----

func.func @put_source_shared(%src: memref<1024xf32, #gpu.address_space<workgroup>>, %dst: memref<1024xf32, #weave.symmetric>, %dev: index) {
  // expected-error @below {{'weave.put' op expects the local buffer in global memory, got 'memref<1024xf32, #gpu.address_space<workgroup>>'}}
  weave.put %src, %dst on %dev : memref<1024xf32, #gpu.address_space<workgroup>> -> memref<1024xf32, #weave.symmetric>
  return
}

// -----

func.func @put_source_nvvm_shared(%src: memref<1024xf32, 3>, %dst: memref<1024xf32, #weave.symmetric>, %dev: index) {
  // expected-error @below {{'weave.put' op expects the local buffer in global memory, got 'memref<1024xf32, 3>'}}
  weave.put %src, %dst on %dev : memref<1024xf32, 3> -> memref<1024xf32, #weave.symmetric>
  return
}

// -----

func.func @put_element_types(%src: memref<1024xf16>, %dst: memref<1024xbf16, #weave.symmetric>, %dev: index) {
  // expected-error @below {{'weave.put' op expects matching element types, got 'f16' and 'bf16'}}
  weave.put %src, %dst on %dev : memref<1024xf16> -> memref<1024xbf16, #weave.symmetric>
  return
}

// -----

func.func @put_strided(%src: memref<16x64xf32, strided<[128, 1]>>, %dst: memref<1024xf32, #weave.symmetric>, %dev: index) {
  // expected-error @below {{'weave.put' op expects a contiguous row-major view (unit innermost stride, each outer stride the product of the inner sizes), got 'memref<16x64xf32, strided<[128, 1]>>'}}
  weave.put %src, %dst on %dev : memref<16x64xf32, strided<[128, 1]>> -> memref<1024xf32, #weave.symmetric>
  return
}

// -----

func.func @put_element_counts(%src: memref<512xf32>, %dst: memref<1024xf32, #weave.symmetric>, %dev: index) {
  // expected-error @below {{'weave.put' op expects the same number of elements, got 512 and 1024}}
  weave.put %src, %dst on %dev : memref<512xf32> -> memref<1024xf32, #weave.symmetric>
  return
}
