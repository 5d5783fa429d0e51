// RUN: weave-opt %s -split-input-file -verify-diagnostics

func.func @wait_zero(%sem: !weave.semaphore) {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'weave.semaphore_wait' op expects a positive value to wait for, got 0}}
  weave.semaphore_wait %sem, %c0 decrement : !weave.semaphore
  return
}

// -----

func.func @wait_negative(%sem: !weave.semaphore) {
  %cm2 = arith.constant -2 : i32
  // expected-error @below {{'weave.semaphore_wait' op expects a positive value to wait for, got -2}}
  weave.semaphore_wait %sem, %cm2 : !weave.semaphore
  return
}

// -----

func.func @wait_missing_index(%sem: !weave.semaphore<2>, %v: i32) {
  // expected-error @below {{'weave.semaphore_wait' op expects a counter index for '!weave.semaphore<2>' with 2 counters}}
  weave.semaphore_wait %sem, %v decrement : !weave.semaphore<2>
  return
}

// -----

func.func @wait_index_out_of_bounds(%sem: !weave.semaphore<2>, %v: i32) {
  %c7 = arith.constant 7 : index
  // expected-error @below {{'weave.semaphore_wait' op counter index 7 is out of bounds for '!weave.semaphore<2>'}}
  weave.semaphore_wait %sem[%c7], %v : !weave.semaphore<2>
  return
}

// -----

// The wait is local: there is no `on` clause.
func.func @wait_on_peer(%sem: !weave.semaphore, %v: i32, %peer: index) {
  // expected-error @below {{expected ':'}}
  weave.semaphore_wait %sem, %v on %peer : !weave.semaphore
  return
}
