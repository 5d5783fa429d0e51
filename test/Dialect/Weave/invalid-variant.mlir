// RUN: weave-opt %s -split-input-file -verify-diagnostics

// weave.variant (KernelVariant.h): its fields, and where it may appear.

gpu.module @m {
  // expected-error @below {{expects 'weave.variant' to be {of = "NAME", arg = N, axis = N, lo = N[, hi = N]} with 0 <= arg, 0 <= axis, 1 <= lo <= hi}}
  gpu.func @k(%a: memref<?x64xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>, weave.variant = {of = "mm", arg = 0, axis = 0, lo = 0}} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @below {{1 <= lo <= hi}}
  gpu.func @k(%a: memref<?x64xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>, weave.variant = {of = "mm", arg = 0, axis = 0, lo = 100, hi = 99}} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @below {{expects 'weave.variant' to be {of = "NAME"}}
  gpu.func @k(%a: memref<?x64xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>, weave.variant = {of = "mm", arg = 0, axis = 0, lo = 1, high = 5}} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @below {{expects 'weave.variant' to be {of = "NAME"}}
  gpu.func @k(%a: memref<?x64xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>, weave.variant = "mm"} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @below {{'weave.variant' expects to be attached to a gpu.func kernel with a 'weave.kernel' attribute}}
  gpu.func @k(%a: memref<?x64xf16>) kernel attributes {weave.variant = {of = "mm", arg = 0, axis = 0, lo = 1}} {
    gpu.return
  }
}
