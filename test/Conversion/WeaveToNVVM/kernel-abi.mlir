// RUN: weave-opt %s -pass-pipeline='builtin.module(gpu.module(convert-weave-to-nvvm))' | FileCheck %s --implicit-check-not=weave.

// The kernel ABI: user parameters as bare pointers or scalars, then
// rank:i32, team_size:i32 and peer_bases:!llvm.ptr<1>.

gpu.module @abi {

// CHECK-LABEL: llvm.func @buffers
//  CHECK-SAME:   (%[[BUF:[^:]+]]: !llvm.ptr, %[[SYM:[^:]+]]: !llvm.ptr<1>, %[[SEM:[^:]+]]: !llvm.ptr<1>,
//  CHECK-SAME:    %[[RANK:[^:]+]]: i32, %[[TEAM:[^:]+]]: i32, %[[PEERS:[^:]+]]: !llvm.ptr<1>)
//  CHECK-SAME:   attributes {gpu.kernel, gpu.known_block_size = array<i32: 128, 1, 1>, nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>}
//       CHECK:   llvm.return
gpu.func @buffers(%buf: memref<64xf32>, %sym: memref<64xf32, #weave.symmetric>, %sem: !weave.semaphore) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  gpu.return
}

// Scalars keep their type; the block shape becomes the known block size.
// CHECK-LABEL: llvm.func @scalars
//  CHECK-SAME:   (%{{[^:]+}}: i32, %{{[^:]+}}: i64, %{{[^:]+}}: f32, %{{[^:]+}}: f64,
//  CHECK-SAME:    %{{[^:]+}}: i32, %{{[^:]+}}: i32, %{{[^:]+}}: !llvm.ptr<1>)
//  CHECK-SAME:   gpu.known_block_size = array<i32: 64, 2, 4>
//  CHECK-SAME:   nvvm.kernel
//  CHECK-SAME:   nvvm.maxntid = array<i32: 64, 2, 4>
gpu.func @scalars(%a: i32, %b: i64, %c: f32, %d: f64) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 4>, grid = [8, 1, 1], block = [64, 2, 4]>} {
  gpu.return
}

// A kernel with no parameters still gets the three team parameters.
// CHECK-LABEL: llvm.func @no_params
//  CHECK-SAME:   (%{{[^:]+}}: i32, %{{[^:]+}}: i32, %{{[^:]+}}: !llvm.ptr<1>)
//  CHECK-SAME:   nvvm.kernel
gpu.func @no_params() kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
  gpu.return
}

}
