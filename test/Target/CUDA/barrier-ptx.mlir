// RUN: weavec %s --emit=ptx | FileCheck %s

// The barrier, mode(set) and cmp(eq) in PTX: every arrival is a
// system-scope release, every spin a system-scope acquire, bracketed by
// bar.sync; the grid size comes from %nctaid.

// CHECK: .target sm_90a

// CHECK-LABEL: .visible .entry team(
//       CHECK: bar.sync 0;
//       CHECK: red.release.sys.global.add.u32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
//       CHECK: atom.release.sys.global.add.u32 %r[[OLD:[0-9]+]], [%rd[[CTR:[0-9]+]]], %r{{[0-9]+}};
//       CHECK: [[SPIN:\$L__BB[0-9_]+]]:
//  CHECK-NEXT: // begin inline asm
//  CHECK-NEXT: ld.acquire.sys.global.u32 %r[[OBS:[0-9]+]], [%rd[[CTR]]];
//  CHECK-NEXT: // end inline asm
//  CHECK-NEXT: xor.b32 %r[[X:[0-9]+]], %r[[OBS]], %r[[OLD]];
//  CHECK-NEXT: setp.gt.s32 %p[[P:[0-9]+]], %r[[X]], -1;
//  CHECK-NEXT: @%p[[P]] bra [[SPIN]];
//       CHECK: bar.sync 0;
//  CHECK-NEXT: ret;
gpu.module @m {
gpu.func @team(%bar: !weave.semaphore) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.barrier %bar scope(team) : !weave.semaphore
  gpu.return
}

// CHECK-LABEL: .visible .entry team_blocks(
//       CHECK: bar.sync 0;
//   CHECK-DAG: mov.u32 %r{{[0-9]+}}, %nctaid.x;
//   CHECK-DAG: mov.u32 %r{{[0-9]+}}, %nctaid.y;
//   CHECK-DAG: mov.u32 %r{{[0-9]+}}, %nctaid.z;
//   CHECK-DAG: atom.release.sys.global.add.u32 %r{{[0-9]+}}, [%rd{{[0-9]+}}], %r{{[0-9]+}};
//   CHECK-DAG: ld.acquire.sys.global.u32
//   CHECK-DAG: and.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 2147483647;
//       CHECK: bar.sync 0;
//       CHECK: red.release.sys.global.add.u32
//       CHECK: atom.release.sys.global.add.u32
//       CHECK: ld.acquire.sys.global.u32
//       CHECK: red.release.sys.global.add.u32
//       CHECK: bar.sync 0;
//  CHECK-NEXT: ret;
gpu.func @team_blocks(%bar: !weave.semaphore<2>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [128, 1, 1]>} {
  weave.barrier %bar scope(team_blocks) : !weave.semaphore<2>
  gpu.return
}

// CHECK-LABEL: .visible .entry flag(
//       CHECK: st.release.sys.global.u32 [%rd{{[0-9]+}}], %r[[EPOCH:[0-9]+]];
//       CHECK: [[SPIN:\$L__BB[0-9_]+]]:
//  CHECK-NEXT: // begin inline asm
//  CHECK-NEXT: ld.acquire.sys.global.u32 %r[[OBS:[0-9]+]], [%rd{{[0-9]+}}];
//  CHECK-NEXT: // end inline asm
//  CHECK-NEXT: setp.ne.b32 %p[[P:[0-9]+]], %r[[OBS]], %r[[EPOCH]];
//  CHECK-NEXT: @%p[[P]] bra [[SPIN]];
//  CHECK-NEXT: ret;
gpu.func @flag(%flags: !weave.semaphore<8>, %epoch: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %c1 = arith.constant 1 : index
  %me = weave.device_id "x"
  %n = weave.num_devices "x"
  %s = arith.addi %me, %c1 : index
  %right = arith.remui %s, %n : index
  weave.semaphore_signal %flags[%me], %epoch on %right mode(set) : !weave.semaphore<8>
  weave.semaphore_wait %flags[%me], %epoch cmp(eq) : !weave.semaphore<8>
  gpu.return
}
}
