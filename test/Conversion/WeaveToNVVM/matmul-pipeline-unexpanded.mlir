// RUN: weave-opt %s -pass-pipeline='builtin.module(gpu.module(convert-weave-to-nvvm))' -verify-diagnostics

// A pipeline that reaches the conversion unexpanded names the missing pass.
gpu.module @pipe {
gpu.func @matmul(%a: memref<1024x4096xf16>, %b: memref<4096x1024xf16>, %c: memref<1024x1024xf16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132, 1, 1], block = [384, 1, 1], smem = 200000>} {
  // The conversion driver adds its generic note-level error after ours.
  // expected-error @+2 {{failed to legalize operation 'weave.matmul_pipeline'}}
  // expected-error @+1 {{'weave.matmul_pipeline' op must be expanded by weave-expand-pipelines before convert-weave-to-nvvm}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf16>, memref<4096x1024xf16> into memref<1024x1024xf16>
  gpu.return
}
}
