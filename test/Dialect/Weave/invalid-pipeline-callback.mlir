// RUN: weave-opt %s -split-input-file -verify-diagnostics

// The regions of weave.matmul_pipeline: before_load (m, n, k) and callback
// (lhs tile, rhs tile, m, n, k).

func.func @callback_four_args(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects the callback to take 5 arguments (lhs tile, rhs tile, m, n, k), got 4}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> callback {
  ^bb0(%l: memref<128x64xf16, #gpu.address_space<workgroup>>, %r: memref<64x128xf16, #gpu.address_space<workgroup>>, %m: index, %n: index):
    weave.yield
  }
  return
}

// -----

func.func @callback_no_args(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects the callback to take 5 arguments (lhs tile, rhs tile, m, n, k), got 0}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> callback {
  }
  return
}

// -----

func.func @callback_lhs_tile_shape(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects callback argument #0 to be a 128x64xf16 tile in workgroup memory, got 'memref<64x128xf16, #gpu.address_space<workgroup>>'}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> callback {
  ^bb0(%l: memref<64x128xf16, #gpu.address_space<workgroup>>, %r: memref<64x128xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %k: index):
    weave.yield
  }
  return
}

// -----

func.func @callback_rhs_tile_global(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects callback argument #1 to be a 64x128xf16 tile in workgroup memory, got 'memref<64x128xf16>'}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> callback {
  ^bb0(%l: memref<128x64xf16, #gpu.address_space<workgroup>>, %r: memref<64x128xf16>, %m: index, %n: index, %k: index):
    weave.yield
  }
  return
}

// -----

func.func @callback_tile_element_type(%a: memref<1024x4096xbf16>, %b: memref<4096x1024xbf16>, %c: memref<1024x1024xbf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects callback argument #0 to be a 128x64xbf16 tile in workgroup memory, got 'memref<128x64xf16, 3>'}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xbf16>, memref<4096x1024xbf16> into memref<1024x1024xbf16> callback {
  ^bb0(%l: memref<128x64xf16, 3>, %r: memref<64x128xbf16, 3>, %m: index, %n: index, %k: index):
    weave.yield
  }
  return
}

// -----

func.func @callback_index_type(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects callback argument #4 to be an index, got 'i32'}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> callback {
  ^bb0(%l: memref<128x64xf16, #gpu.address_space<workgroup>>, %r: memref<64x128xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %k: i32):
    weave.yield
  }
  return
}

// -----

func.func @yield_outside_pipeline() {
  // expected-error @below {{'weave.yield' op expects parent op 'weave.matmul_pipeline'}}
  weave.yield
}

// -----

// The callback is region #1 (before_load is region #0).
func.func @callback_two_blocks(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects region #1 to have 0 or 1 blocks}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> callback {
  ^bb0(%l: memref<128x64xf16, #gpu.address_space<workgroup>>, %r: memref<64x128xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %k: index):
    cf.br ^bb1
  ^bb1:
    weave.yield
  }
  return
}

// -----

func.func @before_load_two_args(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects before_load to take 3 index arguments (m, n, k), those and an i1 (m, n, k, first step of the unit), or those and 2 indices (m, n, k, first, tile_m, tile_n), got 2 arguments}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> before_load {
  ^bb0(%m: index, %n: index):
    weave.yield
  }
  return
}

// -----

func.func @before_load_no_args(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects before_load to take 3 index arguments (m, n, k), those and an i1 (m, n, k, first step of the unit), or those and 2 indices (m, n, k, first, tile_m, tile_n), got 0 arguments}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> before_load {
  }
  return
}

// -----

// Three arguments, but not all of them index.
func.func @before_load_i32_arg(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects before_load to take 3 index arguments (m, n, k), those and an i1 (m, n, k, first step of the unit), or those and 2 indices (m, n, k, first, tile_m, tile_n), got 3 arguments}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> before_load {
  ^bb0(%m: index, %n: i32, %k: index):
    weave.yield
  }
  return
}

// -----

// Five arguments: the tile's shape comes as both of its sizes.
func.func @before_load_five_args(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{got 5 arguments}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> before_load {
  ^bb0(%m: index, %n: index, %k: index, %first: i1, %tm: index):
    weave.yield
  }
  return
}

// -----

// Six arguments whose tile sizes are not indices.
func.func @before_load_tile_i32(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{got 6 arguments}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> before_load {
  ^bb0(%m: index, %n: index, %k: index, %first: i1, %tm: i32, %tn: index):
    weave.yield
  }
  return
}

// -----

// A valid before_load does not excuse a bad callback.
func.func @before_load_ok_callback_bad(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects callback argument #2 to be an index, got 'i64'}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> before_load {
  ^bb0(%m: index, %n: index, %k: index):
    weave.yield
  } callback {
  ^bb0(%l: memref<128x64xf16, #gpu.address_space<workgroup>>, %r: memref<64x128xf16, #gpu.address_space<workgroup>>, %m: i64, %n: index, %k: index):
    weave.yield
  }
  return
}

// -----

func.func @before_load_two_blocks(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects region #0 to have 0 or 1 blocks}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> before_load {
  ^bb0(%m: index, %n: index, %k: index):
    cf.br ^bb1
  ^bb1:
    weave.yield
  }
  return
}

// -----

func.func @after_loads_with_arguments(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects after_loads to take no arguments, got 1}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> after_loads {
  ^bb0(%x: index):
  }
  return
}

// -----

// The rhs tile is in the ring as 64-column swizzled boxes: the verifier
// (not only weave-expand-pipelines, after `weavec --emit=mlir` had printed
// the kernel) rejects any use but the source of a whole-tile TMA store,
// with tile(auto) too (the callback's tile arguments fix the tile).
func.func @callback_loads_rhs(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  weave.matmul_pipeline %a, %b into %c tile(auto) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> callback {
  ^bb0(%lhs: memref<128x64xf16, #gpu.address_space<workgroup>>, %rhs: memref<64x128xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %k: index):
    // expected-error @below {{'memref.load' op uses the rhs tile of a pipeline callback other than as the source of weave.copy_smem_to_gmem: the tile is stored as 2 swizzled boxes of 128-byte rows, which only a whole-tile TMA store (split into one store per box) reads}}
    %v = memref.load %rhs[%k, %n] : memref<64x128xf16, #gpu.address_space<workgroup>>
  }
  return
}
