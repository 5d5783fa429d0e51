// RUN: weave-opt %s -pass-pipeline='builtin.module(gpu.module(convert-weave-to-nvvm))' | FileCheck %s --implicit-check-not=weave. --implicit-check-not=globaltimer
// RUN: weave-opt %s -pass-pipeline='builtin.module(gpu.module(convert-weave-to-nvvm{wait-timeout-ns=1000}))' | FileCheck %s --check-prefix=TIMEOUT

gpu.module @barriers {

// scope(team): after bar.sync, threads 1.. arrive on the team counter of
// peers rank+1 .. rank+P-1 with a system-scope release; thread 0 arrives on
// its own counter (keeping the old value) and spins with acquire loads until
// the counter's top bit flips. Rank 0 adds 2^31 - (P - 1), the others 1.
// CHECK-LABEL: llvm.func @team
//  CHECK-SAME:   (%[[SEM:[^:]+]]: !llvm.ptr<1>, %[[RANK:[^:]+]]: i32, %[[SIZE:[^:]+]]: i32, %[[BASES:[^:]+]]: !llvm.ptr<1>)
//       CHECK:   %[[CTR:.*]] = llvm.getelementptr %[[SEM]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
//       CHECK:   %[[TID:.*]] = llvm.zext %{{.*}} : i32 to i64
//       CHECK:   %[[T0:.*]] = llvm.icmp "eq" %[[TID]], %{{.*}} : i64
//       CHECK:   nvvm.barrier
//       CHECK:   %[[R0:.*]] = llvm.icmp "eq" %[[RANK]], %{{.*}} : i32
//       CHECK:   %[[LEAD:.*]] = llvm.mlir.constant(-2147483647 : i32) : i32
//       CHECK:   %[[LEADADD:.*]] = llvm.sub %[[LEAD]], %[[SIZE]] : i32
//       CHECK:   %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
//       CHECK:   %[[ADD:.*]] = llvm.select %[[R0]], %[[LEADADD]], %[[ONE]] : i1, i32
//       CHECK:   llvm.cond_br %{{.*}}, ^[[BODY:bb[0-9]+]](%{{.*}} : i64), ^[[AFTER:bb[0-9]+]]
//       CHECK: ^[[BODY]](%[[K:.*]]: i64):
//       CHECK:   llvm.getelementptr %[[BASES]]
//       CHECK:   %[[REMOTE:.*]] = llvm.inttoptr
//  CHECK-NEXT:   llvm.inline_asm has_side_effects "red.release.sys.global.add.u32 [$0], $1;", "l,r,~{memory}" %[[REMOTE]], %[[ADD]]
//       CHECK: ^[[AFTER]]:
//  CHECK-NEXT:   llvm.cond_br %[[T0]], ^[[ARRIVE:bb[0-9]+]], ^[[JOIN:bb[0-9]+]]
//       CHECK: ^[[ARRIVE]]:
//  CHECK-NEXT:   %[[OLD:.*]] = llvm.inline_asm has_side_effects "atom.release.sys.global.add.u32 $0, [$1], $2;", "=r,l,r,~{memory}" %[[CTR]], %[[ADD]] : (!llvm.ptr<1>, i32) -> i32
//  CHECK-NEXT:   %[[BIT:.*]] = llvm.mlir.constant(-2147483648 : i32) : i32
//  CHECK-NEXT:   llvm.br ^[[SPIN:bb[0-9]+]]
//       CHECK: ^[[SPIN]]:
//  CHECK-NEXT:   %[[OBS:.*]] = llvm.inline_asm has_side_effects "ld.acquire.sys.global.u32 $0, [$1];", "=r,l,~{memory}" %[[CTR]]
//  CHECK-NEXT:   %[[X:.*]] = llvm.xor %[[OBS]], %[[OLD]] : i32
//  CHECK-NEXT:   %[[FLIP:.*]] = llvm.and %[[X]], %[[BIT]] : i32
//  CHECK-NEXT:   %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
//  CHECK-NEXT:   %[[DONE:.*]] = llvm.icmp "ne" %[[FLIP]], %[[Z]] : i32
//  CHECK-NEXT:   llvm.cond_br %[[DONE]], ^{{.*}}, ^[[SPIN]]
//       CHECK: ^[[JOIN]]:
//  CHECK-NEXT:   nvvm.barrier
//  CHECK-NEXT:   llvm.return
gpu.func @team(%bar: !weave.semaphore) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.barrier %bar scope(team) : !weave.semaphore
  gpu.return
}

