// RUN: weave-opt %s -weave-verify-kernel -split-input-file -verify-diagnostics

// A matmul pipeline needs one producer and `consumers` consumer warpgroups,
// and the kernel's dynamic shared memory must cover it.

gpu.module @m {
  gpu.func @too_few_threads(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132, 1, 1], block = [256, 1, 1], smem = 200000>} {
    // expected-error @below {{'weave.matmul_pipeline' op needs 3 warpgroups (384 threads: one producer and 2 consumers), but the kernel's block has 256 threads}}
    weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @one_consumer(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132, 1, 1], block = [384, 1, 1], smem = 200000>} {
    // expected-error @below {{'weave.matmul_pipeline' op needs 2 warpgroups (256 threads: one producer and 1 consumers), but the kernel's block has 384 threads}}
    weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) {consumers = 1 : i64} : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @smem_too_small(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132, 1, 1], block = [384, 1, 1], smem = 65536>} {
    // expected-error @below {{'weave.matmul_pipeline' op needs 164928 bytes of dynamic shared memory, but the kernel declares smem = 65536}}
    weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @smem_default_zero(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf32>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132, 1, 1], block = [384, 1, 1]>} {
    // expected-error @below {{'weave.matmul_pipeline' op needs 197696 bytes of dynamic shared memory, but the kernel declares smem = 0}}
    weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf32>
    gpu.return
  }
}

// -----

// The callback's tiles are region arguments, not symmetric buffers: only the
// symmetric scratch it stores to is tracked, and it is a kernel argument.
gpu.module @m {
  gpu.func @callback_ok(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>, %scratch: memref<1024x4096xf16, #weave.symmetric>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132, 1, 1], block = [384, 1, 1], smem = 164928>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) delay_release(1) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> callback {
    ^bb0(%lhs: memref<128x64xf16, #gpu.address_space<workgroup>>, %rhs: memref<64x128xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %k: index):
      weave.copy_smem_to_gmem %lhs, %scratch[%m, %k] : memref<128x64xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xf16, #weave.symmetric>
      weave.wait_smem_to_gmem 0 read_only
    }
    gpu.return
  }
}
