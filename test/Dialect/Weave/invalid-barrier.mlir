// RUN: weave-opt %s -split-input-file -verify-diagnostics

func.func @barrier_not_semaphore(%bar: memref<2xi32>) {
  // expected-error @below {{'weave.barrier' op operand #0 must be an array of 32-bit counters in the symmetric signal pad, but got 'memref<2xi32>'}}
  weave.barrier %bar scope(team) : memref<2xi32>
  return
}

// -----

func.func @barrier_team_blocks_one_counter(%bar: !weave.semaphore) {
  // expected-error @below {{'weave.barrier' op expects at least 2 counters for scope(team_blocks) (a team counter and a grid counter), got '!weave.semaphore'}}
  weave.barrier %bar scope(team_blocks) : !weave.semaphore
  return
}

// -----

func.func @barrier_unknown_scope(%bar: !weave.semaphore) {
  // expected-error @below {{expected string or keyword containing one of the following enum values for attribute 'scope' [team, team_blocks]}}
  weave.barrier %bar scope(grid) : !weave.semaphore
  return
}

// -----

func.func @barrier_under_thread_condition(%bar: !weave.semaphore) {
  %c0 = arith.constant 0 : index
  // expected-note @below {{divergent value defined here}}
  %tx = gpu.thread_id x
  %first = arith.cmpi eq, %tx, %c0 : index
  scf.if %first {
    // expected-error @below {{'weave.barrier' op expects to be reached by every thread of the block, but is inside 'scf.if' whose condition depends on 'gpu.thread_id'}}
    weave.barrier %bar scope(team) : !weave.semaphore
  }
  return
}

// -----

// Every block takes part in scope(team_blocks): a block condition diverges.
func.func @barrier_team_blocks_under_block_condition(%bar: !weave.semaphore<2>) {
  %c0 = arith.constant 0 : index
  // expected-note @below {{divergent value defined here}}
  %bx = gpu.block_id x
  %first = arith.cmpi eq, %bx, %c0 : index
  scf.if %first {
    // expected-error @below {{'weave.barrier' op expects to be reached by every thread of every block, but is inside 'scf.if' whose condition depends on 'gpu.block_id'}}
    weave.barrier %bar scope(team_blocks) : !weave.semaphore<2>
  }
  return
}

// -----

// The condition may be far from the thread index, and the barrier deep.
func.func @barrier_nested_under_lane_condition(%bar: !weave.semaphore, %v: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-note @below {{divergent value defined here}}
  %lane = gpu.lane_id
  %sum = arith.addi %lane, %v : index
  %odd = arith.remui %sum, %c4 : index
  %pick = arith.cmpi eq, %odd, %c1 : index
  scf.if %pick {
    scf.for %i = %c0 to %c4 step %c1 {
      // expected-error @below {{'weave.barrier' op expects to be reached by every thread of the block, but is inside 'scf.if' whose condition depends on 'gpu.lane_id'}}
      weave.barrier %bar scope(team) : !weave.semaphore
    }
  }
  return
}

// -----

func.func @barrier_in_thread_dependent_loop(%bar: !weave.semaphore) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-note @below {{divergent value defined here}}
  %tx = gpu.thread_id x
  scf.for %i = %c0 to %tx step %c1 {
    // expected-error @below {{'weave.barrier' op expects to be reached by every thread of the block, but is inside 'scf.for' whose bounds depend on 'gpu.thread_id'}}
    weave.barrier %bar scope(team) : !weave.semaphore
  }
  return
}

// -----

func.func @barrier_under_thread_switch(%bar: !weave.semaphore) {
  // expected-note @below {{divergent value defined here}}
  %tx = gpu.thread_id x
  scf.index_switch %tx
  case 0 {
    // expected-error @below {{'weave.barrier' op expects to be reached by every thread of the block, but is inside 'scf.index_switch' whose condition depends on 'gpu.thread_id'}}
    weave.barrier %bar scope(team) : !weave.semaphore
    scf.yield
  }
  default {
  }
  return
}

// -----

func.func @barrier_in_pipeline(%a: memref<128x64xbf16>, %b: memref<64x128xbf16>, %c: memref<128x128xbf16>, %bar: !weave.semaphore) {
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(2) : memref<128x64xbf16>, memref<64x128xbf16> into memref<128x128xbf16> after_loads {
    // expected-error @below {{'weave.barrier' op expects to be reached by every thread of the block, but is inside a 'weave.matmul_pipeline' region, which runs on one thread or warp}}
    weave.barrier %bar scope(team) : !weave.semaphore
  }
  return
}

// -----

gpu.module @m {
gpu.func @barrier_team_in_every_block(%bar: !weave.semaphore) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [persistent, 1, 1], block = [128, 1, 1]>} {
  // expected-error @below {{'weave.barrier' op expects scope(team) to run on one block per device, but it runs in every block of a grid of more than one block (no condition on the block index selects one); use scope(team_blocks), or put the barrier under an scf.if on gpu.block_id}}
  weave.barrier %bar scope(team) : !weave.semaphore
  gpu.return
}
}
