// RUN: weave-opt %s --verify-roundtrip | FileCheck %s

// tile(auto) and `auto` kernel fields parse and print; a missing tile
// clause is tile(auto).

gpu.module @m {
// CHECK-LABEL: gpu.func @auto_tile
//  CHECK-SAME:   #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = auto, cluster = auto, smem = auto>
//       CHECK:   weave.matmul_pipeline %{{.*}}, %{{.*}} into %{{.*}} tile(auto) : memref<512x4096xf16>
gpu.func @auto_tile(%a: memref<512x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<512x4096xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = auto, cluster = auto, smem = auto>} {
  weave.matmul_pipeline %a, %b into %c tile(auto) : memref<512x4096xf16>, memref<4096x4096xf16> into memref<512x4096xf16>
  gpu.return
}

// CHECK-LABEL: gpu.func @no_tile_clause
//  CHECK-SAME:   block = [384, 1, 1], smem = auto>
//       CHECK:   weave.matmul_pipeline %{{.*}}, %{{.*}} into %{{.*}} tile(auto) stages(4) : memref<?x4096xbf16>
gpu.func @no_tile_clause(%a: memref<?x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<?x4096xbf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [384, 1, 1], smem = auto>} {
  weave.matmul_pipeline %a, %b into %c stages(4) : memref<?x4096xbf16>, memref<4096x4096xbf16> into memref<?x4096xbf16>
  gpu.return
}
}
