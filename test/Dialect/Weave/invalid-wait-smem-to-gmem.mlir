// RUN: weave-opt %s -split-input-file -verify-diagnostics

func.func @wait_negative_pending() {
  // expected-error @below {{'weave.wait_smem_to_gmem' op attribute 'pending' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  weave.wait_smem_to_gmem -1
  return
}

// -----

func.func @wait_missing_pending() {
  // expected-error @below {{expected attribute value}}
  weave.wait_smem_to_gmem read_only
  return
}

// -----

func.func @wait_ssa_pending(%n: i32) {
  // expected-error @below {{expected attribute value}}
  weave.wait_smem_to_gmem %n
  return
}
