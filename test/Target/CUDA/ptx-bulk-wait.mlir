// RUN: weavec %s --emit=ptx | FileCheck %s

// CHECK-LABEL: .visible .entry drain(
//       CHECK: cp.async.bulk.wait_group.read 1;
//       CHECK: cp.async.bulk.wait_group 0;
//  CHECK-NEXT: ret;
gpu.module @m {
gpu.func @drain() kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.wait_smem_to_gmem 1 read_only
  weave.wait_smem_to_gmem 0
  gpu.return
}
}
