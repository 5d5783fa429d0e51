// RUN: weave-opt %s -expand-strided-metadata -lower-affine | weavec - --emit=ptx | FileCheck %s
// RUN: %if ptxas %{ weave-opt %s -expand-strided-metadata -lower-affine | weavec - --emit=cubin -o %t.cubin %}

// PTX of the packet copies of bf16 parts at a run-time element offset (an
// all-to-all-v's): the reader stores each whole word with one 32-bit store
// where the part starts on a 4-byte boundary and as two 16-bit stores
// elsewhere, both arms kept apart through LLVM's optimizations; the
// writer's loads of the words stay two 16-bit loads (a branch there cost
// ll_all_to_all_v its unrolled loop over peers, docs/PERF.md).

#k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>

// CHECK-LABEL: .visible .entry read_part(
//       CHECK: and.b64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, 3;
//   CHECK-DAG: ld.relaxed.sys.global.u64
//   CHECK-DAG: st.global.b16 [%rd{{[0-9]+}}], %r{{d?[0-9]+}};
//   CHECK-DAG: st.global.b16 [%rd{{[0-9]+}}+2], %r{{d?[0-9]+}};
//   CHECK-DAG: st.global.b32 [%rd{{[0-9]+}}], %r{{d?[0-9]+}};
//       CHECK: ret;
gpu.module @m {
gpu.func @read_part(%lines: memref<64xi64, #weave.symmetric>, %flag: i32, %dst: memref<256xbf16>, %off_i64: i64) kernel attributes {weave.kernel = #k} {
  %off = arith.index_cast %off_i64 : i64 to index
  %d = memref.subview %dst[%off] [128] [1] : memref<256xbf16> to memref<128xbf16, strided<[1], offset: ?>>
  weave.read_packets %lines, %flag into %d : memref<64xi64, #weave.symmetric> -> memref<128xbf16, strided<[1], offset: ?>>
  gpu.return
}

// CHECK-LABEL: .visible .entry put_part(
//   CHECK-NOT: ld.global.b32
//       CHECK: ld.global.b16
//       CHECK: ld.global.b16
//   CHECK-NOT: ld.global.b32
//       CHECK: st.relaxed.sys.global.u64
//   CHECK-NOT: ld.global.b32
//       CHECK: ret;
gpu.func @put_part(%src: memref<256xbf16>, %lines: memref<64xi64, #weave.symmetric>, %peer_i64: i64, %flag: i32, %off_i64: i64) kernel attributes {weave.kernel = #k} {
  %peer = arith.index_cast %peer_i64 : i64 to index
  %off = arith.index_cast %off_i64 : i64 to index
  %s = memref.subview %src[%off] [128] [1] : memref<256xbf16> to memref<128xbf16, strided<[1], offset: ?>>
  weave.put %s, %lines on %peer packets(%flag) : memref<128xbf16, strided<[1], offset: ?>> -> memref<64xi64, #weave.symmetric>
  gpu.return
}
}
