// RUN: weave-opt %s --verify-roundtrip | FileCheck %s

// Every weave op, type and attribute form, printed back in its custom syntax.

gpu.module @ops {

// CHECK-LABEL: gpu.func @identity
//       CHECK:   %[[ME:.*]] = weave.device_id "x"
//       CHECK:   %[[N:.*]] = weave.num_devices "x"
//       CHECK:   arith.addi %[[ME]], %[[N]] : index
gpu.func @identity() kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %me = weave.device_id "x"
  %n = weave.num_devices "x"
  %s = arith.addi %me, %n : index
  gpu.return
}

// CHECK-LABEL: gpu.func @remote_ref
//  CHECK-SAME:   (%[[BUF:.*]]: memref<1024xf32, #weave.symmetric>, %[[DEV:.*]]: index)
//       CHECK:   weave.remote_ref %[[BUF]] on %[[DEV]] : memref<1024xf32, #weave.symmetric>
gpu.func @remote_ref(%buf: memref<1024xf32, #weave.symmetric>, %dev: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %r = weave.remote_ref %buf on %dev : memref<1024xf32, #weave.symmetric>
  %c0 = arith.constant 0 : index
  %v = memref.load %r[%c0] : memref<1024xf32, #weave.symmetric>
  gpu.return
}

// CHECK-LABEL: gpu.func @remote_ref_2d
//  CHECK-SAME:   (%[[BUF:.*]]: memref<64x32xf16, #weave.symmetric>, %[[DEV:.*]]: index)
//       CHECK:   weave.remote_ref %[[BUF]] on %[[DEV]] : memref<64x32xf16, #weave.symmetric>
gpu.func @remote_ref_2d(%buf: memref<64x32xf16, #weave.symmetric>, %dev: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %r = weave.remote_ref %buf on %dev : memref<64x32xf16, #weave.symmetric>
  gpu.return
}

// CHECK-LABEL: gpu.func @signal_indexed_on_peer
//  CHECK-SAME:   (%[[SEM:.*]]: !weave.semaphore<4>, %[[I:.*]]: index, %[[V:.*]]: i32, %[[PEER:.*]]: index)
//       CHECK:   weave.semaphore_signal %[[SEM]][%[[I]]], %[[V]] on %[[PEER]] : !weave.semaphore<4>
gpu.func @signal_indexed_on_peer(%sem: !weave.semaphore<4>, %i: index, %v: i32, %peer: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.semaphore_signal %sem[%i], %v on %peer : !weave.semaphore<4>
  gpu.return
}

// CHECK-LABEL: gpu.func @signal_indexed_local
//  CHECK-SAME:   (%[[SEM:.*]]: !weave.semaphore<4>, %[[I:.*]]: index, %[[V:.*]]: i32)
//       CHECK:   weave.semaphore_signal %[[SEM]][%[[I]]], %[[V]] : !weave.semaphore<4>
//   CHECK-NOT:   on
gpu.func @signal_indexed_local(%sem: !weave.semaphore<4>, %i: index, %v: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.semaphore_signal %sem[%i], %v : !weave.semaphore<4>
  gpu.return
}

// CHECK-LABEL: gpu.func @signal_single_on_peer
//  CHECK-SAME:   (%[[SEM:.*]]: !weave.semaphore, %[[V:.*]]: i32, %[[PEER:.*]]: index)
//       CHECK:   weave.semaphore_signal %[[SEM]], %[[V]] on %[[PEER]] : !weave.semaphore{{$}}
gpu.func @signal_single_on_peer(%sem: !weave.semaphore, %v: i32, %peer: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.semaphore_signal %sem, %v on %peer : !weave.semaphore
  gpu.return
}

// A single counter may still be indexed explicitly.
// CHECK-LABEL: gpu.func @signal_single_indexed
//  CHECK-SAME:   (%[[SEM:.*]]: !weave.semaphore, %[[V:.*]]: i32)
//       CHECK:   %[[C0:.*]] = arith.constant 0 : index
//       CHECK:   weave.semaphore_signal %[[SEM]][%[[C0]]], %[[V]] : !weave.semaphore{{$}}
gpu.func @signal_single_indexed(%sem: !weave.semaphore, %v: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %c0 = arith.constant 0 : index
  weave.semaphore_signal %sem[%c0], %v : !weave.semaphore
  gpu.return
}

