// RUN: weave-opt %s -expand-strided-metadata -lower-affine | weavec - --emit=ptx | FileCheck %s
// RUN: %if ptxas %{ weave-opt %s -expand-strided-metadata -lower-affine | weavec - --emit=cubin -o %t.cubin %}

// PTX of weave.put on views and odd sizes: 16-byte vectors between a scalar
// head and tail, the barrier of the scope, then one thread's system-scope
// fence and release on the peer's counter.

#k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>

// 1001 bf16 (2002 bytes, not a multiple of 16): 2-byte head and tail loops
// around the v4 loop; the whole block synchronises before thread 0 signals.
// CHECK-LABEL: .visible .entry put_odd_block(
//       CHECK: ld.global.b16 [[H:%rs[0-9]+]], [%rd{{[0-9]+}}];
//  CHECK-NEXT: st.global.b16 [%rd{{[0-9]+}}], [[H]];
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
//       CHECK: ld.global.b16 [[T:%rs[0-9]+]], [%rd{{[0-9]+}}];
//  CHECK-NEXT: st.global.b16 [%rd{{[0-9]+}}], [[T]];
//       CHECK: @%p{{[0-9]+}} bra
//       CHECK: bar.sync 0;
//       CHECK: fence.acq_rel.sys;
//       CHECK: red.release.sys.global.add.u32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
//       CHECK: ret;
gpu.module @m {
gpu.func @put_odd_block(%src: memref<1001xbf16>, %dst: memref<1001xbf16, #weave.symmetric>, %sem: !weave.semaphore<8>) kernel attributes {weave.kernel = #k} {
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %me = weave.device_id "x"
  %n = weave.num_devices "x"
  %s = arith.addi %me, %c1 : index
  %right = arith.remui %s, %n : index
  weave.put %src, %dst on %right signal %sem[%me], %one : memref<1001xbf16> -> memref<1001xbf16, #weave.symmetric>, !weave.semaphore<8>
  gpu.return
}

// A warp puts a run-time slice; counts that differ at run time trap.
// CHECK-LABEL: .visible .entry put_view_warp(
//       CHECK: ld.global.v4.b32
//       CHECK: st.global.v4.b32
//       CHECK: bar.warp.sync %r{{[0-9]+}};
//       CHECK: fence.acq_rel.sys;
//       CHECK: red.release.sys.global.add.u32
//       CHECK: call.uni (retval0), vprintf,
//       CHECK: trap;
gpu.func @put_view_warp(%src: memref<4096xf32>, %dst: memref<4096xf32, #weave.symmetric>, %sem: !weave.semaphore<8>, %off_i32: i32, %n_i32: i32, %m_i32: i32) kernel attributes {weave.kernel = #k} {
  %one = arith.constant 1 : i32
  %c1 = arith.constant 1 : index
  %me = weave.device_id "x"
  %nd = weave.num_devices "x"
  %s1 = arith.addi %me, %c1 : index
  %right = arith.remui %s1, %nd : index
  %off = arith.index_cast %off_i32 : i32 to index
  %n = arith.index_cast %n_i32 : i32 to index
  %m = arith.index_cast %m_i32 : i32 to index
  %s = memref.subview %src[%off] [%n] [1] : memref<4096xf32> to memref<?xf32, strided<[1], offset: ?>>
  %d = memref.subview %dst[%off] [%m] [1] : memref<4096xf32, #weave.symmetric> to memref<?xf32, strided<[1], offset: ?>, #weave.symmetric>
  weave.put %s, %d on %right scope(warp) signal %sem[%me], %one : memref<?xf32, strided<[1], offset: ?>> -> memref<?xf32, strided<[1], offset: ?>, #weave.symmetric>, !weave.semaphore<8>
  gpu.return
}
}
