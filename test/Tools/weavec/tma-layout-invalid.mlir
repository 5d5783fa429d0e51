// RUN: weavec %s --emit=ptx --split-input-file --verify-diagnostics -o /dev/null

// A TMA copy whose tensor map the runtime cannot build (computeTmaLayout's
// rules) is an error at the op, before lowering; the bundle's own checks
// used to find it after ptxas and report "a compiler bug" at 1:1.

// A 64x12 f16 buffer has rows of 24 bytes; TMA needs global strides that
// are multiples of 16 bytes.
gpu.module @m {
  gpu.func @k(%a: memref<64x12xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1], smem = 16384>} {
    %c0 = arith.constant 0 : index
    %c8192 = arith.constant 8192 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %tile = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x8xf16, #gpu.address_space<workgroup>>
    %bar = memref.view %smem[%c8192][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<i64, #gpu.address_space<workgroup>>
    // expected-error @below {{'weave.copy_gmem_to_smem' op needs a tensor map the runtime cannot build: tma parameter 'arg0.tma0': global stride of dimension 1 is 24 bytes, expected a multiple of 16}}
    weave.copy_gmem_to_smem %a[%c0, %c0], %tile, %bar : memref<64x12xf16> -> memref<64x8xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// The store side: the first op that uses the map is the one reported.
gpu.module @m {
  gpu.func @k(%a: memref<64x12xf16> {weave.name = "out"}) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1], smem = 16384>} {
    %c0 = arith.constant 0 : index
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %tile = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x8xf16, #gpu.address_space<workgroup>>
    // expected-error @below {{'weave.copy_smem_to_gmem' op needs a tensor map the runtime cannot build: tma parameter 'out.tma0': global stride of dimension 1 is 24 bytes}}
    weave.copy_smem_to_gmem %tile, %a[%c0, %c0] : memref<64x8xf16, #gpu.address_space<workgroup>> -> memref<64x12xf16>
    weave.copy_smem_to_gmem %tile, %a[%c0, %c0] : memref<64x8xf16, #gpu.address_space<workgroup>> -> memref<64x12xf16>
    gpu.return
  }
}
