// Dynamic dimensions end to end through weavec: the example kernels of
// examples/dynamic_shapes (memref.dim, remote_ref, a put into a subview at
// a dynamic offset and size, a TMA store) get one i64 parameter per '?'
// after the team parameters, and the manifest records '?' and the dims.
// RUN: weavec %examples/dynamic_shapes/dynamic_shapes.mlir --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ weavec %examples/dynamic_shapes/dynamic_shapes.mlir --emit=bundle -o %t.wbundle %}
// RUN: %if ptxas %{ grep -a -E "^ *(kernel|param|end)" %t.wbundle | FileCheck %s %}

// PTX-LABEL: .visible .entry dynamic_all_reduce(
//  PTX-NEXT:   .param .u64 .ptr .global .align 1 dynamic_all_reduce_param_0,
//  PTX-NEXT:   .param .u64 .ptr .align 1 dynamic_all_reduce_param_1,
//  PTX-NEXT:   .param .u64 .ptr .global .align 1 dynamic_all_reduce_param_2,
//  PTX-NEXT:   .param .u32 dynamic_all_reduce_param_3,
//  PTX-NEXT:   .param .u32 dynamic_all_reduce_param_4,
//  PTX-NEXT:   .param .u64 .ptr .global .align 1 dynamic_all_reduce_param_5,
//  PTX-NEXT:   .param .u64 dynamic_all_reduce_param_6,
//  PTX-NEXT:   .param .u64 dynamic_all_reduce_param_7
//  PTX-NEXT: )
// The row count (input.dim0) bounds the loop.
//       PTX: ld.param.b64 {{.*}}[dynamic_all_reduce_param_6]
// PTX-LABEL: .visible .entry dynamic_all_gather(
// The row count (input.dim0) sizes the put and the subview's offset.
//       PTX: ld.param.b64 {{.*}}[dynamic_all_gather_param_7]
// PTX-LABEL: .visible .entry dynamic_tma_store(
//       PTX:   .param .u64 dynamic_tma_store_param_5,
//  PTX-NEXT:   .param .u64 dynamic_tma_store_param_6,
//  PTX-NEXT:   .param .align 64 .b8 dynamic_tma_store_param_7[128]
//       PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group

// CHECK-LABEL: kernel dynamic_all_reduce
//  CHECK-NEXT:   param symmetric input dtype=f32 shape=?,32 align=16
//  CHECK-NEXT:   param buffer output dtype=f32 shape=?,32 align=16
//  CHECK-NEXT:   param semaphore barrier count=2 align=16
//  CHECK-NEXT:   param rank rank
//  CHECK-NEXT:   param team_size team_size
//  CHECK-NEXT:   param peer_bases peer_bases
//  CHECK-NEXT:   param dim input.dim0 source=0 axis=0
//  CHECK-NEXT:   param dim output.dim0 source=1 axis=0
//  CHECK-NEXT: end
// CHECK-LABEL: kernel dynamic_all_gather
//       CHECK:   param dim input.dim0 source=0 axis=0
//  CHECK-NEXT:   param dim output.dim0 source=1 axis=0
//  CHECK-NEXT: end
// CHECK-LABEL: kernel dynamic_tma_store
//       CHECK:   param peer_bases peer_bases
//  CHECK-NEXT:   param dim input.dim0 source=0 axis=0
//  CHECK-NEXT:   param dim output.dim0 source=1 axis=0
//  CHECK-NEXT:   param tma output.tma0 dtype=f32 source=1 box=64,64 swizzle=0 view=local
//  CHECK-NEXT: end