// scope(team_blocks): the grid size is read at run time. Blocks other than
// 0 arrive on the grid counter (counter 1) and wait for its top bit to flip;
// block 0 waits until the other blocks have arrived, runs the team step on
// counter 0, then releases the grid with 2^31 - (blocks - 1).
// CHECK-LABEL: llvm.func @team_blocks
//  CHECK-SAME:   (%[[SEM:[^:]+]]: !llvm.ptr<1>,
//       CHECK:   %[[TEAMCTR:.*]] = llvm.getelementptr %[[SEM]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
//       CHECK:   %[[T0:.*]] = llvm.icmp "eq" %{{.*}}, %{{.*}} : i64
//       CHECK:   nvvm.barrier
//       CHECK:   %[[C1:.*]] = llvm.mlir.constant(1 : i64) : i64
//       CHECK:   %[[GRIDCTR:.*]] = llvm.getelementptr %[[SEM]][%[[C1]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
//   CHECK-DAG:   %[[GX:.*]] = nvvm.read.ptx.sreg.nctaid.x : i32
//   CHECK-DAG:   %[[GY:.*]] = nvvm.read.ptx.sreg.nctaid.y : i32
//   CHECK-DAG:   %[[GZ:.*]] = nvvm.read.ptx.sreg.nctaid.z : i32
//       CHECK:   %[[GYZ:.*]] = llvm.mul %[[GY]], %[[GZ]] : i32
//       CHECK:   %[[BLOCKS:.*]] = llvm.mul %[[GX]], %[[GYZ]] : i32
//       CHECK:   %[[NOT0:.*]] = llvm.icmp "ne"
//       CHECK:   %[[OTHERS:.*]] = llvm.sub %[[BLOCKS]], %{{.*}} : i32
//       CHECK:   llvm.cond_br %[[NOT0]], ^[[MEMBER:bb[0-9]+]], ^[[LEADER:bb[0-9]+]]
//       CHECK: ^[[MEMBER]]:
//  CHECK-NEXT:   llvm.cond_br %[[T0]], ^[[MARRIVE:bb[0-9]+]], ^[[MJOIN:bb[0-9]+]]
//       CHECK: ^[[MARRIVE]]:
//  CHECK-NEXT:   %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
//  CHECK-NEXT:   %[[GOLD:.*]] = llvm.inline_asm has_side_effects "atom.release.sys.global.add.u32 $0, [$1], $2;", "=r,l,r,~{memory}" %[[GRIDCTR]], %[[ONE]]
//       CHECK: ^[[MSPIN:bb[0-9]+]]:
//  CHECK-NEXT:   %[[GOBS:.*]] = llvm.inline_asm has_side_effects "ld.acquire.sys.global.u32 $0, [$1];", "=r,l,~{memory}" %[[GRIDCTR]]
//  CHECK-NEXT:   llvm.xor %[[GOBS]], %[[GOLD]] : i32
//       CHECK:   llvm.cond_br %{{.*}}, ^{{.*}}, ^[[MSPIN]]
//       CHECK: ^[[MJOIN]]:
//  CHECK-NEXT:   llvm.br ^[[END:bb[0-9]+]]
//       CHECK: ^[[LEADER]]:
//  CHECK-NEXT:   llvm.cond_br %[[T0]], ^[[GATHER:bb[0-9]+]], ^[[LSYNC:bb[0-9]+]]
//       CHECK: ^[[GATHER]]:
//  CHECK-NEXT:   %[[MASK:.*]] = llvm.mlir.constant(2147483647 : i32) : i32
//       CHECK: ^[[LSPIN:bb[0-9]+]]:
//  CHECK-NEXT:   %[[LOBS:.*]] = llvm.inline_asm has_side_effects "ld.acquire.sys.global.u32 $0, [$1];", "=r,l,~{memory}" %[[GRIDCTR]]
//  CHECK-NEXT:   %[[ARRIVED:.*]] = llvm.and %[[LOBS]], %[[MASK]] : i32
//  CHECK-NEXT:   %[[ALL:.*]] = llvm.icmp "eq" %[[ARRIVED]], %[[OTHERS]] : i32
//  CHECK-NEXT:   llvm.cond_br %[[ALL]], ^{{.*}}, ^[[LSPIN]]
//       CHECK: ^[[LSYNC]]:
//  CHECK-NEXT:   nvvm.barrier
//       CHECK:   "red.release.sys.global.add.u32 [$0], $1;", "l,r,~{memory}"
//       CHECK:   "atom.release.sys.global.add.u32 $0, [$1], $2;", "=r,l,r,~{memory}" %[[TEAMCTR]]
//       CHECK:   "ld.acquire.sys.global.u32 $0, [$1];", "=r,l,~{memory}" %[[TEAMCTR]]
//       CHECK:   llvm.cond_br %[[T0]], ^[[RELEASE:bb[0-9]+]], ^[[LJOIN:bb[0-9]+]]
//       CHECK: ^[[RELEASE]]:
//  CHECK-NEXT:   %[[HALF:.*]] = llvm.mlir.constant(-2147483648 : i32) : i32
//  CHECK-NEXT:   %[[REL:.*]] = llvm.sub %[[HALF]], %[[OTHERS]] : i32
//  CHECK-NEXT:   llvm.inline_asm has_side_effects "red.release.sys.global.add.u32 [$0], $1;", "l,r,~{memory}" %[[GRIDCTR]], %[[REL]]
//       CHECK: ^[[LJOIN]]:
//  CHECK-NEXT:   llvm.br ^[[END]]
//       CHECK: ^[[END]]:
//  CHECK-NEXT:   nvvm.barrier
//  CHECK-NEXT:   llvm.return
gpu.func @team_blocks(%bar: !weave.semaphore<2>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 4>, grid = [persistent, 1, 1], block = [256, 1, 1]>} {
  weave.barrier %bar scope(team_blocks) : !weave.semaphore<2>
  gpu.return
}

}

