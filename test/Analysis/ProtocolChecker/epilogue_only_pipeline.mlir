// A pipeline with no `into` (its epilogue region stores every box
// elsewhere) is modelled: its boxes' stores and the signal after them
// pass at every team size, and with the signal before the stores complete
// the checker sees the signal's waiter race them. (The checker crashed on
// such a pipeline: it read the missing `into` operand.) One launch: the
// kernel has no protocol between launches (a host synchronization).
//
// RUN: weavec --check-protocol --launches 1 %s | FileCheck %s
// CHECK: protocol check passed: 1 kernel, team sizes 2,3,4,8, {{.*}} 1 launch
//
// RUN: grep -v 'weave.wait_smem_to_gmem 0$' %s > %t.nocomplete.mlir
// RUN: not weavec --check-protocol --launches 1 %t.nocomplete.mlir 2>&1 | FileCheck %s --check-prefix=NOCOMPLETE
// NOCOMPLETE: error: race: {{.*}}(the earlier bulk store is not complete: wait for it with weave.wait_smem_to_gmem 0 before signalling)
module attributes {gpu.container_module} {
gpu.module @epilogue_only {
  // The boxes go to `staged` on the next member; once a consumer's last
  // box of the tile has landed it signals `done` there, and that member's
  // thread 0 of block 0 reads a stored row after both consumers' signals:
  // the stores and the load are ordered only by the signal.
  gpu.func @epilogue_only(%a: memref<128x64xbf16> {weave.name = "a"},
                          %b: memref<64x256xbf16> {weave.name = "b"},
                          %staged: memref<128x256xbf16, #weave.symmetric> {weave.name = "staged"},
                          %out: memref<1xbf16> {weave.name = "out"},
                          %done: !weave.semaphore<1> {weave.name = "done"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>,
          grid = [persistent, 1, 1], block = [384, 1, 1], smem = 230464>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %me = weave.device_id "x"
    %d = weave.num_devices "x"
    %sum = arith.addi %me, %c1 : index
    %next = arith.remui %sum, %d : index
    weave.matmul_pipeline %a, %b tile(128, 256, 64) stages(4)
        : memref<128x64xbf16>, memref<64x256xbf16> -> bf16
        epilogue {
    ^bb0(%box: memref<64x64xbf16, #gpu.address_space<workgroup>>, %m: index, %n: index, %i: index):
      %rb = arith.divui %i, %c4 : index
      %cb = arith.remui %i, %c4 : index
      %r0 = arith.muli %m, %c128 : index
      %r1 = arith.muli %rb, %c64 : index
      %row = arith.addi %r0, %r1 : index
      %q0 = arith.muli %n, %c256 : index
      %q1 = arith.muli %cb, %c64 : index
      %col = arith.addi %q0, %q1 : index
      weave.copy_smem_to_gmem %box, %staged[%row, %col] on %next
          : memref<64x64xbf16, #gpu.address_space<workgroup>> -> memref<128x256xbf16, #weave.symmetric>
      %last = arith.cmpi eq, %cb, %c3 : index
      scf.if %last {
        weave.wait_smem_to_gmem 0
        weave.semaphore_signal %done, %one on %next : !weave.semaphore<1>
      }
    }
    // Both consumers' signals of the one tile, then a row they stored.
    // (The one tile is block 0's.)
    %tid = gpu.thread_id x
    %blk = gpu.block_id x
    %t0 = arith.cmpi eq, %tid, %c0 : index
    %b0 = arith.cmpi eq, %blk, %c0 : index
    %first = arith.andi %t0, %b0 : i1
    scf.if %first {
      weave.semaphore_wait %done, %two decrement : !weave.semaphore<1>
      %v = memref.load %staged[%c64, %c0] : memref<128x256xbf16, #weave.symmetric>
      memref.store %v, %out[%c0] : memref<1xbf16>
    }
    gpu.return
  }
}
}
