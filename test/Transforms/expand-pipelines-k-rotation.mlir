// RUN: weave-opt %s -allow-unregistered-dialect -split-input-file --weave-expand-pipelines --canonicalize | FileCheck %s --implicit-check-not=weave.matmul_pipeline

// k_rotation = 3: every loop over a tile's k steps (the callback warp's,
// then the producer's) starts at n * 3 (at 0 where that is 64 or more:
// columns from 22 on) and wraps once; the
// regions get the rotated k; the callback warp hands a slot back by its
// position in the loop (position >= delay), not by k.
// CHECK-LABEL: gpu.func @rotated
//       CHECK:   %[[START_N:.+]] = arith.muli %{{.+}}, %c3 : index
//  CHECK-NEXT:   %[[IN:.+]] = arith.cmpi ult, %[[START_N]], %c64 : index
//  CHECK-NEXT:   %[[START:.+]] = arith.select %[[IN]], %[[START_N]], %c0 : index
//  CHECK-NEXT:   scf.for %[[P:.+]] = %c0 to %c64 step %c1 iter_args
//  CHECK-NEXT:     %[[SUM:.+]] = arith.addi %[[START]], %[[P]] : index
//  CHECK-NEXT:     %[[WRAPS:.+]] = arith.cmpi uge, %[[SUM]], %c64 : index
//  CHECK-NEXT:     %[[LESS:.+]] = arith.subi %[[SUM]], %c64 : index
//  CHECK-NEXT:     %[[K:.+]] = arith.select %[[WRAPS]], %[[LESS]], %[[SUM]] : index
//       CHECK:     "test.callback"(%{{.+}}, %[[K]])
//       CHECK:     arith.cmpi uge, %[[P]], %c1 : index
// The producer's loop: before_load sees the same k.
//       CHECK:   %[[START_N2:.+]] = arith.muli %[[N2:.+]], %c3 : index
//  CHECK-NEXT:   %[[IN2:.+]] = arith.cmpi ult, %[[START_N2]], %c64 : index
//  CHECK-NEXT:   %[[START2:.+]] = arith.select %[[IN2]], %[[START_N2]], %c0 : index
//  CHECK-NEXT:   scf.for %[[P2:.+]] = %c0 to %c64 step %c1 iter_args
//  CHECK-NEXT:     %[[SUM2:.+]] = arith.addi %[[START2]], %[[P2]] : index
//  CHECK-NEXT:     %[[WRAPS2:.+]] = arith.cmpi uge, %[[SUM2]], %c64 : index
//  CHECK-NEXT:     %[[LESS2:.+]] = arith.subi %[[SUM2]], %c64 : index
//  CHECK-NEXT:     %[[K2:.+]] = arith.select %[[WRAPS2]], %[[LESS2]], %[[SUM2]] : index
//  CHECK-NEXT:     "test.before_load"(%{{.+}}, %[[N2]], %[[K2]])
gpu.module @m {
  gpu.func @rotated(%a: memref<1024x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<1024x4096xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) delay_release(1) {k_rotation = 3 : i64} : memref<1024x4096xf16>, memref<4096x4096xf16> into memref<1024x4096xf16>
        before_load {
    ^bb0(%m: index, %n: index, %k: index):
      "test.before_load"(%m, %n, %k) : (index, index, index) -> ()
    } callback {
    ^bb0(%lhs: memref<128x64xf16, #gpu.address_space<workgroup>>, %rhs: memref<64x256xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %k: index):
      "test.callback"(%m, %k) : (index, index) -> ()
    }
    gpu.return
  }
}

// -----

// Without k_rotation (the default) the loops run k from 0: no select.
// CHECK-LABEL: gpu.func @plain
//       CHECK:   scf.for %[[K:.+]] = %c0 to %c64 step %c1 iter_args
//  CHECK-NEXT:     "test.before_load"(%{{.+}}, %{{.+}}, %[[K]])
//   CHECK-NOT:   arith.select
//       CHECK:   gpu.return
gpu.module @m {
  gpu.func @plain(%a: memref<1024x4096xf16>, %b: memref<4096x4096xf16>, %c: memref<1024x4096xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) : memref<1024x4096xf16>, memref<4096x4096xf16> into memref<1024x4096xf16>
        before_load {
    ^bb0(%m: index, %n: index, %k: index):
      "test.before_load"(%m, %n, %k) : (index, index, index) -> ()
    }
    gpu.return
  }
}
