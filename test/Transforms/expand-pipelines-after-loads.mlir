// RUN: weave-opt %s -split-input-file --weave-expand-pipelines | FileCheck %s --implicit-check-not=weave.matmul_pipeline

// after_loads runs on the producer thread once every load of the block has
// landed: after the tile loop, the producer waits on the full barrier of
// each of the last `stages` steps it issued (those a later load cannot
// have moved on), then the region follows.
// CHECK-LABEL: gpu.func @after
//       CHECK:   nvvm.setmaxregister decrease 40
//       CHECK:   %[[STEPS:.*]] = scf.for
//       CHECK:     weave.copy_gmem_to_smem
//       CHECK:   arith.cmpi uge, %[[STEPS]], %c1{{(_[0-9]+)?}} : index
//  CHECK-NEXT:   scf.if
//       CHECK:     arith.subi %[[STEPS]], %c1{{(_[0-9]+)?}} : index
//       CHECK:     mbarrier.try_wait.parity.shared::cta.b64
//       CHECK:   arith.cmpi uge, %[[STEPS]], %c2{{(_[0-9]+)?}} : index
//       CHECK:     mbarrier.try_wait.parity.shared::cta.b64
//       CHECK:   arith.cmpi uge, %[[STEPS]], %c3{{(_[0-9]+)?}} : index
//       CHECK:     mbarrier.try_wait.parity.shared::cta.b64
//   CHECK-NOT:   arith.cmpi uge, %[[STEPS]]
//       CHECK:   weave.semaphore_signal %{{.*}}, %{{.*}} : !weave.semaphore
// The consumers come after (the else branch of the role split).
//       CHECK:   } else {
//       CHECK:     nvvm.setmaxregister increase 232
//   CHECK-NOT:   weave.semaphore_signal
//       CHECK:   gpu.return
gpu.module @m {
  gpu.func @after(%a: memref<256x128xf16>, %b: memref<128x512xf16>, %c: memref<256x512xf16>, %done: !weave.semaphore) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 200000>} {
    %one = arith.constant 1 : i32
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(3) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16> after_loads {
      weave.semaphore_signal %done, %one : !weave.semaphore
    }
    gpu.return
  }
}
