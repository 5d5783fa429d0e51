// RUN: weavec %s --emit=ptx --split-input-file --verify-diagnostics -o /dev/null

// What the ABI needs of a kernel's name and arguments is checked right after
// verification, at the argument (or the kernel), before any lowering: none
// of these reaches ptxas, the NVPTX printer or the bundle's own checks.

gpu.module @m {
  gpu.func @k(
      // expected-error @below {{kernel argument #0 has weave.name "", expected an identifier (a letter or '_', then letters, digits or '_')}}
      %a: memref<16xf32> {weave.name = ""}) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(
      // expected-error @below {{kernel argument #0 has weave.name "a b", expected an identifier}}
      %a: memref<16xf32> {weave.name = "a b"}) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(
      // expected-error @below {{kernel argument #0 has weave.name "a.tma0", expected an identifier}}
      %a: memref<16xf32> {weave.name = "a.tma0"}) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(
      // expected-error @below {{kernel argument #0 has weave.name "2x", expected an identifier}}
      %a: memref<16xf32> {weave.name = "2x"}) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(
      // expected-error @below {{kernel argument #0 expects 'weave.name' to be a string, found 3 : i64}}
      %a: memref<16xf32> {weave.name = 3}) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(
      // expected-error @below {{kernel argument #0 has weave.name "rank", which the ABI reserves for a team parameter (rank, team_size and peer_bases are reserved)}}
      %a: memref<16xf32> {weave.name = "rank"}) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(
      // expected-error @below {{kernel argument #0 has weave.name "team_size", which the ABI reserves}}
      %a: i32 {weave.name = "team_size"}) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(
      // expected-error @below {{kernel argument #0 has weave.name "peer_bases", which the ABI reserves}}
      %a: memref<16xf32> {weave.name = "peer_bases"}) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(
      // expected-note @below {{argument #0 is here}}
      %a: memref<16xf32> {weave.name = "x"},
      // expected-error @below {{kernel argument #1 is named 'x', as is argument #0; kernel argument names must be unique (an argument without weave.name is named argN)}}
      %b: memref<16xf32> {weave.name = "x"}) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
}

// -----

// An argument without weave.name is named argN, which another may not take.
gpu.module @m {
  gpu.func @k(
      // expected-note @below {{argument #0 is here}}
      %a: memref<16xf32> {weave.name = "arg1"},
      // expected-error @below {{kernel argument #1 is named 'arg1', as is argument #0}}
      %b: memref<16xf32>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(
      // expected-error @below {{kernel argument #0 of type 'index' cannot be passed to a weave kernel; kernel arguments are memrefs in global memory (static or dynamic shape, identity layout, element type f16, bf16, f32, f64, i8, i32 or i64; default, 1 or #weave.symmetric memory space), !weave.semaphore, or scalars of type f32, f64, i32 or i64}}
      %i: index) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(
      // expected-error @below {{kernel argument #0 of type 'memref<16xindex>' has an element type the runtime does not support; buffers hold f16, bf16, f32, f64, i8, i32 or i64}}
      %a: memref<16xindex>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
}

// -----

// 2^62 x 4 f32 is 2^66 bytes: the size would wrap to 0.
gpu.module @m {
  gpu.func @k(
      // expected-error @below {{weave kernel argument #0 expects a buffer of fewer than 2^63 bytes, got 'memref<4611686018427387904x4xf32>'}}
      %a: memref<4611686018427387904x4xf32>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(
      // expected-error @below {{weave kernel argument #0 expects a buffer of fewer than 2^63 bytes, got 'memref<2305843009213693952xf32, #weave.symmetric>'}}
      %a: memref<2305843009213693952xf32, #weave.symmetric>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(
      // expected-error @below {{weave kernel argument #0 expects a buffer of at least one element (the runtime binds no empty buffers), got 'memref<0x4xf32>'}}
      %a: memref<0x4xf32>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(
      // expected-error @below {{kernel argument #0 of type 'memref<f32>' cannot be passed: the ABI takes buffers of rank 1 or more}}
      %a: memref<f32>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @below {{'gpu.func' op expects a symbol name that PTX can take (a letter, then letters, digits, '_' or '$'; or '_' or '$' and at least one more of those; not WARP_SZ), got "a b"}}
  gpu.func @"a b"(%a: memref<16xf32>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @below {{'gpu.func' op expects a symbol name that PTX can take}}
  gpu.func @"a.b"(%a: memref<16xf32>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @below {{'gpu.func' op expects a symbol name that PTX can take}}
  gpu.func @"1k"(%a: memref<16xf32>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @below {{'gpu.func' op expects a symbol name that PTX can take}}
  gpu.func @WARP_SZ(%a: memref<16xf32>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
}
