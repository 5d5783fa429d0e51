// RUN: weavec %s --emit=ptx | FileCheck %s --implicit-check-not=red.relaxed --implicit-check-not=red.release

// A plain wait is only the acquire spin: no reduction after it.
// CHECK-LABEL: .visible .entry wait_only(
//       CHECK: [[SPIN:\$L__BB[0-9_]+]]:
//  CHECK-NEXT: // begin inline asm
//  CHECK-NEXT: ld.acquire.sys.global.u32
//  CHECK-NEXT: // end inline asm
//  CHECK-NEXT: setp.{{.*}}
//  CHECK-NEXT: @%p{{[0-9]+}} bra [[SPIN]];
//  CHECK-NEXT: ret;
gpu.module @m {
gpu.func @wait_only(%sem: !weave.semaphore, %v: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.semaphore_wait %sem, %v : !weave.semaphore
  gpu.return
}
}
