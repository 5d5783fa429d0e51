// RUN: weave-opt %s -split-input-file -verify-diagnostics

func.func @not_symmetric(%buf: memref<1024xf32>, %v: f32, %i: index) {
  // expected-error @below {{'weave.atomic_add' op expects a buffer in #weave.symmetric memory, got 'memref<1024xf32>'}}
  weave.atomic_add %v, %buf[%i] : f32, memref<1024xf32>
  return
}

// -----

func.func @element_type_mismatch(%buf: memref<1024xf16, #weave.symmetric>, %v: vector<2xbf16>, %i: index) {
  // expected-error @below {{'weave.atomic_add' op expects a value of type 'vector<2xf16>' for a buffer of 'f16' elements, got 'vector<2xbf16>'}}
  weave.atomic_add %v, %buf[%i] : vector<2xbf16>, memref<1024xf16, #weave.symmetric>
  return
}

// -----

// One f16 at a time has no system-scope red; a pair does.
func.func @single_half(%buf: memref<1024xf16, #weave.symmetric>, %v: f16, %i: index) {
  // expected-error @below {{'weave.atomic_add' op operand #0 must be 32-bit float or vector of 16-bit float or bfloat16 type values of length 2, but got 'f16'}}
  weave.atomic_add %v, %buf[%i] : f16, memref<1024xf16, #weave.symmetric>
  return
}

// -----

func.func @unsupported_buffer(%buf: memref<1024xi32, #weave.symmetric>, %v: f32, %i: index) {
  // expected-error @below {{'weave.atomic_add' op expects a buffer of f16, bf16 or f32 elements, got 'memref<1024xi32, #weave.symmetric>'}}
  weave.atomic_add %v, %buf[%i] : f32, memref<1024xi32, #weave.symmetric>
  return
}

// -----

func.func @index_count(%buf: memref<8x128xf32, #weave.symmetric>, %v: f32, %i: index) {
  // expected-error @below {{'weave.atomic_add' op expects 2 indices, one per dimension of the buffer, got 1}}
  weave.atomic_add %v, %buf[%i] : f32, memref<8x128xf32, #weave.symmetric>
  return
}

// -----

// The two halves of a pair must be neighbours.
func.func @pair_strided(%buf: memref<1024xbf16, #weave.symmetric>, %v: vector<2xbf16>, %i: index) {
  %s = memref.subview %buf[0] [512] [2] : memref<1024xbf16, #weave.symmetric> to memref<512xbf16, strided<[2]>, #weave.symmetric>
  // expected-error @below {{'weave.atomic_add' op expects a buffer with a unit innermost stride for a packed pair, got 'memref<512xbf16, strided<[2]>, #weave.symmetric>'}}
  weave.atomic_add %v, %s[%i] : vector<2xbf16>, memref<512xbf16, strided<[2]>, #weave.symmetric>
  return
}

// -----

gpu.module @m {
  gpu.func @device_out_of_mesh(%buf: memref<1024xf32, #weave.symmetric>, %v: f32, %i: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c2 = arith.constant 2 : index
    // expected-error @below {{'weave.atomic_add' op expects a device index below the mesh size 2 of the enclosing kernel, got 2}}
    weave.atomic_add %v, %buf[%i] on %c2 : f32, memref<1024xf32, #weave.symmetric>
    gpu.return
  }
}

// -----

// A packed pair is one 32-bit access: at a statically odd element it is
// misaligned.
func.func @pair_odd_index(%buf: memref<1024xbf16, #weave.symmetric>, %v: vector<2xbf16>) {
  %c3 = arith.constant 3 : index
  // expected-error @below {{'weave.atomic_add' op expects the packed pair at an even element (one aligned 32-bit access), but its first element is at an odd offset in 'memref<1024xbf16, #weave.symmetric>'; add pairs starting at even columns}}
  weave.atomic_add %v, %buf[%c3] : vector<2xbf16>, memref<1024xbf16, #weave.symmetric>
  return
}

// -----

// An odd view offset with an unknown but even-strided row (f16, 2-d).
func.func @pair_odd_view(%buf: memref<8x128xf16, #weave.symmetric>, %v: vector<2xf16>, %row: index) {
  %c4 = arith.constant 4 : index
  %s = memref.subview %buf[0, 1] [8, 126] [1, 1] : memref<8x128xf16, #weave.symmetric> to memref<8x126xf16, strided<[128, 1], offset: 1>, #weave.symmetric>
  // expected-error @below {{'weave.atomic_add' op expects the packed pair at an even element}}
  weave.atomic_add %v, %s[%row, %c4] : vector<2xf16>, memref<8x126xf16, strided<[128, 1], offset: 1>, #weave.symmetric>
  return
}

// -----

// Accepted: even constant columns, and a column the IR cannot tell.
func.func @pair_even(%buf: memref<8x128xf16, #weave.symmetric>, %v: vector<2xf16>, %row: index, %col: index) {
  %c4 = arith.constant 4 : index
  weave.atomic_add %v, %buf[%row, %c4] : vector<2xf16>, memref<8x128xf16, #weave.symmetric>
  weave.atomic_add %v, %buf[%row, %col] : vector<2xf16>, memref<8x128xf16, #weave.symmetric>
  return
}