// CHECK-LABEL: gpu.func @wait_decrement
//  CHECK-SAME:   (%[[SEM:.*]]: !weave.semaphore<4>, %[[I:.*]]: index, %[[V:.*]]: i32)
//       CHECK:   weave.semaphore_wait %[[SEM]][%[[I]]], %[[V]] decrement scope(block) : !weave.semaphore<4>
//       CHECK:   weave.semaphore_wait %[[SEM]][%[[I]]], %[[V]] cmp(eq) decrement scope(warp) : !weave.semaphore<4>
//       CHECK:   weave.semaphore_wait %[[SEM]][%[[I]]], %[[V]] decrement : !weave.semaphore<4>
gpu.func @wait_decrement(%sem: !weave.semaphore<4>, %i: index, %v: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.semaphore_wait %sem[%i], %v decrement scope(block) : !weave.semaphore<4>
  weave.semaphore_wait %sem[%i], %v cmp(eq) decrement scope(warp) : !weave.semaphore<4>
  %tid = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %tid, %c0 : index
  scf.if %first {
    weave.semaphore_wait %sem[%i], %v decrement scope(thread) : !weave.semaphore<4>
  }
  gpu.return
}

// CHECK-LABEL: gpu.func @wait_monotonic
//  CHECK-SAME:   (%[[SEM:.*]]: !weave.semaphore, %[[V:.*]]: i32)
//       CHECK:   weave.semaphore_wait %[[SEM]], %[[V]] : !weave.semaphore{{$}}
gpu.func @wait_monotonic(%sem: !weave.semaphore, %v: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.semaphore_wait %sem, %v : !weave.semaphore
  gpu.return
}

// CHECK-LABEL: gpu.func @put
//  CHECK-SAME:   (%[[SRC:.*]]: memref<1024xf32>, %[[DST:.*]]: memref<1024xf32, #weave.symmetric>, %[[DEV:.*]]: index)
//       CHECK:   weave.put %[[SRC]], %[[DST]] on %[[DEV]] : memref<1024xf32> -> memref<1024xf32, #weave.symmetric>
gpu.func @put(%src: memref<1024xf32>, %dst: memref<1024xf32, #weave.symmetric>, %dev: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.put %src, %dst on %dev : memref<1024xf32> -> memref<1024xf32, #weave.symmetric>
  gpu.return
}

// The two sides may have different shapes with the same number of elements.
// CHECK-LABEL: gpu.func @put_reshaped
//       CHECK:   weave.put %{{.*}}, %{{.*}} on %{{.*}} : memref<16x64xf16, 1> -> memref<1024xf16, #weave.symmetric>
gpu.func @put_reshaped(%src: memref<16x64xf16, 1>, %dst: memref<1024xf16, #weave.symmetric>, %dev: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.put %src, %dst on %dev : memref<16x64xf16, 1> -> memref<1024xf16, #weave.symmetric>
  gpu.return
}

// CHECK-LABEL: gpu.func @get
//  CHECK-SAME:   (%[[SRC:.*]]: memref<1024xf32, #weave.symmetric>, %[[DST:.*]]: memref<1024xf32, #gpu.address_space<global>>, %[[DEV:.*]]: index)
//       CHECK:   weave.get %[[SRC]] on %[[DEV]], %[[DST]] : memref<1024xf32, #weave.symmetric> -> memref<1024xf32, #gpu.address_space<global>>
gpu.func @get(%src: memref<1024xf32, #weave.symmetric>, %dst: memref<1024xf32, #gpu.address_space<global>>, %dev: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.get %src on %dev, %dst : memref<1024xf32, #weave.symmetric> -> memref<1024xf32, #gpu.address_space<global>>
  gpu.return
}

// CHECK-LABEL: gpu.func @copy_smem_to_gmem_local
//  CHECK-SAME:   (%[[TILE:.*]]: memref<128x64xf16, #gpu.address_space<workgroup>>, %[[OUT:.*]]: memref<1024x4096xf16>, %[[ROW:.*]]: index, %[[COL:.*]]: index)
//       CHECK:   weave.copy_smem_to_gmem %[[TILE]], %[[OUT]][%[[ROW]], %[[COL]]] : memref<128x64xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xf16>
//   CHECK-NOT:   on
gpu.func @copy_smem_to_gmem_local(%tile: memref<128x64xf16, #gpu.address_space<workgroup>>, %out: memref<1024x4096xf16>, %row: index, %col: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.copy_smem_to_gmem %tile, %out[%row, %col] : memref<128x64xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xf16>
  gpu.return
}

