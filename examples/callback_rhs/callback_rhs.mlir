// The rhs tile in a matmul_pipeline callback: on the first row tile (m = 0)
// the callback stores the rhs tile of every step (k, n), a 64 x 256 tile of
// b, into the symmetric `bcopy` of member (device + n) mod D at the same
// rows and columns. The device is known only at run time, so the store goes
// through the per-member tensor-map table; the expansion splits the tile
// into its four 64-column boxes. Member d ends with column tile n of
// `bcopy` equal to that of member (d - n) mod D's b. The pipeline's own
// product c = a @ b (f32) is left as it is. Ragged on purpose: 320 columns
// (a second column tile of 64: the boxes past the edge are clipped).
module attributes {gpu.container_module} {
gpu.module @callback_rhs {
  gpu.func @callback_rhs(%a: memref<200x192xbf16> {weave.name = "a"},
                         %b: memref<192x320xbf16> {weave.name = "b"},
                         %c: memref<200x320xf32> {weave.name = "c"},
                         %bcopy: memref<192x320xbf16, #weave.symmetric> {weave.name = "bcopy"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>,
          grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4)
        : memref<200x192xbf16>, memref<192x320xbf16> into memref<200x320xf32>
        callback {
    ^bb0(%lhs: memref<128x64xbf16, #gpu.address_space<workgroup>>,
         %rhs: memref<64x256xbf16, #gpu.address_space<workgroup>>,
         %m: index, %n: index, %k: index):
      %first = arith.cmpi eq, %m, %c0 : index
      scf.if %first {
        %me = weave.device_id "x"
        %d = weave.num_devices "x"
        %s = arith.addi %me, %n : index
        %dst = arith.remui %s, %d : index
        %row = arith.muli %k, %c64 : index
        %col = arith.muli %n, %c256 : index
        weave.copy_smem_to_gmem %rhs, %bcopy[%row, %col] on %dst
            : memref<64x256xbf16, #gpu.address_space<workgroup>> -> memref<192x320xbf16, #weave.symmetric>
        // The slot goes back after this callback (delay_release 0): the
        // stores must have read it.
        weave.wait_smem_to_gmem 0 read_only
      }
    }
    gpu.return
  }
}
}
