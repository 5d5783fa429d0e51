// RUN: weave-opt %s -weave-configure-pipelines -split-input-file | FileCheck %s

// A pipeline whose tile is fixed (written, or spelled by a callback's tile
// arguments) still gets the kernel's `auto` launch fields filled in, and
// the chooser picks what the user left open (issue #29: an explicit tile
// forced a hand-computed smem).

// An explicit tile and stages: smem = auto is the pipeline's own need
// (the ring, the epilogue boxes, the barriers), block = auto its warpgroups.
// CHECK-LABEL: gpu.func @explicit_tile_smem_auto
//  CHECK-SAME:   block = [384, 1, 1], smem = 230464>
//       CHECK:   weave.matmul_pipeline {{.*}} tile(128, 256, 64) stages(4) :
gpu.module @m {
  gpu.func @explicit_tile_smem_auto(%a: memref<1024x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<1024x4096xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = auto, smem = auto>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) : memref<1024x4096xf16>, memref<4096x4096xf16> into memref<1024x4096xf16>
    gpu.return
  }
}

// -----

// An explicit tile without stages: the tile stays, the chooser picks the
// stages (the most that fit: 128x128 tiles take 6).
// CHECK-LABEL: gpu.func @explicit_tile_chosen_stages
//  CHECK-SAME:   block = [384, 1, 1], smem =
//       CHECK:   weave.matmul_pipeline {{.*}} tile(128, 128, 64) stages(6) :
gpu.module @m {
  gpu.func @explicit_tile_chosen_stages(%a: memref<1024x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<1024x4096xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = auto, smem = auto>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) : memref<1024x4096xf16>, memref<4096x4096xf16> into memref<1024x4096xf16>
    gpu.return
  }
}

// -----

// tile(auto) with a callback and an epilogue: the callback's 128x64 and
// 64x256 tiles fix the tile (not the 128x128 the shape alone would get at
// 512 rows); the stages and the launch fields are chosen.
// CHECK-LABEL: gpu.func @auto_tile_from_callback
//  CHECK-SAME:   block = [384, 1, 1], smem = 230464>
//       CHECK:   weave.matmul_pipeline {{.*}} tile(128, 256, 64) stages(4) :
gpu.module @m {
  gpu.func @auto_tile_from_callback(%a: memref<512x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<512x4096xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = auto, smem = auto>} {
    weave.matmul_pipeline %a, %b into %c tile(auto) : memref<512x4096xf16>, memref<4096x4096xf16> into memref<512x4096xf16>
        callback {
    ^bb0(%l: memref<128x64xf16, #gpu.address_space<workgroup>>, %r: memref<64x256xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %k: index):
      weave.yield
    }
        epilogue {
    ^bb0(%box: memref<64x64xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %i: index):
      weave.yield
    }
    gpu.return
  }
}

// -----

// A callback tile no base configuration has (64x128): a candidate of its
// own, one consumer of 64 rows.
// CHECK-LABEL: gpu.func @auto_tile_unusual_callback
//  CHECK-SAME:   block = [256, 1, 1]
//       CHECK:   weave.matmul_pipeline {{.*}} tile(64, 128, 64) stages({{[0-9]+}}) {{.*}}consumers = 1
gpu.module @m {
  gpu.func @auto_tile_unusual_callback(%a: memref<512x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<512x4096xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = auto, smem = auto>} {
    weave.matmul_pipeline %a, %b into %c tile(auto) : memref<512x4096xf16>, memref<4096x4096xf16> into memref<512x4096xf16>
        callback {
    ^bb0(%l: memref<64x64xf16, #gpu.address_space<workgroup>>, %r: memref<64x128xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %k: index):
      weave.yield
    }
    gpu.return
  }
}
