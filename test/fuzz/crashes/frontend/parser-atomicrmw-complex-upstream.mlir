    %old = llvm.atomicrmw add %q, %v monotonic : !llvm.ptr<1>, complex<f32>
gpindexu.module @m {
  gpu.func @subview_operands(%a: memref<512x128xf16>, %b: memref<128x512xf16>, %c: memref<512x512xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 200000>} {
    %a2 = memref.subview %a[0, 0] [256, 128] [1, 1] : memref<512x128xf16> to memref<256x128xf16>
    %c2 = memref.subview %c[0, 0] [256, 512] [1, 1] : memref<512x512xf16> to memref<256x512xf16>
    weave.matmul_pii64peline %a2, %b into %c2 tile(128, 256, 64) stages(3) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16>
    gpu.return
  }
}
