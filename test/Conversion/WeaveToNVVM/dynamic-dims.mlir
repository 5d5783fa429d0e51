// RUN: weave-opt %s -pass-pipeline='builtin.module(gpu.module(convert-weave-to-nvvm),canonicalize)' | FileCheck %s --implicit-check-not=weave.

// Memref arguments with dynamic dimensions: each becomes a bare pointer and
// its sizes arrive as i64 parameters after the team parameters (one per
// '?', argument order, outermost first), before the tensor maps
// (docs/ABI.md, "Dynamic dimensions"). The kernel's memref is rebuilt from
// them, so memref.dim and indexing read the launch sizes.

gpu.module @dyn {

// memref.dim reads the dim parameters: a.dim0, b.dim1, b.dim2.
// CHECK-LABEL: llvm.func @dims
//  CHECK-SAME:   (%{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr<1>, %[[OUT:[^:]+]]: !llvm.ptr,
//  CHECK-SAME:    %{{[^:]+}}: i32, %{{[^:]+}}: i32, %{{[^:]+}}: !llvm.ptr<1>,
//  CHECK-SAME:    %[[AM:[^:]+]]: i64, %[[BN:[^:]+]]: i64, %[[BK:[^:]+]]: i64)
//       CHECK:   llvm.store %[[AM]], %[[OUT]] : i64, !llvm.ptr
//       CHECK:   %[[P1:.+]] = llvm.getelementptr inbounds|nuw %[[OUT]][1]
//       CHECK:   llvm.store %[[BN]], %[[P1]] : i64, !llvm.ptr
//       CHECK:   %[[P2:.+]] = llvm.getelementptr inbounds|nuw %[[OUT]][2]
//       CHECK:   llvm.store %[[BK]], %[[P2]] : i64, !llvm.ptr
gpu.func @dims(%a: memref<?x64xf16>, %b: memref<8x?x?xf32, #weave.symmetric>, %out: memref<4xi64>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %m = memref.dim %a, %c0 : memref<?x64xf16>
  %n = memref.dim %b, %c1 : memref<8x?x?xf32, #weave.symmetric>
  %k = memref.dim %b, %c2 : memref<8x?x?xf32, #weave.symmetric>
  %mi = arith.index_cast %m : index to i64
  %ni = arith.index_cast %n : index to i64
  %ki = arith.index_cast %k : index to i64
  memref.store %mi, %out[%c0] : memref<4xi64>
  memref.store %ni, %out[%c1] : memref<4xi64>
  memref.store %ki, %out[%c2] : memref<4xi64>
  gpu.return
}

// Row-major strides from the launch sizes: b[i, j, l] of an 8 x N x K
// buffer is element i*(N*K) + j*K + l.
// CHECK-LABEL: llvm.func @load
//  CHECK-SAME:   (%[[B:[^:]+]]: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %[[I:[^:]+]]: i64, %[[J:[^:]+]]: i64, %[[L:[^:]+]]: i64,
//  CHECK-SAME:    %{{[^:]+}}: i32, %{{[^:]+}}: i32, %{{[^:]+}}: !llvm.ptr<1>, %[[N:[^:]+]]: i64, %[[K:[^:]+]]: i64)
//       CHECK:   %[[NK:.+]] = llvm.mul %[[K]], %[[N]] : i64
//       CHECK:   %[[X:.+]] = llvm.mul %[[I]], %[[NK]]
//       CHECK:   %[[Y:.+]] = llvm.mul %[[J]], %[[K]]
//       CHECK:   %[[XY:.+]] = llvm.add %[[X]], %[[Y]]
//       CHECK:   %[[E:.+]] = llvm.add %[[XY]], %[[L]]
//       CHECK:   llvm.getelementptr inbounds|nuw %[[B]][%[[E]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
gpu.func @load(%b: memref<8x?x?xf32>, %out: memref<1xf32>, %i: i64, %j: i64, %l: i64) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %c0 = arith.constant 0 : index
  %ii = arith.index_cast %i : i64 to index
  %jj = arith.index_cast %j : i64 to index
  %ll = arith.index_cast %l : i64 to index
  %v = memref.load %b[%ii, %jj, %ll] : memref<8x?x?xf32>
  memref.store %v, %out[%c0] : memref<1xf32>
  gpu.return
}

// weave.get with run-time sizes: the element counts of both sides come
// from their dim parameters and are compared before the copy (a mismatch
// prints both and traps).
// CHECK-LABEL: llvm.func @get_rows
//  CHECK-SAME:   %{{[^:]+}}: i32, %{{[^:]+}}: !llvm.ptr<1>, %[[SRCM:[^:]+]]: i64, %[[DSTM:[^:]+]]: i64)
//       CHECK:   %[[SRCN:.+]] = llvm.mul %[[SRCM]], %{{.+}} : i64
//       CHECK:   %[[DSTN:.+]] = llvm.mul %[[DSTM]], %{{.+}} : i64
//       CHECK:   %[[SAME:.+]] = llvm.icmp "eq" %[[SRCN]], %[[DSTN]] : i64
//       CHECK:   llvm.cond_br %[[SAME]]
//       CHECK:   llvm.call @vprintf
//       CHECK:   llvm.intr.trap
gpu.func @get_rows(%src: memref<?x32xf32, #weave.symmetric>, %dst: memref<?x32xf32>, %peer: i64) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %p = arith.index_cast %peer : i64 to index
  weave.get %src on %p, %dst : memref<?x32xf32, #weave.symmetric> -> memref<?x32xf32>
  gpu.return
}

// The tensor map follows the dim parameter and keeps its by-value,
// grid-constant passing; the TMA store takes it.
// CHECK-LABEL: llvm.func @tma
//  CHECK-SAME:   %{{[^:]+}}: i32, %{{[^:]+}}: i32, %{{[^:]+}}: !llvm.ptr<1>, %{{[^:]+}}: i64,
//  CHECK-SAME:    %[[MAP:[^:]+]]: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
//       CHECK:   nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAP]]
gpu.func @tma(%out: memref<?x64xf32>) workgroup(%tile: memref<64x64xf32, #gpu.address_space<workgroup>>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %c0 = arith.constant 0 : index
  weave.copy_smem_to_gmem %tile, %out[%c0, %c0] : memref<64x64xf32, #gpu.address_space<workgroup>> -> memref<?x64xf32>
  weave.wait_smem_to_gmem 0
  gpu.return
}

}
