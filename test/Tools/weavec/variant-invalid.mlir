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

// -----

// Hand-written variants of one name must agree on their arguments and team
// (they failed only in the bundle's self-check, "a compiler bug" at 1:1).
gpu.module @m {
  // expected-note @below {{variant 'mm_small' here}}
  gpu.func @mm_small(%a: memref<?x64xf16> {weave.name = "a"}) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>, weave.variant = {of = "mm", arg = 0, axis = 0, lo = 1, hi = 128}} {
    gpu.return
  }
  gpu.func @mm_large(
      // expected-error @below {{variant 'mm_large' of 'mm' differs from variant 'mm_small' in argument #0 ('a': its name, type or shape): the variants of a name take the same arguments on the same team}}
      %a: memref<?x32xf16> {weave.name = "a"}) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>, weave.variant = {of = "mm", arg = 0, axis = 0, lo = 129}} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-note @below {{variant 'mm_small' here}}
  gpu.func @mm_small(%a: memref<?x64xf16>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [32, 1, 1]>, weave.variant = {of = "mm", arg = 0, axis = 0, lo = 1, hi = 128}} {
    gpu.return
  }
  // expected-error @below {{variant 'mm_large' of 'mm' differs from variant 'mm_small' in its mesh size}}
  gpu.func @mm_large(%a: memref<?x64xf16>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 4>, grid = [1, 1, 1], block = [32, 1, 1]>, weave.variant = {of = "mm", arg = 0, axis = 0, lo = 129}} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-note @below {{variant 'mm_small' here}}
  gpu.func @mm_small(%a: memref<?x64xf16>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>, weave.variant = {of = "mm", arg = 0, axis = 0, lo = 1, hi = 128}} {
    gpu.return
  }
  // expected-error @below {{variant 'mm_large' of 'mm' differs from variant 'mm_small' in its number of arguments (2 vs 1)}}
  gpu.func @mm_large(%a: memref<?x64xf16>, %s: !weave.semaphore) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>, weave.variant = {of = "mm", arg = 0, axis = 0, lo = 129}} {
    gpu.return
  }
}

// -----

// The group's name is also a kernel's.
gpu.module @m {
  // expected-note @below {{a variant of 'mm' here}}
  gpu.func @mm_small(%a: memref<?x64xf16>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>, weave.variant = {of = "mm", arg = 0, axis = 0, lo = 1, hi = 128}} {
    gpu.return
  }
  // expected-error @below {{kernel 'mm' is also the name of a weave.variant group: Kernel::get could not tell them apart; rename the kernel or the group}}
  gpu.func @mm(%a: memref<?x64xf16>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
}
