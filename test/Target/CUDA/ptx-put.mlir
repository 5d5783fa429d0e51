// RUN: weavec %s --emit=ptx | FileCheck %s

// A put is a strided loop of 16-byte global loads and stores (equal
// alignments: one vector a thread an iteration, or where every thread has
// four or more, four loaded before any is stored, the last three stored
// where they are in range) or of shifted 32-bit loads and
// 16-byte stores (unequal ones), between a scalar head and tail loop
// (4-byte elements here).
// CHECK-LABEL: .visible .entry put(
//       CHECK: mov.u32 %r{{[0-9]+}}, %ntid.x;
//       CHECK: ld.global.b32 [[H:%r[0-9]+]], [%rd{{[0-9]+}}];
//  CHECK-NEXT: st.global.b32 [%rd{{[0-9]+}}], [[H]];
// The one-vector loop (threads with fewer than four vectors), then four
// vectors loaded before any is stored.
//       CHECK: ld.global.v4.b32 {[[A:%r[0-9]+]], [[B:%r[0-9]+]], [[C:%r[0-9]+]], [[D:%r[0-9]+]]}, [%rd{{[0-9]+}}];
//  CHECK-NEXT: st.global.v4.b32 [%rd{{[0-9]+}}], {[[A]], [[B]], [[C]], [[D]]};
//       CHECK: ld.global.v4.b32 {[[A:%r[0-9]+]], [[B:%r[0-9]+]], [[C:%r[0-9]+]], [[D:%r[0-9]+]]}, [%rd{{[0-9]+}}];
//   CHECK-NOT: st.global
//       CHECK: ld.global.v4.b32
//   CHECK-NOT: st.global
//       CHECK: ld.global.v4.b32
//   CHECK-NOT: st.global
//       CHECK: ld.global.v4.b32
//   CHECK-NOT: ld.global
//       CHECK: st.global.v4.b32 [%rd{{[0-9]+}}], {[[A]], [[B]], [[C]], [[D]]};
//   CHECK-NOT: ld.global
//       CHECK: st.global.v4.b32
//   CHECK-NOT: ld.global
//       CHECK: st.global.v4.b32
//   CHECK-NOT: ld.global
//       CHECK: st.global.v4.b32
// Unequal alignments: five aligned 32-bit loads, four funnel shifts, one
// 16-byte store to the peer.
//       CHECK: ld.global.b32 [[W0:%r[0-9]+]], [%rd{{[0-9]+}}{{.*}}];
//  CHECK-NEXT: ld.global.b32 [[W1:%r[0-9]+]], [%rd{{[0-9]+}}{{.*}}];
//  CHECK-NEXT: ld.global.b32 [[W2:%r[0-9]+]], [%rd{{[0-9]+}}{{.*}}];
//  CHECK-NEXT: ld.global.b32 [[W3:%r[0-9]+]], [%rd{{[0-9]+}}];
//       CHECK: ld.global.b32 [[W4:%r[0-9]+]], [%rd{{[0-9]+}}];
//  CHECK-NEXT: shf.r.wrap.b32 [[R0:%r[0-9]+]], [[W0]], [[W1]], [[S:%r[0-9]+]];
//  CHECK-NEXT: shf.r.wrap.b32 [[R1:%r[0-9]+]], [[W1]], [[W2]], [[S]];
//  CHECK-NEXT: shf.r.wrap.b32 [[R2:%r[0-9]+]], [[W2]], [[W3]], [[S]];
//  CHECK-NEXT: shf.r.wrap.b32 [[R3:%r[0-9]+]], [[W3]], [[W4]], [[S]];
//       CHECK: st.global.v4.b32 [%rd{{[0-9]+}}], {[[R0]], [[R1]], [[R2]], [[R3]]};
//       CHECK: ld.global.b32 [[T:%r[0-9]+]], [%rd{{[0-9]+}}];
//  CHECK-NEXT: st.global.b32 [%rd{{[0-9]+}}], [[T]];
gpu.module @m {
gpu.func @put(%src: memref<4096xf32>, %dst: memref<4096xf32, #weave.symmetric>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %c1 = arith.constant 1 : index
  %me = weave.device_id "x"
  %n = weave.num_devices "x"
  %s = arith.addi %me, %c1 : index
  %right = arith.remui %s, %n : index
  weave.put %src, %dst on %right : memref<4096xf32> -> memref<4096xf32, #weave.symmetric>
  gpu.return
}
}
