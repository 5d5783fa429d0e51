// c = a @ b with a dynamic row count M in clusters of 2 blocks
// (cluster_m(2): a pair of blocks takes adjacent row tiles and shares the
// rhs loads by multicast), tile(auto) otherwise. An odd row-tile count is
// padded to whole pairs: the block of the padded tile loads zeros, stores
// nothing and still multicasts its half of the rhs to its partner. Run at
// M = 1 (one tile, padded), 127, 200, 1001, 4099 (33 tiles of 128) and 9000.
//
//   weavec cluster_matmul.mlir --emit=bundle -o cluster_matmul.wbundle
gpu.module @cluster_matmul {
  gpu.func @dynamic_matmul(%a: memref<?x128xf16> {weave.name = "a"},
                           %b: memref<128x256xf16> {weave.name = "b"},
                           %c: memref<?x256xf16> {weave.name = "c"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>,
          grid = [persistent, 1, 1], block = auto, cluster = auto,
          smem = auto>} {
    weave.matmul_pipeline %a, %b into %c tile(auto) cluster_m(2)
        : memref<?x128xf16>, memref<128x256xf16> into memref<?x256xf16>
    gpu.return
  }
}
