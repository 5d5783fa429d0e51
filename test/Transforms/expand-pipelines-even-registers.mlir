// RUN: weave-opt %s --weave-expand-pipelines | FileCheck %s --implicit-check-not=weave.matmul_pipeline
// RUN: %if ptxas %{ weavec %s --emit=bundle -v -o %t.wbundle 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// `even_registers`: code after the pipeline runs on every warpgroup, and
// ptxas compiles it within the producer's 40 registers a thread unless
// each warpgroup takes the block's even share once its role ends. The
// consumers give back first (232 -> 168), the block meets at named
// barrier 15 (all 384 threads), and only then does the producer take
// (40 -> 168): setmaxnreg.inc waits for free registers, and a producer
// with no tiles that took them before the consumers had taken theirs
// left the consumers waiting forever. Here the code after is a sum of
// four vectors over eight slots (32 16-byte loads in flight a thread),
// which fits in 168 (PTXAS) and spilled 148 bytes in 40 without the
// attribute.
// CHECK-LABEL: gpu.func @even
//       CHECK: nvvm.setmaxregister decrease 40
//       CHECK: nvvm.barrier id = %c15_i32 number_of_threads = %c384_i32
//  CHECK-NEXT: nvvm.setmaxregister increase 168
//       CHECK: nvvm.setmaxregister increase 232
//       CHECK: nvvm.setmaxregister decrease 168
//       CHECK: nvvm.barrier id = %c15_i32 number_of_threads = %c384_i32
//       CHECK: gpu.barrier
// PTXAS: Compiling entry function 'even'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads

// Three consumers (a block of 512 at 128 a thread, split 48 / 152): the
// even share is (128 x 48 + 384 x 152) / 512 = 126, down to 120.
// CHECK-LABEL: gpu.func @three
//       CHECK: nvvm.setmaxregister decrease 48
//       CHECK: nvvm.barrier id = %c15_i32 number_of_threads = %c512_i32
//  CHECK-NEXT: nvvm.setmaxregister increase 120
//       CHECK: nvvm.setmaxregister increase 152
//       CHECK: nvvm.setmaxregister decrease 120

// Nothing but the return after the pipeline: the attribute changes nothing.
// CHECK-LABEL: gpu.func @last
//   CHECK-NOT: nvvm.setmaxregister {{.*}} 168
//       CHECK: gpu.return