// In a kernel with bulk copies, the barrier orders the async proxy before
// its releases (completed TMA stores) and after its acquire (TMA loads).
gpu.module @tma {
// CHECK-LABEL: llvm.func @copy_then_barrier
//       CHECK:   nvvm.cp.async.bulk.wait_group 0
//       CHECK:   llvm.inline_asm has_side_effects "fence.proxy.async.global;", "~{memory}"
//  CHECK-NEXT:   nvvm.barrier
//       CHECK:   "red.release.sys.global.add.u32 [$0], $1;"
//       CHECK:   nvvm.barrier
//  CHECK-NEXT:   nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
//  CHECK-NEXT:   llvm.return
gpu.func @copy_then_barrier(%out: memref<1024x4096xf16, #weave.symmetric>, %bar: !weave.semaphore) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 4>, grid = [1, 1, 1], block = [128, 1, 1], smem = 16384>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %raw = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
  %tile = memref.view %raw[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
  %me = weave.device_id "x"
  %n = weave.num_devices "x"
  %s = arith.addi %me, %c1 : index
  %next = arith.remui %s, %n : index
  weave.copy_smem_to_gmem %tile, %out[%c0, %c0] on %next : memref<128x64xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xf16, #weave.symmetric>
  weave.wait_smem_to_gmem 0
  weave.barrier %bar scope(team) : !weave.semaphore
  gpu.return
}
}

// With a timeout every barrier spin reports and traps.
// TIMEOUT-DAG: ("weave: barrier timed out after 1000 ns in kernel 'team' at {{.*}}: device %u, block %u, thread %u, waiting for the top bit of the team counter to flip from %u, observed %u\0A\00")
// TIMEOUT-DAG: ("weave: barrier timed out after 1000 ns in kernel 'team_blocks' at {{.*}}: device %u, block %u, thread %u, waiting for the top bit of the grid counter to flip from %u, observed %u\0A\00")
// TIMEOUT-DAG: ("weave: barrier timed out after 1000 ns in kernel 'team_blocks' at {{.*}}: device %u, block %u, thread %u, block 0 waiting for %u other blocks on the grid counter, observed %u\0A\00")
// TIMEOUT-DAG: ("weave: barrier timed out after 1000 ns in kernel 'team_blocks' at {{.*}}: device %u, block %u, thread %u, waiting for the top bit of the team counter to flip from %u, observed %u\0A\00")
// TIMEOUT-LABEL: llvm.func @team(
//       TIMEOUT:   nvvm.read.ptx.sreg.globaltimer
//       TIMEOUT:   ld.acquire.sys.global.u32
//       TIMEOUT:   llvm.call @vprintf(
//  TIMEOUT-NEXT:   llvm.intr.trap
// TIMEOUT-LABEL: llvm.func @team_blocks(
//   TIMEOUT-COUNT-3:   llvm.intr.trap
