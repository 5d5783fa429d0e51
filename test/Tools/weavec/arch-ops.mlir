// RUN: weavec %s --emit=ptx --arch=sm_80 --split-input-file --verify-diagnostics -o /dev/null
// RUN: weavec %s --emit=ptx --arch=sm_90a --split-input-file -o /dev/null

// An op without an instruction on the target architecture is an error at
// the op (a bf16x2 reduction failed in ptxas, at 0:0). On sm_90a (second
// RUN) every kernel here compiles.

gpu.module @m {
  gpu.func @bf16_pairs(%buf: memref<1024xbf16, #weave.symmetric>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    %i = arith.constant 0 : index
    %v = arith.constant dense<1.0> : vector<2xbf16>
    // expected-error @below {{a bf16x2 atomic add (red.global.add.noftz.bf16x2) needs sm_90, but the target is --arch=sm_80; compile for sm_90 or sm_90a (or add f16 pairs or f32, which older GPUs reduce)}}
    weave.atomic_add %v, %buf[%i] : vector<2xbf16>, memref<1024xbf16, #weave.symmetric>
    gpu.return
  }
}

// -----

// f16 pairs and f32 reduce on sm_80.
gpu.module @m {
  gpu.func @f16_pairs(%buf: memref<1024xf16, #weave.symmetric>, %f: memref<16xf32, #weave.symmetric>, %x: f32) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %v = arith.constant dense<1.0> : vector<2xf16>
    weave.atomic_add %v, %buf[%c0] : vector<2xf16>, memref<1024xf16, #weave.symmetric>
    weave.atomic_add %x, %f[%c0] : f32, memref<16xf32, #weave.symmetric>
    gpu.return
  }
}

// -----

// A TMA store (a related op no issue named).
gpu.module @m {
  gpu.func @tma_store(%dst: memref<256x64xf32, #weave.symmetric>)
      workgroup(%tile: memref<64x64xf32, #gpu.address_space<workgroup>>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    // expected-error @below {{a TMA copy (cp.async.bulk.tensor) needs sm_90, but the target is --arch=sm_80}}
    weave.copy_smem_to_gmem %tile, %dst[%c0, %c0]
        : memref<64x64xf32, #gpu.address_space<workgroup>> -> memref<256x64xf32, #weave.symmetric>
    gpu.return
  }
}

// -----

// A cluster.
gpu.module @m {
  // expected-error @below {{a thread block cluster needs sm_90, but the target is --arch=sm_80}}
  gpu.func @clustered(%a: memref<16xf32>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [2, 1, 1], block = [32, 1, 1], cluster = [2, 1, 1]>} {
    gpu.return
  }
}
