func.func @f(%a: memref<256x64xf16>, %b: memref<64x256xf16>, %c: memref<256x256xf16>) {
  %x = arith.addi %k, %k : index
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4)
      : memref<256x64xf16>, memref<64x256xf16> into memref<256x256xf16>
      before_load {
  ^bb0(%m: index, %nt: index, %k: index):
    weave.yield
  }
      callback {
    bogus
  }
  return
}
