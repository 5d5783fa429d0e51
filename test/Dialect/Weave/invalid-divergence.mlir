// RUN: weave-opt %s -split-input-file -verify-diagnostics

// Rules the docs state on where cooperative ops and barriers may run, in
// forms the verifier once missed: cf branches, scf.while, NVVM's special
// registers, a condition on the device index, and the one-block /
// one-thread rules under a condition that selects nothing.

// A barrier after a cf branch on the thread index, in a block only some
// threads reach.
func.func @barrier_after_cf_branch(%bar: !weave.semaphore) {
  // expected-note @below {{divergent value defined here}}
  %tx = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %tx, %c0 : index
  // expected-note @below {{selected here}}
  cf.cond_br %first, ^only, ^done
^only:
  // expected-error @below {{'weave.barrier' op expects to be reached by every thread of the block, but is inside 'cf.cond_br' whose branch condition depends on 'gpu.thread_id'}}
  weave.barrier %bar scope(team) : !weave.semaphore
  cf.br ^done
^done:
  return
}

// -----

// Accepted: a barrier where the branches meet again.
func.func @barrier_after_cf_join(%bar: !weave.semaphore) {
  %tx = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %tx, %c0 : index
  cf.cond_br %first, ^one, ^done
^one:
  cf.br ^done
^done:
  weave.barrier %bar scope(team) : !weave.semaphore
  return
}

// -----

// A cf loop whose trip count depends on the thread index.
func.func @wait_in_cf_loop(%sem: !weave.semaphore, %n: index) {
  // expected-note @below {{divergent value defined here}}
  %tx = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  cf.br ^head(%c0 : index)
^head(%i: index):
  %more = arith.cmpi ult, %i, %tx : index
  // expected-note @below {{selected here}}
  cf.cond_br %more, ^body, ^exit
^body:
  // expected-error @below {{'weave.semaphore_wait' op expects to be reached by every thread of the block, but is inside 'cf.cond_br' whose branch condition depends on 'gpu.thread_id'}}
  weave.semaphore_wait %sem, %one scope(block) : !weave.semaphore
  %next = arith.addi %i, %c1 : index
  cf.br ^head(%next : index)
^exit:
  return
}

// -----

// scf.while whose condition depends on the thread index.
func.func @put_in_while(%src: memref<64xf32>, %dst: memref<64xf32, #weave.symmetric>, %dev: index) {
  // expected-note @below {{divergent value defined here}}
  %tx = gpu.thread_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.while (%i = %c0) : (index) -> index {
    %more = arith.cmpi ult, %i, %tx : index
    scf.condition(%more) %i : index
  } do {
  ^bb0(%i: index):
    // expected-error @below {{'weave.put' op expects to be reached by every thread of the block, but is inside 'scf.while' whose condition depends on 'gpu.thread_id'}}
    weave.put %src, %dst on %dev : memref<64xf32> -> memref<64xf32, #weave.symmetric>
    %next = arith.addi %i, %c1 : index
    scf.yield %next : index
  }
  return
}

// -----

// The thread index read through NVVM's special register.
func.func @get_under_nvvm_tid(%src: memref<64xf32, #weave.symmetric>, %dst: memref<64xf32>, %dev: index) {
  // expected-note @below {{divergent value defined here}}
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %c0 = arith.constant 0 : i32
  %first = arith.cmpi eq, %tid, %c0 : i32
  scf.if %first {
    // expected-error @below {{'weave.get' op expects to be reached by every thread of the block, but is inside 'scf.if' whose condition depends on 'nvvm.read.ptx.sreg.tid.x'}}
    weave.get %src on %dev, %dst : memref<64xf32, #weave.symmetric> -> memref<64xf32>
  }
  return
}

// -----

