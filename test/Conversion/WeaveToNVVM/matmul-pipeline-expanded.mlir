// RUN: weave-opt %s -split-input-file -weave-to-llvm | FileCheck %s --implicit-check-not=weave.

// weave-to-llvm expands the pipeline and lowers its TMA ops: each operand
// gets one tensor-map parameter (lhs box 128x64, rhs box 64x64, the output
// box), all 128-byte swizzled, after the team parameters.
// CHECK-LABEL: llvm.func @matmul
//  CHECK-SAME:   (%[[A:[^:]*]]: !llvm.ptr, %[[B:[^:]*]]: !llvm.ptr, %[[C:[^:]*]]: !llvm.ptr, %{{[^:]*}}: i32, %{{[^:]*}}: i32, %{{[^:]*}}: !llvm.ptr<1>,
//  CHECK-SAME:    %[[MA:[^:]*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
//  CHECK-SAME:    %[[MB:[^:]*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant},
//  CHECK-SAME:    %[[MC:[^:]*]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
//       CHECK:   nvvm.mbarrier.arrive.expect_tx
//       CHECK:   nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MA]], %[[FULL:[^,]*]], box[
// CHECK-COUNT-4:   nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MB]], %[[FULL]], box[
//   CHECK-NOT:   nvvm.cp.async.bulk.tensor.shared.cluster.global
//       CHECK:   wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
//       CHECK:   nvvm.cp.async.bulk.tensor.global.shared.cta %[[MC]], %{{.*}}, box[
//  CHECK-NEXT:   nvvm.cp.async.bulk.commit.group
// Nothing but the output is stored.
//   CHECK-NOT:   nvvm.cp.async.bulk.tensor.global.shared.cta %[[MA]]
//   CHECK-NOT:   nvvm.cp.async.bulk.tensor.global.shared.cta %[[MB]]
// Only the return follows: the last wait is for the stores' reads.
//       CHECK:   nvvm.cp.async.bulk.wait_group 0 {read}
//       CHECK:   llvm.return
gpu.module @m {
  gpu.func @matmul(%a: memref<256x128xf16>, %b: memref<128x512xf16>, %c: memref<256x512xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 200000>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(3) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16>
    gpu.return
  }
}

// -----

// A before_load that waits on a semaphore: the acquire spin is followed by
// fence.proxy.async.global before the producer's TMA loads read what the
// peer released.
// CHECK-LABEL: llvm.func @wait_before_load
//       CHECK:   nvvm.setmaxregister decrease 40
//       CHECK:   llvm.inline_asm has_side_effects "ld.acquire.sys.global.u32 $0, [$1];"
//  CHECK-NEXT:   llvm.icmp "uge"
//  CHECK-NEXT:   llvm.cond_br %{{.*}}, ^[[DONE:bb[0-9]+]], ^{{bb[0-9]+}}
//       CHECK: ^[[DONE]]:
//  CHECK-NEXT:   nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
//       CHECK:   nvvm.mbarrier.arrive.expect_tx
//       CHECK:   nvvm.cp.async.bulk.tensor.shared.cluster.global
gpu.module @m {
  gpu.func @wait_before_load(%a: memref<256x128xf16>, %b: memref<128x512xf16>, %c: memref<256x512xf16>, %sems: !weave.semaphore<2>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 200000>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(3) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16> before_load {
    ^bb0(%m: index, %n: index, %k: index):
      %one = arith.constant 1 : i32
      weave.semaphore_wait %sems[%m], %one : !weave.semaphore<2>
    }
    gpu.return
  }
}
