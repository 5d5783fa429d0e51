// RUN: weave-opt %s -weave-verify-kernel -split-input-file -verify-diagnostics

// Weave ops only make sense inside a gpu.func kernel carrying #weave.kernel.

func.func @in_func_func() {
  // expected-error @below {{'weave.device_id' op expects to be inside a gpu.func kernel with a 'weave.kernel' attribute}}
  %me = weave.device_id "x"
  return
}

// -----

gpu.module @m {
  gpu.func @kernel_without_attribute(%sem: !weave.semaphore, %v: i32) kernel {
    // expected-error @below {{'weave.semaphore_wait' op expects to be inside a gpu.func kernel with a 'weave.kernel' attribute}}
    weave.semaphore_wait %sem, %v : !weave.semaphore
    gpu.return
  }
}

// -----

// Every misplaced op is reported, not only the first.
func.func @two_misplaced() {
  // expected-error @below {{'weave.num_devices' op expects to be inside a gpu.func kernel with a 'weave.kernel' attribute}}
  %n = weave.num_devices "x"
  // expected-error @below {{'weave.wait_smem_to_gmem' op expects to be inside a gpu.func kernel with a 'weave.kernel' attribute}}
  weave.wait_smem_to_gmem 0
  return
}
