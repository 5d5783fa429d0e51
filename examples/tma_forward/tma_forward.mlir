// A TMA store to another GPU: every device stages its 64x64 block in shared
// memory and stores it with one bulk tensor copy into rows [64*d, 64*d + 64)
// of its right neighbour's symmetric `gathered`, then signals it. The host
// builds the tensor map of the neighbour's buffer; the device to store to is
// written (device_id + 1) mod num_devices so the host can compute it too.
//
// Safe back to back, as ring_exchange: a device stores only after its right
// neighbour's credit, which the neighbour gives at the start of each launch
// (its stream is then past whatever read `gathered` after the previous
// one). Read `gathered` on the launching stream, or synchronize first.
// `ready` counter 0 says "your rows arrived", counter 1 "my rows are free".
//
//   weavec tma_forward.mlir --emit=bundle -o tma_forward.wbundle
module attributes {gpu.container_module} {
gpu.module @tma_forward {
  gpu.func @tma_forward(
      %block: memref<64x64xf32> {weave.name = "block"},
      %gathered: memref<256x64xf32, #weave.symmetric> {weave.name = "gathered"},
      %ready: !weave.semaphore<2> {weave.name = "ready"})
      workgroup(%tile: memref<64x64xf32, #gpu.address_space<workgroup>>) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>,
          grid = [1, 1, 1], block = [256, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %c4096 = arith.constant 4096 : index
    %one = arith.constant 1 : i32
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
    %next = arith.addi %me, %c1 : index
    %right = arith.remui %next, %n : index
    %last = arith.subi %n, %c1 : index
    %prev = arith.addi %me, %last : index
    %left = arith.remui %prev, %n : index

    // Stage the block in shared memory, 16 elements per thread.
    %tid = gpu.thread_id x
    scf.for %i = %tid to %c4096 step %c256 {
      %r = arith.divui %i, %c64 : index
      %c = arith.remui %i, %c64 : index
      %v = memref.load %block[%r, %c] : memref<64x64xf32>
      memref.store %v, %tile[%r, %c] : memref<64x64xf32, #gpu.address_space<workgroup>>
    }
    // Generic-proxy writes to shared memory must be visible to the TMA unit.
    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
    gpu.barrier

    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      // Our rows are free; wait until the right neighbour's are.
      weave.semaphore_signal %ready[%c1], %one on %left : !weave.semaphore<2>
      weave.semaphore_wait %ready[%c1], %one decrement : !weave.semaphore<2>
      %row = arith.muli %me, %c64 : index
      weave.copy_smem_to_gmem %tile, %gathered[%row, %c0] on %right
          : memref<64x64xf32, #gpu.address_space<workgroup>> -> memref<256x64xf32, #weave.symmetric>
      // The store must be complete (not just read) before the release.
      weave.wait_smem_to_gmem 0
      weave.semaphore_signal %ready[%c0], %one on %right : !weave.semaphore<2>
      weave.semaphore_wait %ready[%c0], %one decrement : !weave.semaphore<2>
    }
    gpu.barrier
    gpu.return
  }
}
}
