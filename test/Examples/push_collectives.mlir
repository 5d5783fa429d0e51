// The latency-path collectives of issue #30 (push_all_reduce, and the
// all-to-all of the same protocol) and the bandwidth path's direct
// all-gather: the shape of each protocol as lowered. A push kernel block
// stores its chunk into the peers' scratch (16-byte stores), synchronizes
// the block, publishes ONE flag per peer with st.release.sys (no fence, no
// atomic), waits on one flag per peer with ld.acquire.sys, synchronizes the
// block and reads its own scratch: one synchronization per launch and no
// grid barrier. The direct all-gather has two such flag exchanges (ready,
// then done) around its stores into the peers' output. The push two-shot
// all-reduce (the bandwidth path) is a push, one flag exchange, sums stored
// into every member's output, then a second (done) exchange. The direct
// kernels and the push two-shot's pushes issue two 16-byte loads before
// their stores (checked below; weave.put's loop keeps one in flight).
// RUN: sed -e 's/@T@/bf16/g; s/@NV@/512/g; s/@N@/4096/g; s/@VW@/8/g; s/@VB@/16/g; s/@D@/4/g; s/@SLOTS@/32768/g; s/@BLOCKS@/2/g; s/@FLAGS@/16/g; s/@ROWS@/16384/g; s/@LAST@/3/g; s/@WIDEN@/arith.extf/g; s/@NARROW@/arith.truncf/g' %templates/all_reduce/push_all_reduce.mlir.in > %t.ar.mlir
// RUN: weavec %t.ar.mlir --emit=ptx -o %t.ar.ptx
// RUN: FileCheck %s --check-prefix=PUSH < %t.ar.ptx
// RUN: not grep -E "fence\.|membar|atom\.|red\." %t.ar.ptx
// RUN: sed -e 's/@T@/f32/g; s/@NV@/257/g; s/@N@/1028/g; s/@VW@/4/g; s/@VB@/16/g; s/@D@/3/g; s/@SLOTS@/6168/g; s/@BLOCKS@/1/g; s/@FLAGS@/6/g; s/@ROWS@/3084/g; s/@LAST@/2/g' %templates/all_to_all/push_all_to_all.mlir.in > %t.a2a.mlir
// RUN: weavec %t.a2a.mlir --emit=ptx -o %t.a2a.ptx
// RUN: FileCheck %s --check-prefix=PUSH < %t.a2a.ptx
// RUN: not grep -E "fence\.|membar|atom\.|red\." %t.a2a.ptx
// RUN: sed -e 's/@T@/bf16/g; s/@NV@/512/g; s/@N@/4096/g; s/@VW@/8/g; s/@VB@/16/g; s/@D@/4/g; s/@BLOCKS@/2/g; s/@FLAGS@/16/g; s/@ROWS@/16384/g; s/@LAST@/3/g' %templates/all_gather/direct_all_gather.mlir.in > %t.ag.mlir
// RUN: weavec %t.ag.mlir --emit=ptx -o %t.ag.ptx
// RUN: FileCheck %s --check-prefix=DIRECT < %t.ag.ptx
// RUN: not grep -E "fence\.|membar|atom\.|red\." %t.ag.ptx
// The other two push kernels and the direct all-to-all have the same shape.
// RUN: sed -e 's/@T@/bf16/g; s/@NV@/125/g; s/@N@/1000/g; s/@VW@/8/g; s/@VB@/16/g; s/@D@/8/g; s/@SLOTS@/16000/g; s/@BLOCKS@/1/g; s/@FLAGS@/16/g; s/@ROWS@/8000/g; s/@LAST@/7/g; s/@WIDEN@/arith.extf/g; s/@NARROW@/arith.truncf/g' %templates/all_gather/push_all_gather.mlir.in > %t.pag.mlir
// RUN: weavec %t.pag.mlir --emit=ptx -o %t.pag.ptx
// RUN: FileCheck %s --check-prefix=PUSH < %t.pag.ptx
// RUN: not grep -E "fence\.|membar|atom\.|red\." %t.pag.ptx
// RUN: sed -e 's/@T@/f32/g; s/@NV@/250/g; s/@N@/1000/g; s/@VW@/4/g; s/@VB@/16/g; s/@D@/2/g; s/@SLOTS@/4000/g; s/@BLOCKS@/3/g; s/@FLAGS@/12/g; s/@ROWS@/2000/g; s/@LAST@/1/g; s/@WIDEN@/arith.bitcast/g; s/@NARROW@/arith.bitcast/g' %templates/reduce_scatter/push_reduce_scatter.mlir.in > %t.prs.mlir
// RUN: weavec %t.prs.mlir --emit=ptx -o %t.prs.ptx
// RUN: FileCheck %s --check-prefix=PUSH < %t.prs.ptx
// RUN: not grep -E "fence\.|membar|atom\.|red\." %t.prs.ptx
// RUN: sed -e 's/@T@/f32/g; s/@NV@/250/g; s/@N@/1000/g; s/@VW@/4/g; s/@VB@/16/g; s/@D@/4/g; s/@BLOCKS@/2/g; s/@FLAGS@/16/g; s/@ROWS@/4000/g; s/@LAST@/3/g' %templates/all_to_all/direct_all_to_all.mlir.in > %t.a2ad.mlir
// RUN: weavec %t.a2ad.mlir --emit=ptx -o %t.a2ad.ptx
// RUN: FileCheck %s --check-prefix=DIRECT < %t.a2ad.ptx
// RUN: not grep -E "fence\.|membar|atom\.|red\." %t.a2ad.ptx
// RUN: sed -e 's/@T@/bf16/g; s/@NV@/512/g; s/@N@/4096/g; s/@VW@/8/g; s/@VB@/16/g; s/@D@/4/g; s/@BLOCKS@/2/g; s/@FLAGS@/16/g; s/@ROWS@/16384/g; s/@LAST@/3/g; s/@WIDEN@/arith.extf/g; s/@NARROW@/arith.truncf/g' %templates/all_reduce/push_two_shot_all_reduce.mlir.in > %t.p2.mlir
// RUN: weavec %t.p2.mlir --emit=ptx -o %t.p2.ptx
// RUN: FileCheck %s --check-prefix=PTWO < %t.p2.ptx
// RUN: not grep -E "fence\.|membar|atom\.|red\." %t.p2.ptx
// RUN: FileCheck %s --check-prefix=LOADS2 < %t.p2.ptx
// RUN: FileCheck %s --check-prefix=LOADS2 < %t.ag.ptx
// RUN: FileCheck %s --check-prefix=LOADS2 < %t.a2ad.ptx
// RUN: %if ptxas %{ weavec %t.p2.mlir --emit=bundle -o %t.p2.wbundle %}
// RUN: %if ptxas %{ grep -a -E "^ *(param|grid|block)" %t.p2.wbundle | FileCheck %s --check-prefix=P2PARAMS %}
// RUN: %if ptxas %{ weavec %t.ar.mlir --emit=bundle -o %t.ar.wbundle %}
// RUN: %if ptxas %{ grep -a -E "^ *(param|grid)" %t.ar.wbundle | FileCheck %s --check-prefix=PARAMS %}
// The protocol checker runs a capped persistent grid on its default grids
// (1 and 3 blocks) held to the cap (2).
// RUN: weavec --check-protocol %t.p2.mlir | FileCheck %s --check-prefix=CHECKED

