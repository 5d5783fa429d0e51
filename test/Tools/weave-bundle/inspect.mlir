// REQUIRES: ptxas
// RUN: weavec %s --emit=bundle -o %t.wbundle
// RUN: weave-bundle %t.wbundle | FileCheck %s

// weave-bundle prints the manifest the runtime reads, then per kernel the
// cubin's code bytes, registers, static shared memory and parameter bank.

// CHECK: # {{.*}}.wbundle
// CHECK-NEXT: weave-manifest 2
// CHECK-NEXT: arch sm_90a
// CHECK: kernel scale
// CHECK-NEXT:   grid 4 1 1
// CHECK-NEXT:   block 128 1 1
// CHECK:        param buffer x dtype=f32 shape=512 align=16
// CHECK-NEXT:   param scalar factor dtype=f32
// CHECK-NEXT:   param rank rank
// CHECK-NEXT:   param team_size team_size
// CHECK-NEXT:   param peer_bases peer_bases
// CHECK-NEXT: end
// CHECK-NEXT: kernel scale_shared
// CHECK: end
// CHECK-NEXT: cubin {{[0-9]+}} bytes, ELF64 EM_CUDA, ABI version {{[0-9]+}}, e_flags 0x{{[0-9a-f]+}}, {{[0-9]+}} sections
// CHECK-NEXT: kernel code registers static-smem params
// The parameter bank holds the driver's 0x210 bytes, then x (8), factor (4),
// rank (4), team_size (4) and peer_bases (8 at offset 24): 0x210 + 32.
// CHECK-NEXT: scale {{[1-9][0-9]*}} {{[1-9][0-9]*}} - 560
// The workgroup attribution is static shared memory.
// CHECK-NEXT: scale_shared {{[1-9][0-9]*}} {{[1-9][0-9]*}} {{[1-9][0-9]*}} {{[0-9]+}}

gpu.module @m {
  gpu.func @scale(%x: memref<512xf32> {weave.name = "x"},
                  %factor: f32 {weave.name = "factor"}) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>,
                  grid = [4, 1, 1], block = [128, 1, 1]>} {
    %b = gpu.block_id x
    %t = gpu.thread_id x
    %n = gpu.block_dim x
    %bn = arith.muli %b, %n : index
    %i = arith.addi %bn, %t : index
    %v = memref.load %x[%i] : memref<512xf32>
    %s = arith.mulf %v, %factor : f32
    memref.store %s, %x[%i] : memref<512xf32>
    gpu.return
  }
  gpu.func @scale_shared(%x: memref<256xf32> {weave.name = "x"})
      workgroup(%tile: memref<256xf32, #gpu.address_space<workgroup>>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>,
                  grid = [1, 1, 1], block = [256, 1, 1]>} {
    %t = gpu.thread_id x
    %v = memref.load %x[%t] : memref<256xf32>
    memref.store %v, %tile[%t] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %w = memref.load %tile[%t] : memref<256xf32, #gpu.address_space<workgroup>>
    %s = arith.addf %v, %w : f32
    memref.store %s, %x[%t] : memref<256xf32>
    gpu.return
  }
}
