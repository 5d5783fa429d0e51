// RUN: weave-opt %s -pass-pipeline='builtin.module(gpu.module(convert-weave-to-nvvm))' | FileCheck %s --implicit-check-not=weave.
// RUN: weave-opt %s -pass-pipeline='builtin.module(gpu.module(convert-weave-to-nvvm{wait-timeout-ns=1000}))' | FileCheck %s --check-prefix=TIMEOUT

gpu.module @packets {

// Thread tid packs words tid, tid + ntid, ... of the source: the word in
// the low half, the flag in the high half, one 64-bit relaxed store at
// system scope on the peer's packet buffer. No fence, no barrier, no signal.
// CHECK-LABEL: llvm.func @put_packets
//  CHECK-SAME:   (%[[SRC:[^:]+]]: !llvm.ptr, %[[LINES:[^:]+]]: !llvm.ptr<1>, %[[PEER:[^:]+]]: i64, %[[FLAG:[^:]+]]: i32,
//       CHECK:   %[[DELTA:.*]] = llvm.sub
//       CHECK:   %[[REMOTE:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
//       CHECK:   %[[WORDS:.*]] = llvm.lshr %{{.*}}, %{{.*}} : i64
//       CHECK:   %[[WIDE:.*]] = llvm.zext %[[FLAG]] : i32 to i64
//       CHECK:   %[[HIGH:.*]] = llvm.shl %[[WIDE]], %{{.*}} : i64
//       CHECK:   %{{.*}} = llvm.icmp "ult" %{{.*}}, %[[WORDS]] : i64
//  CHECK-NEXT:   llvm.cond_br %{{.*}}, ^[[HEAD:bb[0-9]+]](%{{.*}} : i64), ^{{bb[0-9]+}}
//       CHECK: ^[[HEAD]](%[[I:.*]]: i64):
//       CHECK:   %[[FROM:.*]] = llvm.getelementptr %{{.*}}[%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
//  CHECK-NEXT:   %[[WORD:.*]] = llvm.load %[[FROM]] {alignment = 2 : i64} : !llvm.ptr -> i32
//  CHECK-NEXT:   %[[W64:.*]] = llvm.zext %[[WORD]] : i32 to i64
//  CHECK-NEXT:   %[[PACKET:.*]] = llvm.or %[[W64]], %[[HIGH]] : i64
//  CHECK-NEXT:   %[[TO:.*]] = llvm.getelementptr %[[REMOTE]][%[[I]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i64
//  CHECK-NEXT:   llvm.inline_asm has_side_effects "st.relaxed.sys.global.u64 [$0], $1;", "l,l,~{memory}" %[[TO]], %[[PACKET]]
//   CHECK-NOT:   {{fence|-> i16}}
//       CHECK:   llvm.return
gpu.func @put_packets(%src: memref<64xbf16>, %lines: memref<32xi64, #weave.symmetric>, %peer_i64: i64, %flag: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %peer = arith.index_cast %peer_i64 : i64 to index
  weave.put %src, %lines on %peer packets(%flag) : memref<64xbf16> -> memref<32xi64, #weave.symmetric>
  gpu.return
}

// Each packet: spin on a 64-bit relaxed load at system scope until its high
// half is the flag, then store the low half as the data word.
// CHECK-LABEL: llvm.func @read_packets
//  CHECK-SAME:   (%[[LINES:[^:]+]]: !llvm.ptr<1>, %[[FLAG:[^:]+]]: i32, %[[DST:[^:]+]]: !llvm.ptr,
//       CHECK:   llvm.cond_br %{{.*}}, ^[[HEAD:bb[0-9]+]](%{{.*}} : i64), ^{{bb[0-9]+}}
//       CHECK: ^[[HEAD]](%[[I:.*]]: i64):
//       CHECK:   %[[AT:.*]] = llvm.getelementptr %{{.*}}[%[[I]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i64
//       CHECK:   llvm.br ^[[SPIN:bb[0-9]+]]
//       CHECK: ^[[SPIN]]:
//  CHECK-NEXT:   %[[P:.*]] = llvm.inline_asm has_side_effects "ld.relaxed.sys.global.u64 $0, [$1];", "=l,l,~{memory}" %[[AT]] : (!llvm.ptr<1>) -> i64
//  CHECK-NEXT:   %[[C32:.*]] = llvm.mlir.constant(32 : i64) : i64
//  CHECK-NEXT:   %[[HI:.*]] = llvm.lshr %[[P]], %[[C32]] : i64
//  CHECK-NEXT:   %[[GOT:.*]] = llvm.trunc %[[HI]] : i64 to i32
//  CHECK-NEXT:   %[[SAME:.*]] = llvm.icmp "eq" %[[GOT]], %[[FLAG]] : i32
//  CHECK-NEXT:   llvm.cond_br %[[SAME]], ^[[DONE:bb[0-9]+]], ^[[SPIN]]
//       CHECK: ^[[DONE]]:
//  CHECK-NEXT:   %[[WORD:.*]] = llvm.trunc %[[P]] : i64 to i32
//  CHECK-NEXT:   %[[TO:.*]] = llvm.getelementptr %{{.*}}[%[[I]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
//  CHECK-NEXT:   llvm.store %[[WORD]], %[[TO]] {alignment = 4 : i64} : i32, !llvm.ptr
// f32 words are always 4-byte aligned: no test of the target's alignment.
//   CHECK-NOT:   llvm.ptrtoint
//       CHECK:   llvm.return
// With a timeout, the spin reads the global timer and reports the packet.
// TIMEOUT:       @[[$FMT:printfFormat_[0-9]+]]("weave: read_packets timed out after 1000 ns in kernel 'read_packets' at {{.*}}packet %lu expected flag %u, observed %u
// TIMEOUT-LABEL: llvm.func @read_packets
//       TIMEOUT:   nvvm.read.ptx.sreg.globaltimer
//       TIMEOUT:   llvm.inline_asm {{.*}}"ld.relaxed.sys.global.u64 $0, [$1];"
//       TIMEOUT:   llvm.mlir.addressof @[[$FMT]]
//       TIMEOUT:   llvm.intr.trap
gpu.func @read_packets(%lines: memref<16xi64, #weave.symmetric>, %flag: i32, %dst: memref<16xf32>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.read_packets %lines, %flag into %dst : memref<16xi64, #weave.symmetric> -> memref<16xf32>
  gpu.return
}

// Five bf16 are two whole words and a partial one. The scope's last
// thread sends the partial one first (no division by the thread count):
// it loads the last element alone (a word load would read past the
// source), zero-extends it and sends it as packet 2; then the loop over the
// whole words.
// CHECK-LABEL: llvm.func @put_packets_partial
//       CHECK:   nvvm.read.ptx.sreg.ntid.z
//       CHECK:   %[[LAST:.*]] = llvm.sub %{{.*}}, %{{.*}} : i64
//       CHECK:   llvm.icmp "eq" %{{.*}}, %[[LAST]] : i64
//       CHECK:   llvm.cond_br %{{.*}}, ^[[PART:bb[0-9]+]], ^[[AFTER:bb[0-9]+]]
//       CHECK: ^[[PART]]:
//   CHECK-NOT:   -> i32
//       CHECK:   %[[ELT:.*]] = llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr -> i16
//  CHECK-NEXT:   %[[WORD:.*]] = llvm.zext %[[ELT]] : i16 to i32
//       CHECK:   %[[PACKET:.*]] = llvm.or %{{.*}}, %{{.*}} : i64
//       CHECK:   llvm.inline_asm has_side_effects "st.relaxed.sys.global.u64 [$0], $1;", "l,l,~{memory}" %{{.*}}, %[[PACKET]]
//  CHECK-NEXT:   llvm.br ^[[AFTER]]
//       CHECK: ^[[AFTER]]:
//  CHECK-NEXT:   llvm.icmp "ult"
//       CHECK:   llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr -> i32
//       CHECK:   "st.relaxed.sys.global.u64 [$0], $1;"
//   CHECK-NOT:   llvm.urem
//       CHECK:   llvm.return
gpu.func @put_packets_partial(%src: memref<5xbf16>, %lines: memref<3xi64, #weave.symmetric>, %peer_i64: i64, %flag: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %peer = arith.index_cast %peer_i64 : i64 to index
  weave.put %src, %lines on %peer packets(%flag) : memref<5xbf16> -> memref<3xi64, #weave.symmetric>
  gpu.return
}

// Bytes: a partial word of 1-3 of them; the second and third are loaded
// from the first's address where absent and dropped (no branch).
// CHECK-LABEL: llvm.func @put_packets_bytes
//       CHECK:   llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> i8
//       CHECK:   llvm.icmp "ugt"
//  CHECK-NEXT:   llvm.select
//  CHECK-NEXT:   llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> i8
//       CHECK:   llvm.icmp "ugt"
//  CHECK-NEXT:   llvm.select
//  CHECK-NEXT:   llvm.load %{{.*}} {alignment = 1 : i64} : !llvm.ptr -> i8
//       CHECK:   "st.relaxed.sys.global.u64 [$0], $1;"
gpu.func @put_packets_bytes(%src: memref<7xi8>, %lines: memref<2xi64, #weave.symmetric>, %peer_i64: i64, %flag: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %peer = arith.index_cast %peer_i64 : i64 to index
  weave.put %src, %lines on %peer packets(%flag) : memref<7xi8> -> memref<2xi64, #weave.symmetric>
  gpu.return
}

// The reader of a partial word (the scope's last thread, first) spins on
// it like on the others and stores only the data's element: a 16-bit
// store, nothing past the target; then the loop over the whole words.
// Each whole word: one 32-bit store where the target's start (not the
// word's address: the same for every thread) is 4-byte aligned at run time,
// else the word's two 16-bit halves, low half first (bf16 data may start at
// any element: the all-to-all-v's parts).
// CHECK-LABEL: llvm.func @read_packets_partial
//       CHECK:   %[[DST:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, bf16
//       CHECK:   llvm.cond_br %{{.*}}, ^[[PART:bb[0-9]+]], ^[[AFTER:bb[0-9]+]]
//       CHECK: ^[[PART]]:
//       CHECK:   "ld.relaxed.sys.global.u64 $0, [$1];"
//       CHECK:   %[[BASE:.*]] = llvm.getelementptr %[[DST]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i32
//  CHECK-NEXT:   %[[ELT:.*]] = llvm.trunc %{{.*}} : i64 to i16
//  CHECK-NEXT:   llvm.store %[[ELT]], %[[BASE]] {alignment = 2 : i64} : i16, !llvm.ptr
//  CHECK-NEXT:   llvm.br ^[[AFTER]]
//       CHECK: ^[[AFTER]]:
//  CHECK-NEXT:   llvm.icmp "ult"
//       CHECK:   "ld.relaxed.sys.global.u64 $0, [$1];"
//       CHECK:   llvm.cond_br %{{.*}}, ^[[DONE:bb[0-9]+]], ^{{bb[0-9]+}}
//  CHECK-NEXT: ^[[DONE]]:
//  CHECK-NEXT:   %[[WORD:.*]] = llvm.trunc %{{.*}} : i64 to i32
//  CHECK-NEXT:   %[[TO:.*]] = llvm.getelementptr %[[DST]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i32
//  CHECK-NEXT:   %[[THREE:.*]] = llvm.mlir.constant(3 : i64) : i64
//  CHECK-NEXT:   %[[ADDR:.*]] = llvm.ptrtoint %[[DST]] : !llvm.ptr to i64
//  CHECK-NEXT:   %[[LOW:.*]] = llvm.and %[[ADDR]], %[[THREE]] : i64
//  CHECK-NEXT:   %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
//  CHECK-NEXT:   %[[ALIGNED:.*]] = llvm.icmp "eq" %[[LOW]], %[[ZERO]] : i64
//  CHECK-NEXT:   llvm.cond_br %[[ALIGNED]], ^[[WIDE:bb[0-9]+]], ^[[NARROW:bb[0-9]+]]
//  CHECK-NEXT: ^[[WIDE]]:
//  CHECK-NEXT:   llvm.store %[[WORD]], %[[TO]] {alignment = 4 : i64} : i32, !llvm.ptr
//  CHECK-NEXT:   llvm.br ^[[NEXT:bb[0-9]+]]
//  CHECK-NEXT: ^[[NARROW]]:
//  CHECK-NEXT:   %[[LO:.*]] = llvm.trunc %[[WORD]] : i32 to i16
//  CHECK-NEXT:   llvm.store %[[LO]], %[[TO]] {alignment = 2 : i64} : i16, !llvm.ptr
//  CHECK-NEXT:   %[[TO2:.*]] = llvm.getelementptr %[[TO]][1] : (!llvm.ptr) -> !llvm.ptr, i16
//  CHECK-NEXT:   %[[SIXTEEN:.*]] = llvm.mlir.constant(16 : i32) : i32
//  CHECK-NEXT:   %[[HIGH:.*]] = llvm.lshr %[[WORD]], %[[SIXTEEN]] : i32
//  CHECK-NEXT:   %[[HI:.*]] = llvm.trunc %[[HIGH]] : i32 to i16
//  CHECK-NEXT:   llvm.store %[[HI]], %[[TO2]] {alignment = 2 : i64} : i16, !llvm.ptr
//  CHECK-NEXT:   llvm.br ^[[NEXT]]
//  CHECK-NEXT: ^[[NEXT]]:
//   CHECK-NOT:   llvm.store
//       CHECK:   llvm.return
gpu.func @read_packets_partial(%lines: memref<3xi64, #weave.symmetric>, %flag: i32, %dst: memref<5xbf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.read_packets %lines, %flag into %dst : memref<3xi64, #weave.symmetric> -> memref<5xbf16>
  gpu.return
}

// Bytes: a whole word whose target is not 4-byte aligned is stored as its
// four bytes, lowest first.
// CHECK-LABEL: llvm.func @read_packets_bytes
//       CHECK:   llvm.ptrtoint
//       CHECK:   llvm.cond_br %{{.*}}, ^[[WIDE:bb[0-9]+]], ^[[NARROW:bb[0-9]+]]
//  CHECK-NEXT: ^[[WIDE]]:
//  CHECK-NEXT:   llvm.store %[[WORD:.*]], %[[TO:.*]] {alignment = 4 : i64} : i32, !llvm.ptr
//       CHECK: ^[[NARROW]]:
//  CHECK-NEXT:   %[[B0:.*]] = llvm.trunc %[[WORD]] : i32 to i8
//  CHECK-NEXT:   llvm.store %[[B0]], %[[TO]] {alignment = 1 : i64} : i8, !llvm.ptr
//       CHECK:   llvm.mlir.constant(8 : i32) : i32
//       CHECK:   llvm.store %{{.*}} {alignment = 1 : i64} : i8, !llvm.ptr
//       CHECK:   llvm.mlir.constant(16 : i32) : i32
//       CHECK:   llvm.store %{{.*}} {alignment = 1 : i64} : i8, !llvm.ptr
//       CHECK:   %[[SHIFT:.*]] = llvm.mlir.constant(24 : i32) : i32
//  CHECK-NEXT:   %[[HIGH:.*]] = llvm.lshr %[[WORD]], %[[SHIFT]] : i32
//  CHECK-NEXT:   %[[B3:.*]] = llvm.trunc %[[HIGH]] : i32 to i8
//  CHECK-NEXT:   llvm.store %[[B3]], %{{.*}} {alignment = 1 : i64} : i8, !llvm.ptr
//  CHECK-NEXT:   llvm.br
//   CHECK-NOT:   llvm.store
//       CHECK:   llvm.return
gpu.func @read_packets_bytes(%lines: memref<2xi64, #weave.symmetric>, %flag: i32, %dst: memref<8xi8>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.read_packets %lines, %flag into %dst : memref<2xi64, #weave.symmetric> -> memref<8xi8>
  gpu.return
}

}
