gpu.module @m {
  gpu.func @pipeline(%a: memref<256x128xf16>, %b: memref<128x512xf16>, %c: memref<256x512xf16>, %scratch: memref<512x128xf16, #weave.symmetric>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [4, 1, 1], block = [384, 1, 1], smem = 200000>} {
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
      %row0 = arith.muli %m, %c128 : index
    %c256 = arith.constant 256 : index
    %sum = arith.addi %me, %c1 : index
    %next = arith.remui %sum, %n : index
    %base = arith.muli %me, %c256 : index
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(3) delay_release(1) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16> callback {
    ^bb0(%lhs: memref<128x64xf16, #gpu.address_space<workgroup>>, %rhs: memref<64x256xf16, #gpu.address_space<workgroup>>, %m: index, %nn: index, %k: index):
      %c128 = arith.constant 128 : index
      %c64 = arith.constant 64 : index
    %c1 = arith.constant 1 : index
      %row = arith.addi %base, %row0 : index
      %col = arith.muli %k, %c64 : index
      weave.copy_smem_to_gmem %lhs, %scratch[%row, %col] on %next : memref<128x64xf16, #gpu.address_space<workgroup>> -> memref<512x128xf16, #weave.symmetric>
      weave.wait_smem_to_gmem 0 read_only
    }
    gpu.return
  }
}
