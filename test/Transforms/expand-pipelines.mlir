// RUN: weave-opt %s -split-input-file --weave-expand-pipelines | FileCheck %s --implicit-check-not=weave.matmul_pipeline

// weave-expand-pipelines turns weave.matmul_pipeline into a warp-specialized
// kernel body. These checks pin the skeleton (barriers, the producer's TMA
// loads, the consumers' wgmma, the TMA-store epilogue), not the address
// arithmetic or the exact shape of the epilogue.

// 256x512x128 f16, tile(128, 256, 64), 3 stages, 2 consumers (split M).
// CHECK-LABEL: gpu.func @skeleton
//  CHECK-SAME:   (%[[A:[^:]*]]: memref<256x128xf16>, %[[B:[^:]*]]: memref<128x512xf16>, %[[C:[^:]*]]: memref<256x512xf16>)
//       CHECK:   %[[SMEM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// The warpgroup index (tid / 128) is broadcast from lane 0, so that ptxas
// keeps what derives from it (the wgmma descriptors) in uniform registers.
//       CHECK:   %[[TID:.*]] = gpu.thread_id x
//       CHECK:   %[[WG:.*]] = arith.divui %[[TID]], %c128
//       CHECK:   %[[WG32:.*]] = arith.index_cast %[[WG]] : index to i32
//       CHECK:   nvvm.shfl.sync idx %{{.*}}, %[[WG32]], %{{.*}}, %{{.*}} : i32 -> i32
// A full and an empty mbarrier per stage, made visible to the TMA unit
// before the block synchronizes.
//       CHECK:   scf.if
// CHECK-COUNT-6:   nvvm.mbarrier.init %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
//   CHECK-NOT:   nvvm.mbarrier.init
//       CHECK:   nvvm.fence.mbarrier.init
//       CHECK:   gpu.barrier
// Warpgroup 0 is the producer: it gives registers away and one thread
// walks the tiles and k steps, arming the slot's full barrier with the
// bytes of one stage (128x64 + 64x256 f16 = 49152) before the loads:
// one lhs box and tile_n / 64 = 4 rhs boxes, all completing on it.
//       CHECK:   scf.if
//       CHECK:     nvvm.setmaxregister decrease 40
//       CHECK:     scf.for
//       CHECK:       scf.for
//       CHECK:         nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c49152_i32{{(_[0-9]+)?}} : !llvm.ptr<3>, i32
//       CHECK:         %[[FULL:.*]] = memref.view %[[SMEM]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<i64, #gpu.address_space<workgroup>>
//       CHECK:         weave.copy_gmem_to_smem %[[A]][%{{.*}}, %{{.*}}], %{{.*}}, %[[FULL]] {swizzle = 128 : i64, weave.coordinates_in_range} : memref<256x128xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
// CHECK-COUNT-4:         weave.copy_gmem_to_smem %[[B]][%{{.*}}, %{{.*}}], %{{.*}}, %[[FULL]] {swizzle = 128 : i64, weave.coordinates_in_range} : memref<128x512xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
//   CHECK-NOT:   weave.copy_gmem_to_smem
// The consumers take the registers, wait for a full slot and issue
// tile_k / 16 = 4 wgmma (m64n256k16, f16 in, f32 accumulate) as one group,
// then wait for it: with two consumers the other one's group keeps the
// tensor cores busy, and the slot goes back at once.
//       CHECK:   } else {
//       CHECK:     nvvm.setmaxregister increase 232
//       CHECK:     scf.for
//       CHECK:       scf.for
//       CHECK:         nvvm.wgmma.fence.aligned
// CHECK-COUNT-4:       nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
//   CHECK-NOT:         nvvm.wgmma.mma_async
//       CHECK:         nvvm.wgmma.commit.group.sync.aligned
//  CHECK-NEXT:         nvvm.wgmma.wait.group.sync.aligned 0
// Slots go back to the producer on their empty barrier: this step's.
//       CHECK:         nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
//   CHECK-NOT:         nvvm.mbarrier.arrive
//       CHECK:       scf.yield
//       CHECK:       nvvm.wgmma.wait.group.sync.aligned 0
//   CHECK-NOT:       nvvm.mbarrier.arrive
// Epilogue: accumulators to shared memory (generic proxy), a proxy fence,
// then 128-byte-swizzled TMA stores of the output.
//       CHECK:       nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
//       CHECK:       weave.copy_smem_to_gmem %{{.*}}, %[[C]][%{{.*}}, %{{.*}}] {swizzle = 128 : i64, weave.coordinates_in_range} : memref<{{[0-9]+}}x64xf16, #gpu.address_space<workgroup>> -> memref<256x512xf16>
// Only the return follows: the stores must have read shared memory; the
// kernel's completion publishes their writes.
//       CHECK:     weave.wait_smem_to_gmem 0 read_only
//       CHECK:   gpu.return
gpu.module @m {
  gpu.func @skeleton(%a: memref<256x128xf16>, %b: memref<128x512xf16>, %c: memref<256x512xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 200000>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(3) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16>
    gpu.return
  }
}

