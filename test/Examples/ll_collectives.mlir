// The packet (ll_*) collectives of issue #30's latency path, as lowered:
// after the epoch (one block synchronization, then thread 0 bumps it), each
// block packs its chunk as 64-bit packets (data word | epoch << 32) with
// st.relaxed.sys and spins on its own packets with ld.relaxed.sys. No
// fence, no atomic, no release/acquire flag, and no block synchronization
// between the stores and the spins: the flag travels in the data. The
// all-gather and all-to-all read straight into the output (one bar.sync in
// all); the reducing kernels read into their local copy, synchronize the
// block once, and sum (two bar.syncs, no packet load after the second).
// An odd bf16 count pads its last word (the tail packets, same shape).
// RUN: weave-ops instantiate %templates/all_gather/ll_all_gather.mlir.in --team-size 4 --dtype bf16 --count 1001 -o %t.ag.mlir
// RUN: weavec %t.ag.mlir --emit=ptx -o %t.ag.ptx
// RUN: FileCheck %s --check-prefix=MOVE < %t.ag.ptx
// RUN: not grep -E "fence\.|membar|atom\.|\bred\.|st\.release|ld\.acquire" %t.ag.ptx
// RUN: test $(grep -c "bar.sync" %t.ag.ptx) -eq 1
// RUN: weave-ops instantiate %templates/all_to_all/ll_all_to_all.mlir.in --team-size 3 --dtype f32 --count 1000 -o %t.a2a.mlir
// RUN: weavec %t.a2a.mlir --emit=ptx -o %t.a2a.ptx
// RUN: FileCheck %s --check-prefix=MOVE < %t.a2a.ptx
// RUN: not grep -E "fence\.|membar|atom\.|\bred\.|st\.release|ld\.acquire" %t.a2a.ptx
// RUN: test $(grep -c "bar.sync" %t.a2a.ptx) -eq 1
// RUN: weave-ops instantiate %templates/all_reduce/ll_all_reduce.mlir.in --team-size 2 --dtype bf16 --count 4096 -o %t.ar.mlir
// RUN: weavec %t.ar.mlir --emit=ptx -o %t.ar.ptx
// RUN: FileCheck %s --check-prefix=SUM < %t.ar.ptx
// RUN: not grep -E "fence\.|membar|atom\.|\bred\.|st\.release|ld\.acquire" %t.ar.ptx
// RUN: test $(grep -c "bar.sync" %t.ar.ptx) -eq 2
// RUN: weave-ops instantiate %templates/reduce_scatter/ll_reduce_scatter.mlir.in --team-size 8 --dtype bf16 --count 1001 -o %t.rs.mlir
// RUN: weavec %t.rs.mlir --emit=ptx -o %t.rs.ptx
// RUN: FileCheck %s --check-prefix=SUM < %t.rs.ptx
// RUN: not grep -E "fence\.|membar|atom\.|\bred\.|st\.release|ld\.acquire" %t.rs.ptx
// RUN: test $(grep -c "bar.sync" %t.rs.ptx) -eq 2
// The packet all-to-all-v: the counts are packets too (one per peer, by
// block 0), then the same shape as the all-to-all: one bar.sync after the
// epoch, one after the counts' spins, none after the data's. A part of an
// odd number of bf16 (1001 at most, from random counts) ends in a partial
// packet of the same put: its element is loaded and sent with no store
// before the counts' spins, and read into the output with a 16-bit store,
// no 16-bit load after the spins (the element's round trip through a local
// `tail` had both). `input` and `counts` are noalias and read-only, so
// their loads are ld.global.nc, and no plain global load of them is left.
// RUN: weave-ops instantiate %templates/all_to_all/ll_all_to_all_v.mlir.in --team-size 4 --dtype bf16 --count 1001 -o %t.llv.mlir
// RUN: weavec %t.llv.mlir --emit=ptx -o %t.llv.ptx
// RUN: FileCheck %s --check-prefix=LLV < %t.llv.ptx
// RUN: not grep -E "fence\.|membar|atom\.|\bred\.|st\.release|ld\.acquire" %t.llv.ptx
// RUN: test $(grep -c "bar.sync" %t.llv.ptx) -eq 2
// RUN: not grep -E "ld\.global\.(s32|b16|u16)" %t.llv.ptx
// The direct all-to-all-v: block 0 sends the counts as packets, every
// block spins on the D x D of them (they say each peer has started the
// launch), synchronizes, stores its chunk of each part with 16-byte
// stores, synchronizes, and one done flag per peer (release, acquire).
// RUN: weave-ops instantiate %templates/all_to_all/direct_all_to_all_v.mlir.in --team-size 4 --dtype bf16 --count 65536 -o %t.a2av.mlir
// RUN: weavec %t.a2av.mlir --emit=ptx -o %t.a2av.ptx
// RUN: FileCheck %s --check-prefix=A2AV < %t.a2av.ptx
// RUN: not grep -E "fence\.|membar|atom\.|\bred\." %t.a2av.ptx
// RUN: test $(grep -c "bar.sync" %t.a2av.ptx) -eq 3
// The grid: persistent, at most one block per KB a member sends each peer
// (4096 bf16: 8 KB), fewer where a loopback team shares the GPU.
// RUN: %if ptxas %{ weavec %t.ar.mlir --emit=bundle -o %t.ar.wbundle %}
// RUN: %if ptxas %{ grep -a -E "^ *grid" %t.ar.wbundle | FileCheck %s --check-prefix=GRID %}

