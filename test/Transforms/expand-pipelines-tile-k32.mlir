// RUN: weave-opt %s --weave-expand-pipelines | FileCheck %s --implicit-check-not=weave.matmul_pipeline

// tile_k = 32 (f16): lhs rows are 64 bytes, so the lhs tile is loaded and
// read with the 64-byte swizzle; the rhs keeps 64-column boxes of 128-byte
// rows, now 32 rows high. A stage is 128x32 + 32x256 f16 = 24576 bytes.
// CHECK-LABEL: gpu.func @k32
//       CHECK:   nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c24576_i32
//       CHECK:   weave.copy_gmem_to_smem %{{.*}} {swizzle = 64 : i64, weave.coordinates_in_range} : memref<256x128xf16> -> memref<128x32xf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-4: weave.copy_gmem_to_smem %{{.*}} {swizzle = 128 : i64, weave.coordinates_in_range} : memref<128x512xf16> -> memref<32x64xf16, #gpu.address_space<workgroup>>
// Descriptors (constant part): rhs with leading byte offset 4096 (one
// 32-row box) >> 4, stride 1024 >> 4 and mode 1 (128-byte swizzle):
// 0x4000004001000000; lhs with leading 16 >> 4, stride 8 rows x 64 bytes =
// 512 >> 4 and mode 2 (64-byte swizzle): 0x8000002000010000. Two k16
// wgmma per step.
//       CHECK:   arith.constant 4611686293322072064 : i64
//       CHECK:   arith.constant -9223371899415756800 : i64
//       CHECK:   nvvm.wgmma.mma_async
//       CHECK:   arith.constant 4611686293322072064 : i64
//       CHECK:   arith.constant -9223371899415756800 : i64
//       CHECK:   nvvm.wgmma.mma_async
//   CHECK-NOT:   nvvm.wgmma.mma_async
//       CHECK:   nvvm.wgmma.commit.group.sync.aligned
gpu.module @m {
  gpu.func @k32(%a: memref<256x128xf16>, %b: memref<128x512xf16>, %c: memref<256x512xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 230528>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 32) stages(8) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16>
    gpu.return
  }
}
