// RUN: weavec %s --emit=ptx | FileCheck %s

// A get reads the peer's buffer with 16-byte loads into local memory.
// CHECK-LABEL: .visible .entry get(

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
//       CHECK: @%p{{[0-9]+}} bra $L__BB{{[0-9_]+}};
gpu.module @m {
gpu.func @get(%src: memref<4096xf32, #weave.symmetric>, %dst: memref<4096xf32>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %c1 = arith.constant 1 : index
  %me = weave.device_id "x"
  %n = weave.num_devices "x"
  %s = arith.addi %me, %c1 : index
  %left = arith.remui %s, %n : index
  weave.get %src on %left, %dst : memref<4096xf32, #weave.symmetric> -> memref<4096xf32>
  gpu.return
}
}
