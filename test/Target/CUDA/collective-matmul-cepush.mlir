// The collective matmul template's PUSH = 2 (the copy engines bring the
// shards; bench/collective_matmul/ring_variants.py's `cepush`,
// weave_bench_collective_matmul --ce-push): the kernel puts nothing,
// forwards nothing and signals nothing; a peer's tile waits until
// ready[shard * 16] >= 1, a constant target (the host resets it). Against
// PUSH = 1 (the op's small-shard kernel) at the same shape.
// RUN: sed -e 's/@ROWS@/1024/g; s/@M_SHARD@/512/g; s/@D@/2/g; s/@LAST@/1/g; s/@K@/1024/g; s/@N_SHARD@/1024/g; s/@DTYPE@/bf16/g; s/@GROUP_ROWS@/8/g; s/@READY@/32/g; s/@LAST_K@/15/g; s/@COL_TILES@/4/g; s/@K_ROTATION@/0/g; s/@PUSH@/1/g; s/@TILE_N@/256/g; s/@STAGES@/4/g; s/@KERNEL@/all_gather_matmul/g; s/@VARIANT@//g' %templates/collective_matmul/all_gather_matmul.mlir.in > %t.p1.mlir
// RUN: sed -e 's/@PUSH@/2/g' -e 's/@ROWS@/1024/g; s/@M_SHARD@/512/g; s/@D@/2/g; s/@LAST@/1/g; s/@K@/1024/g; s/@N_SHARD@/1024/g; s/@DTYPE@/bf16/g; s/@GROUP_ROWS@/8/g; s/@READY@/32/g; s/@LAST_K@/15/g; s/@COL_TILES@/4/g; s/@K_ROTATION@/0/g; s/@TILE_N@/256/g; s/@STAGES@/4/g; s/@KERNEL@/all_gather_matmul/g; s/@VARIANT@//g' %templates/collective_matmul/all_gather_matmul.mlir.in > %t.p2.mlir
// RUN: weavec %t.p1.mlir --emit=ptx | FileCheck %s --check-prefix=PUSH
// RUN: weavec %t.p2.mlir --emit=ptx | FileCheck %s --check-prefix=CE
//
// PUSH = 1: the put (vector stores and its fence), its signal and the
// done signal (two remote adds), the ready and done waits.
// PUSH-LABEL: .visible .entry all_gather_matmul(
// PUSH-DAG: st.global.v4.b32
// PUSH-DAG: fence.acq_rel.sys
// PUSH-DAG: red.release.sys.global.add.u32
// PUSH-DAG: ld.acquire.sys.global.u32
//
// PUSH = 2: one wait (for a nonzero word: >= 1), then the pipeline's
// loads; no store but the epilogue's TMA stores, no remote add, no fence
// of a put; the launch count is still kept (one 64-bit add a block).
// CE-LABEL: .visible .entry all_gather_matmul(
// CE-NOT: st.global
// CE-NOT: {{[[:space:]]red\.}}
// CE-NOT: fence.acq_rel
// CE: ld.acquire.sys.global.u32 [[FLAG:%r[0-9]+]],
// CE-NEXT: // end inline asm
// CE-NEXT: setp.eq.b32 {{%p[0-9]+}}, [[FLAG]], 0;
// CE-NOT: ld.acquire
// CE-NOT: st.global
// CE-NOT: {{[[:space:]]red\.}}
// CE-NOT: fence.acq_rel
// CE: atom.global.add.u64
// CE-NOT: ld.acquire
// CE-NOT: st.global
// CE-NOT: {{[[:space:]]red\.}}
// CE: ret;
//
// In the IR: exactly one wait, for 1 with cmp(ge), besides the template's
// epoch-counted ones that fold away.
// RUN: grep -c 'weave.semaphore_wait %%ready\[%%ce_counter\], %%one cmp(ge)$' %t.p2.mlir | FileCheck %s --check-prefix=ONE
// ONE: 1
//
// The op's instance (every variant) through ring_variants.py's cepush: one
// wait and no remote add or put in each kernel.
// RUN: weave-ops source all_gather_matmul --team-size 2 --dtype bf16 --m-shard 256 --k 256 --n 512 -o %t.op.mlir
// RUN: python3 %weave_src_root/bench/collective_matmul/ring_variants.py %t.op.mlir %t.v cepush
// RUN: grep -c '%%push = arith.constant 2 : index' %t.v_cepush.mlir > %t.kernels
// RUN: grep -c 'gpu.func @' %t.v_cepush.mlir | diff - %t.kernels
// RUN: weavec %t.v_cepush.mlir --emit=ptx -o %t.op.ptx
// RUN: grep -c 'ld.acquire.sys.global.u32' %t.op.ptx | diff - %t.kernels
// RUN: grep -c '^.visible .entry' %t.op.ptx | diff - %t.kernels
// RUN: not grep -e '[[:space:]]red\.' -e 'st\.global' -e 'fence\.acq_rel' %t.op.ptx
//
// The protocol checker cannot model the copy engines: it sees a wait that
// no kernel signals, and says so at the wait (the template's comment says
// why; no shipped check runs it on PUSH = 2 otherwise).
// RUN: not weavec --check-protocol --team-size 2 --check-grid 1 --check-shape a=512x256 --check-shape c=512x512 %t.v_cepush.mlir 2>&1 | FileCheck %s --check-prefix=CHECKER
// CHECKER: error: deadlock at team size 2 (grid of 1): member 0 (launch 0, pipeline producer) waits for 'ready'[16] >= 1 (it holds 0)
// CHECKER-NEXT: weave.semaphore_wait %ready[%ce_counter], %one cmp(ge)
