gpu.module @m {
  gpu.func @store_to_owner(%dst: memref<256x64xf32, #weave.symmetric> {weave.name = "dst"}, %owner: memref<1xi32> {weave.name = "owner"})
      workgroup(%tile: memref<64x32xf32, #gpu.address_space<workgroup>>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 4>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %o = memref.load %owner[%c0] : memref<1xi32>
    %dev = arith.index_cast %o : i32 to index
    weave.copy_smem_to_gmem %tile, %dst[%c0, %c0] on %dev : memref<64x32xf32, #gpu.address_space<workgroup>> -> memref<256x64xf32, #weave.symmetric>
    weave.wait_smem_to_gmem 0
    gpu.return
  }
}