// Code after, no attribute: the split stays.
// CHECK-LABEL: gpu.func @split
//   CHECK-NOT: nvvm.setmaxregister {{.*}} 168
//       CHECK: gpu.barrier
//   CHECK-NOT: nvvm.setmaxregister {{.*}} 168
//       CHECK: gpu.return
module attributes {gpu.container_module} {
gpu.module @m {
  gpu.func @even(%a: memref<1024x4096xbf16> {weave.name = "a"},
                 %b: memref<4096x1024xbf16> {weave.name = "b"},
                 %c: memref<1024x1024xbf16> {weave.name = "c"},
                 %s: memref<8192x1024xbf16> {weave.name = "s"},
                 %o: memref<1024x1024xbf16> {weave.name = "o"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = 1>,
          grid = [132, 1, 1], block = [384, 1, 1], smem = 230464>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c256 = arith.constant 256 : index
    %c1024 = arith.constant 1024 : index
    %zero = arith.constant dense<0.0> : vector<8xf32>
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4)
        {even_registers}
        : memref<1024x4096xbf16>, memref<4096x1024xbf16> into memref<1024x1024xbf16>
    gpu.barrier
    // o[r + 256 j, q:q+8] for j < 4 = the sum over 8 slots of s: 32
    // 16-byte loads before the adds.
    %t = gpu.thread_id x
    %blk = gpu.block_id x
    %q0 = arith.muli %t, %c8 : index
    %q = arith.remui %q0, %c1024 : index
    %r1 = arith.addi %blk, %c256 : index
    %r2 = arith.addi %r1, %c256 : index
    %r3 = arith.addi %r2, %c256 : index
    %sums:4 = scf.for %i = %c0 to %c8 step %c1
        iter_args(%a0 = %zero, %a1 = %zero, %a2 = %zero, %a3 = %zero)
        -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
      %slot = arith.muli %i, %c1024 : index
      %s0 = arith.addi %slot, %blk : index
      %s1 = arith.addi %slot, %r1 : index
      %s2 = arith.addi %slot, %r2 : index
      %s3 = arith.addi %slot, %r3 : index
      %p0 = vector.load %s[%s0, %q] : memref<8192x1024xbf16>, vector<8xbf16>
      %p1 = vector.load %s[%s1, %q] : memref<8192x1024xbf16>, vector<8xbf16>
      %p2 = vector.load %s[%s2, %q] : memref<8192x1024xbf16>, vector<8xbf16>
      %p3 = vector.load %s[%s3, %q] : memref<8192x1024xbf16>, vector<8xbf16>
      %w0 = arith.extf %p0 : vector<8xbf16> to vector<8xf32>
      %w1 = arith.extf %p1 : vector<8xbf16> to vector<8xf32>
      %w2 = arith.extf %p2 : vector<8xbf16> to vector<8xf32>
      %w3 = arith.extf %p3 : vector<8xbf16> to vector<8xf32>
      %b0 = arith.addf %a0, %w0 : vector<8xf32>
      %b1 = arith.addf %a1, %w1 : vector<8xf32>
      %b2 = arith.addf %a2, %w2 : vector<8xf32>
      %b3 = arith.addf %a3, %w3 : vector<8xf32>
      scf.yield %b0, %b1, %b2, %b3 : vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>
    }
    %o0 = arith.truncf %sums#0 : vector<8xf32> to vector<8xbf16>
    %o1 = arith.truncf %sums#1 : vector<8xf32> to vector<8xbf16>
    %o2 = arith.truncf %sums#2 : vector<8xf32> to vector<8xbf16>
    %o3 = arith.truncf %sums#3 : vector<8xf32> to vector<8xbf16>
    vector.store %o0, %o[%blk, %q] : memref<1024x1024xbf16>, vector<8xbf16>
    vector.store %o1, %o[%r1, %q] : memref<1024x1024xbf16>, vector<8xbf16>
    vector.store %o2, %o[%r2, %q] : memref<1024x1024xbf16>, vector<8xbf16>
    vector.store %o3, %o[%r3, %q] : memref<1024x1024xbf16>, vector<8xbf16>
    gpu.return
  }

  gpu.func @three(%a: memref<1152x4096xbf16> {weave.name = "a"},
                  %b: memref<4096x4096xbf16> {weave.name = "b"},
                  %c: memref<1152x4096xbf16> {weave.name = "c"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = 1>,
          grid = [132, 1, 1], block = [512, 1, 1], smem = 221184>} {
    weave.matmul_pipeline %a, %b into %c tile(192, 192, 64) stages(3)
        {consumers = 3 : i64, even_registers}
        : memref<1152x4096xbf16>, memref<4096x4096xbf16> into memref<1152x4096xbf16>
    gpu.barrier
    gpu.return
  }

  gpu.func @last(%a: memref<1024x512xbf16> {weave.name = "a"},
                 %b: memref<512x1024xbf16> {weave.name = "b"},
                 %c: memref<1024x1024xbf16> {weave.name = "c"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = 1>,
          grid = [132, 1, 1], block = [384, 1, 1], smem = 230464>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4)
        {even_registers}
        : memref<1024x512xbf16>, memref<512x1024xbf16> into memref<1024x1024xbf16>
    gpu.return
  }

  gpu.func @split(%a: memref<1024x512xbf16> {weave.name = "a"},
                  %b: memref<512x1024xbf16> {weave.name = "b"},
                  %c: memref<1024x1024xbf16> {weave.name = "c"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = 1>,
          grid = [132, 1, 1], block = [384, 1, 1], smem = 230464>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4)
        : memref<1024x512xbf16>, memref<512x1024xbf16> into memref<1024x1024xbf16>
    gpu.barrier
    gpu.return
  }
}
}