// CHECK-LABEL: gpu.func @copy_smem_to_gmem_remote
//  CHECK-SAME:   (%[[TILE:.*]]: memref<128x64xf16, 3>, %[[OUT:.*]]: memref<1024x4096xf16, #weave.symmetric>, %[[ROW:.*]]: index, %[[COL:.*]]: index)
//       CHECK:   %[[ME:.*]] = weave.device_id "x"
//       CHECK:   %[[PREV:.*]] = arith.remui
//       CHECK:   weave.copy_smem_to_gmem %[[TILE]], %[[OUT]][%[[ROW]], %[[COL]]] on %[[PREV]] : memref<128x64xf16, 3> -> memref<1024x4096xf16, #weave.symmetric>
gpu.func @copy_smem_to_gmem_remote(%tile: memref<128x64xf16, 3>, %out: memref<1024x4096xf16, #weave.symmetric>, %row: index, %col: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 4>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %me = weave.device_id "x"
  %n = weave.num_devices "x"
  %c3 = arith.constant 3 : index
  %sum = arith.addi %me, %c3 : index
  %prev = arith.remui %sum, %n : index
  weave.copy_smem_to_gmem %tile, %out[%row, %col] on %prev : memref<128x64xf16, 3> -> memref<1024x4096xf16, #weave.symmetric>
  gpu.return
}

// An L2 cache policy on a store (after reduce, before on) and on a load
// (after multicast); printed back where it was parsed.
// CHECK-LABEL: gpu.func @copy_l2_policy
//       CHECK:   weave.copy_smem_to_gmem %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] l2(evict_first) on %{{.*}} : memref<128x64xf16, 3> -> memref<1024x4096xf16, #weave.symmetric>
//       CHECK:   weave.copy_smem_to_gmem %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] reduce(add) l2(evict_last) : memref<128x64xf16, 3> -> memref<1024x4096xf16, #weave.symmetric>
//       CHECK:   weave.copy_gmem_to_smem %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}, %{{.*}} l2(evict_last) {swizzle = 128 : i64} : memref<1024x4096xf16, #weave.symmetric> -> memref<128x64xf16, 3>, memref<i64, 3>
gpu.func @copy_l2_policy(%tile: memref<128x64xf16, 3>, %out: memref<1024x4096xf16, #weave.symmetric>, %bar: memref<i64, 3>, %row: index, %col: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %me = weave.device_id "x"
  %n = weave.num_devices "x"
  %c1 = arith.constant 1 : index
  %sum = arith.addi %me, %c1 : index
  %next = arith.remui %sum, %n : index
  weave.copy_smem_to_gmem %tile, %out[%row, %col] l2(evict_first) on %next : memref<128x64xf16, 3> -> memref<1024x4096xf16, #weave.symmetric>
  weave.copy_smem_to_gmem %tile, %out[%row, %col] reduce(add) l2(evict_last) : memref<128x64xf16, 3> -> memref<1024x4096xf16, #weave.symmetric>
  weave.copy_gmem_to_smem %out[%row, %col], %tile, %bar l2(evict_last) {swizzle = 128 : i64} : memref<1024x4096xf16, #weave.symmetric> -> memref<128x64xf16, 3>, memref<i64, 3>
  gpu.return
}

// CHECK-LABEL: gpu.func @copy_smem_to_gmem_reduce
//       CHECK:   weave.copy_smem_to_gmem %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] reduce(add) on %{{.*}} : memref<64x32xf32, 3> -> memref<1024x4096xf32, #weave.symmetric>
//       CHECK:   weave.copy_smem_to_gmem %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] reduce(max) : memref<64x64xbf16, 3> -> memref<1024x4096xbf16>
gpu.func @copy_smem_to_gmem_reduce(%box: memref<64x32xf32, 3>, %out: memref<1024x4096xf32, #weave.symmetric>, %hbox: memref<64x64xbf16, 3>, %hout: memref<1024x4096xbf16>, %row: index, %col: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 4>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %me = weave.device_id "x"
  %n = weave.num_devices "x"
  %c1 = arith.constant 1 : index
  %sum = arith.addi %me, %c1 : index
  %next = arith.remui %sum, %n : index
  weave.copy_smem_to_gmem %box, %out[%row, %col] reduce(add) on %next : memref<64x32xf32, 3> -> memref<1024x4096xf32, #weave.symmetric>
  weave.copy_smem_to_gmem %hbox, %hout[%row, %col] reduce(max) : memref<64x64xbf16, 3> -> memref<1024x4096xbf16>
  gpu.return
}

