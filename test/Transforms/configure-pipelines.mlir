// RUN: weave-opt %s -weave-configure-pipelines -split-input-file | FileCheck %s

// weave-configure-pipelines chooses a configuration per shape and fills in
// the kernel's `auto` fields from it (Pipeline/ConfigChooser.h).

// Where 128x256 tiles fill whole waves, they are kept: 8 x 16 = 128 tiles
// on 132 SMs.
// CHECK-LABEL: gpu.func @fills_the_machine
//  CHECK-SAME:   grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>
//       CHECK:   weave.matmul_pipeline {{.*}} tile(128, 256, 64) stages(4) :
gpu.module @m {
  gpu.func @fills_the_machine(%a: memref<1024x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<1024x4096xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = auto, cluster = auto, smem = auto>} {
    weave.matmul_pipeline %a, %b into %c tile(auto) : memref<1024x4096xf16>, memref<4096x4096xf16> into memref<1024x4096xf16>
    gpu.return
  }
}

// -----

// 512 rows: 64 tiles of 128x256 leave half the SMs idle; 128 tiles of
// 128x128 or 64x256 fill them, with the most stages that fit (6 and 5).
// CHECK-LABEL: gpu.func @half_a_wave
//       CHECK:   weave.matmul_pipeline {{.*}} tile({{128, 128, 64\) stages\(6|64, 256, 64\) stages\(5}})
gpu.module @m {
  gpu.func @half_a_wave(%a: memref<512x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<512x4096xbf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = auto, cluster = auto, smem = auto>} {
    weave.matmul_pipeline %a, %b into %c tile(auto) : memref<512x4096xbf16>, memref<4096x4096xbf16> into memref<512x4096xbf16>
    gpu.return
  }
}

// -----

// rhs rows off the 32-byte grid (4040 f16 = 8080 bytes) with 8 row tiles
// of 128: a cluster of 2 shares the rhs boxes.
// CHECK-LABEL: gpu.func @rhs_off_grid
//  CHECK-SAME:   cluster = [2, 1, 1]
//       CHECK:   weave.matmul_pipeline {{.*}} tile(128, 256, 64) stages(4) cluster_m(2) :
gpu.module @m {
  gpu.func @rhs_off_grid(%a: memref<1000x4000xf16>, %b: memref<4000x4040xf16>, %c: memref<1000x4040xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = auto, cluster = auto, smem = auto>} {
    weave.matmul_pipeline %a, %b into %c tile(auto) : memref<1000x4000xf16>, memref<4000x4040xf16> into memref<1000x4040xf16>
    gpu.return
  }
}

// -----

// The kernel's explicit block (256 threads) fixes one consumer: 64x256,
// with the 5 stages that fit.
// CHECK-LABEL: gpu.func @block_fixes_consumers
//  CHECK-SAME:   block = [256, 1, 1]
//       CHECK:   weave.matmul_pipeline {{.*}} tile(64, 256, 64) stages(5)
//  CHECK-SAME:     {consumers = 1 : i64}
gpu.module @m {
  gpu.func @block_fixes_consumers(%a: memref<1024x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<1024x4096xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [256, 1, 1], cluster = auto, smem = auto>} {
    weave.matmul_pipeline %a, %b into %c tile(auto) : memref<1024x4096xf16>, memref<4096x4096xf16> into memref<1024x4096xf16>
    gpu.return
  }
}

// -----

// An explicit tile is honoured, and the kernel keeps its fields.
// CHECK-LABEL: gpu.func @explicit_tile
//  CHECK-SAME:   block = [384, 1, 1], smem = 230464>
//       CHECK:   weave.matmul_pipeline {{.*}} tile(256, 128, 64) stages(4) :
gpu.module @m {
  gpu.func @explicit_tile(%a: memref<512x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<512x4096xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>} {
    weave.matmul_pipeline %a, %b into %c tile(256, 128, 64) stages(4) : memref<512x4096xf16>, memref<4096x4096xf16> into memref<512x4096xf16>
    gpu.return
  }
}

// -----

