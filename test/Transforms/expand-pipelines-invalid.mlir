// RUN: weave-opt %s -split-input-file --weave-expand-pipelines -verify-diagnostics

// What weave-expand-pipelines cannot expand. Each pipeline operand becomes
// a TMA tensor map that the host builds from a kernel argument.

gpu.module @m {
  gpu.func @lhs_alloc(%b: memref<128x512xf16>, %c: memref<256x512xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 200000>} {
    %a = memref.alloc() : memref<256x128xf16>
    // expected-error @below {{'weave.matmul_pipeline' op expects lhs to be a kernel argument or a subview of one: its TMA tensor map is built on the host from the argument}}
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(3) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16>
    gpu.return
  }
}

// -----

// A view through something other than memref.subview is not followed.
gpu.module @m {
  gpu.func @out_cast(%a: memref<256x128xf16>, %b: memref<128x512xf16>, %c: memref<256x512xf16, 1>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 200000>} {
    %c2 = memref.memory_space_cast %c : memref<256x512xf16, 1> to memref<256x512xf16>
    // expected-error @below {{'weave.matmul_pipeline' op expects out to be a kernel argument or a subview of one: its TMA tensor map is built on the host from the argument}}
    weave.matmul_pipeline %a, %b into %c2 tile(128, 256, 64) stages(3) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16>
    gpu.return
  }
}

// -----

// A subview of a buffer that is not a kernel argument is no better.
gpu.module @m {
  gpu.func @rhs_subview_of_alloc(%a: memref<256x128xf16>, %c: memref<256x512xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 200000>} {
    %big = memref.alloc() : memref<256x512xf16>
    %b = memref.subview %big[0, 0] [128, 512] [1, 1] : memref<256x512xf16> to memref<128x512xf16>
    // expected-error @below {{'weave.matmul_pipeline' op expects rhs to be a kernel argument or a subview of one: its TMA tensor map is built on the host from the argument}}
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(3) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16>
    gpu.return
  }
}

// -----

