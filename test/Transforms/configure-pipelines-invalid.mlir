// RUN: weave-opt %s -weave-configure-pipelines -split-input-file -verify-diagnostics

// Contradictions between tile(auto), the op's clauses and #weave.kernel.

gpu.module @m {
  // expected-error @below {{weave kernel with 'auto' launch fields (block, cluster or smem) expects exactly one weave.matmul_pipeline to size them, found 2}}
  gpu.func @two_auto_pipelines(%a: memref<1024x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<1024x4096xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = auto, smem = auto>} {
    weave.matmul_pipeline %a, %b into %c tile(auto) : memref<1024x4096xf16>, memref<4096x4096xf16> into memref<1024x4096xf16>
    weave.matmul_pipeline %a, %b into %c tile(auto) : memref<1024x4096xf16>, memref<4096x4096xf16> into memref<1024x4096xf16>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @block_contradicts_split(%a: memref<1024x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<1024x4096xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [256, 1, 1], smem = auto>} {
    // expected-error @below {{'weave.matmul_pipeline' op has no tile configuration that satisfies the given constraints (1 consumer warpgroup(s), split n, cluster_m(1))}}
    weave.matmul_pipeline %a, %b into %c tile(auto) {split = #weave<split n>} : memref<1024x4096xf16>, memref<4096x4096xf16> into memref<1024x4096xf16>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @smem_too_small(%a: memref<1024x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<1024x4096xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = auto, smem = 20000>} {
    // expected-error @below {{'weave.matmul_pipeline' op has no tile configuration that satisfies the given constraints (cluster_m(1), at most 20000 bytes of shared memory)}}
    weave.matmul_pipeline %a, %b into %c tile(auto) : memref<1024x4096xf16>, memref<4096x4096xf16> into memref<1024x4096xf16>
    gpu.return
  }
}

// -----

gpu.module @m {
  // A region would see a row tile padded to a whole cluster: with a
  // dynamic row count no cluster configuration remains.
  gpu.func @cluster_with_dynamic_rows_and_region(%a: memref<?x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<?x4096xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = auto, cluster = [2, 1, 1], smem = auto>} {
    // expected-error @below {{'weave.matmul_pipeline' op has no tile configuration that satisfies the given constraints (cluster_m(2))}}
    weave.matmul_pipeline %a, %b into %c tile(auto) : memref<?x4096xf16>, memref<4096x4096xf16> into memref<?x4096xf16>
        before_load {
    ^bb0(%m: index, %n: index, %k: index):
    }
    gpu.return
  }
}
