// RUN: weavec %s --emit=ptx --split-input-file --verify-diagnostics -o /dev/null

// An element type that no row of the dtype table (weave/runtime/DType.h)
// names, here f8E5M2FNUZ, or a dtype whose row lacks the trait an op needs:
// each is one located error from the table, before any lowering. The lists
// in the messages are the table's rows that have the trait.

gpu.module @m {
  gpu.func @k(
      // expected-error @below {{kernel argument #0 of type 'memref<16xf8E5M2FNUZ>' has an element type the runtime does not support; buffers hold f16, bf16, f32, f64, i8, i32 or i64}}
      %a: memref<16xf8E5M2FNUZ>) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(
      // expected-error @below {{kernel argument #0 of type 'f16' cannot be passed: scalars are f32, f64, i32 or i64}}
      %s: f16) kernel
      attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {
    gpu.return
  }
}

// -----

func.func @matmul_f8(%a: memref<1024x4096xf8E5M2FNUZ>, %b: memref<4096x1024xf8E5M2FNUZ>, %c: memref<1024x1024xf16>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects f16 or bf16 operands, got 'f8E5M2FNUZ'}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xf8E5M2FNUZ>, memref<4096x1024xf8E5M2FNUZ> into memref<1024x1024xf16>
  return
}

// -----

func.func @matmul_out_f64(%a: memref<1024x4096xbf16>, %b: memref<4096x1024xbf16>, %c: memref<1024x1024xf64>) {
  // expected-error @below {{'weave.matmul_pipeline' op expects an f16, bf16 or f32 output, got 'f64'}}
  weave.matmul_pipeline %a, %b into %c tile(128, 128, 64) stages(4) : memref<1024x4096xbf16>, memref<4096x1024xbf16> into memref<1024x1024xf64>
  return
}

// -----

func.func @atomic_f8(%buf: memref<1024xf8E5M2FNUZ, #weave.symmetric>, %v: f32, %i: index) {
  // expected-error @below {{'weave.atomic_add' op expects a buffer of f16, bf16 or f32 elements, got 'memref<1024xf8E5M2FNUZ, #weave.symmetric>'}}
  weave.atomic_add %v, %buf[%i] : f32, memref<1024xf8E5M2FNUZ, #weave.symmetric>
  return
}

// -----

func.func @load_f8(%g: memref<64x64xf8E5M2FNUZ>, %t: memref<16x16xf8E5M2FNUZ, #gpu.address_space<workgroup>>, %bar: memref<i64, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @below {{'weave.copy_gmem_to_smem' op expects f16, bf16 or f32 elements (the tensor map types the runtime builds), got 'f8E5M2FNUZ'}}
  weave.copy_gmem_to_smem %g[%i, %i], %t, %bar : memref<64x64xf8E5M2FNUZ> -> memref<16x16xf8E5M2FNUZ, #gpu.address_space<workgroup>>, memref<i64, #gpu.address_space<workgroup>>
  return
}
