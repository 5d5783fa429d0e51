// RUN: weave-opt %s -pass-pipeline='builtin.module(expand-strided-metadata,lower-affine,gpu.module(convert-weave-to-nvvm),canonicalize)' | FileCheck %s --implicit-check-not=weave.

gpu.module @packets {

// Run-time sizes: one packet per 32-bit word or part of one is checked, or
// the kernel traps; an odd number of bf16 may end in a partial word, which
// the last thread reads first and of which it stores only the element.
// CHECK:       llvm.mlir.global internal constant @[[$FMT:printfFormat_[0-9]+]]("weave: read_packets in kernel 'read_packets_dynamic' at {{.*}}: %lu bytes of data for %lu packets (expected one packet per 32-bit word or part of one)
// CHECK-LABEL: llvm.func @read_packets_dynamic
//       CHECK:   llvm.mlir.addressof @[[$FMT]]
//       CHECK:   %[[BYTES:.*]] = llvm.mul %{{.*}}, %{{.*}} : i64
//       CHECK:   %[[SPARE:.*]] = llvm.and %[[BYTES]], %{{.*}} : i64
//       CHECK:   %[[UP:.*]] = llvm.add %[[BYTES]], %{{.*}} : i64
//  CHECK-NEXT:   %[[WORDS:.*]] = llvm.lshr %[[UP]], %{{.*}} : i64
//       CHECK:   llvm.icmp "eq" %[[WORDS]], %{{.*}} : i64
//       CHECK:   llvm.call @vprintf
//  CHECK-NEXT:   llvm.intr.trap
//       CHECK:   llvm.icmp "ne" %[[SPARE]], %{{.*}} : i64
//   CHECK-NOT:   llvm.urem
//       CHECK:   %[[ELT:.*]] = llvm.trunc %{{.*}} : i64 to i16
//  CHECK-NEXT:   llvm.store %[[ELT]], %{{.*}} {alignment = 2 : i64} : i16, !llvm.ptr
//  CHECK-NEXT:   llvm.br
// The whole words: one 32-bit store where the target starts on a 4-byte
// boundary, else two 16-bit ones.
//       CHECK:   llvm.ptrtoint
//       CHECK:   llvm.cond_br %{{.*}}, ^[[WIDE:bb[0-9]+]], ^[[NARROW:bb[0-9]+]]
//  CHECK-NEXT: ^[[WIDE]]:
//  CHECK-NEXT:   llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr
//       CHECK: ^[[NARROW]]:
//       CHECK:   llvm.store %{{.*}}, %{{.*}} {alignment = 2 : i64} : i16, !llvm.ptr
//       CHECK:   llvm.store %{{.*}}, %{{.*}} {alignment = 2 : i64} : i16, !llvm.ptr
//   CHECK-NOT:   : i32, !llvm.ptr
//       CHECK:   llvm.return
gpu.func @read_packets_dynamic(%lines: memref<64xi64, #weave.symmetric>, %flag: i32, %dst: memref<128xbf16>, %n_i64: i64, %words_i64: i64) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %n = arith.index_cast %n_i64 : i64 to index
  %words = arith.index_cast %words_i64 : i64 to index
  %p = memref.subview %lines[0] [%words] [1] : memref<64xi64, #weave.symmetric> to memref<?xi64, strided<[1]>, #weave.symmetric>
  %d = memref.subview %dst[0] [%n] [1] : memref<128xbf16> to memref<?xbf16, strided<[1]>>
  weave.read_packets %p, %flag into %d : memref<?xi64, strided<[1]>, #weave.symmetric> -> memref<?xbf16, strided<[1]>>
  gpu.return
}

// A part at a run-time element offset (an all-to-all-v's): the alignment
// test is on the part's start, the buffer plus the offset, not on the
// buffer.
// CHECK-LABEL: llvm.func @read_packets_at_offset
//  CHECK-SAME:   (%{{[^:]+}}: !llvm.ptr<1>, %{{[^:]+}}: i32, %[[BUF:[^:]+]]: !llvm.ptr, %[[OFF:[^:]+]]: i64,
//       CHECK:   %[[START:.*]] = llvm.getelementptr %[[BUF]][%[[OFF]]] : (!llvm.ptr, i64) -> !llvm.ptr, bf16
//       CHECK:   %[[TO:.*]] = llvm.getelementptr %[[START]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i32
//  CHECK-NEXT:   %[[ADDR:.*]] = llvm.ptrtoint %[[START]] : !llvm.ptr to i64
//  CHECK-NEXT:   %[[LOW:.*]] = llvm.and %[[ADDR]], %{{.*}} : i64
//  CHECK-NEXT:   %[[ALIGNED:.*]] = llvm.icmp "eq" %[[LOW]], %{{.*}} : i64
//  CHECK-NEXT:   llvm.cond_br %[[ALIGNED]], ^[[WIDE:bb[0-9]+]], ^[[NARROW:bb[0-9]+]]
//  CHECK-NEXT: ^[[WIDE]]:
//  CHECK-NEXT:   llvm.store %{{.*}}, %[[TO]] {alignment = 4 : i64} : i32, !llvm.ptr
//       CHECK: ^[[NARROW]]:
//  CHECK-NEXT:   llvm.trunc %{{.*}} : i32 to i16
//  CHECK-NEXT:   llvm.store %{{.*}}, %[[TO]] {alignment = 2 : i64} : i16, !llvm.ptr
gpu.func @read_packets_at_offset(%lines: memref<64xi64, #weave.symmetric>, %flag: i32, %dst: memref<256xbf16>, %off_i64: i64) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %off = arith.index_cast %off_i64 : i64 to index
  %d = memref.subview %dst[%off] [128] [1] : memref<256xbf16> to memref<128xbf16, strided<[1], offset: ?>>
  weave.read_packets %lines, %flag into %d : memref<64xi64, #weave.symmetric> -> memref<128xbf16, strided<[1], offset: ?>>
  gpu.return
}

// f32 data is always whole words: no partial-word path.
// CHECK-LABEL: llvm.func @read_packets_dynamic_f32
//   CHECK-NOT:   {{: i16, !llvm.ptr|llvm.ptrtoint}}
//       CHECK:   llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr
//   CHECK-NOT:   {{: i16, !llvm.ptr|llvm.ptrtoint}}
//       CHECK:   llvm.return
gpu.func @read_packets_dynamic_f32(%lines: memref<64xi64, #weave.symmetric>, %flag: i32, %dst: memref<64xf32>, %n_i64: i64) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %n = arith.index_cast %n_i64 : i64 to index
  %p = memref.subview %lines[0] [%n] [1] : memref<64xi64, #weave.symmetric> to memref<?xi64, strided<[1]>, #weave.symmetric>
  %d = memref.subview %dst[0] [%n] [1] : memref<64xf32> to memref<?xf32, strided<[1]>>
  weave.read_packets %p, %flag into %d : memref<?xi64, strided<[1]>, #weave.symmetric> -> memref<?xf32, strided<[1]>>
  gpu.return
}

}
