// RUN: not weavec %s --emit=ptx --arch=sm_80 2>&1 | FileCheck %s

// Bulk-group waits are Hopper instructions: sm_80 is refused at the op.
// CHECK: arch-sm80-bulk-wait.mlir:[[@LINE+3]]:3: error: a bulk-group wait (cp.async.bulk.wait_group) needs sm_90, but the target is --arch=sm_80; compile for sm_90 or sm_90a
gpu.module @m {
gpu.func @drain() kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.wait_smem_to_gmem 1 read_only
  gpu.return
}
}
