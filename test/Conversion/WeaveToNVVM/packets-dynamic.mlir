// RUN: weave-opt %s -pass-pipeline='builtin.module(expand-strided-metadata,lower-affine,gpu.module(convert-weave-to-nvvm),canonicalize)' | FileCheck %s --implicit-check-not=weave.

gpu.module @packets {

// Run-time sizes: one packet per 32-bit word is checked, or the kernel traps.
// CHECK:       llvm.mlir.global internal constant @[[$FMT:printfFormat_[0-9]+]]("weave: read_packets in kernel 'read_packets_dynamic' at {{.*}}: %lu bytes of data for %lu packets (expected one packet per 32-bit word)
// CHECK-LABEL: llvm.func @read_packets_dynamic
//       CHECK:   llvm.mlir.addressof @[[$FMT]]
//       CHECK:   llvm.call @vprintf
//  CHECK-NEXT:   llvm.intr.trap
gpu.func @read_packets_dynamic(%lines: memref<64xi64, #weave.symmetric>, %flag: i32, %dst: memref<128xbf16>, %n_i64: i64, %words_i64: i64) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %n = arith.index_cast %n_i64 : i64 to index
  %words = arith.index_cast %words_i64 : i64 to index
  %p = memref.subview %lines[0] [%words] [1] : memref<64xi64, #weave.symmetric> to memref<?xi64, strided<[1]>, #weave.symmetric>
  %d = memref.subview %dst[0] [%n] [1] : memref<128xbf16> to memref<?xbf16, strided<[1]>>
  weave.read_packets %p, %flag into %d : memref<?xi64, strided<[1]>, #weave.symmetric> -> memref<?xbf16, strided<[1]>>
  gpu.return
}

}
