// RUN: weave-opt %s -pass-pipeline='builtin.module(gpu.module(convert-weave-to-nvvm))' | FileCheck %s --implicit-check-not=weave.

// In a kernel that issues bulk (TMA) stores, a signal first orders the async
// proxy with fence.proxy.async.global, then releases.

gpu.module @tma_remote {
// CHECK-LABEL: llvm.func @copy_remote_then_signal
//       CHECK:   nvvm.cp.async.bulk.wait_group 0
//       CHECK:   llvm.inline_asm has_side_effects "fence.proxy.async.global;", "~{memory}"
//  CHECK-NEXT:   llvm.inline_asm has_side_effects "red.release.sys.global.add.u32 [$0], $1;"
gpu.func @copy_remote_then_signal(%out: memref<1024x4096xf16, #weave.symmetric>, %sem: !weave.semaphore) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 4>, grid = [1, 1, 1], block = [128, 1, 1], smem = 16384>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %raw = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
  %tile = memref.view %raw[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
  %me = weave.device_id "x"
  %n = weave.num_devices "x"
  %s = arith.addi %me, %c1 : index
  %next = arith.remui %s, %n : index
  weave.copy_smem_to_gmem %tile, %out[%c0, %c0] on %next : memref<128x64xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xf16, #weave.symmetric>
  weave.wait_smem_to_gmem 0
  weave.semaphore_signal %sem, %one on %next : !weave.semaphore
  gpu.return
}
}