// CHECK-LABEL: gpu.func @pipeline_epilogue
//       CHECK:   weave.matmul_pipeline %{{.*}}, %{{.*}} into %{{.*}} tile(128, 256, 64) stages(4) : memref<1024x4096xbf16>, memref<4096x4096xbf16> into memref<1024x4096xf32, #weave.symmetric> epilogue {
//  CHECK-NEXT:   ^bb0(%[[BOX:.*]]: memref<64x32xf32, #gpu.address_space<workgroup>>, %[[M:.*]]: index, %[[N:.*]]: index, %[[I:.*]]: index):
//       CHECK:     weave.copy_smem_to_gmem %[[BOX]], %{{.*}}[%{{.*}}, %{{.*}}] reduce(add) on %{{.*}}
gpu.func @pipeline_epilogue(%a: memref<1024x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<1024x4096xf32, #weave.symmetric>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132, 1, 1], block = [384, 1, 1], smem = 230464>} {
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4)
      : memref<1024x4096xbf16>, memref<4096x4096xbf16> into memref<1024x4096xf32, #weave.symmetric>
      epilogue {
  ^bb0(%box: memref<64x32xf32, #gpu.address_space<workgroup>>, %m: index, %n: index, %i: index):
    %me = weave.device_id "x"
    %d = weave.num_devices "x"
    %c1 = arith.constant 1 : index
    %sum = arith.addi %me, %c1 : index
    %next = arith.remui %sum, %d : index
    weave.copy_smem_to_gmem %box, %c[%m, %n] reduce(add) on %next : memref<64x32xf32, #gpu.address_space<workgroup>> -> memref<1024x4096xf32, #weave.symmetric>
  }
  gpu.return
}

// The combine region (printed before the epilogue, whatever order the
// source has) with the lane argument, and grid_tile_lag beside the
// interleave.
// CHECK-LABEL: gpu.func @pipeline_combine
//       CHECK:   weave.matmul_pipeline {{.*}}{grid_tile_interleave = 2 : i64, grid_tile_lag = 65536 : i64} : {{.*}} combine {
//  CHECK-NEXT:   ^bb0(%{{.*}}: memref<64x64xbf16, #gpu.address_space<workgroup>>, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %[[LANE:.*]]: index):
//       CHECK:     arith.remui %[[LANE]], %{{.*}} : index
//       CHECK:   } epilogue {
gpu.func @pipeline_combine(%a: memref<1024x4096xbf16>, %b: memref<4096x4096xbf16>, %c: memref<1024x4096xbf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132, 1, 1], block = [384, 1, 1], smem = 230464>} {
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4)
      {grid_tile_interleave = 2 : i64, grid_tile_lag = 65536 : i64}
      : memref<1024x4096xbf16>, memref<4096x4096xbf16> into memref<1024x4096xbf16>
      combine {
  ^bb0(%box: memref<64x64xbf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %i: index, %lane: index):
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %row = arith.remui %lane, %c64 : index
    %v = vector.load %box[%row, %c0] : memref<64x64xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
    vector.store %v, %box[%row, %c0] : memref<64x64xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
  } epilogue {
  ^bb0(%box: memref<64x64xbf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %i: index):
    weave.copy_smem_to_gmem %box, %c[%m, %n] : memref<64x64xbf16, #gpu.address_space<workgroup>> -> memref<1024x4096xbf16>
  }
  gpu.return
}

// CHECK-LABEL: gpu.func @wait_smem_to_gmem
//       CHECK:   weave.wait_smem_to_gmem 0{{$}}
//       CHECK:   weave.wait_smem_to_gmem 1 read_only
gpu.func @wait_smem_to_gmem() kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.wait_smem_to_gmem 0
  weave.wait_smem_to_gmem 1 read_only
  gpu.return
}

