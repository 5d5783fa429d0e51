// RUN: weavec %s --emit=ptx --split-input-file --verify-diagnostics -o /dev/null

// A weave.variant must bound a dynamic dimension of a buffer argument of
// its kernel, and name a group other than the kernel itself: checked with
// the kernel's interface, at the argument or the kernel.

gpu.module @m {
  gpu.func @k(
      // expected-error @below {{'weave.variant' bounds dimension 1 of kernel argument #0, which is not a dynamic dimension of a buffer (got 'memref<?x64xf16>')}}
      %a: memref<?x64xf16>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>, weave.variant = {of = "mm", arg = 0, axis = 1, lo = 1}} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @below {{'weave.variant' bounds argument #3, but the kernel has 1 argument(s)}}
  gpu.func @k(%a: memref<?x64xf16>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>, weave.variant = {of = "mm", arg = 3, axis = 0, lo = 1}} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @below {{'weave.variant' names the kernel itself ('k'); a variant is launched by another name}}
  gpu.func @k(%a: memref<?x64xf16>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>, weave.variant = {of = "k", arg = 0, axis = 0, lo = 1}} {
    gpu.return
  }
}
