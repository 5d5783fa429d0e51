// RUN: weave-opt %s -pass-pipeline='builtin.module(gpu.module(convert-weave-to-nvvm))' -split-input-file -verify-diagnostics

// Parameters the kernel ABI cannot carry are reported at the kernel, naming
// the argument and its type.

gpu.module @m {
// expected-error @+1 {{kernel argument #1 of type 'memref<?x4xf32, strided<[?, 1]>>' cannot be passed: the ABI takes row-major buffers (identity layout)}}
gpu.func @dynamic_strided(%a: memref<4xf32>, %b: memref<?x4xf32, strided<[?, 1]>>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  gpu.return
}
}

// -----

gpu.module @m {
// expected-error @+1 {{kernel argument #0 of type 'i16' cannot be passed: scalars are f32, f64, i32 or i64}}
gpu.func @i16_scalar(%x: i16) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  gpu.return
}
}

// -----

gpu.module @m {
// expected-error @+1 {{kernel argument #0 of type 'i8' cannot be passed: scalars are f32, f64, i32 or i64}}
gpu.func @i8_scalar(%x: i8) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  gpu.return
}
}

// -----

gpu.module @m {
// expected-error @+1 {{kernel argument #0 of type 'index' cannot be passed to a weave kernel}}
gpu.func @index_scalar(%x: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  gpu.return
}
}

// -----

gpu.module @m {
// expected-error @+1 {{kernel argument #0 of type 'memref<4x4xf32, strided<[1, 4]>>' cannot be passed: the ABI takes row-major buffers (identity layout)}}
gpu.func @strided(%x: memref<4x4xf32, strided<[1, 4]>>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  gpu.return
}
}

// -----

gpu.module @m {
// expected-error @+1 {{kernel argument #0 of type 'memref<16xf32, #gpu.address_space<workgroup>>' cannot be passed: kernel buffers live in global memory}}
gpu.func @workgroup_arg(%x: memref<16xf32, #gpu.address_space<workgroup>>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  gpu.return
}
}

// -----

gpu.module @m {
// expected-error @+1 {{kernel argument #0 of type 'memref<16xi16>' has an element type the runtime does not support}}
gpu.func @i16_buffer(%x: memref<16xi16>) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  gpu.return
}
}
