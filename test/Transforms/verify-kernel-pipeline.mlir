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
    weave.matmul_pipeline %a, %b into %c tile(64, 128, 64) stages(4) {consumers = 1 : i64} : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
    gpu.return
  }
}

// -----

// 4 stages of 128x64 + 64x128 f16 tiles (131072), the 32768-byte epilogue,
// 8 mbarriers and 1024 bytes of alignment slack.
gpu.module @m {
  gpu.func @smem_too_small(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132, 1, 1], block = [384, 1, 1], smem = 65536>} {
    // expected-error @below {{'weave.matmul_pipeline' op needs 164928 bytes of dynamic shared memory, but the kernel declares smem = 65536}}
    weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
    gpu.return
  }
}

// -----

// One consumer, bf16, 2 stages of 64x64 tiles: 2 * (64*64 + 64*64) * 2 ring
// + 8192 epilogue + 32 of mbarriers + 1024 of alignment slack.
gpu.module @m {
  gpu.func @smem_default_zero(%a: memref<1024x4096xbf16>, %b: memref<4096x1024xbf16>, %c: memref<1024x1024xbf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132, 1, 1], block = [256, 1, 1]>} {
    // expected-error @below {{'weave.matmul_pipeline' op needs 42016 bytes of dynamic shared memory, but the kernel declares smem = 0}}
    weave.matmul_pipeline %a, %b into %c tile(64, 64, 64) stages(2) {consumers = 1 : i64} : memref<1024x4096xbf16>, memref<4096x1024xbf16> into memref<1024x1024xbf16>
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

// -----

// One byte short of the need above.
gpu.module @m {
  gpu.func @smem_one_short(%a: memref<1024x4096xbf16>, %b: memref<4096x1024xbf16>, %c: memref<1024x1024xbf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132, 1, 1], block = [256, 1, 1], smem = 42015>} {
    // expected-error @below {{'weave.matmul_pipeline' op needs 42016 bytes of dynamic shared memory, but the kernel declares smem = 42015}}
    weave.matmul_pipeline %a, %b into %c tile(64, 64, 64) stages(2) {consumers = 1 : i64} : memref<1024x4096xbf16>, memref<4096x1024xbf16> into memref<1024x1024xbf16>
    gpu.return
  }
}

// -----

// before_load and rotate_m: the semaphore the producer waits on is a kernel
// argument; edge tiles (M = 1000) need no more threads or memory.
gpu.module @m {
  gpu.func @before_load_ok(%a: memref<1000x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1000x1024xf16>, %sems: !weave.semaphore<8>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132, 1, 1], block = [384, 1, 1], smem = 164928>} {
    %me = weave.device_id "x"
    weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) rotate_m(%me) : memref<1000x4096xf16>, memref<4096x1024xf16> into memref<1000x1024xf16> before_load {
    ^bb0(%m: index, %n: index, %k: index):
      %one = arith.constant 1 : i32
      weave.semaphore_wait %sems[%m], %one : !weave.semaphore<8>
    }
    gpu.return
  }
}

// -----

// cluster_m(2) pairs the blocks of a [2, 1, 1] cluster.
gpu.module @m {
  gpu.func @no_cluster(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132, 1, 1], block = [384, 1, 1], smem = 230464>} {
    // expected-error @below {{'weave.matmul_pipeline' op with cluster_m(2) needs the kernel's cluster to be [2, 1, 1] (set cluster = [2, 1, 1] in #weave.kernel)}}
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) cluster_m(2) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @cluster_along_y(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [66, 2, 1], cluster = [1, 2, 1], block = [384, 1, 1], smem = 230464>} {
    // expected-error @below {{'weave.matmul_pipeline' op with cluster_m(2) needs the kernel's cluster to be [2, 1, 1] (set cluster = [2, 1, 1] in #weave.kernel)}}
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) cluster_m(2) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @paired(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132, 1, 1], cluster = [2, 1, 1], block = [384, 1, 1], smem = 230464>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) cluster_m(2) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @unconfigured(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132, 1, 1], block = [384, 1, 1], smem = 200000>} {
    // expected-error @below {{'weave.matmul_pipeline' op has tile(auto), which weave-configure-pipelines did not resolve; run it first (weavec does)}}
    weave.matmul_pipeline %a, %b into %c tile(auto) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @below {{weave kernel has 'auto' launch fields (block, cluster or smem) that weave-configure-pipelines did not fill in; run it first (weavec does)}}
  gpu.func @auto_fields(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132, 1, 1], block = auto, smem = auto>} {
    weave.matmul_pipeline %a, %b into %c tile(auto) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
    gpu.return
  }
}

