// RUN: weave-opt %s -split-input-file -verify-diagnostics

func.func @signal_zero(%sem: !weave.semaphore) {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'weave.semaphore_signal' op expects a non-zero increment}}
  weave.semaphore_signal %sem, %c0 : !weave.semaphore
  return
}

// -----

func.func @signal_missing_index(%sem: !weave.semaphore<4>, %v: i32) {
  // expected-error @below {{'weave.semaphore_signal' op expects a counter index for '!weave.semaphore<4>' with 4 counters}}
  weave.semaphore_signal %sem, %v : !weave.semaphore<4>
  return
}

// -----

func.func @signal_index_out_of_bounds(%sem: !weave.semaphore<4>, %v: i32) {
  %c4 = arith.constant 4 : index
  // expected-error @below {{'weave.semaphore_signal' op counter index 4 is out of bounds for '!weave.semaphore<4>'}}
  weave.semaphore_signal %sem[%c4], %v : !weave.semaphore<4>
  return
}

// -----

func.func @signal_negative_index(%sem: !weave.semaphore<4>, %v: i32, %peer: index) {
  %cm1 = arith.constant -1 : index
  // expected-error @below {{'weave.semaphore_signal' op counter index -1 is out of bounds for '!weave.semaphore<4>'}}
  weave.semaphore_signal %sem[%cm1], %v on %peer : !weave.semaphore<4>
  return
}

// -----

func.func @signal_single_index_one(%sem: !weave.semaphore, %v: i32) {
  %c1 = arith.constant 1 : index
  // expected-error @below {{'weave.semaphore_signal' op counter index 1 is out of bounds for '!weave.semaphore'}}
  weave.semaphore_signal %sem[%c1], %v : !weave.semaphore
  return
}

// -----

// expected-note @below {{prior use here}}
func.func @signal_i64_value(%sem: !weave.semaphore, %v: i64) {
  // expected-error @below {{use of value '%v' expects different type than prior uses: 'i32' vs 'i64'}}
  weave.semaphore_signal %sem, %v : !weave.semaphore
  return
}

// -----

func.func @signal_not_semaphore(%sem: memref<4xi32>, %v: i32) {
  // expected-error @below {{'weave.semaphore_signal' op operand #0 must be an array of 32-bit counters in the symmetric signal pad, but got 'memref<4xi32>'}}
  weave.semaphore_signal %sem, %v : memref<4xi32>
  return
}

// -----

func.func @signal_generic_not_semaphore(%sem: memref<4xi32>, %v: i32) {
  // expected-error @below {{'weave.semaphore_signal' op operand #0 must be an array of 32-bit counters in the symmetric signal pad, but got 'memref<4xi32>'}}
  "weave.semaphore_signal"(%sem, %v) {operandSegmentSizes = array<i32: 1, 0, 1, 0>} : (memref<4xi32>, i32) -> ()
  return
}
