// c = a @ b with a dynamic row count M (f16, f32 accumulation): one
// weave.matmul_pipeline over memref<?x128xf16> into memref<?x256xf16>. The
// expansion counts the row tiles from the launch size (memref.dim) and the
// tensor maps, built at launch with M rows, zero-fill the last lhs tile and
// clip the last output tile.
//
//   weavec dynamic_matmul.mlir --emit=bundle -o dynamic_matmul.wbundle
gpu.module @dynamic_matmul {
  gpu.func @dynamic_matmul(%a: memref<?x128xf16> {weave.name = "a"},
                           %b: memref<128x256xf16> {weave.name = "b"},
                           %c: memref<?x256xf16> {weave.name = "c"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>,
          grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4)
        : memref<?x128xf16>, memref<128x256xf16> into memref<?x256xf16>
    gpu.return
  }
}
