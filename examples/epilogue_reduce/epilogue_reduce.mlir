// The epilogue region of weave.matmul_pipeline with TMA reductions: every
// device d computes its partial product P_d = a @ b into f32 boxes and
// reduce-adds each box into its own `c` and into the next device's, so that
// device d ends with c = P_d + P_(d-1 mod D) (c zeroed before the launch).
// The shapes are ragged on purpose: 200 rows (a second row tile of 72) and
// 320 columns (a second column tile of 64); TMA clips the reductions at the
// edges of `c`.
module attributes {gpu.container_module} {
gpu.module @epilogue_reduce {
  gpu.func @epilogue_reduce(%a: memref<200x256xbf16> {weave.name = "a"},
                            %b: memref<256x320xbf16> {weave.name = "b"},
                            %c: memref<200x320xf32, #weave.symmetric> {weave.name = "c"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>,
          grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>} {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4)
        : memref<200x256xbf16>, memref<256x320xbf16> into memref<200x320xf32, #weave.symmetric>
        epilogue {
    ^bb0(%box: memref<64x32xf32, #gpu.address_space<workgroup>>, %m: index, %n: index, %i: index):
      // Box i of tile (m, n): 64 rows x 32 columns, 8 boxes per 256 columns.
      %rb = arith.divui %i, %c8 : index
      %cb = arith.remui %i, %c8 : index
      %r0 = arith.muli %m, %c128 : index
      %r1 = arith.muli %rb, %c64 : index
      %row = arith.addi %r0, %r1 : index
      %q0 = arith.muli %n, %c256 : index
      %q1 = arith.muli %cb, %c32 : index
      %col = arith.addi %q0, %q1 : index
      %me = weave.device_id "x"
      %d = weave.num_devices "x"
      %sum = arith.addi %me, %c1 : index
      %next = arith.remui %sum, %d : index
      weave.copy_smem_to_gmem %box, %c[%row, %col] reduce(add)
          : memref<64x32xf32, #gpu.address_space<workgroup>> -> memref<200x320xf32, #weave.symmetric>
      weave.copy_smem_to_gmem %box, %c[%row, %col] reduce(add) on %next
          : memref<64x32xf32, #gpu.address_space<workgroup>> -> memref<200x320xf32, #weave.symmetric>
    }
    gpu.return
  }
}
}