// A warp-scope copy under a condition on the lane: not every lane runs it.
func.func @warp_put_under_lane(%src: memref<64xf32>, %dst: memref<64xf32, #weave.symmetric>, %dev: index) {
  // expected-note @below {{divergent value defined here}}
  %lane = gpu.lane_id
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %lane, %c0 : index
  scf.if %first {
    // expected-error @below {{'weave.put' op expects to be reached by every lane of the warp, but is inside 'scf.if' whose condition depends on 'gpu.lane_id'}}
    weave.put %src, %dst on %dev scope(warp) : memref<64xf32> -> memref<64xf32, #weave.symmetric>
  }
  return
}

// -----

// Accepted: a warp-scope copy under a condition that picks whole warps,
// and a thread-scope one under any condition.
func.func @warp_put_per_warp(%src: memref<64xf32>, %dst: memref<64xf32, #weave.symmetric>, %dev: index) {
  %tx = gpu.thread_id x
  %c32 = arith.constant 32 : index
  %warp = arith.divui %tx, %c32 : index
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %warp, %c0 : index
  scf.if %first {
    weave.put %src, %dst on %dev scope(warp) : memref<64xf32> -> memref<64xf32, #weave.symmetric>
  }
  %t0 = arith.cmpi eq, %tx, %c0 : index
  scf.if %t0 {
    weave.put %src, %dst on %dev scope(thread) : memref<64xf32> -> memref<64xf32, #weave.symmetric>
  }
  return
}

// -----

// A team barrier under a condition on the device index: the other members
// wait for ever.
func.func @barrier_on_some_members(%bar: !weave.semaphore) {
  // expected-note @below {{divergent value defined here}}
  %me = weave.device_id "x"
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %me, %c0 : index
  scf.if %first {
    // expected-error @below {{'weave.barrier' op expects to be reached by every thread of the block on every member of the team, but is inside 'scf.if' whose condition depends on 'weave.device_id'}}
    weave.barrier %bar scope(team) : !weave.semaphore
  }
  return
}

// -----

// scope(team) under a condition that does not select a block: still in
// every block of the grid.
gpu.module @m {
  gpu.func @team_barrier_uniform_condition(%bar: !weave.semaphore, %flag: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [4, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : i32
    %on = arith.cmpi ne, %flag, %c0 : i32
    scf.if %on {
      // expected-error @below {{'weave.barrier' op expects scope(team) to run on one block per device, but it runs in every block of a grid of more than one block (no condition on the block index selects one)}}
      weave.barrier %bar scope(team) : !weave.semaphore
    }
    gpu.return
  }
}

// -----

// Accepted: selected with a cf branch on the block index.
gpu.module @m {
  gpu.func @team_barrier_cf_block(%bar: !weave.semaphore) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [4, 1, 1], block = [128, 1, 1]>} {
    %bx = gpu.block_id x
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %bx, %c0 : index
    cf.cond_br %first, ^one, ^done
  ^one:
    weave.barrier %bar scope(team) : !weave.semaphore
    cf.br ^done
  ^done:
    gpu.return
  }
}

// -----

// A decrementing wait under a uniform condition: every thread still runs it.
gpu.module @m {
  gpu.func @decrement_uniform_condition(%sem: !weave.semaphore, %flag: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %on = arith.cmpi ne, %flag, %c0 : i32
    scf.if %on {
      // expected-error @below {{'weave.semaphore_wait' op expects a decrementing wait to run on one thread, but every thread of the block (128) runs it}}
      weave.semaphore_wait %sem, %one decrement : !weave.semaphore
    }
    gpu.return
  }
}

// -----

// A constant device index no team has, on a dynamic mesh.
gpu.module @m {
  gpu.func @device_past_any_team(%sem: !weave.semaphore) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %big = arith.constant 65536 : index
    %one = arith.constant 1 : i32
    // expected-error @below {{'weave.semaphore_signal' op expects a device index below 65536 (the most members a team has), got 65536; index members modulo weave.num_devices}}
    weave.semaphore_signal %sem, %one on %big : !weave.semaphore
    gpu.return
  }
}