// CHECK-LABEL: gpu.func @matmul_pipeline_plain
//  CHECK-SAME:   (%[[A:.*]]: memref<1024x4096xf16>, %[[B:.*]]: memref<4096x1024xf16>, %[[C:.*]]: memref<1024x1024xf16>)
//       CHECK:   weave.matmul_pipeline %[[A]], %[[B]] into %[[C]] tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>{{$}}
//   CHECK-NOT:   before_load
//   CHECK-NOT:   callback
//       CHECK:   gpu.return
gpu.func @matmul_pipeline_plain(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132, 1, 1], block = [384, 1, 1], smem = 200000>} {
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  gpu.return
}

// M, N and K need not be multiples of the tile: TMA zero-fills the loads
// and clips the stores past the edges. Rows only have to span a multiple of
// 16 bytes (1000 f16 = 2000 bytes, 4040 bf16 = 8080 bytes).
// CHECK-LABEL: gpu.func @matmul_pipeline_edge_tiles
//       CHECK:   weave.matmul_pipeline %{{.*}}, %{{.*}} into %{{.*}} tile(128, 256, 64) stages(3) : memref<1000x4040xf16>, memref<4040x1000xf16> into memref<1000x1000xf16>
//       CHECK:   weave.matmul_pipeline %{{.*}}, %{{.*}} into %{{.*}} tile(64, 128, 64) stages(4) {consumers = 1 : i64} : memref<100x4040xbf16>, memref<4040x8xbf16> into memref<100x8xbf16>
gpu.func @matmul_pipeline_edge_tiles(%a: memref<1000x4040xf16>, %b: memref<4040x1000xf16>, %c: memref<1000x1000xf16>, %d: memref<100x4040xbf16>, %e: memref<4040x8xbf16>, %f: memref<100x8xbf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132, 1, 1], block = [384, 1, 1], smem = 232448>} {
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(3) : memref<1000x4040xf16>, memref<4040x1000xf16> into memref<1000x1000xf16>
  weave.matmul_pipeline %d, %e into %f tile(64, 128, 64) stages(4) {consumers = 1 : i64} : memref<100x4040xbf16>, memref<4040x8xbf16> into memref<100x8xbf16>
  gpu.return
}

// CHECK-LABEL: gpu.func @matmul_pipeline_callback
//  CHECK-SAME:   (%[[A:.*]]: memref<1024x4096xf16>, %[[B:.*]]: memref<4096x1024xf16>, %[[C:.*]]: memref<1024x1024xf16>, %[[SCRATCH:.*]]: memref<1024x4096xf16, #weave.symmetric>)
//       CHECK:   weave.matmul_pipeline %[[A]], %[[B]] into %[[C]] tile(128, 128, 64) stages(4) delay_release(1) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> callback {
//       CHECK:   ^bb0(%[[LHS:.*]]: memref<128x64xf16, #gpu.address_space<workgroup>>, %[[RHS:.*]]: memref<64x128xf16, #gpu.address_space<workgroup>>, %[[M:.*]]: index, %[[N:.*]]: index, %[[K:.*]]: index):
//       CHECK:     weave.copy_smem_to_gmem %[[LHS]], %[[SCRATCH]][%[[M]], %[[K]]] :
//       CHECK:   }
gpu.func @matmul_pipeline_callback(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>, %scratch: memref<1024x4096xf16, #weave.symmetric>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132, 1, 1], block = [384, 1, 1], smem = 200000>} {
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) delay_release(1) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> callback {
  ^bb0(%lhs: memref<128x64xf16, #gpu.address_space<workgroup>>, %rhs: memref<64x128xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %k: index):
    weave.copy_smem_to_gmem %lhs, %scratch[%m, %k] : memref<128x64xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xf16, #weave.symmetric>
    weave.yield
  }
  gpu.return
}

