// RUN: weave-opt %s -split-input-file --weave-expand-pipelines --canonicalize | FileCheck %s --implicit-check-not=weave.matmul_pipeline

// lhs_rows(%own at %at): the producer loads row tile m (row m * 128) from
// %own at row (m - %at / 128) * 128 where that tile is under %own's
// tiles (unsigned: a row tile above %at wraps past them), and from %a
// elsewhere; both into the same ring slot, with the same box, k offset and
// barrier. The tile range is in 32 bits (the producer warpgroup's
// registers). The rhs loads are unchanged.
// A range known only at run time that is not whole row tiles traps, once,
// before the producer's loop.
// CHECK-LABEL: gpu.func @part
//       CHECK:   %[[OWN_ROWS:.+]] = memref.dim %arg1, %c0 : memref<?x128xf16>
//  CHECK-NEXT:   %[[R1:.+]] = arith.remui %[[OWN_ROWS]], %c128 : index
//  CHECK-NEXT:   %[[R2:.+]] = arith.remui %arg4, %c128 : index
//  CHECK-NEXT:   %[[R:.+]] = arith.ori %[[R2]], %[[R1]] : index
//  CHECK-NEXT:   %[[BAD:.+]] = arith.cmpi ne, %[[R]], %c0 : index
//  CHECK-NEXT:   scf.if %[[BAD]] {
//  CHECK-NEXT:     llvm.intr.trap
//  CHECK-NEXT:   }
//  CHECK-NEXT:   %[[TILES:.+]] = arith.divui %[[OWN_ROWS]], %c128 : index
//  CHECK-NEXT:   %[[TILES32:.+]] = arith.index_castui %[[TILES]] : index to i32
//  CHECK-NEXT:   %[[FIRST:.+]] = arith.divui %arg4, %c128 : index
//  CHECK-NEXT:   %[[FIRST32:.+]] = arith.index_castui %[[FIRST]] : index to i32
//       CHECK:   %[[K:.+]] = arith.muli %{{.+}}, %c64 : index
//  CHECK-NEXT:   %[[ROW:.+]] = arith.muli %[[M:.+]], %c128 : index
//       CHECK:   %[[SLOT:.+]] = memref.view {{.+}} to memref<128x64xf16, #gpu.address_space<workgroup>>
//  CHECK-NEXT:   %[[M32:.+]] = arith.index_cast %[[M]] : index to i32
//  CHECK-NEXT:   %[[OFF:.+]] = arith.subi %[[M32]], %[[FIRST32]] : i32
//  CHECK-NEXT:   %[[IN:.+]] = arith.cmpi ult, %[[OFF]], %[[TILES32]] : i32
//  CHECK-NEXT:   scf.if %[[IN]] {
//  CHECK-NEXT:     %[[OFF_TILE:.+]] = arith.index_castui %[[OFF]] : i32 to index
//  CHECK-NEXT:     %[[OFF_ROW:.+]] = arith.muli %[[OFF_TILE]], %c128 : index
//  CHECK-NEXT:     weave.copy_gmem_to_smem %arg1[%[[OFF_ROW]], %[[K]]], %[[SLOT]], %[[BAR:[^ ]+]] {swizzle = 128 : i64, weave.coordinates_in_range} : memref<?x128xf16>
//  CHECK-NEXT:   } else {
//  CHECK-NEXT:     weave.copy_gmem_to_smem %arg0[%[[ROW]], %[[K]]], %[[SLOT]], %[[BAR]] {swizzle = 128 : i64, weave.coordinates_in_range} : memref<?x128xf16, #weave.symmetric>
//  CHECK-NEXT:   }
//       CHECK:   weave.copy_gmem_to_smem %arg2[
//       CHECK:   gpu.return
gpu.module @m {
  gpu.func @part(%a: memref<?x128xf16, #weave.symmetric>, %own: memref<?x128xf16>, %b: memref<128x1024xf16>, %c: memref<?x1024xf16>, %at: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) lhs_rows(%own at %at : memref<?x128xf16>) : memref<?x128xf16, #weave.symmetric>, memref<128x1024xf16> into memref<?x1024xf16>
    gpu.return
  }
}

// -----

// Constants that are whole row tiles: no trap is left.
// CHECK-LABEL: gpu.func @part_static
//   CHECK-NOT:   llvm.intr.trap
//       CHECK:   gpu.return
gpu.module @m {
  gpu.func @part_static(%a: memref<512x128xf16, #weave.symmetric>, %own: memref<128x128xf16>, %b: memref<128x1024xf16>, %c: memref<512x1024xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>} {
    %at = arith.constant 256 : index
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) lhs_rows(%own at %at : memref<128x128xf16>) : memref<512x128xf16, #weave.symmetric>, memref<128x1024xf16> into memref<512x1024xf16>
    gpu.return
  }
}