// A dynamic row count read from an argument: one copy of the kernel per
// range of rows the chooser configures differently, in increasing M from 1
// with no upper bound on the last, each a weave.variant of the kernel's
// name for dimension 0 of argument 0 (odd row-tile counts of a cluster are
// padded, so a variant may take one; split-K needs a workspace). The
// kernel itself goes.
//   CHECK-NOT: gpu.func @dynamic_rows(
//       CHECK: gpu.func @dynamic_rows__m1_[[HI:[0-9]+]](
//  CHECK-SAME:   block = [{{[0-9]+}}, 1, 1]{{.*}}, smem = {{[0-9]+}}>, weave.variant = {arg = 0 : i64, axis = 0 : i64, hi = [[HI]] : i64, lo = 1 : i64, of = "dynamic_rows"}
//   CHECK-NOT:   split_k
//       CHECK:   weave.matmul_pipeline {{.*}} tile({{.*}}) stages({{[0-9]+}}) {{.*}}: memref<?x4096xf16>
//       CHECK: gpu.func @dynamic_rows__m{{[0-9]+}}_{{[0-9]+}}(
//  CHECK-SAME:   weave.variant = {arg = 0 : i64, axis = 0 : i64, hi = {{[0-9]+}} : i64, lo = {{[0-9]+}} : i64, of = "dynamic_rows"}
//       CHECK: gpu.func @dynamic_rows__m{{[0-9]+}}_up(
//  CHECK-SAME:   block = [384, 1, 1], smem = 230464>, weave.variant = {arg = 0 : i64, axis = 0 : i64, lo = {{[0-9]+}} : i64, of = "dynamic_rows"}
//       CHECK:   weave.matmul_pipeline {{.*}} tile(128, 256, 64) stages(4) :
//   CHECK-NOT: gpu.func @dynamic_rows
gpu.module @m {
  gpu.func @dynamic_rows(%a: memref<?x4096xf16>, %b: memref<4096x14336xf16>, %c: memref<?x14336xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = auto, cluster = auto, smem = auto>} {
    weave.matmul_pipeline %a, %b into %c tile(auto) : memref<?x4096xf16>, memref<4096x14336xf16> into memref<?x14336xf16>
    gpu.return
  }
}

// -----

// 64 rows: 64 tiles of 128x64, whose lhs box holds the 64 rows only
// (MatmulTiling::lhsBoxRows; 12.6 us at 64 x 4096 x 4096 f16 against 13.8
// for 64x128 split_k(3), one H200), on 132 SMs. With a workspace the
// chooser splits K; the same kernel without one cannot.
// CHECK-LABEL: gpu.func @split_k_with_workspace
//       CHECK:   weave.matmul_pipeline {{.*}} tile(128, 64, 64) stages(8) split_k({{[2-9]|1[0-6]}}) workspace(
// CHECK-LABEL: gpu.func @no_workspace
//   CHECK-NOT:   split_k
//       CHECK:   gpu.return
gpu.module @m {
  gpu.func @split_k_with_workspace(%a: memref<64x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<64x4096xf16>, %ws: memref<4194304xf32>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = auto, cluster = auto, smem = auto>} {
    weave.matmul_pipeline %a, %b into %c tile(auto) workspace(%ws : memref<4194304xf32>) : memref<64x4096xf16>, memref<4096x4096xf16> into memref<64x4096xf16>
    gpu.return
  }
  gpu.func @no_workspace(%a: memref<64x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<64x4096xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = auto, cluster = auto, smem = auto>} {
    weave.matmul_pipeline %a, %b into %c tile(auto) : memref<64x4096xf16>, memref<4096x4096xf16> into memref<64x4096xf16>
    gpu.return
  }
}

// -----

// A kernel marked as a variant by hand is configured for its own range of
// rows, not copied again: at most 64 rows, 64x128 tiles with one consumer
// in pairs (a cluster of two: 64 blocks streaming the rhs) where large M
// takes 128x256 (a padded pair of two-consumer blocks streams slowly:
// kPaddedClusterLoadShare).
// CHECK-LABEL: gpu.func @few_rows(
//  CHECK-SAME:   weave.variant = {arg = 0 : i64, axis = 0 : i64, hi = 64 : i64, lo = 1 : i64, of = "mm"}
//       CHECK:   weave.matmul_pipeline {{.*}} tile(64, 128, 64) stages(8) cluster_m(2) {consumers = 1 : i64}
//   CHECK-NOT: gpu.func @few_rows__m
gpu.module @m {
  gpu.func @few_rows(%a: memref<?x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<?x4096xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = auto, cluster = auto, smem = auto>, weave.variant = {of = "mm", arg = 0, axis = 0, lo = 1, hi = 64}} {
    weave.matmul_pipeline %a, %b into %c tile(auto) : memref<?x4096xf16>, memref<4096x4096xf16> into memref<?x4096xf16>
    gpu.return
  }
}

// -----

// An explicit tile is honoured with a dynamic row count: one kernel.
// CHECK-LABEL: gpu.func @explicit_tile(
//       CHECK:   tile(128, 128, 64) stages(4)
//   CHECK-NOT: gpu.func @explicit_tile__m
gpu.module @m {
  gpu.func @explicit_tile(%a: memref<?x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<?x4096xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [384, 1, 1], smem = 164928>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<?x4096xf16>, memref<4096x4096xf16> into memref<?x4096xf16>
    gpu.return
  }
}
