// A Hopper matmul, c = a @ b (f16 in, f32 accumulation, f16 out), as one
// weave.matmul_pipeline: weave-expand-pipelines turns it into a persistent,
// warp-specialized kernel (a TMA producer warpgroup and two wgmma consumer
// warpgroups over a 4-stage shared-memory ring, one block per SM).
//
//   weavec matmul.mlir --emit=bundle -o matmul.wbundle
//
// Block: 3 warpgroups (384 threads). Shared memory: 4 stages x (128x64 +
// 64x256) x 2 bytes, 2 x 2 epilogue boxes of 64 x 128 bytes, 8 mbarriers
// and 1024 bytes of alignment slack = 230464 bytes.
module attributes {gpu.container_module} {
gpu.module @matmul {
  gpu.func @matmul(%a: memref<1024x4096xf16> {weave.name = "a"},
                   %b: memref<4096x4096xf16> {weave.name = "b"},
                   %c: memref<1024x4096xf16> {weave.name = "c"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>,
          grid = [132, 1, 1], block = [384, 1, 1], smem = 230464>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4)
        : memref<1024x4096xf16>, memref<4096x4096xf16> into memref<1024x4096xf16>
    gpu.return
  }
}
}
