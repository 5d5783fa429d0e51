// The bundle manifest of a pipeline kernel: the expansion's TMA loads and
// stores, and the callback's store of the lhs tile, get 128-byte swizzled
// tensor maps (the layout wgmma reads), and the manifest says so.
// RUN: weavec %s --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ weavec %s --emit=bundle -o %t.wbundle %}
// RUN: %if ptxas %{ grep -a -E "^ *(kernel|grid|block|smem|team|cc|param|end)" %t.wbundle | FileCheck %s %}
// RUN: %if ptxas %{ grep -a -c "param tma" %t.wbundle | FileCheck %s --check-prefix=COUNT %}

// Four tensor maps, by value, after the team parameters.
// PTX-LABEL: .visible .entry pipeline(
// PTX-COUNT-4: .param .align 64 .b8 pipeline_param_{{[0-9]+}}[128]
// PTX-NOT: .param
// PTX: )
// PTX-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-DAG: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group

// CHECK-LABEL: kernel pipeline
//  CHECK-NEXT:   grid 4 1 1
//  CHECK-NEXT:   block 384 1 1
//  CHECK-NEXT:   smem 200000
//  CHECK-NEXT:   team 2
//  CHECK-NEXT:   cc 90
//  CHECK-NEXT:   param buffer [[A:[^ ]+]] dtype=f16 shape=256,128 align=16
//  CHECK-NEXT:   param buffer [[B:[^ ]+]] dtype=f16 shape=128,512 align=16
//  CHECK-NEXT:   param buffer [[C:[^ ]+]] dtype=f16 shape=256,512 align=16
//  CHECK-NEXT:   param symmetric [[S:[^ ]+]] dtype=f16 shape=512,128 align=16
//  CHECK-NEXT:   param rank rank
//  CHECK-NEXT:   param team_size team_size
//  CHECK-NEXT:   param peer_bases peer_bases
// lhs: 128 rows x 64 columns; rhs: 64-column boxes of 64 rows; the
// callback's store to the next device's scratch; the output (innermost
// box dimension first, 64 f16 = 128 bytes).
//   CHECK-DAG:   param tma [[A]].tma{{[0-9]+}} dtype=f16 source=0 box=64,128 swizzle=128 view=local
//   CHECK-DAG:   param tma [[B]].tma{{[0-9]+}} dtype=f16 source=1 box=64,64 swizzle=128 view=local
//   CHECK-DAG:   param tma [[C]].tma{{[0-9]+}} dtype=f16 source=2 box=64,{{[0-9]+}} swizzle=128 view=local
//   CHECK-DAG:   param tma [[S]].tma{{[0-9]+}} dtype=f16 source=3 box=64,128 swizzle=128 view=peer offset=1
//       CHECK: end

// COUNT: {{^}}4{{$}}
gpu.module @m {
  gpu.func @pipeline(%a: memref<256x128xf16>, %b: memref<128x512xf16>, %c: memref<256x512xf16>, %scratch: memref<512x128xf16, #weave.symmetric>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [4, 1, 1], block = [384, 1, 1], smem = 200000>} {
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %sum = arith.addi %me, %c1 : index
    %next = arith.remui %sum, %n : index
    %base = arith.muli %me, %c256 : index
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(3) delay_release(1) : memref<256x128xf16>, memref<128x512xf16> into memref<256x512xf16> callback {
    ^bb0(%lhs: memref<128x64xf16, #gpu.address_space<workgroup>>, %rhs: memref<64x256xf16, #gpu.address_space<workgroup>>, %m: index, %nn: index, %k: index):
      %c128 = arith.constant 128 : index
      %c64 = arith.constant 64 : index
      %row0 = arith.muli %m, %c128 : index
      %row = arith.addi %base, %row0 : index
      %col = arith.muli %k, %c64 : index
      weave.copy_smem_to_gmem %lhs, %scratch[%row, %col] on %next : memref<128x64xf16, #gpu.address_space<workgroup>> -> memref<512x128xf16, #weave.symmetric>
      weave.wait_smem_to_gmem 0 read_only
    }
    gpu.return
  }
}
