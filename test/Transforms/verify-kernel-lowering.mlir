// RUN: weave-opt %s -weave-verify-kernel -split-input-file -verify-diagnostics

// Regression tests: what weave-verify-kernel rejects because the lowering
// after it cannot take it. Before, each of these failed later without a
// useful location: the NVPTX printer aborted (symbol names), the bare
// pointer lowering failed to legalize a gpu.func (dynamic memrefs), the
// bundle failed its own checks (empty buffers), ptxas reported too much
// shared data, translation met an unrealized cast (vector.transfer_read),
// or the code compiled to a GPU-scope atomic on peer memory.

// PTX symbol names: NVPTX aborted on "a b" (LLVM ERROR: Symbol name with
// unsupported characters).
gpu.module @m {
  // expected-error @below {{'gpu.func' op expects a symbol name that PTX can take (a letter, then letters, digits, '_' or '$'; or '_' or '$' and at least one more of those; not WARP_SZ), got "a b"}}
  gpu.func @"a b"(%s: memref<16xf32>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    gpu.return
  }
}

// -----

// ptxas rejects a leading digit and '.'.
gpu.module @m {
  // expected-error @below {{got "1k"}}
  gpu.func @"1k"(%s: memref<16xf32>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @below {{got "k.v2"}}
  gpu.func @"k.v2"(%s: memref<16xf32>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    gpu.return
  }
}

// -----

// A lone '_' or '$' is not a PTX identifier.
gpu.module @m {
  // expected-error @below {{got "_"}}
  gpu.func @_(%s: memref<16xf32>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    gpu.return
  }
}

// -----

// Every symbol of the module becomes a PTX symbol: device functions and
// globals too.
gpu.module @m {
  // expected-error @below {{'func.func' op expects a symbol name that PTX can take}}
  func.func @"f-1"(%x: f32) -> f32 {
    return %x : f32
  }
}

// -----

gpu.module @m {
  // expected-error @below {{'memref.global' op expects a symbol name that PTX can take}}
  memref.global "private" @"tile buffer" : memref<16xf32, #gpu.address_space<workgroup>>
}

// -----

// Names PTX takes.
gpu.module @m {
  gpu.func @_k$1(%s: memref<16xf32>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    gpu.return
  }
  gpu.func @"$k"(%s: memref<16xf32>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    gpu.return
  }
  gpu.func @K_2(%s: memref<16xf32>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    gpu.return
  }
}

// -----

// A plain gpu.func beside the weave kernels is lowered with them, memrefs
// as bare pointers: a dynamic one failed to legalize.
gpu.module @m {
  // expected-error @below {{'gpu.func' op expects memref arguments with static shapes, strides and offsets (the lowering passes memrefs as bare pointers), got argument #0 of type 'memref<?xf32>'}}
  gpu.func @plain_kernel(%a: memref<?xf32>) kernel {
    gpu.return
  }
  gpu.func @k(%s: memref<16xf32>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @below {{'func.func' op expects memref arguments with static shapes, strides and offsets (the lowering passes memrefs as bare pointers), got argument #1 of type 'memref<4xf32, strided<[1], offset: ?>>'}}
  func.func @helper(%x: f32, %a: memref<4xf32, strided<[1], offset: ?>>) {
    return
  }
}

// -----

gpu.module @m {
  // expected-error @below {{'func.func' op expects memref results with static shapes, strides and offsets (the lowering passes memrefs as bare pointers), got result #0 of type 'memref<*xf32>'}}
  func.func private @unranked() -> memref<*xf32>
}

// -----

// vector.transfer_read reached translation as an unrealized cast.
gpu.module @m {
  gpu.func @k(%s: memref<16xf32>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %pad = arith.constant 0.0 : f32
    // expected-error @below {{'vector.transfer_read' op is not lowered by the weave pipeline; use vector.load / vector.store (and scf.if for the edges) instead}}
    %v = vector.transfer_read %s[%c0], %pad : memref<16xf32>, vector<4xf32>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%s: memref<16xf32>, %v: vector<4xf32>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    // expected-error @below {{'vector.transfer_write' op is not lowered by the weave pipeline}}
    vector.transfer_write %v, %s[%c0] : vector<4xf32>, memref<16xf32>
    gpu.return
  }
}

// -----

// An empty buffer failed the bundle's own checks (the runtime binds no
// empty buffers).
gpu.module @m {
  // expected-error @below {{weave kernel argument #1 expects a buffer of at least one element (the runtime binds no empty buffers), got 'memref<0xf32>'}}
  gpu.func @k(%a: memref<16xf32>, %b: memref<0xf32>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    gpu.return
  }
}

// -----

// 2^66 bytes sized to 0 in the bundle.
gpu.module @m {
  // expected-error @below {{weave kernel argument #0 expects a buffer of fewer than 2^63 bytes, got 'memref<4611686018427387904x4xf32>'}}
  gpu.func @k(%a: memref<4611686018427387904x4xf32>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    gpu.return
  }
}

// -----

// Static shared memory over the block's 227 KB: ptxas reported "uses too
// much shared data".
gpu.module @m {
  // expected-error @below {{weave kernel needs 232452 bytes of static shared memory (workgroup attributions and memref.globals in workgroup memory) and 0 of dynamic (smem), more than the 232448 a Hopper block can have}}
  gpu.func @k(%a: memref<16xf32>) workgroup(%buf: memref<58113xf32, #gpu.address_space<workgroup>>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    gpu.return
  }
}

// -----

// Static and dynamic together: a global in workgroup memory plus smem.
gpu.module @m {
  memref.global "private" @tile : memref<32768xf16, #gpu.address_space<workgroup>>
  // expected-error @below {{weave kernel needs 65536 bytes of static shared memory (workgroup attributions and memref.globals in workgroup memory) and 200000 of dynamic (smem), more than the 232448 a Hopper block can have}}
  gpu.func @k(%a: memref<16xf32>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1], smem = 200000>} {
    %t = memref.get_global @tile : memref<32768xf16, #gpu.address_space<workgroup>>
    %t2 = memref.get_global @tile : memref<32768xf16, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Exactly the limit is fine; a global used twice counts once.
gpu.module @m {
  memref.global "private" @tile : memref<16384xf16, #gpu.address_space<workgroup>>
  gpu.func @k(%a: memref<16xf32>) workgroup(%buf: memref<8192xf32, #gpu.address_space<workgroup>>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1], smem = 166912>} {
    %t = memref.get_global @tile : memref<16384xf16, #gpu.address_space<workgroup>>
    %t2 = memref.get_global @tile : memref<16384xf16, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Found by the front-end fuzzer: the translation crashed on an op with no
// function to be emitted into.
gpu.module @module_scope_op {
  gpu.func @k() kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
  // expected-error @below {{'gpu.barrier' op expects only functions and globals directly in a gpu.module; move it into a gpu.func}}
  gpu.barrier
}

// -----

// A vector access with only its element's alignment becomes scalar
// accesses in NVPTX (8 x bf16: 24 scalar loads and moves): a warning says
// to state the alignment. With {alignment = 16} (or one element) none.
gpu.module @m {
  gpu.func @unaligned_vector(%a: memref<1024xbf16>, %b: memref<1024xbf16>, %i: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    // expected-warning @below {{accesses a 16-byte 'vector<8xbf16>' with only its element's alignment (2 bytes): NVPTX splits it into scalar accesses; add {alignment = 16} where the address is 16-byte aligned}}
    %v = vector.load %a[%i] : memref<1024xbf16>, vector<8xbf16>
    // expected-warning @below {{accesses a 16-byte 'vector<8xbf16>'}}
    vector.store %v, %b[%i] : memref<1024xbf16>, vector<8xbf16>
    %w = vector.load %a[%i] {alignment = 16 : i64} : memref<1024xbf16>, vector<8xbf16>
    vector.store %w, %b[%i] {alignment = 16 : i64} : memref<1024xbf16>, vector<8xbf16>
    %x = vector.load %a[%i] : memref<1024xbf16>, vector<1xbf16>
    gpu.return
  }
}
