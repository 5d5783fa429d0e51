// RUN: weave-opt %s -split-input-file -verify-diagnostics

// The rules of tile(auto) on weave.matmul_pipeline and of `auto` fields in
// #weave.kernel.

func.func @partial_tile(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects tile_m, tile_n and tile_k together, or none of them (tile(auto)); got 1 of 3}}
  weave.matmul_pipeline %a, %b into %c {tile_m = 128 : i64} : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @tile_without_stages(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects stages(N) with an explicit tile}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  return
}

// -----

func.func @auto_with_callback(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects an explicit tile with a callback (its tile arguments have the tile's shape), got tile(auto)}}
  weave.matmul_pipeline %a, %b into %c tile(auto) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> callback {
  ^bb0(%l: memref<128x64xf16, #gpu.address_space<workgroup>>, %r: memref<64x128xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %k: index):
    weave.yield
  }
  return
}

// -----

func.func @auto_with_epilogue(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf32>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects an explicit tile with an epilogue region (its tile indices and box index depend on the tile), got tile(auto)}}
  weave.matmul_pipeline %a, %b into %c tile(auto) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf32> epilogue {
  ^bb0(%box: memref<64x32xf32, #gpu.address_space<workgroup>>, %m: index, %n: index, %i: index):
    weave.yield
  }
  return
}