// The epoch: loaded, the block synchronizes, thread 0 bumps it.
// MOVE-LABEL: .visible .entry ll_
//       MOVE: bar.sync 0;
//       MOVE: st.global.b32
// The packets, then the spins on this member's packets: nothing between.
//   MOVE-NOT: bar.sync
//       MOVE: st.relaxed.sys.global.u64
//   MOVE-NOT: bar.sync
//       MOVE: ld.relaxed.sys.global.u64
//   MOVE-NOT: bar.sync
//       MOVE: ret;

// SUM-LABEL: .visible .entry ll_
//       SUM: bar.sync 0;
//       SUM: st.global.b32
//   SUM-NOT: bar.sync
//       SUM: st.relaxed.sys.global.u64
//   SUM-NOT: bar.sync
//       SUM: ld.relaxed.sys.global.u64
// One block synchronization between the copies and the sums; no packet is
// read after it.
//       SUM: bar.sync 0;
//   SUM-NOT: ld.relaxed.sys
//       SUM: ret;

// GRID: grid 0 1 1
// GRID-NEXT: grid_max 8

// A2AV-LABEL: .visible .entry direct_all_to_all_v
//       A2AV: bar.sync 0;
//       A2AV: st.global.b32
//   A2AV-NOT: bar.sync
//       A2AV: st.relaxed.sys.global.u64
//   A2AV-NOT: bar.sync
//       A2AV: ld.relaxed.sys.global.u64
//       A2AV: bar.sync 0;
//   A2AV-NOT: st.release
//       A2AV: st.global.v4.b32
//       A2AV: bar.sync 0;
//   A2AV-NOT: ld.relaxed.sys
//       A2AV: st.release.sys.global.u32
//       A2AV: ld.acquire.sys.global.u32

// LLV-LABEL: .visible .entry ll_all_to_all_v
//       LLV: bar.sync 0;
//       LLV: st.global.b32
//   LLV-NOT: bar.sync
//       LLV: st.relaxed.sys.global.u64
//   LLV-NOT: {{bar.sync|st.global}}
//       LLV: ld.global.nc.b16
//   LLV-NOT: {{bar.sync|st.global}}
//       LLV: st.relaxed.sys.global.u64
//   LLV-NOT: {{bar.sync|st.global}}
//       LLV: ld.relaxed.sys.global.u64
// The counts: each spinning thread stores its source's count to shared
// memory; after the synchronization every thread reads them from there, no
// global load at all (the old kernel reloaded them from the global `seen`).
//   LLV-NOT: bar.sync
//       LLV: st.shared.b32
//       LLV: bar.sync 0;
//   LLV-NOT: {{bar.sync|ld.global}}
//       LLV: ld.shared
//   LLV-NOT: {{bar.sync|ld.global}}
//       LLV: ld.relaxed.sys.global.u64
//   LLV-NOT: {{bar.sync|ld.global.b16|ld.global.u16}}
//       LLV: st.global.b16
//   LLV-NOT: {{bar.sync|ld.global.b16|ld.global.u16}}
//       LLV: ret;