// -----

// bf16, one consumer with 128 columns, 2 stages: the stage is
// 64x64 + 64x128 bf16 = 24576 bytes, rhs is 2 boxes, wgmma is m64n128k16.
// CHECK-LABEL: gpu.func @one_consumer_bf16
//  CHECK-SAME:   (%[[A:[^:]*]]: memref<1000x200xbf16>, %[[B:[^:]*]]: memref<200x136xbf16>, %[[C:[^:]*]]: memref<1000x136xbf16>)
// CHECK-COUNT-4:   nvvm.mbarrier.init
//   CHECK-NOT:   nvvm.mbarrier.init
//       CHECK:   nvvm.setmaxregister decrease 40
//       CHECK:   nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c24576_i32{{(_[0-9]+)?}}
//       CHECK:   weave.copy_gmem_to_smem %[[A]][%{{.*}}, %{{.*}}], %{{.*}}, %{{.*}} {swizzle = 128 : i64, weave.coordinates_in_range} : memref<1000x200xbf16> -> memref<64x64xbf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-2:   weave.copy_gmem_to_smem %[[B]][%{{.*}}, %{{.*}}], %{{.*}}, %{{.*}} {swizzle = 128 : i64, weave.coordinates_in_range} : memref<200x136xbf16> -> memref<64x64xbf16, #gpu.address_space<workgroup>>
//   CHECK-NOT:   weave.copy_gmem_to_smem
//       CHECK:   } else {
//       CHECK:   nvvm.setmaxregister increase
// CHECK-COUNT-4:   nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
//   CHECK-NOT:   nvvm.wgmma.mma_async
// A lone consumer keeps one group in flight and hands back the previous
// step's slot; the last one goes back after the loop.
//       CHECK:   nvvm.wgmma.wait.group.sync.aligned 1
//       CHECK:   nvvm.mbarrier.arrive
//       CHECK:   nvvm.wgmma.wait.group.sync.aligned 0
//       CHECK:   nvvm.mbarrier.arrive
//       CHECK:   weave.copy_smem_to_gmem %{{.*}}, %[[C]][%{{.*}}, %{{.*}}] {swizzle = 128 : i64, weave.coordinates_in_range} : memref<{{[0-9]+}}x64xbf16, #gpu.address_space<workgroup>> -> memref<1000x136xbf16>
gpu.module @m {
  gpu.func @one_consumer_bf16(%a: memref<1000x200xbf16>, %b: memref<200x136xbf16>, %c: memref<1000x136xbf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [256, 1, 1], smem = 100000>} {
    weave.matmul_pipeline %a, %b into %c tile(64, 128, 64) stages(2) {consumers = 1 : i64} : memref<1000x200xbf16>, memref<200x136xbf16> into memref<1000x136xbf16>
    gpu.return
  }
}

// -----

