// RUN: weave-opt %s -split-input-file -verify-diagnostics

func.func @put_packets_not_symmetric(%src: memref<16xf32>, %lines: memref<16xi64>, %dev: index, %flag: i32) {
  // expected-error @below {{'weave.put' op expects the packet buffer in #weave.symmetric memory, got 'memref<16xi64>'}}
  weave.put %src, %lines on %dev packets(%flag) : memref<16xf32> -> memref<16xi64>
  return
}

// -----

func.func @put_packets_not_i64(%src: memref<16xf32>, %lines: memref<16xf32, #weave.symmetric>, %dev: index, %flag: i32) {
  // expected-error @below {{'weave.put' op expects a packet buffer of i64 elements (a 32-bit word and its flag each), got 'memref<16xf32, #weave.symmetric>'}}
  weave.put %src, %lines on %dev packets(%flag) : memref<16xf32> -> memref<16xf32, #weave.symmetric>
  return
}

// -----

func.func @put_packets_with_signal(%src: memref<16xf32>, %lines: memref<16xi64, #weave.symmetric>, %dev: index, %flag: i32, %sem: !weave.semaphore, %one: i32) {
  // expected-error @below {{'weave.put' op expects no signal with packets: each packet carries its own flag}}
  weave.put %src, %lines on %dev signal %sem, %one packets(%flag) : memref<16xf32> -> memref<16xi64, #weave.symmetric>, !weave.semaphore
  return
}

// -----

func.func @put_packets_source_shared(%src: memref<16xf32, #gpu.address_space<workgroup>>, %lines: memref<16xi64, #weave.symmetric>, %dev: index, %flag: i32) {
  // expected-error @below {{'weave.put' op expects the data buffer in global memory, got 'memref<16xf32, #gpu.address_space<workgroup>>'}}
  weave.put %src, %lines on %dev packets(%flag) : memref<16xf32, #gpu.address_space<workgroup>> -> memref<16xi64, #weave.symmetric>
  return
}

// -----

func.func @put_packets_index(%src: memref<16xindex>, %lines: memref<16xi64, #weave.symmetric>, %dev: index, %flag: i32) {
  // expected-error @below {{'weave.put' op expects a memref of integer or floating-point elements, got 'memref<16xindex>'}}
  weave.put %src, %lines on %dev packets(%flag) : memref<16xindex> -> memref<16xi64, #weave.symmetric>
  return
}

// -----

func.func @put_packets_i1(%src: memref<64xi1>, %lines: memref<2xi64, #weave.symmetric>, %dev: index, %flag: i32) {
  // expected-error @below {{'weave.put' op expects data elements of 1, 2, 4 or 8 bytes, got 'i1'}}
  weave.put %src, %lines on %dev packets(%flag) : memref<64xi1> -> memref<2xi64, #weave.symmetric>
  return
}

// -----

func.func @put_packets_strided(%src: memref<4x4xf32, strided<[8, 1]>>, %lines: memref<16xi64, #weave.symmetric>, %dev: index, %flag: i32) {
  // expected-error @below {{'weave.put' op expects a contiguous row-major view (unit innermost stride, each outer stride the product of the inner sizes), got 'memref<4x4xf32, strided<[8, 1]>>'}}
  weave.put %src, %lines on %dev packets(%flag) : memref<4x4xf32, strided<[8, 1]>> -> memref<16xi64, #weave.symmetric>
  return
}

// -----

func.func @put_packets_huge(%src: memref<4611686018427387904x4xf32>, %lines: memref<16xi64, #weave.symmetric>, %dev: index, %flag: i32) {
  // expected-error @below {{'weave.put' op expects a buffer of fewer than 2^63 bytes, got 'memref<4611686018427387904x4xf32>'}}
  weave.put %src, %lines on %dev packets(%flag) : memref<4611686018427387904x4xf32> -> memref<16xi64, #weave.symmetric>
  return
}

// -----

// A partial last word takes a packet of its own: 6 bytes are 2 packets.
func.func @put_packets_odd_bytes(%src: memref<3xbf16>, %lines: memref<1xi64, #weave.symmetric>, %dev: index, %flag: i32) {
  // expected-error @below {{'weave.put' op expects 2 packets for 6 bytes of data, got 1}}
  weave.put %src, %lines on %dev packets(%flag) : memref<3xbf16> -> memref<1xi64, #weave.symmetric>
  return
}

// -----

func.func @read_packets_odd_bytes(%lines: memref<1xi64, #weave.symmetric>, %dst: memref<5xi8>, %flag: i32) {
  // expected-error @below {{'weave.read_packets' op expects 2 packets for 5 bytes of data, got 1}}
  weave.read_packets %lines, %flag into %dst : memref<1xi64, #weave.symmetric> -> memref<5xi8>
  return
}

// -----

func.func @put_packets_count(%src: memref<16xbf16>, %lines: memref<16xi64, #weave.symmetric>, %dev: index, %flag: i32) {
  // expected-error @below {{'weave.put' op expects 8 packets for 32 bytes of data, got 16}}
  weave.put %src, %lines on %dev packets(%flag) : memref<16xbf16> -> memref<16xi64, #weave.symmetric>
  return
}

// -----

func.func @put_packets_device(%src: memref<16xf32>, %lines: memref<16xi64, #weave.symmetric>, %flag: i32) {
  %dev = arith.constant -1 : index
  // expected-error @below {{'weave.put' op expects a device index of at least 0, got -1}}
  weave.put %src, %lines on %dev packets(%flag) : memref<16xf32> -> memref<16xi64, #weave.symmetric>
  return
}

// -----

func.func @read_packets_not_symmetric(%lines: memref<16xi64>, %dst: memref<16xf32>, %flag: i32) {
  // expected-error @below {{'weave.read_packets' op expects the packet buffer in #weave.symmetric memory, got 'memref<16xi64>'}}
  weave.read_packets %lines, %flag into %dst : memref<16xi64> -> memref<16xf32>
  return
}

// -----

func.func @read_packets_count(%lines: memref<4xi64, #weave.symmetric>, %dst: memref<16xf32>, %flag: i32) {
  // expected-error @below {{'weave.read_packets' op expects 16 packets for 64 bytes of data, got 4}}
  weave.read_packets %lines, %flag into %dst : memref<4xi64, #weave.symmetric> -> memref<16xf32>
  return
}

// -----

func.func @read_packets_target_shared(%lines: memref<16xi64, #weave.symmetric>, %dst: memref<16xf32, 3>, %flag: i32) {
  // expected-error @below {{'weave.read_packets' op expects the data buffer in global memory, got 'memref<16xf32, 3>'}}
  weave.read_packets %lines, %flag into %dst : memref<16xi64, #weave.symmetric> -> memref<16xf32, 3>
  return
}