// The optional attributes print in the attribute dictionary; delay_release
// has its own keyword.
// CHECK-LABEL: gpu.func @matmul_pipeline_options
//       CHECK:   weave.matmul_pipeline %{{.*}}, %{{.*}} into %{{.*}} tile(64, 128, 64) stages(3) delay_release(2) {consumers = 1 : i64, grid_tile_width = 4 : i64, split = #weave<split n>} : memref<512x512xbf16>, memref<512x512xbf16> into memref<512x512xbf16>
gpu.func @matmul_pipeline_options(%a: memref<512x512xbf16>, %b: memref<512x512xbf16>, %c: memref<512x512xbf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132, 1, 1], block = [256, 1, 1], smem = 200000>} {
  weave.matmul_pipeline %a, %b into %c tile(64, 128, 64) stages(3) delay_release(2) {consumers = 1 : i64, split = #weave<split n>, grid_tile_width = 4 : i64} : memref<512x512xbf16>, memref<512x512xbf16> into memref<512x512xbf16>
  gpu.return
}

// walk_m's operand follows rotate_m's (both before the attribute
// dictionary, after cluster_m), and stands alone.
// CHECK-LABEL: gpu.func @matmul_pipeline_walk
//  CHECK-SAME:   (%[[A:[^:]*]]: memref<2560x512xbf16>, %[[B:[^:]*]]: memref<512x1024xbf16>, %[[C:[^:]*]]: memref<2560x1024xbf16>, %[[R:[^:]*]]: index, %[[W:[^:]*]]: index)
//       CHECK:   weave.matmul_pipeline %[[A]], %[[B]] into %[[C]] tile(128, 256, 64) stages(4) cluster_m(2) rotate_m(%[[R]]) walk_m(%[[W]]) {grid_tile_width = 16 : i64} : memref<2560x512xbf16>, memref<512x1024xbf16> into memref<2560x1024xbf16>
//       CHECK:   weave.matmul_pipeline %[[A]], %[[B]] into %[[C]] tile(128, 256, 64) stages(4) walk_m(%[[W]]) : memref<2560x512xbf16>, memref<512x1024xbf16> into memref<2560x1024xbf16>
gpu.func @matmul_pipeline_walk(%a: memref<2560x512xbf16>, %b: memref<512x1024xbf16>, %c: memref<2560x1024xbf16>, %r: index, %w: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 4>, grid = [132, 1, 1], block = [384, 1, 1], cluster = [2, 1, 1], smem = 200000>} {
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) cluster_m(2) rotate_m(%r) walk_m(%w) {grid_tile_width = 16 : i64} : memref<2560x512xbf16>, memref<512x1024xbf16> into memref<2560x1024xbf16>
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) walk_m(%w) : memref<2560x512xbf16>, memref<512x1024xbf16> into memref<2560x1024xbf16>
  gpu.return
}

