// bench/collective_matmul/ring_variants.py: each diagnostic variant of the
// all-gather matmul cuts out exactly its part of the ring and still
// compiles; a template that no longer has a part fails loudly instead of
// writing an unchanged kernel.
//
// RUN: sed -e 's/@ROWS@/1024/g; s/@M_SHARD@/512/g; s/@D@/2/g; s/@LAST@/1/g; s/@K@/1024/g; s/@N_SHARD@/1024/g; s/@DTYPE@/bf16/g; s/@GROUP_ROWS@/8/g; s/@READY@/32/g; s/@LAST_K@/15/g; s/@COL_TILES@/4/g; s/@K_ROTATION@/4/g; s/@PUSH@/0/g; s/@TILE_N@/256/g; s/@STAGES@/4/g; s/@KERNEL@/all_gather_matmul/g; s/@VARIANT@//g' %templates/collective_matmul/all_gather_matmul.mlir.in > %t.mlir
// RUN: python3 %weave_src_root/bench/collective_matmul/ring_variants.py %t.mlir %t.v
// RUN: python3 %weave_src_root/bench/collective_matmul/ring_variants.py %t.mlir %t.v krot8
// RUN: for v in noready nodone nowait nofwd nocb norot noread local quarter nokrot push ring pushall keepw krot8; do weavec %t.v_$v.mlir --emit=ptx -o /dev/null || exit 1; done
// keepw: the groups keep their width, the rest of the kernel as it was.
// RUN: grep -c 'grid_tile_segments = 2 : i64, grid_tile_keep_width,' %t.v_keepw.mlir | FileCheck %s --check-prefix=ONE
// RUN: not grep grid_tile_keep_width %t.mlir
// RUN: sed -e 's/ grid_tile_keep_width,//' %t.v_keepw.mlir | diff - %t.mlir
//
// The kernel itself: three waits (the push's wait for its peers' done
// too), two remote stores (evict-first at D = 2, plain above) and a remote
// signal, the read wait, the callback, the rotation.
// RUN: grep -c -e 'weave.semaphore_wait' -e 'on %%prev' -e 'read_only' -e 'callback {' -e 'rotate_m(' %t.mlir | FileCheck %s --check-prefix=FULL
// FULL: 9
// RUN: grep -c 'weave.semaphore_wait' %t.v_nowait.mlir | FileCheck %s --check-prefix=THREE
// RUN: grep -c 'arith.constant false' %t.v_nowait.mlir | FileCheck %s --check-prefix=TWO
// TWO: 2
// RUN: grep -c 'arith.constant false' %t.v_noready.mlir | FileCheck %s --check-prefix=ONE
// RUN: grep -c 'arith.constant false' %t.v_nodone.mlir | FileCheck %s --check-prefix=ONE
// ONE: 1
// RUN: grep -c '%%needed = arith.constant false' %t.v_nofwd.mlir | FileCheck %s --check-prefix=ONE
// RUN: not grep -e 'before_load {' -e 'callback {' -e 'delay_release(1) rotate_m' %t.v_nocb.mlir
// RUN: grep -c 'rotate_m(%%own_first)' %t.v_nocb.mlir | FileCheck %s --check-prefix=ONE
// RUN: not grep -e 'rotate_m(%%own_first)' -e 'grid_tile_segments = 2' %t.v_norot.mlir
// RUN: not grep 'read_only' %t.v_noread.mlir
// RUN: grep -c 'weave.copy_smem_to_gmem %%lhs, %%a\[%%row, %%col\]\( l2(evict_first)\)\? on %%me$' %t.v_local.mlir | FileCheck %s --check-prefix=TWO
// RUN: not grep 'weave.copy_smem_to_gmem %%lhs.* on %%prev' %t.v_local.mlir
// RUN: grep -c 'weave.copy_smem_to_gmem %%quarter, %%a\[%%row, %%col\]\( l2(evict_first)\)\? on %%prev$' %t.v_quarter.mlir | FileCheck %s --check-prefix=TWO
// RUN: grep -c '^ *: memref<32x64xbf16, strided<\[64, 1\]>, #gpu.address_space<workgroup>>$' %t.v_quarter.mlir | FileCheck %s --check-prefix=TWO
// RUN: not grep 'weave.copy_smem_to_gmem %%lhs' %t.v_quarter.mlir
// The rotation off in the kernel's constant and the pipeline's attribute.
// RUN: grep -c -e '%%rot = arith.constant 4 : index' -e 'k_rotation = 4 : i64' %t.mlir | FileCheck %s --check-prefix=TWO
// RUN: grep -c -e '%%rot = arith.constant 0 : index' -e 'k_rotation = 0 : i64' %t.v_nokrot.mlir | FileCheck %s --check-prefix=TWO
// RUN: grep -c -e '%%rot = arith.constant 8 : index' -e 'k_rotation = 8 : i64' %t.v_krot8.mlir | FileCheck %s --check-prefix=TWO
// The push: PUSH 1 without the rotation; from it, the ring (PUSH 0) and
// the ring with a rotation.
// RUN: grep -c -e '%%push = arith.constant 1 : index' -e '%%rot = arith.constant 0 : index' -e 'k_rotation = 0 : i64' %t.v_push.mlir | FileCheck %s --check-prefix=THREE
// THREE: 3
// RUN: python3 %weave_src_root/bench/collective_matmul/ring_variants.py %t.v_push.mlir %t.w ring krot8
// pushall: every block pushes (the first pusher is block 0).
// RUN: grep -c -e '%%first_pusher = arith.addi %%c0, %%c0 : index' -e '%%push = arith.constant 1 : index' %t.v_pushall.mlir | FileCheck %s --check-prefix=TWO
// RUN: not grep '%%first_pusher = arith.select' %t.v_pushall.mlir
// RUN: grep -c -e '%%push = arith.constant 0 : index' -e '%%rot = arith.constant 0 : index' -e 'k_rotation = 0 : i64' %t.w_ring.mlir | FileCheck %s --check-prefix=THREE
// RUN: grep -c -e '%%push = arith.constant 0 : index' -e '%%rot = arith.constant 8 : index' -e 'k_rotation = 8 : i64' %t.w_krot8.mlir | FileCheck %s --check-prefix=THREE
//
// RUN: grep -v 'read_only' %t.mlir > %t.changed.mlir
// RUN: not python3 %weave_src_root/bench/collective_matmul/ring_variants.py %t.changed.mlir %t.c noread 2>&1 | FileCheck %s --check-prefix=CHANGED
// CHANGED: ring_variants.py: expected one 'weave.wait_smem_to_gmem 0 read_only' in the kernel, found 0 (the template changed?)
// RUN: not python3 %weave_src_root/bench/collective_matmul/ring_variants.py %t.mlir %t.c nosuch 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: ring_variants.py: unknown variant 'nosuch'
//
// The op's dynamic instance holds one kernel per range of m_shard: each
// variant cuts its part out of every kernel, and they compile.
// RUN: weave-ops source all_gather_matmul --team-size 2 --dtype bf16 --m-shard 128 --k 1024 --n 4096 --algorithm ring -o %t.dyn.mlir
// RUN: python3 %weave_src_root/bench/collective_matmul/ring_variants.py %t.dyn.mlir %t.d nocb norot nofwd local keepw
// RUN: for v in nocb norot nofwd local keepw; do weavec %t.d_$v.mlir --emit=ptx -o /dev/null || exit 1; done
// RUN: kernels=$(grep -c '^  gpu.func @' %t.dyn.mlir); test $kernels -gt 1 && \
// RUN:   test $(grep -c 'delay_release(1) rotate_m' %t.dyn.mlir) -eq $kernels && \
// RUN:   test $(grep -c 'rotate_m(%%own_first)' %t.d_nocb.mlir) -eq $kernels && \
// RUN:   test $(grep -c '%%needed = arith.constant false' %t.d_nofwd.mlir) -eq $kernels && \
// RUN:   test $(grep -c 'grid_tile_keep_width' %t.d_keepw.mlir) -eq $kernels && \
// RUN:   test $(grep -c 'on %%me$' %t.d_local.mlir) -eq $((2 * kernels))
// RUN: not grep -e 'before_load {' -e 'callback {' -e 'delay_release(1) rotate_m' %t.d_nocb.mlir
// RUN: not grep -e 'rotate_m(%%own_first)' -e 'grid_tile_segments = 2' %t.d_norot.mlir
