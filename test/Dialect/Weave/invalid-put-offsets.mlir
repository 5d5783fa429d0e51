// RUN: weave-opt %s -split-input-file -verify-diagnostics

// weave.put / weave.get on views, with scopes and signals: each rule the
// verifier checks, once.

func.func @put_view_not_symmetric(%src: memref<1024xf32>, %dst: memref<1024xf32>, %off: index, %n: index, %dev: index) {
  %s = memref.subview %src[%off] [%n] [1] : memref<1024xf32> to memref<?xf32, strided<[1], offset: ?>>
  %d = memref.subview %dst[%off] [%n] [1] : memref<1024xf32> to memref<?xf32, strided<[1], offset: ?>>
  // expected-error @below {{'weave.put' op expects the remote buffer in #weave.symmetric memory, got 'memref<?xf32, strided<[1], offset: ?>>'}}
  weave.put %s, %d on %dev : memref<?xf32, strided<[1], offset: ?>> -> memref<?xf32, strided<[1], offset: ?>>
  return
}

// -----

func.func @get_view_not_symmetric(%src: memref<1024xf32>, %dst: memref<1024xf32>, %dev: index) {
  %s = memref.subview %src[8] [64] [1] : memref<1024xf32> to memref<64xf32, strided<[1], offset: 8>>
  // expected-error @below {{'weave.get' op expects the remote buffer in #weave.symmetric memory, got 'memref<64xf32, strided<[1], offset: 8>>'}}
  weave.get %s on %dev, %dst : memref<64xf32, strided<[1], offset: 8>> -> memref<1024xf32>
  return
}

// -----

func.func @put_view_element_types(%src: memref<1024xf16>, %dst: memref<1024xbf16, #weave.symmetric>, %off: index, %n: index, %dev: index) {
  %s = memref.subview %src[%off] [%n] [1] : memref<1024xf16> to memref<?xf16, strided<[1], offset: ?>>
  // expected-error @below {{'weave.put' op expects matching element types, got 'f16' and 'bf16'}}
  weave.put %s, %dst on %dev : memref<?xf16, strided<[1], offset: ?>> -> memref<1024xbf16, #weave.symmetric>
  return
}

// -----

func.func @put_static_sizes_differ(%src: memref<1024xf32>, %dst: memref<1024xf32, #weave.symmetric>, %dev: index) {
  %s = memref.subview %src[64] [64] [1] : memref<1024xf32> to memref<64xf32, strided<[1], offset: 64>>
  %d = memref.subview %dst[64] [100] [1] : memref<1024xf32, #weave.symmetric> to memref<100xf32, strided<[1], offset: 64>, #weave.symmetric>
  // expected-error @below {{'weave.put' op expects the same number of elements, got 64 and 100}}
  weave.put %s, %d on %dev : memref<64xf32, strided<[1], offset: 64>> -> memref<100xf32, strided<[1], offset: 64>, #weave.symmetric>
  return
}

// -----

// The whole source does not fit the (static) target.
func.func @get_static_size_exceeds(%src: memref<1024xf32, #weave.symmetric>, %dst: memref<4096xf32>, %dev: index) {
  %d = memref.subview %dst[2048] [2048] [1] : memref<4096xf32> to memref<2048xf32, strided<[1], offset: 2048>>
  // expected-error @below {{'weave.get' op expects the same number of elements, got 2048 and 1024}}
  weave.get %src on %dev, %d : memref<1024xf32, #weave.symmetric> -> memref<2048xf32, strided<[1], offset: 2048>>
  return
}

// -----

// Every other element: not contiguous.
func.func @put_strided_view(%src: memref<1024xf32>, %dst: memref<512xf32, #weave.symmetric>, %dev: index) {
  %s = memref.subview %src[0] [512] [2] : memref<1024xf32> to memref<512xf32, strided<[2]>>
  // expected-error @below {{'weave.put' op expects a contiguous row-major view (unit innermost stride, each outer stride the product of the inner sizes), got 'memref<512xf32, strided<[2]>>'}}
  weave.put %s, %dst on %dev : memref<512xf32, strided<[2]>> -> memref<512xf32, #weave.symmetric>
  return
}

// -----

// A block of columns of a matrix: each row is contiguous, the rows are not.
func.func @put_column_block(%src: memref<16x64xf32>, %dst: memref<512xf32, #weave.symmetric>, %dev: index) {
  %s = memref.subview %src[0, 0] [16, 32] [1, 1] : memref<16x64xf32> to memref<16x32xf32, strided<[64, 1]>>
  // expected-error @below {{'weave.put' op expects a contiguous row-major view (unit innermost stride, each outer stride the product of the inner sizes), got 'memref<16x32xf32, strided<[64, 1]>>'}}
  weave.put %s, %dst on %dev : memref<16x32xf32, strided<[64, 1]>> -> memref<512xf32, #weave.symmetric>
  return
}

// -----

