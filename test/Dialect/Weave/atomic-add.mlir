// RUN: weave-opt %s --verify-roundtrip | FileCheck %s

#k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 4>, grid = [1, 1, 1], block = [128, 1, 1]>

gpu.module @m {

// CHECK-LABEL: gpu.func @atomic_add
//  CHECK-SAME:   (%[[F32:[^:]+]]: memref<1024xf32, #weave.symmetric>, %[[F16:[^:]+]]: memref<8x128xf16, #weave.symmetric>, %[[BF16:[^:]+]]: memref<1024xbf16, #weave.symmetric>, %[[V:[^:]+]]: f32, %[[H:[^:]+]]: vector<2xf16>, %[[B:[^:]+]]: vector<2xbf16>, %[[I:[^:]+]]: index, %[[DEV:[^:]+]]: index)
//       CHECK:   weave.atomic_add %[[V]], %[[F32]][%[[I]]] : f32, memref<1024xf32, #weave.symmetric>
//       CHECK:   weave.atomic_add %[[V]], %[[F32]][%[[I]]] on %[[DEV]] : f32, memref<1024xf32, #weave.symmetric>
//       CHECK:   weave.atomic_add %[[H]], %[[F16]][%[[I]], %[[I]]] on %[[DEV]] : vector<2xf16>, memref<8x128xf16, #weave.symmetric>
//       CHECK:   weave.atomic_add %[[B]], %[[BF16]][%[[I]]] : vector<2xbf16>, memref<1024xbf16, #weave.symmetric>
gpu.func @atomic_add(%f32: memref<1024xf32, #weave.symmetric>, %f16: memref<8x128xf16, #weave.symmetric>, %bf16: memref<1024xbf16, #weave.symmetric>, %v: f32, %h: vector<2xf16>, %b: vector<2xbf16>, %i: index, %dev: index) kernel attributes {weave.kernel = #k} {
  weave.atomic_add %v, %f32[%i] : f32, memref<1024xf32, #weave.symmetric>
  weave.atomic_add %v, %f32[%i] on %dev : f32, memref<1024xf32, #weave.symmetric>
  weave.atomic_add %h, %f16[%i, %i] on %dev : vector<2xf16>, memref<8x128xf16, #weave.symmetric>
  weave.atomic_add %b, %bf16[%i] : vector<2xbf16>, memref<1024xbf16, #weave.symmetric>
  gpu.return
}

// On a peer's copy (weave.remote_ref) and on a view at an offset.
// CHECK-LABEL: gpu.func @atomic_add_views
//       CHECK:   %[[R:.*]] = weave.remote_ref
//       CHECK:   weave.atomic_add %{{.*}}, %[[R]][%{{.*}}] : f32, memref<1024xf32, #weave.symmetric>
//       CHECK:   weave.atomic_add %{{.*}}, %{{.*}}[%{{.*}}] on %{{.*}} : f32, memref<?xf32, strided<[1], offset: ?>, #weave.symmetric>
gpu.func @atomic_add_views(%buf: memref<1024xf32, #weave.symmetric>, %v: f32, %i: index, %off: index, %n: index, %dev: index) kernel attributes {weave.kernel = #k} {
  %r = weave.remote_ref %buf on %dev : memref<1024xf32, #weave.symmetric>
  weave.atomic_add %v, %r[%i] : f32, memref<1024xf32, #weave.symmetric>
  %s = memref.subview %buf[%off] [%n] [1] : memref<1024xf32, #weave.symmetric> to memref<?xf32, strided<[1], offset: ?>, #weave.symmetric>
  weave.atomic_add %v, %s[%i] on %dev : f32, memref<?xf32, strided<[1], offset: ?>, #weave.symmetric>
  gpu.return
}

}
