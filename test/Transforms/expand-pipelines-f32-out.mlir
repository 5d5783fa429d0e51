// RUN: weave-opt %s --weave-expand-pipelines | FileCheck %s --implicit-check-not=weave.matmul_pipeline --implicit-check-not=llvm.fptrunc
// RUN: %if ptxas %{ weavec %s --emit=bundle -v -o %t.wbundle 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// f32 output: the accumulators go to shared memory as they are, a pair of
// adjacent columns per 8-byte store, and out as 64-row x 32-column boxes
// (128 bytes, swizzled).
// CHECK-LABEL: gpu.func @matmul_f32
//       CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
//       CHECK: weave.copy_smem_to_gmem %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {swizzle = 128 : i64, weave.coordinates_in_range} : memref<64x32xf32, #gpu.address_space<workgroup>> -> memref<1000x1024xf32>
// PTXAS: 0 bytes spill stores
module attributes {gpu.container_module} {
gpu.module @m {
  gpu.func @matmul_f32(%a: memref<1000x512xbf16> {weave.name = "a"},
                       %b: memref<512x1024xbf16> {weave.name = "b"},
                       %c: memref<1000x1024xf32> {weave.name = "c"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>,
          grid = [132, 1, 1], block = [384, 1, 1], smem = 230464>} {
    weave.matmul_pipeline %a, %b into %c tile(128, 256, 64) stages(4)
        : memref<1000x512xbf16>, memref<512x1024xbf16> into memref<1000x1024xf32>
    gpu.return
  }
}
}