// Rows of a run-time length: the type cannot tell that they are adjacent.
func.func @get_dynamic_row_length(%src: memref<1024xf32, #weave.symmetric>, %dst: memref<16x64xf32>, %n: index, %dev: index) {
  %d = memref.subview %dst[0, 0] [16, %n] [1, 1] : memref<16x64xf32> to memref<16x?xf32, strided<[64, 1]>>
  // expected-error @below {{'weave.get' op expects a contiguous row-major view (unit innermost stride, each outer stride the product of the inner sizes), got 'memref<16x?xf32, strided<[64, 1]>>'}}
  weave.get %src on %dev, %d : memref<1024xf32, #weave.symmetric> -> memref<16x?xf32, strided<[64, 1]>>
  return
}

// -----

func.func @put_signal_not_semaphore(%src: memref<64xf32>, %dst: memref<64xf32, #weave.symmetric>, %dev: index, %flags: memref<8xi32, #weave.symmetric>, %i: index, %v: i32) {
  // expected-error @below {{'weave.put' op expects the signal to be a !weave.semaphore, got 'memref<8xi32, #weave.symmetric>'}}
  weave.put %src, %dst on %dev signal %flags[%i], %v : memref<64xf32> -> memref<64xf32, #weave.symmetric>, memref<8xi32, #weave.symmetric>
  return
}

// -----

func.func @get_signal_zero(%src: memref<64xf32, #weave.symmetric>, %dst: memref<64xf32>, %dev: index, %sem: !weave.semaphore) {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'weave.get' op expects a non-zero signal increment}}
  weave.get %src on %dev, %dst signal %sem, %c0 : memref<64xf32, #weave.symmetric> -> memref<64xf32>, !weave.semaphore
  return
}

// -----

func.func @put_signal_index_out_of_bounds(%src: memref<64xf32>, %dst: memref<64xf32, #weave.symmetric>, %dev: index, %sem: !weave.semaphore<4>, %v: i32) {
  %c4 = arith.constant 4 : index
  // expected-error @below {{'weave.put' op counter index 4 is out of bounds for '!weave.semaphore<4>'}}
  weave.put %src, %dst on %dev signal %sem[%c4], %v : memref<64xf32> -> memref<64xf32, #weave.symmetric>, !weave.semaphore<4>
  return
}

// -----

func.func @put_signal_missing_index(%src: memref<64xf32>, %dst: memref<64xf32, #weave.symmetric>, %dev: index, %sem: !weave.semaphore<4>, %v: i32) {
  // expected-error @below {{'weave.put' op expects a counter index for '!weave.semaphore<4>' with 4 counters}}
  weave.put %src, %dst on %dev signal %sem, %v : memref<64xf32> -> memref<64xf32, #weave.symmetric>, !weave.semaphore<4>
  return
}

// -----

func.func @put_bad_scope(%src: memref<64xf32>, %dst: memref<64xf32, #weave.symmetric>, %dev: index) {
  // expected-error @below {{custom op 'weave.put' expected string or keyword containing one of the following enum values for attribute 'scope' [block, warp, thread]}}
  weave.put %src, %dst on %dev scope(grid) : memref<64xf32> -> memref<64xf32, #weave.symmetric>
  return
}

// -----

// A warp-wide copy needs a whole warp; before_load runs on one thread.
func.func @warp_put_in_before_load(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>, %src: memref<64xf32>, %dst: memref<64xf32, #weave.symmetric>, %dev: index) {
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> before_load {
  ^bb0(%m: index, %n: index, %k: index):
    // expected-error @below {{'weave.put' op cannot be used in the before_load region of a weave.matmul_pipeline: it is a copy by every thread of the warp, and the region runs on one thread}}
    weave.put %src, %dst on %dev scope(warp) : memref<64xf32> -> memref<64xf32, #weave.symmetric>
    weave.yield
  }
  return
}

// -----

// The callback runs on an elected lane: a warp copy there would copy only
// that lane's share.
func.func @warp_get_in_callback(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>, %src: memref<64xf32>, %dst: memref<64xf32, #weave.symmetric>, %dev: index) {
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> callback {
  ^bb0(%l: memref<128x64xf16, #gpu.address_space<workgroup>>, %r: memref<64x128xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %k: index):
    // expected-error @below {{'weave.get' op cannot be used in the callback region of a weave.matmul_pipeline: it is a copy by every thread of the warp, and the region runs on one thread}}
    weave.get %dst on %dev, %src scope(warp) : memref<64xf32, #weave.symmetric> -> memref<64xf32>
    weave.yield
  }
  return
}

// -----

// Scopes that fit the regions, which all run on one thread: thread copies.
func.func @scoped_copies_in_regions(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>, %src: memref<64xf32>, %dst: memref<64xf32, #weave.symmetric>, %dev: index) {
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> before_load {
  ^bb0(%m: index, %n: index, %k: index):
    weave.put %src, %dst on %dev scope(thread) : memref<64xf32> -> memref<64xf32, #weave.symmetric>
    weave.yield
  } callback {
  ^bb0(%l: memref<128x64xf16, #gpu.address_space<workgroup>>, %r: memref<64x128xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %k: index):
    weave.get %dst on %dev, %src scope(thread) : memref<64xf32, #weave.symmetric> -> memref<64xf32>
    weave.yield
  }
  return
}
