// RUN: weave-opt %s -split-input-file -verify-diagnostics

gpu.module @m {
  gpu.func @device_id_wrong_axis() kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    // expected-error @below {{'weave.device_id' op expects mesh axis "x" of the enclosing kernel, got "y"}}
    %me = weave.device_id "y"
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @num_devices_wrong_axis() kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "tp", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    // expected-error @below {{'weave.num_devices' op expects mesh axis "tp" of the enclosing kernel, got "x"}}
    %n = weave.num_devices "x"
    gpu.return
  }
}

// -----

func.func @device_id_no_axis() {
  // expected-error @below {{expected attribute value}}
  %me = weave.device_id
  return
}

// -----

func.func @device_id_integer_axis() {
  // expected-error @below {{integer literal not valid for specified type}}
  %me = weave.device_id 0
  return
}