// All three: rotate_m's operand comes before the attribute dictionary,
// before_load before callback.
// CHECK-LABEL: gpu.func @matmul_pipeline_regions
//  CHECK-SAME:   (%[[A:[^:]*]]: memref<1024x4096xf16>, %[[B:[^:]*]]: memref<4096x1024xf16>, %[[C:[^:]*]]: memref<1024x1024xf16>, %[[SEMS:[^:]*]]: !weave.semaphore<8>, %[[SCRATCH:[^:]*]]: memref<1024x4096xf16, #weave.symmetric>)
//       CHECK:   %[[ME:.*]] = weave.device_id "x"
//       CHECK:   weave.matmul_pipeline %[[A]], %[[B]] into %[[C]] tile(128, 256, 64) stages(3) delay_release(1) rotate_m(%[[ME]]) {grid_tile_width = 16 : i64} : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> before_load {
//  CHECK-NEXT:   ^bb0(%[[BM:.*]]: index, %[[BN:.*]]: index, %[[BK:.*]]: index):
//  CHECK-NEXT:     %[[ONE:.*]] = arith.constant 1 : i32
//  CHECK-NEXT:     weave.semaphore_wait %[[SEMS]][%[[BM]]], %[[ONE]] : !weave.semaphore<8>
//  CHECK-NEXT:   } callback {
//  CHECK-NEXT:   ^bb0(%[[LHS:.*]]: memref<128x64xf16, #gpu.address_space<workgroup>>, %[[RHS:.*]]: memref<64x256xf16, #gpu.address_space<workgroup>>, %[[M:.*]]: index, %[[N:.*]]: index, %[[K:.*]]: index):
//  CHECK-NEXT:     weave.copy_smem_to_gmem %[[LHS]], %[[SCRATCH]][%[[M]], %[[K]]] {swizzle = 128 : i64} : memref<128x64xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xf16, #weave.symmetric>
//  CHECK-NEXT:     weave.wait_smem_to_gmem 0 read_only
//  CHECK-NEXT:   }
//  CHECK-NEXT:   gpu.return
gpu.func @matmul_pipeline_regions(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>, %sems: !weave.semaphore<8>, %scratch: memref<1024x4096xf16, #weave.symmetric>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132, 1, 1], block = [384, 1, 1], smem = 232448>} {
  %me = weave.device_id "x"
  weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(3) delay_release(1) rotate_m(%me) {grid_tile_width = 16 : i64} : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16> before_load {
  ^bb0(%bm: index, %bn: index, %bk: index):
    %one = arith.constant 1 : i32
    weave.semaphore_wait %sems[%bm], %one : !weave.semaphore<8>
  } callback {
  ^bb0(%lhs: memref<128x64xf16, #gpu.address_space<workgroup>>, %rhs: memref<64x256xf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %k: index):
    weave.copy_smem_to_gmem %lhs, %scratch[%m, %k] {swizzle = 128 : i64} : memref<128x64xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xf16, #weave.symmetric>
    weave.wait_smem_to_gmem 0 read_only
  }
  gpu.return
}

// CHECK-LABEL: gpu.func @matmul_pipeline_before_load_only
//       CHECK:   weave.matmul_pipeline {{.*}} : memref<128x64xbf16>, memref<64x128xbf16> into memref<128x128xbf16> before_load {
//  CHECK-NEXT:   ^bb0(%{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
//  CHECK-NEXT:   }{{$}}
//   CHECK-NOT:   callback
//       CHECK:   gpu.return
gpu.func @matmul_pipeline_before_load_only(%a: memref<128x64xbf16>, %b: memref<64x128xbf16>, %c: memref<128x128xbf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [384, 1, 1], smem = 200000>} {
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(2) : memref<128x64xbf16>, memref<64x128xbf16> into memref<128x128xbf16> before_load {
  ^bb0(%m: index, %n: index, %k: index):
  }
  gpu.return
}

// A TMA load completes on an mbarrier (a memref<i64> in shared memory);
// swizzle 0 is the default and is elided.
// CHECK-LABEL: gpu.func @copy_gmem_to_smem
//  CHECK-SAME:   (%[[SRC:[^:]*]]: memref<4096x4096xf16>, %[[ROW:[^:]*]]: index, %[[COL:[^:]*]]: index)
//       CHECK:   %[[SMEM:.*]] = gpu.dynamic_shared_memory
//       CHECK:   %[[TILE:.*]] = memref.view %[[SMEM]]
//       CHECK:   %[[BAR:.*]] = memref.view %[[SMEM]]
//       CHECK:   weave.copy_gmem_to_smem %[[SRC]][%[[ROW]], %[[COL]]], %[[TILE]], %[[BAR]] {swizzle = 128 : i64} : memref<4096x4096xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
//       CHECK:   weave.copy_gmem_to_smem %[[SRC]][%[[ROW]], %[[COL]]], %{{.*}}, %[[BAR]] : memref<4096x4096xf16> -> memref<16x8xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>{{$}}
gpu.func @copy_gmem_to_smem(%src: memref<4096x4096xf16>, %row: index, %col: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1], smem = 32768>} {
  %c0 = arith.constant 0 : index
  %c16384 = arith.constant 16384 : index
  %c16640 = arith.constant 16640 : index
  %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
  %tile = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
  %bar = memref.view %smem[%c16384][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<i64, #gpu.address_space<workgroup>>
  %small = memref.view %smem[%c16640][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16x8xf16, #gpu.address_space<workgroup>>
  weave.copy_gmem_to_smem %src[%row, %col], %tile, %bar {swizzle = 128} : memref<4096x4096xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
  weave.copy_gmem_to_smem %src[%row, %col], %small, %bar {swizzle = 0} : memref<4096x4096xf16> -> memref<16x8xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
  gpu.return
}

// A load from another device's copy of a symmetric buffer: `on` after the
// multicast mask.
// CHECK-LABEL: gpu.func @copy_gmem_to_smem_on
//  CHECK-SAME:   (%[[SRC:[^:]*]]: memref<1024x4096xf16, #weave.symmetric>, %[[DEV:[^:]*]]: index, %[[MASK:[^:]*]]: i16)
//       CHECK:   weave.copy_gmem_to_smem %[[SRC]][%{{.*}}, %{{.*}}], %{{.*}}, %{{.*}} on %[[DEV]] {swizzle = 128 : i64} : memref<1024x4096xf16, #weave.symmetric>
//       CHECK:   weave.copy_gmem_to_smem %[[SRC]][%{{.*}}, %{{.*}}], %{{.*}}, %{{.*}} multicast(%[[MASK]]) on %[[DEV]] : memref<1024x4096xf16, #weave.symmetric>
gpu.func @copy_gmem_to_smem_on(%src: memref<1024x4096xf16, #weave.symmetric>, %dev: index, %mask: i16) workgroup(%tile: memref<128x64xf16, 3>, %bar: memref<i64, 3>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %c0 = arith.constant 0 : index
  weave.copy_gmem_to_smem %src[%c0, %c0], %tile, %bar on %dev {swizzle = 128} : memref<1024x4096xf16, #weave.symmetric> -> memref<128x64xf16, 3>, memref<i64, 3>
  weave.copy_gmem_to_smem %src[%c0, %c0], %tile, %bar multicast(%mask) on %dev : memref<1024x4096xf16, #weave.symmetric> -> memref<128x64xf16, 3>, memref<i64, 3>
  gpu.return
}

// A 3-d load with the numeric shared address space.
// CHECK-LABEL: gpu.func @copy_gmem_to_smem_3d
//       CHECK:   weave.copy_gmem_to_smem %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}, %{{.*}} {swizzle = 64 : i64} : memref<8x256x256xbf16, #gpu.address_space<global>> -> memref<2x16x32xbf16, 3>, memref<i64, 3>
gpu.func @copy_gmem_to_smem_3d(%src: memref<8x256x256xbf16, #gpu.address_space<global>>, %i: index) workgroup(%tile: memref<2x16x32xbf16, 3>, %bar: memref<i64, 3>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.copy_gmem_to_smem %src[%i, %i, %i], %tile, %bar {swizzle = 64} : memref<8x256x256xbf16, #gpu.address_space<global>> -> memref<2x16x32xbf16, 3>, memref<i64, 3>
  gpu.return
}

// CHECK-LABEL: gpu.func @copy_smem_to_gmem_swizzled
//       CHECK:   weave.copy_smem_to_gmem %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {swizzle = 128 : i64} : memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xf16>
gpu.func @copy_smem_to_gmem_swizzled(%tile: memref<64x64xf16, #gpu.address_space<workgroup>>, %out: memref<1024x4096xf16>, %row: index, %col: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.copy_smem_to_gmem %tile, %out[%row, %col] {swizzle = 128} : memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xf16>
  gpu.return
}

// CHECK-LABEL: gpu.func @semaphore_types
//  CHECK-SAME:   (%{{.*}}: !weave.semaphore, %{{.*}}: !weave.semaphore, %{{.*}}: !weave.semaphore<4>)
gpu.func @semaphore_types(%one: !weave.semaphore, %one_explicit: !weave.semaphore<1>, %four: !weave.semaphore<4>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  gpu.return
}

// CHECK-LABEL: gpu.func @mesh_static
//  CHECK-SAME:   weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 8>, grid = [1, 1, 1], block = [128, 1, 1]>
gpu.func @mesh_static() kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 8>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  gpu.return
}

// CHECK-LABEL: gpu.func @mesh_dynamic
//  CHECK-SAME:   weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "tp", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>
gpu.func @mesh_dynamic() kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "tp", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %me = weave.device_id "tp"
  gpu.return
}

// CHECK-LABEL: gpu.func @kernel_cluster_smem
//  CHECK-SAME:   weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132, 2, 1], block = [384, 1, 1], cluster = [2, 2, 1], smem = 232448>
gpu.func @kernel_cluster_smem() kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132, 2, 1], block = [384, 1, 1], cluster = [2, 2, 1], smem = 232448>} {
  gpu.return
}

// Fields may come in any order; a unit cluster and zero smem are elided.
// CHECK-LABEL: gpu.func @kernel_defaults_elided
//  CHECK-SAME:   weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [4, 1, 1], block = [32, 4, 1]>}
gpu.func @kernel_defaults_elided() kernel attributes {weave.kernel = #weave.kernel<block = [32, 4, 1], smem = 0, cluster = [1, 1, 1], grid = [4, 1, 1], mesh = #weave.mesh<axis = "x", size = 2>>} {
  gpu.return
}

// CHECK-LABEL: gpu.func @symmetric_memory_space
//  CHECK-SAME:   memref<4x1024xf32, #weave.symmetric>
gpu.func @symmetric_memory_space(%buf: memref<4x1024xf32, #weave.symmetric>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  gpu.return
}

}
