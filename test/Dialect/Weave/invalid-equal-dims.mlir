// RUN: weave-opt %s -split-input-file -verify-diagnostics

// weave.equal_dims (EqualDims.h): quadruples of argument and dimension
// indices on a gpu.func, as weave-expand-pipelines writes them.

gpu.module @m {
  gpu.func @k(%a: memref<?x64xf16>, %c: memref<?x64xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>, weave.equal_dims = array<i64: 0, 0, 1, 0>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @below {{'weave.equal_dims' expects an array<i64> of (argument, dimension) pairs on a gpu.func}}
  gpu.func @k(%a: memref<?x64xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>, weave.equal_dims = array<i64: 0, 0, 1>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @below {{'weave.equal_dims' expects indices, found -1}}
  gpu.func @k(%a: memref<?x64xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>, weave.equal_dims = array<i64: 0, 0, -1, 0>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @below {{'weave.equal_dims' names dimension 1 of argument 1, which is not a dynamic dimension of a memref argument}}
  gpu.func @k(%a: memref<?x64xf16>, %c: memref<?x64xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>, weave.equal_dims = array<i64: 0, 0, 1, 1>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @below {{'weave.equal_dims' names dimension 0 of argument 2, which is not a dynamic dimension of a memref argument}}
  gpu.func @k(%a: memref<?x64xf16>, %c: memref<?x64xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>, weave.equal_dims = array<i64: 0, 0, 2, 0>} {
    gpu.return
  }
}
