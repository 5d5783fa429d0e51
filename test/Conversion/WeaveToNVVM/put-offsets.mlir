// RUN: weave-opt %s -pass-pipeline='builtin.module(expand-strided-metadata,lower-affine,gpu.module(convert-weave-to-nvvm),canonicalize)' | FileCheck %s --implicit-check-not=weave.

// weave.put / weave.get on views at a run-time offset and size, with each
// scope and a signal. (memref.subview becomes a reinterpret_cast in
// expand-strided-metadata, whose descriptor the lowering reads.)

#k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [96, 1, 1]>

// A mismatch of run-time element counts prints both and traps.
// CHECK: llvm.mlir.global internal constant @[[$FMT:printfFormat_[0-9]+]]("weave: put in kernel 'put_dynamic' at loc({{.*}}put-offsets.mlir\22:{{[0-9]+}}:3): the source has %lu elements and the target %lu\0A\00")

gpu.module @one_sided {

// The copy starts at the views' first elements (base + offset), and the
// element counts are the views' sizes.
// CHECK-LABEL: llvm.func @put_dynamic
//  CHECK-SAME:   (%[[SRC:[^:]+]]: !llvm.ptr, %[[DST:[^:]+]]: !llvm.ptr<1>, %[[OFF:[^:]+]]: i64, %[[N:[^:]+]]: i64, %[[M:[^:]+]]: i64, %[[PEER:[^:]+]]: i64,
//       CHECK:   llvm.mlir.addressof @[[$FMT]]
//       CHECK:   %[[S:.*]] = llvm.getelementptr %[[SRC]][%[[OFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, bf16
//       CHECK:   %[[D:.*]] = llvm.getelementptr %[[DST]][%[[OFF]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, bf16
//       CHECK:   %[[DI:.*]] = llvm.ptrtoint %[[D]] : !llvm.ptr<1> to i64
//       CHECK:   %[[DA:.*]] = llvm.add %[[DI]], %{{.*}} : i64
//       CHECK:   %[[REMOTE:.*]] = llvm.inttoptr %[[DA]] : i64 to !llvm.ptr<1>
//       CHECK:   %[[SAME:.*]] = llvm.icmp "eq" %[[N]], %[[M]] : i64
//       CHECK:   llvm.cond_br %[[SAME]], ^[[GO:bb[0-9]+]], ^[[FAIL:bb[0-9]+]]
//       CHECK: ^[[FAIL]]:
//       CHECK:   llvm.call @vprintf
//  CHECK-NEXT:   llvm.intr.trap
//  CHECK-NEXT:   llvm.unreachable
//       CHECK: ^[[GO]]:
//       CHECK:   %[[FROMI:.*]] = llvm.ptrtoint %[[S]] : !llvm.ptr to i64
//       CHECK:   %[[TOI:.*]] = llvm.ptrtoint %[[REMOTE]] : !llvm.ptr<1> to i64
//       CHECK:   llvm.intr.umin(%{{.*}}, %[[N]])
//       CHECK:   llvm.load %{{.*}} : !llvm.ptr -> bf16
//       CHECK:   llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr -> vector<4xi32>
//       CHECK:   %[[T:.*]] = llvm.icmp "ult" %{{.*}}, %[[N]] : i64
//       CHECK:   llvm.load %{{.*}} : !llvm.ptr -> bf16
//       CHECK:   llvm.return
gpu.func @put_dynamic(%src: memref<4096xbf16>, %dst: memref<4096xbf16, #weave.symmetric>, %off_i64: i64, %n_i64: i64, %m_i64: i64, %peer_i64: i64) kernel attributes {weave.kernel = #k} {
  %peer = arith.index_cast %peer_i64 : i64 to index
  %off = arith.index_cast %off_i64 : i64 to index
  %n = arith.index_cast %n_i64 : i64 to index
  %m = arith.index_cast %m_i64 : i64 to index
  %s = memref.subview %src[%off] [%n] [1] : memref<4096xbf16> to memref<?xbf16, strided<[1], offset: ?>>
  %d = memref.subview %dst[%off] [%m] [1] : memref<4096xbf16, #weave.symmetric> to memref<?xbf16, strided<[1], offset: ?>, #weave.symmetric>
  weave.put %s, %d on %peer : memref<?xbf16, strided<[1], offset: ?>> -> memref<?xbf16, strided<[1], offset: ?>, #weave.symmetric>
  gpu.return
}

// Source and target at different run-time element offsets (an
// all-to-all-v's parts): whole 2-byte elements are all the 16-byte stores to
// the peer need. The head runs to the target's 16-byte boundary; vectors of
// equal alignments load 16 bytes, the others five aligned words shifted
// right by 8 x ((source + head) mod 4) bits; the tail is scalar.
// CHECK-LABEL: llvm.func @put_skewed
//       CHECK:   %[[KFROM:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr to i64
//       CHECK:   %[[KTO:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<1> to i64
//       CHECK:   %[[KFMIS:.*]] = llvm.and %[[KFROM]], %[[KONE:.*]] : i64
//       CHECK:   %[[KTMIS:.*]] = llvm.and %[[KTO]], %[[KONE]] : i64
//       CHECK:   llvm.or %[[KFMIS]], %[[KTMIS]] : i64
//       CHECK:   llvm.load %{{.*}} : !llvm.ptr -> bf16
//       CHECK:   llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr -> vector<4xi32>
//       CHECK:   llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
//       CHECK:   llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
//       CHECK:   llvm.intr.fshr
//       CHECK:   llvm.store %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
//       CHECK:   llvm.load %{{.*}} : !llvm.ptr -> bf16
//       CHECK:   llvm.return
gpu.func @put_skewed(%src: memref<4096xbf16>, %dst: memref<4096xbf16, #weave.symmetric>, %soff_i64: i64, %doff_i64: i64, %n_i64: i64, %peer_i64: i64) kernel attributes {weave.kernel = #k} {
  %peer = arith.index_cast %peer_i64 : i64 to index
  %soff = arith.index_cast %soff_i64 : i64 to index
  %doff = arith.index_cast %doff_i64 : i64 to index
  %n = arith.index_cast %n_i64 : i64 to index
  %s = memref.subview %src[%soff] [%n] [1] : memref<4096xbf16> to memref<?xbf16, strided<[1], offset: ?>>
  %d = memref.subview %dst[%doff] [%n] [1] : memref<4096xbf16, #weave.symmetric> to memref<?xbf16, strided<[1], offset: ?>, #weave.symmetric>
  weave.put %s, %d on %peer : memref<?xbf16, strided<[1], offset: ?>> -> memref<?xbf16, strided<[1], offset: ?>, #weave.symmetric>
  gpu.return
}

// A get keeps the scalar copy where the alignments differ (its loads would
// cross NVLink as 4-byte words): no shifted words.
// CHECK-LABEL: llvm.func @get_skewed
//   CHECK-NOT:   llvm.intr.fshr
//       CHECK:   llvm.return
gpu.func @get_skewed(%src: memref<4096xbf16, #weave.symmetric>, %dst: memref<4096xbf16>, %soff_i64: i64, %doff_i64: i64, %n_i64: i64, %peer_i64: i64) kernel attributes {weave.kernel = #k} {
  %peer = arith.index_cast %peer_i64 : i64 to index
  %soff = arith.index_cast %soff_i64 : i64 to index
  %doff = arith.index_cast %doff_i64 : i64 to index
  %n = arith.index_cast %n_i64 : i64 to index
  %s = memref.subview %src[%soff] [%n] [1] : memref<4096xbf16, #weave.symmetric> to memref<?xbf16, strided<[1], offset: ?>, #weave.symmetric>
  %d = memref.subview %dst[%doff] [%n] [1] : memref<4096xbf16> to memref<?xbf16, strided<[1], offset: ?>>
  weave.get %s on %peer, %d : memref<?xbf16, strided<[1], offset: ?>, #weave.symmetric> -> memref<?xbf16, strided<[1], offset: ?>>
  gpu.return
}

// A warp copies: lane = tid % 32 starts, the warp's thread count (32, or
// fewer in a partial last warp) strides, and its mask feeds bar.warp.sync.
// Then lane 0 fences and releases the peer's counter.
// CHECK-LABEL: llvm.func @put_warp_signal
//  CHECK-SAME:   (%{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr<1>, %[[SEM:[^:]+]]: !llvm.ptr<1>, %[[I:[^:]+]]: i64, %[[V:[^:]+]]: i32, %[[PEER:[^:]+]]: i64,
//   CHECK-DAG:   %[[C1:.*]] = llvm.mlir.constant(1 : i64) : i64
//   CHECK-DAG:   %[[C32:.*]] = llvm.mlir.constant(32 : i64) : i64
//   CHECK-DAG:   %[[C31:.*]] = llvm.mlir.constant(31 : i64) : i64
//       CHECK:   %[[DELTA:.*]] = llvm.sub %{{.*}}, %{{.*}} : i64
//       CHECK:   %[[TID:.*]] = llvm.zext %{{.*}} : i32 to i64
//       CHECK:   %[[NT:.*]] = llvm.zext %{{.*}} : i32 to i64
//       CHECK:   %[[LANE:.*]] = llvm.and %[[TID]], %[[C31]] : i64
//       CHECK:   %[[FIRST:.*]] = llvm.sub %[[TID]], %[[LANE]] : i64
//       CHECK:   %[[LEFT:.*]] = llvm.sub %[[NT]], %[[FIRST]] : i64
//       CHECK:   %[[COUNT:.*]] = llvm.intr.umin(%[[LEFT]], %[[C32]])
//       CHECK:   %[[SHL:.*]] = llvm.shl %[[C1]], %[[COUNT]] : i64
//       CHECK:   %[[M64:.*]] = llvm.sub %[[SHL]], %[[C1]] : i64
//       CHECK:   %[[MASK:.*]] = llvm.trunc %[[M64]] : i64 to i32
//       CHECK:   llvm.add %{{.*}}, %[[COUNT]] : i64
//       CHECK:   nvvm.bar.warp.sync %[[MASK]] : i32
//  CHECK-NEXT:   %[[LEAD:.*]] = llvm.icmp "eq" %[[LANE]], %{{.*}} : i64
//  CHECK-NEXT:   llvm.cond_br %[[LEAD]], ^[[SIG:bb[0-9]+]], ^[[END:bb[0-9]+]]
//       CHECK: ^[[SIG]]:
//  CHECK-NEXT:   %[[CTR:.*]] = llvm.getelementptr %[[SEM]][%[[I]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
//  CHECK-NEXT:   %[[CI:.*]] = llvm.ptrtoint %[[CTR]] : !llvm.ptr<1> to i64
//  CHECK-NEXT:   %[[CA:.*]] = llvm.add %[[CI]], %[[DELTA]] : i64
//  CHECK-NEXT:   %[[PEERCTR:.*]] = llvm.inttoptr %[[CA]] : i64 to !llvm.ptr<1>
//  CHECK-NEXT:   llvm.inline_asm has_side_effects "fence.acq_rel.sys;", "~{memory}"
//  CHECK-NEXT:   llvm.inline_asm has_side_effects "red.release.sys.global.add.u32 [$0], $1;", "l,r,~{memory}" %[[PEERCTR]], %[[V]]
//  CHECK-NEXT:   llvm.br ^[[END]]
//       CHECK: ^[[END]]:
//  CHECK-NEXT:   llvm.return
gpu.func @put_warp_signal(%src: memref<100xf16>, %dst: memref<100xf16, #weave.symmetric>, %sem: !weave.semaphore<4>, %i_i64: i64, %v: i32, %peer_i64: i64) kernel attributes {weave.kernel = #k} {
  %peer = arith.index_cast %peer_i64 : i64 to index
  %i = arith.index_cast %i_i64 : i64 to index
  weave.put %src, %dst on %peer scope(warp) signal %sem[%i], %v : memref<100xf16> -> memref<100xf16, #weave.symmetric>, !weave.semaphore<4>
  gpu.return
}

// A block copies; the signal waits for the whole block (bar.sync), then
// thread 0 signals.
// CHECK-LABEL: llvm.func @put_block_signal
//       CHECK:   llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr -> vector<4xi32>
//       CHECK:   nvvm.barrier0
//  CHECK-NEXT:   %[[LEAD:.*]] = llvm.icmp "eq" %{{.*}}, %{{.*}} : i64
//  CHECK-NEXT:   llvm.cond_br %[[LEAD]]
//       CHECK:   llvm.inline_asm has_side_effects "fence.acq_rel.sys;"
//  CHECK-NEXT:   llvm.inline_asm has_side_effects "red.release.sys.global.add.u32 [$0], $1;"
gpu.func @put_block_signal(%src: memref<100xf16>, %dst: memref<100xf16, #weave.symmetric>, %sem: !weave.semaphore, %v: i32, %peer_i64: i64) kernel attributes {weave.kernel = #k} {
  %peer = arith.index_cast %peer_i64 : i64 to index
  weave.put %src, %dst on %peer signal %sem, %v : memref<100xf16> -> memref<100xf16, #weave.symmetric>, !weave.semaphore
  gpu.return
}

// One thread copies everything (start 0, step 1), needs no barrier, and
// signals the local counter: the data came here.
// CHECK-LABEL: llvm.func @get_thread_signal
//  CHECK-SAME:   (%{{[^:]+}}: !llvm.ptr<1>, %{{[^:]+}}: !llvm.ptr, %[[SEM:[^:]+]]: !llvm.ptr<1>, %[[V:[^:]+]]: i32,
//   CHECK-NOT:   nvvm.read.ptx.sreg.tid
//   CHECK-DAG:   %[[C0:.*]] = llvm.mlir.constant(0 : i64) : i64
//   CHECK-DAG:   %[[C1:.*]] = llvm.mlir.constant(1 : i64) : i64
//       CHECK:   llvm.cond_br %{{.*}}, ^[[H:bb[0-9]+]](%[[C0]] : i64), ^{{bb[0-9]+}}
//       CHECK:   llvm.add %{{.*}}, %[[C1]] : i64
//   CHECK-NOT:   nvvm.barrier0
//   CHECK-NOT:   nvvm.bar.warp.sync
//       CHECK:   %[[CTR:.*]] = llvm.getelementptr %[[SEM]][1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i32
//  CHECK-NEXT:   llvm.inline_asm has_side_effects "fence.acq_rel.sys;"
//  CHECK-NEXT:   llvm.inline_asm has_side_effects "red.release.sys.global.add.u32 [$0], $1;", "l,r,~{memory}" %[[CTR]], %[[V]]
//  CHECK-NEXT:   llvm.return
gpu.func @get_thread_signal(%src: memref<7xi64, #weave.symmetric>, %dst: memref<7xi64>, %sem: !weave.semaphore<2>, %v: i32, %peer_i64: i64) kernel attributes {weave.kernel = #k} {
  %peer = arith.index_cast %peer_i64 : i64 to index
  %c1 = arith.constant 1 : index
  weave.get %src on %peer, %dst scope(thread) signal %sem[%c1], %v : memref<7xi64, #weave.symmetric> -> memref<7xi64>, !weave.semaphore<2>
  gpu.return
}

}
