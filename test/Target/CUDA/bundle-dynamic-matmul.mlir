// The matmul pipeline with a dynamic row count compiles to a bundle: the
// row counts of a and c arrive as dim parameters before the tensor maps,
// and the kernel reads a's to count its row tiles.
// RUN: weavec %examples/dynamic_shapes/dynamic_matmul.mlir --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ weavec %examples/dynamic_shapes/dynamic_matmul.mlir --emit=bundle -o %t.wbundle %}
// RUN: %if ptxas %{ grep -a -E "^ *(kernel|param|end)" %t.wbundle | FileCheck %s %}

// PTX-LABEL: .visible .entry dynamic_matmul(
//       PTX:   .param .u64 dynamic_matmul_param_6,
//  PTX-NEXT:   .param .u64 dynamic_matmul_param_7,
//  PTX-NEXT:   .param .align 64 .b8 dynamic_matmul_param_8[128],
//       PTX: ld.param.b64 {{.*}}[dynamic_matmul_param_6]

// CHECK-LABEL: kernel dynamic_matmul
//  CHECK-NEXT:   param buffer a dtype=f16 shape=?,128 align=16
//  CHECK-NEXT:   param buffer b dtype=f16 shape=128,256 align=16
//  CHECK-NEXT:   param buffer c dtype=f16 shape=?,256 align=16
//  CHECK-NEXT:   param rank rank
//  CHECK-NEXT:   param team_size team_size
//  CHECK-NEXT:   param peer_bases peer_bases
//  CHECK-NEXT:   param dim a.dim0 source=0 axis=0
//  CHECK-NEXT:   param dim c.dim0 source=2 axis=0
//  CHECK-NEXT:   param tma a.tma0 dtype=f16 source=0 box=64,128 swizzle=128 view=local
//  CHECK-NEXT:   param tma b.tma1 dtype=f16 source=1 box=64,64 swizzle=128 view=local
//  CHECK-NEXT:   param tma c.tma2 dtype=f16 source=2 box=64,64 swizzle=128 view=local
//  CHECK-NEXT: end
