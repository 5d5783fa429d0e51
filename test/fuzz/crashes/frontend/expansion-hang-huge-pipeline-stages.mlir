gpu.module @m {
  gpu.func @single(%a: memref<256x128xf16>, %b: memref<128x512xf16>, %c: memref<256x512xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [4, 1, 1], block = [384, 1, 1], smem = 200000>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4611686018427387904) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16>
    gpu.return
  }
}
