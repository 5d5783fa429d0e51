// RUN: weave-opt %s -split-input-file -verify-diagnostics

// Regression test (fuzzing): a value used before any definition took the
// name of a pipeline region's block argument (the MLIR 22 parser resolves
// the forward reference to it). When the op then failed to parse, the
// cleanup wrote freed memory; the op's parser now rejects such a use and
// detaches it first. Valgrind runs the reproducer in test/fuzz/crashes.

func.func @forward_ref_to_region_arg(%a: memref<256x64xf16>, %b: memref<64x256xf16>, %c: memref<256x256xf16>) {
  %x = arith.addi %k, %k : index
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4)
      : memref<256x64xf16>, memref<64x256xf16> into memref<256x256xf16>
      // expected-error @below {{a value defined in the before_load region is used outside the region (a value used before its definition took the name of one defined in the region)}}
      before_load {
  ^bb0(%m: index, %nt: index, %k: index):
    weave.yield
  }
  return
}

// -----

// The same with a parse error in a later region of the op.
func.func @forward_ref_then_bad_region(%a: memref<256x64xf16>, %b: memref<64x256xf16>, %c: memref<256x256xf16>) {
  %x = arith.addi %k, %k : index
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4)
      : memref<256x64xf16>, memref<64x256xf16> into memref<256x256xf16>
      // expected-error @below {{a value defined in the before_load region is used outside the region}}
      before_load {
  ^bb0(%m: index, %nt: index, %k: index):
    weave.yield
  }
      callback {
    bogus
  }
  return
}

// -----

// An op result of the region (found by the fuzz smoke run): `%c1` is used
// before the pipeline and defined in its callback.
func.func @forward_ref_to_region_result(%a: memref<256x64xf16>, %b: memref<64x256xf16>, %c: memref<256x256xf16>, %me: index) {
  %sum = arith.addi %me, %c1 : index
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4)
      : memref<256x64xf16>, memref<64x256xf16> into memref<256x256xf16>
      // expected-error @below {{a value defined in the callback region is used outside the region}}
      callback {
  ^bb0(%lhs: memref<128x64xf16, #gpu.address_space<workgroup>>, %rhs: memref<64x256xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %k: index):
    %c1 = arith.constant 1 : index
    weave.yield
  }
  return
}
