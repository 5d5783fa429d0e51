// RUN: weave-opt %s -pass-pipeline='builtin.module(gpu.module(convert-weave-to-nvvm))' -split-input-file -verify-diagnostics

// TMA stores need host-encoded tensor maps that the ABI does not carry yet:
// the conversion says so (the driver then adds its generic error).
gpu.module @tma {
gpu.func @copy_local(%out: memref<1024x4096xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1], smem = 16384>} {
  %c0 = arith.constant 0 : index
  %raw = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
  %tile = memref.view %raw[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128x64xf16, #gpu.address_space<workgroup>>
  // expected-error @+2 {{failed to legalize operation 'weave.copy_smem_to_gmem'}}
  // expected-error @+1 {{'weave.copy_smem_to_gmem' op has no lowering yet: TMA tensor stores need host-encoded descriptors, which the kernel ABI does not carry yet}}
  weave.copy_smem_to_gmem %tile, %out[%c0, %c0] : memref<128x64xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xf16>
  weave.wait_smem_to_gmem 0
  gpu.return
}
}

// -----

// Also to a peer, followed by the signal that would need the proxy fence.
gpu.module @tma_remote {
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
  // expected-error @+2 {{failed to legalize operation 'weave.copy_smem_to_gmem'}}
  // expected-error @+1 {{'weave.copy_smem_to_gmem' op has no lowering yet}}
  weave.copy_smem_to_gmem %tile, %out[%c0, %c0] on %next : memref<128x64xf16, #gpu.address_space<workgroup>> -> memref<1024x4096xf16, #weave.symmetric>
  weave.wait_smem_to_gmem 0
  weave.semaphore_signal %sem, %one on %next : !weave.semaphore
  gpu.return
}
}