// The epoch: loaded, then the block synchronizes before thread 0 bumps it.
// PUSH-LABEL: .visible .entry push_
//       PUSH: bar.sync 0;
//       PUSH: st.global.b32
// The pushes: 16-byte stores into the peers' scratch.
//       PUSH: st.global.v4.b32
// One block synchronization, one release per flag, one acquire spin.
//       PUSH: bar.sync 0;
//   PUSH-NOT: bar.sync
//       PUSH: st.release.sys.global.u32
//   PUSH-NOT: bar.sync
//       PUSH: ld.acquire.sys.global.u32
//       PUSH: bar.sync 0;
// Then only local reads of the scratch: no other synchronization.
//   PUSH-NOT: bar.sync
//   PUSH-NOT: st.release
//   PUSH-NOT: ld.acquire
//       PUSH: ret;

// DIRECT-LABEL: .visible .entry direct_all_
//       DIRECT: bar.sync 0;
//       DIRECT: st.release.sys.global.u32
//       DIRECT: ld.acquire.sys.global.u32
//       DIRECT: bar.sync 0;
//       DIRECT: st.global.v4.b32
//       DIRECT: bar.sync 0;
//   DIRECT-NOT: bar.sync
//       DIRECT: st.release.sys.global.u32
//       DIRECT: ld.acquire.sys.global.u32
//   DIRECT-NOT: bar.sync
//   DIRECT-NOT: st.global
//       DIRECT: ret;

// The grid: persistent, at most BLOCKS (2) blocks.
// PARAMS: grid 0 1 1
// PARAMS-NEXT: grid_max 2
// PARAMS: param buffer input dtype=bf16 shape=4096
// PARAMS: param buffer output dtype=bf16 shape=4096
// PARAMS: param symmetric scratch dtype=bf16 shape=32768
// PARAMS: param buffer epoch dtype=i32 shape=2
// PARAMS: param semaphore arrived count=16

// PTWO-LABEL: .visible .entry push_two_shot_all_reduce
//       PTWO: bar.sync 0;
//       PTWO: st.global.b32
// The pushes into the owners' scratch.
//       PTWO: st.global.v4.b32
// One exchange of arrived flags between two block synchronizations.
//       PTWO: bar.sync 0;
//   PTWO-NOT: bar.sync
//       PTWO: st.release.sys.global.u32
//   PTWO-NOT: bar.sync
//       PTWO: ld.acquire.sys.global.u32
//       PTWO: bar.sync 0;
// The sums: loads of the local scratch, stores into every member's output,
// with no synchronization in between.
//   PTWO-NOT: bar.sync
//   PTWO-NOT: st.release
//       PTWO: ld.global.v4.b32
//   PTWO-NOT: bar.sync
//       PTWO: st.global.v4.b32
// Then the done exchange and nothing else.
//       PTWO: bar.sync 0;
//   PTWO-NOT: bar.sync
//       PTWO: st.release.sys.global.u32
//       PTWO: ld.acquire.sys.global.u32
//   PTWO-NOT: bar.sync
//   PTWO-NOT: st.global
//       PTWO: ret;

// LOADS2: ld.global.v4.b32
// LOADS2-NOT: st.global
// LOADS2: ld.global.v4.b32
// LOADS2: st.global.v4.b32

// P2PARAMS: grid 0 1 1
// P2PARAMS-NEXT: grid_max 2
// P2PARAMS: block 512 1 1
// P2PARAMS: param buffer input dtype=bf16 shape=4096
// P2PARAMS: param symmetric output dtype=bf16 shape=4096
// P2PARAMS: param symmetric scratch dtype=bf16 shape=16384
// P2PARAMS: param buffer epoch dtype=i32 shape=2
// P2PARAMS: param semaphore flags count=16

// CHECKED: protocol check passed: 1 kernel, team sizes 4, grids 1,2,
