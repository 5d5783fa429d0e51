// RUN: weave-opt %s -split-input-file --weave-expand-pipelines | FileCheck %s --implicit-check-not=weave.matmul_pipeline

// cluster_m(2): the two blocks of a cluster compute vertically adjacent
// tiles of one column tile in lock step and share its rhs tile.

// CHECK-LABEL: gpu.func @pair
//  CHECK-SAME:   (%[[A:[^:]*]]: memref<256x128xf16>, %[[B:[^:]*]]: memref<128x512xf16>, %[[C:[^:]*]]: memref<256x512xf16>)
// Work goes to clusters; a block's rank in its cluster picks its row tile.
//   CHECK-DAG:   %[[CID:.*]] = gpu.cluster_id x
//   CHECK-DAG:   %[[CDIM:.*]] = gpu.cluster_dim x
//   CHECK-DAG:   %[[RANK:.*]] = gpu.cluster_block_id x
// An empty barrier completes when both consumers of both blocks released
// the slot: 4 arrivals. Full barriers still take one (the expect_tx).
//       CHECK:   scf.if
// CHECK-COUNT-3:   nvvm.mbarrier.init %{{.*}}, %c{{[14]}}_i32{{(_[0-9]+)?}} : !llvm.ptr<3>, i32
//       CHECK:     nvvm.mbarrier.init %{{.*}}, %c4_i32{{(_[0-9]+)?}} : !llvm.ptr<3>, i32
//       CHECK:     nvvm.fence.mbarrier.init
// Peers write into this block's slots and arrive on its barriers: the
// whole cluster synchronizes once they are initialized.
//  CHECK-NEXT:   }
//  CHECK-NEXT:   nvvm.cluster.arrive
//  CHECK-NEXT:   nvvm.cluster.wait
//   CHECK-NOT:   gpu.barrier
// Balanced schedule: R = ceil(tiles / clusters) rounds over the first
// W = ceil(tiles / R) clusters; the others start past the last tile.
//       CHECK:   %[[TILES:.*]] = arith.muli
//       CHECK:   %[[T1:.*]] = arith.addi %[[TILES]], %[[CDIM]]
//       CHECK:   %[[T2:.*]] = arith.subi %[[T1]], %c1
//       CHECK:   %[[R0:.*]] = arith.divui %[[T2]], %[[CDIM]]
//       CHECK:   %[[R:.*]] = arith.maxui %[[R0]], %c1
//       CHECK:   %[[U1:.*]] = arith.addi %[[TILES]], %[[R]]
//       CHECK:   %[[U2:.*]] = arith.subi %[[U1]], %c1
//       CHECK:   %[[W:.*]] = arith.divui %[[U2]], %[[R]]
//       CHECK:   %[[BUSY:.*]] = arith.cmpi ult, %[[CID]], %[[W]]
//       CHECK:   %[[FIRST:.*]] = arith.select %[[BUSY]], %[[CID]], %[[TILES]]
//       CHECK:   scf.if
//       CHECK:     nvvm.setmaxregister decrease 40
//       CHECK:     scf.for %{{.*}} = %[[FIRST]] to %[[TILES]] step %[[W]]
//       CHECK:       scf.for
// The producer still arms its full barrier with the whole stage (its own
// loads plus the peer's multicast half of the rhs)...
//       CHECK:         nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c49152_i32{{(_[0-9]+)?}} : !llvm.ptr<3>, i32
//       CHECK:         weave.copy_gmem_to_smem %[[A]][%{{.*}}, %{{.*}}], %{{.*}}, %{{.*}} {swizzle = 128 : i64, weave.coordinates_in_range}
// ...but loads only its half of the rhs boxes (from box 2 * rank),
// multicast to both blocks (mask 0b11).
//       CHECK:         arith.muli %[[RANK]], %c2{{(_[0-9]+)?}} : index
// CHECK-COUNT-2:       weave.copy_gmem_to_smem %[[B]][%{{.*}}, %{{.*}}], %{{.*}}, %{{.*}} multicast(%c3_i16) {swizzle = 128 : i64, weave.coordinates_in_range}
//   CHECK-NOT:   weave.copy_gmem_to_smem
// The producer's tail: for each of the last 3 steps (if there are that
// many), wait for its slot's empty barrier to complete that step's round.
// CHECK-COUNT-3:     arith.cmpi uge, %{{.*}}, %c{{[123]}}
//   CHECK-NOT:   nvvm.cluster.arrive
// Consumers: wgmma descriptors take bits 4..17 of the shared address (in a
// cluster launch the address has higher bits set).
//       CHECK:     nvvm.setmaxregister increase 232
//       CHECK:         arith.andi %{{.*}}, %c16383_i64
//       CHECK:         nvvm.wgmma.mma_async
// A slot goes back to both blocks: threads 0 and 1 of the warpgroup each
// arrive on the barrier at the same offset in block 0 and block 1.
//       CHECK:         nvvm.wgmma.wait.group.sync.aligned 0
//       CHECK:         arith.cmpi ult, %{{.*}}, %c2{{(_[0-9]+)?}} : index
//       CHECK:         llvm.inline_asm has_side_effects "{{.*}}mapa.shared::cluster.u32 remote, $0, $1;{{.*}}mbarrier.arrive.shared::cluster.b64 _, [remote];{{.*}}", "r,r,~{memory}"
//   CHECK-NOT:         nvvm.mbarrier.arrive %
// No block leaves while a peer may still write into its slots or arrive on
// its barriers: after its last load, the producer waits until the last use
// of each of the 3 slots was released (parity of that step's round), and
// there is no cluster barrier before the return.
//       CHECK:   weave.wait_smem_to_gmem 0 read_only
//   CHECK-NOT:   nvvm.cluster.arrive
//       CHECK:   gpu.return
gpu.module @m {
  gpu.func @pair(%a: memref<256x128xf16>, %b: memref<128x512xf16>, %c: memref<256x512xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], cluster = [2, 1, 1], block = [384, 1, 1], smem = 200000>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(3) cluster_m(2) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16>
    gpu.return
  }
}

