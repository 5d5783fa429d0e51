// RUN: weave-opt %s -split-input-file -verify-diagnostics

// The `weave.kernel` discardable attribute (WeaveDialect::verifyOperationAttribute).

// expected-error @below {{'weave.kernel' expects to be attached to a gpu.func kernel}}
func.func @on_func_func() attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  return
}

// -----

gpu.module @m {
  // expected-error @below {{'weave.kernel' expects to be attached to a gpu.func kernel}}
  gpu.func @not_a_kernel() attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @below {{expects 'weave.kernel' to be a #weave.kernel attribute, got #weave.mesh<axis = "x", size = 2>}}
  gpu.func @mesh_instead_of_kernel() kernel attributes {weave.kernel = #weave.mesh<axis = "x", size = 2>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @below {{unknown weave attribute 'weave.kernal'; expected 'weave.kernel'}}
  gpu.func @misspelled() kernel attributes {weave.kernal = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    gpu.return
  }
}

// -----

// expected-error @below {{unknown weave attribute 'weave.mesh'; expected 'weave.kernel'}}
module attributes {weave.mesh = #weave.mesh<axis = "x", size = 2>} {
}
