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

// -----

// A remote_ref result is already another device's address: a second
// remote_ref (or a put, get or atomic_add `on` a device) would add the peer
// offset twice.
func.func @remote_ref_of_remote_ref(%buf: memref<1024xf32, #weave.symmetric>, %a: index, %b: index) {
  // expected-note @below {{remote_ref defined here}}
  %r = weave.remote_ref %buf on %a : memref<1024xf32, #weave.symmetric>
  // expected-error @below {{'weave.remote_ref' op expects its buffer to be this device's copy of a symmetric buffer, but it is (a view of) a 'weave.remote_ref' result, another device's address that `on` would translate a second time; name the device once: pass the remote_ref's own buffer with `on`, or use the remote_ref result with plain loads and stores}}
  %rr = weave.remote_ref %r on %b : memref<1024xf32, #weave.symmetric>
  return
}

// -----

func.func @put_to_remote_ref(%src: memref<256xf32>, %buf: memref<1024xf32, #weave.symmetric>, %a: index, %b: index) {
  // expected-note @below {{remote_ref defined here}}
  %r = weave.remote_ref %buf on %a : memref<1024xf32, #weave.symmetric>
  %v = memref.subview %r[256] [256] [1] : memref<1024xf32, #weave.symmetric> to memref<256xf32, strided<[1], offset: 256>, #weave.symmetric>
  // expected-error @below {{'weave.put' op expects its target to be this device's copy}}
  weave.put %src, %v on %b : memref<256xf32> -> memref<256xf32, strided<[1], offset: 256>, #weave.symmetric>
  return
}

// -----

func.func @get_from_remote_ref(%dst: memref<1024xf32>, %buf: memref<1024xf32, #weave.symmetric>, %a: index, %b: index) {
  // expected-note @below {{remote_ref defined here}}
  %r = weave.remote_ref %buf on %a : memref<1024xf32, #weave.symmetric>
  // expected-error @below {{'weave.get' op expects its source to be this device's copy}}
  weave.get %r on %b, %dst : memref<1024xf32, #weave.symmetric> -> memref<1024xf32>
  return
}

// -----

// Through a select of two remote views (a related form no issue named).
func.func @atomic_on_selected_remote_ref(%buf: memref<1024xf32, #weave.symmetric>, %a: index, %b: index, %c: i1, %x: f32, %i: index) {
  %r = weave.remote_ref %buf on %a : memref<1024xf32, #weave.symmetric>
  // expected-note @below {{remote_ref defined here}}
  %s = weave.remote_ref %buf on %b : memref<1024xf32, #weave.symmetric>
  %t = arith.select %c, %buf, %s : memref<1024xf32, #weave.symmetric>
  // expected-error @below {{'weave.atomic_add' op expects its buffer to be this device's copy}}
  weave.atomic_add %x, %t[%i] on %a : f32, memref<1024xf32, #weave.symmetric>
  return
}

// -----

// Accepted: a remote_ref result used with plain accesses and an atomic_add
// without `on` (it is already the peer's address).
func.func @remote_ref_used_once(%buf: memref<1024xf32, #weave.symmetric>, %a: index, %x: f32, %i: index) {
  %r = weave.remote_ref %buf on %a : memref<1024xf32, #weave.symmetric>
  weave.atomic_add %x, %r[%i] : f32, memref<1024xf32, #weave.symmetric>
  memref.store %x, %r[%i] : memref<1024xf32, #weave.symmetric>
  return
}
