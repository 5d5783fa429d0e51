// RUN: weave-opt %s -split-input-file -verify-diagnostics

func.func @wait_eq_decrement_zero(%sem: !weave.semaphore) {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'weave.semaphore_wait' op expects a non-zero value with cmp(eq) decrement, got 0 (nothing to decrement)}}
  weave.semaphore_wait %sem, %c0 cmp(eq) decrement : !weave.semaphore
  return
}

// -----

// ge keeps its rule with an explicit cmp.
func.func @wait_ge_zero(%sem: !weave.semaphore) {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'weave.semaphore_wait' op expects a positive value to wait for, got 0}}
  weave.semaphore_wait %sem, %c0 cmp(ge) : !weave.semaphore
  return
}

// -----

// add keeps its rule with an explicit mode.
func.func @signal_add_zero(%sem: !weave.semaphore) {
  %c0 = arith.constant 0 : i32
  // expected-error @below {{'weave.semaphore_signal' op expects a non-zero increment}}
  weave.semaphore_signal %sem, %c0 mode(add) : !weave.semaphore
  return
}

// -----

// set still checks the counter index.
func.func @signal_set_index_out_of_bounds(%sem: !weave.semaphore<2>, %v: i32) {
  %c2 = arith.constant 2 : index
  // expected-error @below {{'weave.semaphore_signal' op counter index 2 is out of bounds for '!weave.semaphore<2>'}}
  weave.semaphore_signal %sem[%c2], %v mode(set) : !weave.semaphore<2>
  return
}

// -----

// eq still checks the counter index.
func.func @wait_eq_missing_index(%sem: !weave.semaphore<2>, %v: i32) {
  // expected-error @below {{'weave.semaphore_wait' op expects a counter index for '!weave.semaphore<2>' with 2 counters}}
  weave.semaphore_wait %sem, %v cmp(eq) : !weave.semaphore<2>
  return
}

// -----

func.func @signal_unknown_mode(%sem: !weave.semaphore, %v: i32) {
  // expected-error @below {{expected string or keyword containing one of the following enum values for attribute 'mode' [add, set]}}
  weave.semaphore_signal %sem, %v mode(max) : !weave.semaphore
  return
}

// -----

func.func @wait_unknown_cmp(%sem: !weave.semaphore, %v: i32) {
  // expected-error @below {{expected string or keyword containing one of the following enum values for attribute 'cmp' [ge, eq, ge_wrap]}}
  weave.semaphore_wait %sem, %v cmp(lt) : !weave.semaphore
  return
}

// -----

// The comparison comes before decrement.
func.func @wait_cmp_after_decrement(%sem: !weave.semaphore, %v: i32) {
  // expected-error @below {{expected ':'}}
  weave.semaphore_wait %sem, %v decrement cmp(eq) : !weave.semaphore
  return
}
