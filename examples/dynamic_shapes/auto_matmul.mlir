// c = a @ b with a dynamic row count M, its configuration chosen by the
// compiler (tile(auto); block, cluster and smem follow the choice). For a
// dynamic M, weave-configure-pipelines makes one copy of the kernel per
// range of M that it configures differently (dynamic_matmul__m1_128,
// dynamic_matmul__m129_256, ...), each marked `weave.variant` of
// "dynamic_matmul": the runtime's Kernel::get("dynamic_matmul") loads them
// all and each launch runs the one whose range holds its M.
//
//   weavec auto_matmul.mlir --emit=bundle -o auto_matmul.wbundle
gpu.module @auto_matmul {
  gpu.func @dynamic_matmul(%a: memref<?x128xf16> {weave.name = "a"},
                           %b: memref<128x256xf16> {weave.name = "b"},
                           %c: memref<?x256xf16> {weave.name = "c"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>,
          grid = [persistent, 1, 1], block = auto, cluster = auto,
          smem = auto>} {
    weave.matmul_pipeline %a, %b into %c tile(auto)
        : memref<?x128xf16>, memref<128x256xf16> into memref<?x256xf16>
    gpu.return
  }
}
