// RUN: weave-opt %s -split-input-file -verify-diagnostics

func.func @remote_ref_not_symmetric(%buf: memref<1024xf32>, %dev: index) {
  // expected-error @below {{'weave.remote_ref' op expects a buffer in #weave.symmetric memory, got 'memref<1024xf32>'}}
  %r = weave.remote_ref %buf on %dev : memref<1024xf32>
  return
}

// -----

func.func @remote_ref_shared(%buf: memref<1024xf32, #gpu.address_space<workgroup>>, %dev: index) {
  // expected-error @below {{'weave.remote_ref' op expects a buffer in #weave.symmetric memory, got 'memref<1024xf32, #gpu.address_space<workgroup>>'}}
  %r = weave.remote_ref %buf on %dev : memref<1024xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @remote_ref_result_type(%buf: memref<1024xf32, #weave.symmetric>, %dev: index) {
  // expected-error @below {{'weave.remote_ref' op failed to verify that all of {buffer, result} have same type}}
  %r = "weave.remote_ref"(%buf, %dev) : (memref<1024xf32, #weave.symmetric>, index) -> memref<1024xf32>
  return
}

// -----

// expected-note @below {{prior use here}}
func.func @remote_ref_device_not_index(%buf: memref<1024xf32, #weave.symmetric>, %dev: i32) {
  // expected-error @below {{use of value '%dev' expects different type than prior uses: 'index' vs 'i32'}}
  %r = weave.remote_ref %buf on %dev : memref<1024xf32, #weave.symmetric>
  return
}

// -----

func.func @remote_ref_not_memref(%buf: tensor<1024xf32>, %dev: index) {
  // expected-error @below {{'weave.remote_ref' op operand #0 must be memref of any type values, but got 'tensor<1024xf32>'}}
  %r = "weave.remote_ref"(%buf, %dev) : (tensor<1024xf32>, index) -> tensor<1024xf32>
  return
}