// -----

// Two pipelines in one kernel: the second would re-initialize the first's
// mbarriers and reuse its shared memory with no barrier in between.
gpu.module @m {
  gpu.func @two_pipelines(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>, %d: memref<1024x1024xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132, 1, 1], block = [384, 1, 1], smem = 200000>} {
    // expected-note @below {{first pipeline here}}
    weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
    // expected-error @below {{'weave.matmul_pipeline' op expects one weave.matmul_pipeline per kernel: each one owns the kernel's dynamic shared memory and mbarriers from the start, and a second would reuse them with no barrier after the first; launch a second kernel (or give both products one pipeline)}}
    weave.matmul_pipeline %a, %b into %d tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
    gpu.return
  }
}

// -----

// The same pipeline run twice by a loop (a form no issue named).
gpu.module @m {
  gpu.func @pipeline_in_loop(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132, 1, 1], block = [384, 1, 1], smem = 200000>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.for %i = %c0 to %c2 step %c1 {
      // expected-error @below {{'weave.matmul_pipeline' op expects to run once per launch, but is inside 'scf.for': each run re-initializes the mbarriers and reuses the shared memory with no barrier after the previous one; launch the kernel once per product}}
      weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
    }
    gpu.return
  }
}

// -----

// Each operand becomes a tensor map built from a kernel argument: checked
// here (weavec prints nothing before it), not only in
// weave-expand-pipelines.
gpu.module @m {
  gpu.func @lhs_alloc(%b: memref<128x512xf16>, %c: memref<256x512xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 200000>} {
    %a = memref.alloc() : memref<256x128xf16>
    // expected-error @below {{'weave.matmul_pipeline' op expects lhs to be a kernel argument or a subview of one: its TMA tensor map is built on the host from the argument}}
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(3) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16>
    gpu.return
  }
}

// -----

// lhs_rows' range is whole row tiles: its row count and a constant first
// row.
gpu.module @m {
  gpu.func @lhs_rows_ragged(%a: memref<256x128xf16>, %own: memref<100x128xf16>, %b: memref<128x512xf16>, %c: memref<256x512xf16>, %at: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 200000>} {
    // expected-error @below {{'weave.matmul_pipeline' op expects lhs_rows' row count (100) to be a multiple of tile_m (128): a row tile is loaded from lhs or from the part, not from both}}
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(3) lhs_rows(%own at %at : memref<100x128xf16>) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @lhs_rows_at(%a: memref<256x128xf16>, %own: memref<128x128xf16>, %b: memref<128x512xf16>, %c: memref<256x512xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 200000>} {
    %at = arith.constant 64 : index
    // expected-error @below {{'weave.matmul_pipeline' op expects lhs_rows' first row (64) to be a non-negative multiple of tile_m (128)}}
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(3) lhs_rows(%own at %at : memref<128x128xf16>) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16>
    gpu.return
  }
}

// -----

// lhs_rows is loaded through a tensor map too.
gpu.module @m {
  gpu.func @lhs_rows_alloc(%a: memref<256x128xf16>, %b: memref<128x512xf16>, %c: memref<256x512xf16>, %at: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 200000>} {
    %own = memref.alloc() : memref<128x128xf16>
    // expected-error @below {{'weave.matmul_pipeline' op expects lhs_rows to be a kernel argument or a subview of one: its TMA tensor map is built on the host from the argument}}
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(3) lhs_rows(%own at %at : memref<128x128xf16>) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @edge_of_view(%a: memref<512x128xf16>, %b: memref<128x512xf16>, %c: memref<512x512xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 230464>} {
    %a2 = memref.subview %a[0, 0][200, 128][1, 1] : memref<512x128xf16> to memref<200x128xf16>
    %c2 = memref.subview %c[0, 0][200, 512][1, 1] : memref<512x512xf16> to memref<200x512xf16>
    // expected-error @below {{expects lhs dimension 0 (200) to be a multiple of its tile (128) when the view is smaller than its kernel argument}}
    weave.matmul_pipeline %a2, %b into %c2 tile(128, 256, 64) stages(4) : memref<200x128xf16>, memref<128x512xf16> into memref<200x512xf16>
    gpu.return
  }
}
