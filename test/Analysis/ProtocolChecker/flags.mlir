// The checker's flags and what it needs to run are checked before anything
// is explored; a run that exceeds its step limit says so.
// RUN: not weavec --check-protocol --launches 0 %s 2>&1 | FileCheck %s --check-prefix=LAUNCHES
// LAUNCHES: weavec: error: --launches takes 1 to 16, got 0
// RUN: not weavec --check-protocol --team-size 0 %s 2>&1 | FileCheck %s --check-prefix=TEAM
// TEAM: weavec: error: --team-size takes sizes from 1 to 64, got 0
// RUN: not weavec --check-protocol --check-grid 0 %s 2>&1 | FileCheck %s --check-prefix=GRID
// GRID: weavec: error: --check-grid takes 1 to 1024 blocks, got 0
// RUN: not weavec --check-protocol --check-shape a=12xq %s 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: weavec: error: --check-shape expects NAME=<integers separated by 'x'>, got 'a=12xq'
// RUN: not weavec --check-protocol --check-host-signal ready=-1 %s 2>&1 | FileCheck %s --check-prefix=HOSTSIG
// HOSTSIG: weavec: error: --check-host-signal expects NAME=V, one value from 0 to 2^32 - 1, got 'ready=-1'
// RUN: not weavec --check-protocol --check-host-signal ready %s 2>&1 | FileCheck %s --check-prefix=HOSTSIG-FORM
// HOSTSIG-FORM: weavec: error: --check-host-signal expects NAME=<integers separated by ','>, got 'ready'
// RUN: not weavec --check-protocol %s 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: flags.mlir:[[#@LINE+9]]:3: error: protocol check: parameter 'inbox' has a dynamic size: give it with --check-shape inbox=S0x... (one size per '?', N*D for N times the team size)
// RUN: weavec --check-protocol --check-shape inbox=16*D --team-size 2,4 %s | FileCheck %s --check-prefix=PASS
// PASS: protocol check passed: 1 kernel, team sizes 2,4, grids 1, 2 launches
// RUN: not weavec --check-protocol --check-shape inbox=16*D --check-step-limit 20 %s 2>&1 | FileCheck %s --check-prefix=LIMIT
// LIMIT: error: protocol check: gave up after 20 interpreted operations (raise --check-step-limit, or check smaller sizes)
// RUN: not weavec --check-protocol --check-shape inbox=8*D %s 2>&1 | FileCheck %s --check-prefix=OOB
// OOB: error: remote access out of bounds: a remote store by member {{[0-9]}} (launch 0) touches bytes [{{[0-9]+}}, {{[0-9]+}}) of member {{[0-9]}}'s 'inbox', which has {{[0-9]+}} bytes
module attributes {gpu.container_module} {
gpu.module @k {
  gpu.func @k(%inbox: memref<?xf32, #weave.symmetric> {weave.name = "inbox"},
              %bar: !weave.semaphore {weave.name = "barrier"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>,
          grid = [1, 1, 1], block = [16, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %x = arith.constant 1.0 : f32
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
    %tid = gpu.thread_id x
    weave.barrier %bar scope(team) : !weave.semaphore
    // Element 16 * me + tid of every member's inbox (16 * D elements).
    %base = arith.muli %me, %c16 : index
    %i = arith.addi %base, %tid : index
    scf.for %p = %c0 to %n step %c1 {
      %peer = weave.remote_ref %inbox on %p : memref<?xf32, #weave.symmetric>
      memref.store %x, %peer[%i] : memref<?xf32, #weave.symmetric>
    }
    weave.barrier %bar scope(team) : !weave.semaphore
    gpu.return
  }
}
}