// -----

// Without a cluster: blocks take tiles by block index, one local arrival
// per release from thread 0, and the block barrier after initialization.
// CHECK-LABEL: gpu.func @single
//   CHECK-NOT:   gpu.cluster_id
//   CHECK-DAG:   %[[BID:.*]] = gpu.block_id x
//   CHECK-DAG:   %[[GDIM:.*]] = gpu.grid_dim x
//       CHECK:   nvvm.fence.mbarrier.init
//       CHECK:   gpu.barrier
//       CHECK:   arith.addi %{{.*}}, %[[GDIM]]
//       CHECK:   arith.divui %{{.*}}, %[[GDIM]]
//       CHECK:   %[[W:.*]] = arith.divui
//       CHECK:   %[[BUSY:.*]] = arith.cmpi ult, %[[BID]], %[[W]]
//       CHECK:   %[[FIRST:.*]] = arith.select %[[BUSY]], %[[BID]]
//       CHECK:   scf.for %{{.*}} = %[[FIRST]] to %{{.*}} step %[[W]]
//   CHECK-NOT:   multicast
//       CHECK:   arith.cmpi ult, %{{.*}}, %c1{{(_[0-9]+)?}} : index
//  CHECK-NEXT:   scf.if
//       CHECK:     nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
//   CHECK-NOT:   nvvm.cluster.arrive
//       CHECK:   gpu.return
gpu.module @m {
  gpu.func @single(%a: memref<256x128xf16>, %b: memref<128x512xf16>, %c: memref<256x512xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [4, 1, 1], block = [384, 1, 1], smem = 200000>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(3) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16>
    gpu.return
  }
}
