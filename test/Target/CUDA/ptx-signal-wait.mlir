// RUN: weavec %s --emit=ptx | FileCheck %s

// System-scope release on the peer's counter, acquire spin, relaxed decrement.

// CHECK: .target sm_90a
// CHECK-LABEL: .visible .entry handshake(
//       CHECK: // begin inline asm
//  CHECK-NEXT: red.release.sys.global.add.u32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
//  CHECK-NEXT: // end inline asm
//  CHECK-NEXT: [[SPIN:\$L__BB[0-9_]+]]:
//  CHECK-NEXT: // begin inline asm
//  CHECK-NEXT: ld.acquire.sys.global.u32 %r{{[0-9]+}}, [%rd[[CTR:[0-9]+]]];
//  CHECK-NEXT: // end inline asm
//  CHECK-NEXT: setp.{{.*}}
//  CHECK-NEXT: @%p{{[0-9]+}} bra [[SPIN]];
//  CHECK-NEXT: mov.b32 %r[[NEG:[0-9]+]], -1;
//  CHECK-NEXT: // begin inline asm
//  CHECK-NEXT: red.relaxed.sys.global.add.u32 [%rd[[CTR]]], %r[[NEG]];
//  CHECK-NEXT: // end inline asm
//  CHECK-NEXT: ret;
gpu.module @m {
gpu.func @handshake(%sem: !weave.semaphore) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [1, 1, 1]>} {
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %me = weave.device_id "x"
  %n = weave.num_devices "x"
  %s = arith.addi %me, %c1 : index
  %right = arith.remui %s, %n : index
  weave.semaphore_signal %sem, %one on %right : !weave.semaphore
  weave.semaphore_wait %sem, %one decrement : !weave.semaphore
  gpu.return
}

// scope(block): thread 0 spins and decrements, then bar.sync 0 for the block.
// CHECK-LABEL: .visible .entry wait_block(
//       CHECK: @%p{{[0-9]+}} bra [[JOIN:\$L__BB[0-9_]+]];
//       CHECK: [[SPIN2:\$L__BB[0-9_]+]]:
//  CHECK-NEXT: // begin inline asm
//  CHECK-NEXT: ld.acquire.sys.global.u32
//       CHECK: @%p{{[0-9]+}} bra [[SPIN2]];
//       CHECK: red.relaxed.sys.global.add.u32
//       CHECK: [[JOIN]]:
//  CHECK-NEXT: bar.sync 0;
//  CHECK-NEXT: ret;
gpu.func @wait_block(%sem: !weave.semaphore) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [256, 1, 1]>} {
  %one = arith.constant 1 : i32
  weave.semaphore_wait %sem, %one decrement scope(block) : !weave.semaphore
  gpu.return
}
}