// Split N: each of the 2 consumers owns 64 rows x 128 columns (m64n128k16).
// The loads are one 64x64 lhs box and 4 rhs boxes.
// CHECK-LABEL: gpu.func @split_n
//       CHECK:   nvvm.setmaxregister decrease 40
// CHECK-COUNT-5:   weave.copy_gmem_to_smem {{.*}} -> memref<64x64xf16, #gpu.address_space<workgroup>>
//   CHECK-NOT:   weave.copy_gmem_to_smem
//       CHECK:   } else {
// CHECK-COUNT-4:   nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>
//   CHECK-NOT:   nvvm.wgmma.mma_async
gpu.module @m {
  gpu.func @split_n(%a: memref<512x256xf16>, %b: memref<256x512xf16>, %c: memref<512x512xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 200000>} {
    weave.matmul_pipeline %a, %b into %c tile(64, 256, 64) stages(3) {split = #weave<split n>} : memref<512x256xf16>, memref<256x512xf16> into memref<512x512xf16>
    gpu.return
  }
}

// -----

// The callback's bulk store of the lhs tile reads the ring slot, which is
// in the 128-byte swizzled layout: the expansion gives it swizzle = 128 so
// that its tensor map matches.
// CHECK-LABEL: gpu.func @callback_store_swizzled
//  CHECK-SAME:   %[[SCRATCH:[^:]*]]: memref<256x128xf16, #weave.symmetric>
//   CHECK-NOT:   weave.copy_smem_to_gmem
//       CHECK:   weave.copy_smem_to_gmem %{{.*}}, %[[SCRATCH]][%{{.*}}, %{{.*}}] on %{{.*}} {swizzle = 128 : i64} : memref<128x64xf16, #gpu.address_space<workgroup>> -> memref<256x128xf16, #weave.symmetric>
//  CHECK-NEXT:   weave.wait_smem_to_gmem 0 read_only
//       CHECK:   gpu.return
gpu.module @m {
  gpu.func @callback_store_swizzled(%a: memref<256x128xf16>, %b: memref<128x512xf16>, %c: memref<256x512xf16>, %scratch: memref<256x128xf16, #weave.symmetric>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 200000>} {
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
    %c1 = arith.constant 1 : index
    %sum = arith.addi %me, %c1 : index
    %next = arith.remui %sum, %n : index
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(3) delay_release(1) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16> callback {
    ^bb0(%lhs: memref<128x64xf16, #gpu.address_space<workgroup>>, %rhs: memref<64x256xf16, #gpu.address_space<workgroup>>, %m: index, %nn: index, %k: index):
      weave.copy_smem_to_gmem %lhs, %scratch[%m, %k] on %next : memref<128x64xf16, #gpu.address_space<workgroup>> -> memref<256x128xf16, #weave.symmetric>
      weave.wait_smem_to_gmem 0 read_only
    }
    gpu.return
  }
}

// -----

// A store of the callback's rhs tile: the ring slot holds it as 4 boxes of
// 64 rows x 64 f16 (128-byte rows, swizzled), 8192 bytes apart after the
// 16384-byte lhs tile, so the store becomes 4 stores of those boxes at
// columns col, col + 64, col + 128, col + 192, each with swizzle 128 and
// the store's device and reduction.
// CHECK-LABEL: gpu.func @callback_store_rhs
//  CHECK-SAME:   %[[BSCR:[^:]*]]: memref<128x512xf16, #weave.symmetric>
//   CHECK-NOT:   weave.copy_smem_to_gmem
//       CHECK:   %[[SLOT:.*]] = arith.muli %{{.*}}, %c49152 : index
//       CHECK:   %[[RHS:.*]] = arith.addi %[[SLOT]], %c16384 : index
//       CHECK:   memref.view {{.*}} to memref<64x256xf16, #gpu.address_space<workgroup>>
//       CHECK:   scf.if
//       CHECK:     %[[ROW:.*]] = arith.muli %{{.*}}, %c64{{.*}} : index
//       CHECK:     %[[COL:.*]] = arith.muli %{{.*}}, %c256{{.*}} : index
//       CHECK:     %[[O0:.*]] = arith.addi %[[RHS]], %c0{{.*}} : index
//       CHECK:     %[[C0:.*]] = arith.addi %[[COL]], %c0{{.*}} : index
//       CHECK:     weave.copy_smem_to_gmem %{{.*}}, %[[BSCR]][%[[ROW]], %[[C0]]] reduce(add) on %{{.*}} {swizzle = 128 : i64} : memref<64x64xf16, #gpu.address_space<workgroup>> -> memref<128x512xf16, #weave.symmetric>
//       CHECK:     %[[O1:.*]] = arith.addi %[[RHS]], %c8192 : index
//       CHECK:     %[[C1:.*]] = arith.addi %[[COL]], %c64{{.*}} : index
//       CHECK:     weave.copy_smem_to_gmem %{{.*}}, %[[BSCR]][%[[ROW]], %[[C1]]] reduce(add) on %{{.*}} {swizzle = 128 : i64}
//       CHECK:     arith.addi %[[RHS]], %c16384{{.*}} : index
//       CHECK:     arith.addi %[[COL]], %c128{{.*}} : index
//       CHECK:     weave.copy_smem_to_gmem
//       CHECK:     arith.addi %[[RHS]], %c24576 : index
//       CHECK:     arith.addi %[[COL]], %c192 : index
//       CHECK:     weave.copy_smem_to_gmem
//   CHECK-NOT:     weave.copy_smem_to_gmem
//       CHECK:     weave.wait_smem_to_gmem 0 read_only
//       CHECK:   gpu.return
gpu.module @m {
  gpu.func @callback_store_rhs(%a: memref<256x128xf16>, %b: memref<128x512xf16>, %c: memref<256x512xf16>, %bscratch: memref<128x512xf16, #weave.symmetric>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 200000>} {
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
    %c1 = arith.constant 1 : index
    %sum = arith.addi %me, %c1 : index
    %next = arith.remui %sum, %n : index
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(3) delay_release(1) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16> callback {
    ^bb0(%lhs: memref<128x64xf16, #gpu.address_space<workgroup>>, %rhs: memref<64x256xf16, #gpu.address_space<workgroup>>, %m: index, %nn: index, %k: index):
      %c64 = arith.constant 64 : index
      %c256 = arith.constant 256 : index
      %row = arith.muli %k, %c64 : index
      %col = arith.muli %nn, %c256 : index
      weave.copy_smem_to_gmem %rhs, %bscratch[%row, %col] reduce(add) on %next : memref<64x256xf16, #gpu.address_space<workgroup>> -> memref<128x512xf16, #weave.symmetric>
      weave.wait_smem_to_gmem 0 read_only
    }
    gpu.return
  }
}

// -----

// before_load is inlined on the producer thread, in the k loop, before the
// slot is armed and loaded; the consumers do not run it.
// CHECK-LABEL: gpu.func @before_load_inlined
//  CHECK-SAME:   %[[SEMS:[^:]*]]: !weave.semaphore<2>
//       CHECK:   nvvm.setmaxregister decrease 40
//       CHECK:   scf.for
//       CHECK:     scf.for %[[K:[^ ]+]] =
//       CHECK:       %[[ONE:.*]] = arith.constant 1 : i32
//  CHECK-NEXT:       weave.semaphore_wait %[[SEMS]][%{{.*}}], %[[ONE]] : !weave.semaphore<2>
//       CHECK:       arith.index_cast %[[K]] : index to i32
//       CHECK:       nvvm.mbarrier.arrive.expect_tx
//       CHECK:       weave.copy_gmem_to_smem
//       CHECK:   } else {
//   CHECK-NOT:   weave.semaphore_wait
//       CHECK:   gpu.return
gpu.module @m {
  gpu.func @before_load_inlined(%a: memref<256x128xf16>, %b: memref<128x512xf16>, %c: memref<256x512xf16>, %sems: !weave.semaphore<2>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 200000>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(3) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16> before_load {
    ^bb0(%m: index, %n: index, %k: index):
      %one = arith.constant 1 : i32
      weave.semaphore_wait %sems[%m], %one : !weave.semaphore<2>
      %ki = arith.index_cast %k : index to i32
    }
    gpu.return
  }
}

// -----

// rotate_m(%r): the row tile index is (m + %r) mod (row tiles), in the
// producer's and the consumers' walk alike; before_load sees the rotated m.
// CHECK-LABEL: gpu.func @rotate_m
//  CHECK-SAME:   %[[SEMS:[^:]*]]: !weave.semaphore<2>
//       CHECK:   %[[ME:.*]] = weave.device_id "x"
//       CHECK:   nvvm.setmaxregister decrease 40
//       CHECK:   %[[PSUM:.*]] = arith.addi %{{.*}}, %[[ME]] : index
//  CHECK-NEXT:   %[[PM:.*]] = arith.remui %[[PSUM]], %{{.*}} : index
//       CHECK:   weave.semaphore_wait %[[SEMS]][%[[PM]]]
//       CHECK:   } else {
//       CHECK:   %[[CSUM:.*]] = arith.addi %{{.*}}, %[[ME]] : index
//  CHECK-NEXT:   arith.remui %[[CSUM]], %{{.*}} : index
gpu.module @m {
  gpu.func @rotate_m(%a: memref<256x128xf16>, %b: memref<128x512xf16>, %c: memref<256x512xf16>, %sems: !weave.semaphore<2>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 200000>} {
    %me = weave.device_id "x"
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(3) rotate_m(%me) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16> before_load {
    ^bb0(%m: index, %n: index, %k: index):
      %one = arith.constant 1 : i32
      weave.semaphore_wait %sems[%m], %one : !weave.semaphore<2>
    }
    gpu.return
  }
}

// -----

// A pipeline on (row-major, so offset-0) subviews of kernel arguments loads
// and stores through the arguments themselves: tensor maps are built from
// them.
// CHECK-LABEL: gpu.func @subview_operands
//  CHECK-SAME:   (%[[A:[^:]*]]: memref<512x128xf16>, %[[B:[^:]*]]: memref<128x512xf16>, %[[C:[^:]*]]: memref<512x512xf16>)
//       CHECK:   weave.copy_gmem_to_smem %[[A]][%{{.*}}, %{{.*}}], {{.*}} : memref<512x128xf16> -> memref<128x64xf16, #gpu.address_space<workgroup>>
//       CHECK:   weave.copy_gmem_to_smem %[[B]][%{{.*}}, %{{.*}}], {{.*}} : memref<128x512xf16> -> memref<64x64xf16, #gpu.address_space<workgroup>>
//       CHECK:   weave.copy_smem_to_gmem %{{.*}}, %[[C]][%{{.*}}, %{{.*}}] {{.*}} -> memref<512x512xf16>
gpu.module @m {
  gpu.func @subview_operands(%a: memref<512x128xf16>, %b: memref<128x512xf16>, %c: memref<512x512xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 200000>} {
    %a2 = memref.subview %a[0, 0] [256, 128] [1, 1] : memref<512x128xf16> to memref<256x128xf16>
    %c2 = memref.subview %c[0, 0] [256, 512] [1, 1] : memref<512x512xf16> to memref<256x512xf16>
    weave.matmul_pipeline %a2, %b into %c2 tile(128, 256, 64) stages(3) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16>
    gpu.return
  }
}

// -----

// Consumers may own two 64-row wgmma blocks (tile 256x128, 128 rows each):
// two accumulators per consumer, two wgmma per k step of 16, and the
// second block's lhs rows 64 x 128 bytes (512 16-byte units) further.
// CHECK-LABEL: gpu.func @two_blocks
// CHECK: nvvm.setmaxregister increase 232
// CHECK-COUNT-8: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 128, k = 16>
// CHECK: nvvm.wgmma.commit.group.sync.aligned
gpu.module @two_blocks_module {
  gpu.func @two_blocks(%a: memref<512x256xf16>, %b: memref<256x512xf16>, %c: memref<512x512xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 230464>} {
    weave.matmul_pipeline %a, %b into %c tile(256, 128, 64) stages(4) : memref<512x256xf16>, memref<256x512xf16> into memref<512x512xf16>
    gpu.return
  }
}

// -----

// Code after the pipeline may signal a peer: the stores are complete
// (not just read) before it runs.
// CHECK-LABEL: gpu.func @code_follows
// CHECK: weave.wait_smem_to_gmem 0{{$}}
// CHECK: gpu.barrier
// CHECK-NEXT: gpu.return
gpu.module @code_follows_module {
  gpu.func @code_follows(%a: memref<256x128xf16>, %b: memref<128x512xf16>, %c: memref<256x512xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 230464>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16>
    gpu.barrier
    gpu.return
  }
}
