// RUN: weave-opt %s --verify-roundtrip | FileCheck %s

gpu.module @barriers {

// CHECK-LABEL: gpu.func @team_blocks
//  CHECK-SAME:   (%[[BAR:.*]]: !weave.semaphore<2>)
//       CHECK:   weave.barrier %[[BAR]] scope(team_blocks) : !weave.semaphore<2>
gpu.func @team_blocks(%bar: !weave.semaphore<2>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [128, 1, 1]>} {
  weave.barrier %bar scope(team_blocks) : !weave.semaphore<2>
  gpu.return
}

// A grid of one block needs no condition for scope(team).
// CHECK-LABEL: gpu.func @team
//  CHECK-SAME:   (%[[BAR:.*]]: !weave.semaphore)
//       CHECK:   weave.barrier %[[BAR]] scope(team) : !weave.semaphore{{$}}
gpu.func @team(%bar: !weave.semaphore) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.barrier %bar scope(team) : !weave.semaphore
  gpu.return
}

// Both scopes may share one array: team uses counter 0, team_blocks
// counters 0 and 1; larger arrays are fine.
// CHECK-LABEL: gpu.func @shared_array
//       CHECK:   weave.barrier %[[BAR:.*]] scope(team) : !weave.semaphore<4>
//       CHECK:   weave.barrier %[[BAR]] scope(team_blocks) : !weave.semaphore<4>
gpu.func @shared_array(%bar: !weave.semaphore<4>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.barrier %bar scope(team) : !weave.semaphore<4>
  weave.barrier %bar scope(team_blocks) : !weave.semaphore<4>
  gpu.return
}

// scope(team) is executed by one block per device: a condition on the block
// index picks it, and is not divergent within the block.
// CHECK-LABEL: gpu.func @team_on_block_zero
//       CHECK:   scf.if
//  CHECK-NEXT:     weave.barrier %{{.*}} scope(team) : !weave.semaphore
gpu.func @team_on_block_zero(%bar: !weave.semaphore) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [128, 1, 1]>} {
  %c0 = arith.constant 0 : index
  %bx = gpu.block_id x
  %first = arith.cmpi eq, %bx, %c0 : index
  scf.if %first {
    weave.barrier %bar scope(team) : !weave.semaphore
  }
  gpu.return
}

// Uniform control flow around a barrier is fine: a loop with constant
// bounds, a condition on the device index.
// CHECK-LABEL: gpu.func @uniform_control_flow
//       CHECK:   scf.for
//       CHECK:     scf.if
//  CHECK-NEXT:       weave.barrier %{{.*}} scope(team_blocks) : !weave.semaphore<2>
gpu.func @uniform_control_flow(%bar: !weave.semaphore<2>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [128, 1, 1]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %me = weave.device_id "x"
  %n = weave.num_devices "x"
  scf.for %i = %c0 to %c4 step %c1 {
    %many = arith.cmpi ugt, %n, %c1 : index
    scf.if %many {
      weave.barrier %bar scope(team_blocks) : !weave.semaphore<2>
    }
  }
  gpu.return
}

}
