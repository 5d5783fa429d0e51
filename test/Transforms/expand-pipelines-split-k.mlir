// RUN: weave-opt %s -split-input-file -weave-expand-pipelines | FileCheck %s

// split_k(3): the units of a tile are its 3 splits (unit u: tile u / 3,
// split u mod 3, k steps [j * 64 / 3, (j + 1) * 64 / 3)); the consumers of
// the last split wait for the counter, reset it, add the other splits'
// partials and store; the others store their partials and arrive
// (SplitKFixup.h).

// CHECK-LABEL: gpu.func @split_k
// The producer walks the units: 16 tiles x 3.
//       CHECK:   scf.for %[[PU:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
//       CHECK:     arith.divui %[[PU]], %c3{{.*}}
//       CHECK:     arith.remui %[[PU]], %c3{{.*}}
// The consumers, per unit:
//       CHECK:   nvvm.setmaxregister  increase 240
//       CHECK:   scf.for %[[U:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
//       CHECK:     %[[TILE:.*]] = arith.divui %[[U]], %c3{{.*}}
//       CHECK:     %[[SPLIT:.*]] = arith.remui %[[U]], %c3{{.*}}
//       CHECK:     memref.extract_aligned_pointer_as_index %{{.*}} : memref<600000xf32> -> index
//       CHECK:     %[[LAST:.*]] = arith.cmpi eq, %[[SPLIT]], %c2{{.*}}
//       CHECK:     scf.if %[[LAST]] {
//       CHECK:       ld.acquire.gpu.global.u32
//       CHECK:       st.relaxed.gpu.global.u32 [$0], 0;
//       CHECK:       nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
//       CHECK:       llvm.load volatile %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
//       CHECK:       weave.copy_smem_to_gmem
//       CHECK:     } else {
//       CHECK:       llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
//       CHECK:       nvvm.barrier id
//       CHECK:       fence.acq_rel.gpu;
//  CHECK-SAME:       red.relaxed.gpu.global.add.u32 [$0], 1;
//       CHECK:     }
gpu.module @m {
  gpu.func @split_k(%a: memref<64x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<64x4096xf16>, %ws: memref<600000xf32>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [132, 1, 1], block = [256, 1, 1], smem = 181312>} {
    weave.matmul_pipeline %a, %b into %c tile(64, 256, 64) stages(4) split_k(3) workspace(%ws : memref<600000xf32>) {consumers = 1 : i64} : memref<64x4096xf16>, memref<4096x4096xf16> into memref<64x4096xf16>
    gpu.return
  }
}

// -----

// 16 rows of a 64-row tile (a decode step): a thread whose rows all lie
// past row 16 (warps 1-3 of the warpgroup) neither stores its partial nor
// loads the other splits': the fix-up moves a quarter of the words
// (SplitKFixup::skipRowsPast). The rows are those of the tile's start,
// 16 x warp + lane / 4.
// The lhs box is 16 rows, not the tile's 64 (MatmulTiling::lhsBoxRows: TMA
// would zero-fill 48), and each stage's barrier expects 16 x 128 + 64 x
// 512 bytes.
// CHECK-LABEL: gpu.func @split_k_rows
//       CHECK:   nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c34816_i32
//       CHECK:   weave.copy_gmem_to_smem %arg0[{{.*}} : memref<16x4096xf16> -> memref<16x64xf16, #gpu.address_space<workgroup>>
//       CHECK:   nvvm.setmaxregister  increase 240
//       CHECK:     %[[LAST:.*]] = arith.cmpi eq, %{{.*}}, %c2{{.*}}
//       CHECK:     scf.if %[[LAST]] {
//       CHECK:       ld.acquire.gpu.global.u32
//       CHECK:       %[[PRESENT:.*]] = arith.cmpi ult, %{{.*}}, %c16{{.*}} : index
//       CHECK:       scf.for
//       CHECK:         scf.if %[[PRESENT]] -> (!llvm.struct
//       CHECK:           llvm.load volatile
//       CHECK:       weave.copy_smem_to_gmem
//       CHECK:     } else {
//       CHECK:       %[[STORES:.*]] = arith.cmpi ult, %{{.*}}, %c16{{.*}} : index
//       CHECK:       scf.if %[[STORES]] {
//       CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
//       CHECK:       fence.acq_rel.gpu;
gpu.module @rows {
  gpu.func @split_k_rows(%a: memref<16x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<16x4096xf16>, %ws: memref<600000xf32>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [132, 1, 1], block = [256, 1, 1], smem = 181312>} {
    weave.matmul_pipeline %a, %b into %c tile(64, 256, 64) stages(4) split_k(3) workspace(%ws : memref<600000xf32>) {consumers = 1 : i64} : memref<16x4096xf16>, memref<4096x4096xf16> into memref<16x4096xf16>
    gpu.return
  }
}
