// RUN: weave-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{expects at least one semaphore counter, got 0}}
func.func @zero_counters(%s: !weave.semaphore<0>) {
  return
}

// -----

// expected-error @below {{expected integer value}}
func.func @symbolic_count(%s: !weave.semaphore<n>) {
  return
}

// -----

// expected-error @below {{expects a semaphore counter count in [1, 4294967295], got -1}}
func.func @negative_count(%s: !weave.semaphore<-1>) {
  return
}

// -----

// expected-error @below {{expects a semaphore counter count in [1, 4294967295], got 4294967296}}
func.func @count_too_large(%s: !weave.semaphore<4294967296>) {
  return
}
