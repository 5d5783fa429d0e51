// RUN: weavec %s --emit=ptx | FileCheck %s

// The user parameters, then rank, team_size and peer_bases.
// CHECK: .target sm_90a
// CHECK: .address_size 64
// CHECK-LABEL: .visible .entry params(
//  CHECK-NEXT: .param .u64 .ptr .align 1 params_param_0,
//  CHECK-NEXT: .param .u64 .ptr .global .align 1 params_param_1,
//  CHECK-NEXT: .param .u64 .ptr .global .align 1 params_param_2,
//  CHECK-NEXT: .param .u32 params_param_3,
//  CHECK-NEXT: .param .u32 params_param_4,
//  CHECK-NEXT: .param .u32 params_param_5,
//  CHECK-NEXT: .param .u64 .ptr .global .align 1 params_param_6
//  CHECK-NEXT: )
//  CHECK-NEXT: .maxntid 256, 1, 1
gpu.module @m {
gpu.func @params(%buf: memref<64xf32>, %sym: memref<64xf32, #weave.symmetric>, %sem: !weave.semaphore, %x: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [1, 1, 1], block = [256, 1, 1]>} {
  gpu.return
}
}