// The rhs tile is stored as 64-column swizzled boxes, not as the
// 64x256 tile the callback's type describes: only a whole-tile store may
// read it (split into one store per box); anything else is an error at the
// use: a store into the tile,
gpu.module @m {
  gpu.func @callback_stores_into_rhs(%a: memref<256x128xf16>, %b: memref<128x512xf16>, %c: memref<256x512xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 200000>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(3) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16> callback {
    ^bb0(%lhs: memref<128x64xf16, #gpu.address_space<workgroup>>, %rhs: memref<64x256xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %k: index):
      %c0 = arith.constant 0 : index
      %v = arith.constant 1.0 : f16
      // expected-error @below {{'memref.store' op uses the rhs tile of a pipeline callback other than as the source of weave.copy_smem_to_gmem: the tile is stored as 4 swizzled boxes of 128-byte rows, which only a whole-tile TMA store (split into one store per box) reads}}
      memref.store %v, %rhs[%c0, %c0] : memref<64x256xf16, #gpu.address_space<workgroup>>
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @callback_loads_rhs(%a: memref<256x128xf16>, %b: memref<128x512xf16>, %c: memref<256x512xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 200000>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(3) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16> callback {
    ^bb0(%lhs: memref<128x64xf16, #gpu.address_space<workgroup>>, %rhs: memref<64x256xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %k: index):
      // or a load from it.
      // expected-error @below {{'memref.load' op uses the rhs tile of a pipeline callback other than as the source of weave.copy_smem_to_gmem: the tile is stored as 4 swizzled boxes of 128-byte rows}}
      %v = memref.load %rhs[%k, %n] : memref<64x256xf16, #gpu.address_space<workgroup>>
    }
    gpu.return
  }
}

// -----

// Pipelines do not nest: the inner one, in the outer one's callback, is
// reported.
gpu.module @m {
  gpu.func @nested(%a: memref<256x128xf16>, %b: memref<128x512xf16>, %c: memref<256x512xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 200000>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(3) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16> callback {
    ^bb0(%lhs: memref<128x64xf16, #gpu.address_space<workgroup>>, %rhs: memref<64x256xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %k: index):
      // expected-error @below {{'weave.matmul_pipeline' op cannot be nested in the callback region of another weave.matmul_pipeline}}
      weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(3) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16>
    }
    gpu.return
  }
}

// -----

// TMA clips at the edge of the kernel argument, not of the view: a view
// smaller than its argument may not end in an edge tile (rows 200..255 of
// %c would be written).
gpu.module @m {
  gpu.func @edge_of_view(%a: memref<512x128xf16>, %b: memref<128x512xf16>, %c: memref<512x512xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 230464>} {
    %a2 = memref.subview %a[0, 0][200, 128][1, 1] : memref<512x128xf16> to memref<200x128xf16>
    %c2 = memref.subview %c[0, 0][200, 512][1, 1] : memref<512x512xf16> to memref<200x512xf16>
    // expected-error @below {{expects lhs dimension 0 (200) to be a multiple of its tile (128) when the view is smaller than its kernel argument}}
    weave.matmul_pipeline %a2, %b into %c2 tile(128, 256, 64) stages(4) : memref<200x128xf16>, memref<128x512xf16> into memref<200x512xf16>
    gpu.return
  }
}

// -----

// A view that is a whole number of tiles is fine: 256 of 512 rows.
gpu.module @m {
  gpu.func @tiled_view(%a: memref<512x128xf16>, %b: memref<128x512xf16>, %c: memref<512x512xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 230464>} {
    %a2 = memref.subview %a[0, 0][256, 128][1, 1] : memref<512x128xf16> to memref<256x128xf16>
    %c2 = memref.subview %c[0, 0][256, 512][1, 1] : memref<512x512xf16> to memref<256x512xf16>
    weave.matmul_pipeline %a2, %b into %c2 tile(128, 256, 64) stages(4) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16>
    gpu.return
  }
}

// -----

// A dynamic-size view of an argument: its size cannot be shown to be a
// multiple of the tile, and TMA clips at the argument's edge (this used to
// compile with exit 0 and take the size as 2^63, never reading %m). (A row
// range of lhs is accepted where only out sees the products:
// expand-pipelines-dynamic.mlir.)
gpu.module @m {
  gpu.func @dynamic_view(%a: memref<?x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<8192x4096xf16>, %m: i64) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>} {
    %rows = arith.index_cast %m : i64 to index
    %c2 = memref.subview %c[0, 0] [%rows, 4096] [1, 1] : memref<8192x4096xf16> to memref<?x4096xf16>
    // expected-error @below {{'weave.matmul_pipeline' op expects out dimension 0 to be static when out is a view of its kernel argument (a dynamic size cannot be shown to be a multiple of the tile, and TMA clips at the argument's edge); pass the argument itself}}
    weave.matmul_pipeline %a, %b into %c2 tile(128, 256, 64) stages(4) : memref<?x4096xf16>, memref<4096x4096xf16> into memref<?x4096xf16>
    gpu.return
  }
}

// -----

// A row range of lhs with a region: the region would see the products of
// the rows past the range (the argument's next rows, not zeros).
gpu.module @m {
  gpu.func @lhs_row_range_with_region(%a: memref<8192x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<?x4096xf16>, %m: i64) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>} {
    %rows = arith.index_cast %m : i64 to index
    %a2 = memref.subview %a[0, 0] [%rows, 4096] [1, 1] : memref<8192x4096xf16> to memref<?x4096xf16>
    // expected-error @below {{'weave.matmul_pipeline' op expects lhs dimension 0 to be static when lhs is a view of its kernel argument}}
    weave.matmul_pipeline %a2, %b into %c tile(128, 256, 64) stages(4) : memref<?x4096xf16>, memref<4096x4096xf16> into memref<?x4096xf16> after_loads {
    }
    gpu.return
  }
}

// -----

// tile(auto) is resolved by weave-configure-pipelines (weavec runs it).
gpu.module @m {
  gpu.func @auto_tile(%a: memref<256x128xf16>, %b: memref<128x512xf16>, %c: memref<256x512xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 200000>} {
    // expected-error @below {{'weave.matmul_pipeline' op has tile(auto); run weave-configure-pipelines first}}
    weave.matmul_pipeline %a, %b into %c tile(auto) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16>
    gpu.return
  }
}
