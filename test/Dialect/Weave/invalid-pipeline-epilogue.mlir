// RUN: weave-opt %s -split-input-file -verify-diagnostics

// The epilogue region takes the box (64 rows x 128 bytes of the output type
// in shared memory) and three indices (the tile form: m, n, box index) or two
// (the coordinate form: the box's row and column).
func.func @epilogue_box_type(%a: memref<256x64xf16>, %b: memref<64x256xf16>, %c: memref<256x256xf32>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects the epilogue to take a 64x32xf32 box in workgroup memory and index arguments: (box, m, n, box index) or (box, row, col), got (4 arguments)}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(2)
      : memref<256x64xf16>, memref<64x256xf16> into memref<256x256xf32>
      epilogue {
  ^bb0(%box: memref<64x64xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %i: index):
  }
  return
}

// -----

func.func @epilogue_arity(%a: memref<256x64xf16>, %b: memref<64x256xf16>, %c: memref<256x256xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects the epilogue to take a 64x64xf16 box in workgroup memory and index arguments: (box, m, n, box index) or (box, row, col), got (2 arguments)}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(2)
      : memref<256x64xf16>, memref<64x256xf16> into memref<256x256xf16>
      epilogue {
  ^bb0(%box: memref<64x64xf16, #gpu.address_space<workgroup>>, %m: index):
  }
  return
}

// -----

// An epilogue store into another device's buffer needs it symmetric.
func.func @epilogue_remote_not_symmetric(%a: memref<256x64xf16>, %b: memref<64x256xf16>, %c: memref<256x256xf16>, %peer: index) {
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(2)
      : memref<256x64xf16>, memref<64x256xf16> into memref<256x256xf16>
      epilogue {
  ^bb0(%box: memref<64x64xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %i: index):
    // expected-error @below {{'weave.copy_smem_to_gmem' op expects a target in #weave.symmetric memory when storing to another device, got 'memref<256x256xf16>'}}
    weave.copy_smem_to_gmem %box, %c[%m, %n] reduce(add) on %peer
        : memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<256x256xf16>
  }
  return
}

// -----

// A reduction TMA cannot do on this type.
func.func @epilogue_reduce_max_f32(%a: memref<256x64xf16>, %b: memref<64x256xf16>, %c: memref<256x256xf32>) {
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(2)
      : memref<256x64xf16>, memref<64x256xf16> into memref<256x256xf32>
      epilogue {
  ^bb0(%box: memref<64x32xf32, #gpu.address_space<workgroup>>, %m: index, %n: index, %i: index):
    // expected-error @below {{'weave.copy_smem_to_gmem' op expects f16 or bf16 elements for a TMA reduce(max) (cp.reduce.async.bulk.tensor has no f32 max), got 'f32'}}
    weave.copy_smem_to_gmem %box, %c[%m, %n] reduce(max)
        : memref<64x32xf32, #gpu.address_space<workgroup>> -> memref<256x256xf32>
  }
  return
}

// -----

// A box the runtime cannot describe as a tensor map: the box's element type
// must be the target's.
func.func @epilogue_box_type_mismatch(%a: memref<256x64xf16>, %b: memref<64x256xf16>, %c: memref<256x256xf16>, %d: memref<256x256xbf16>) {
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(2)
      : memref<256x64xf16>, memref<64x256xf16> into memref<256x256xf16>
      epilogue {
  ^bb0(%box: memref<64x64xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %i: index):
    // expected-error @below {{'weave.copy_smem_to_gmem' op expects matching element types, got 'f16' and 'bf16'}}
    weave.copy_smem_to_gmem %box, %d[%m, %n]
        : memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<256x256xbf16>
  }
  return
}

// -----

// Without `into`, an epilogue must store every box, and the output element
// type is given with `-> T`.
func.func @no_out_no_epilogue(%a: memref<128x64xbf16>, %b: memref<64x256xbf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects `into %out` without an epilogue region (each box is stored to out)}}
  weave.matmul_pipeline %a, %b tile(128, 256, 64) stages(4) : memref<128x64xbf16>, memref<64x256xbf16> -> f32
  return
}

// -----

func.func @no_out_no_type(%a: memref<128x64xbf16>, %b: memref<64x256xbf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects `into %out` or, with an epilogue region that sends every box elsewhere, the output element type (`-> f32`)}}
  weave.matmul_pipeline %a, %b tile(128, 256, 64) stages(4) : memref<128x64xbf16>, memref<64x256xbf16>
  return
}

// -----

func.func @out_and_type(%a: memref<128x64xbf16>, %b: memref<64x256xbf16>, %c: memref<128x256xf32>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects no `-> T` with `into %out` (out's type gives the element type)}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) : memref<128x64xbf16>, memref<64x256xbf16> into memref<128x256xf32> -> f32
  return
}

// -----

func.func @no_out_bad_type(%a: memref<128x64xbf16>, %b: memref<64x256xbf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects an f16, bf16 or f32 output, got 'i32'}}
  weave.matmul_pipeline %a, %b tile(128, 256, 64) stages(4) : memref<128x64xbf16>, memref<64x256xbf16> -> i32 epilogue {
  ^bb0(%box: memref<64x32xi32, #gpu.address_space<workgroup>>, %m: index, %n: index, %i: index):
    weave.yield
  }
  return
}

// -----

// The combine region takes the epilogue's box and indices and the lane.
func.func @combine_arity(%a: memref<256x64xf16>, %b: memref<64x256xf16>, %c: memref<256x256xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects combine to take a 64x64xf16 box in workgroup memory and index arguments: (box, m, n, box index, lane) or (box, row, col, lane), got (3 arguments)}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(2)
      : memref<256x64xf16>, memref<64x256xf16> into memref<256x256xf16>
      combine {
  ^bb0(%box: memref<64x64xf16, #gpu.address_space<workgroup>>, %m: index, %lane: index):
  }
  return
}

// -----

func.func @combine_box_type(%a: memref<256x64xf16>, %b: memref<64x256xf16>, %c: memref<256x256xf32>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects combine to take a 64x32xf32 box in workgroup memory and index arguments: (box, m, n, box index, lane) or (box, row, col, lane), got (5 arguments)}}
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(2)
      : memref<256x64xf16>, memref<64x256xf16> into memref<256x256xf32>
      combine {
  ^bb0(%box: memref<64x64xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %i: index, %lane: index):
  }
  return
}
