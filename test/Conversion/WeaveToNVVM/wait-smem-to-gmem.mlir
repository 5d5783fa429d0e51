// RUN: weave-opt %s -pass-pipeline='builtin.module(gpu.module(convert-weave-to-nvvm))' | FileCheck %s --implicit-check-not=weave.

gpu.module @bulk {

// CHECK-LABEL: llvm.func @wait_complete
//       CHECK:   nvvm.cp.async.bulk.wait_group 0{{$}}
//  CHECK-NEXT:   llvm.return
gpu.func @wait_complete() kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.wait_smem_to_gmem 0
  gpu.return
}

// CHECK-LABEL: llvm.func @wait_read
//       CHECK:   nvvm.cp.async.bulk.wait_group 2 {read}
//  CHECK-NEXT:   llvm.return
gpu.func @wait_read() kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  weave.wait_smem_to_gmem 2 read_only
  gpu.return
}

}
