// RUN: weavec %s --emit=bundle -o %t.wbundle
// RUN: weave-bundle %t.wbundle | FileCheck %s --check-prefix=MANIFEST
// RUN: weavec %s --emit=ptx | FileCheck %s --check-prefix=PTX

// The manifest's tensor-map parameters are computed after the pipeline's
// expansion, the kernel's after more passes: here scf-to-cf places the
// switch's default region (walked first before, as region 0) after its
// case. The kernel's parameters keep the manifest's order (each TMA op
// carries its place, weave.tma_order): a table (a pointer) first, then the
// peer view (128 bytes by value). In the walk's order after the lowering
// they came the other way round, which the loader reported only because
// the two sizes differ; two peer views would have swapped silently.
// (A team whose size is known only at launch: with a static size,
// weave-peer-view-stores would turn the table's store into peer views.)

// MANIFEST: kernel switch_stores
// MANIFEST: param tma_table dst.tma_table0
// MANIFEST-NEXT: param tma dst.tma1 {{.*}} view=peer offset=1

// PTX-LABEL: .entry switch_stores(
// PTX: .param .u64 .ptr .global .align 1 switch_stores_param_5,
// PTX-NEXT: .param .align 64 .b8 switch_stores_param_6[128]
module attributes {gpu.container_module} {
gpu.module @m {
  gpu.func @switch_stores(%dst: memref<256x64xf32, #weave.symmetric> {weave.name = "dst"},
                          %peer: memref<1xi32> {weave.name = "peer"})
      workgroup(%tile: memref<64x64xf32, #gpu.address_space<workgroup>>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = weave.num_devices "x"
    %me = weave.device_id "x"
    %p = memref.load %peer[%c0] : memref<1xi32>
    %dev = arith.index_cast %p : i32 to index
    %next = arith.addi %me, %c1 : index
    %right = arith.remui %next, %n : index
    scf.index_switch %dev
    case 1 {
      weave.copy_smem_to_gmem %tile, %dst[%c0, %c0] on %right
          : memref<64x64xf32, #gpu.address_space<workgroup>> -> memref<256x64xf32, #weave.symmetric>
      scf.yield
    }
    default {
      weave.copy_smem_to_gmem %tile, %dst[%c0, %c0] on %dev
          : memref<64x64xf32, #gpu.address_space<workgroup>> -> memref<256x64xf32, #weave.symmetric>
    }
    gpu.return
  }
}
}
