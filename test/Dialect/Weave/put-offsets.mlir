// RUN: weave-opt %s --verify-roundtrip | FileCheck %s

// weave.put / weave.get on views at an offset, with run-time sizes, a
// scope and a signal; the old form (block scope, no signal) prints as before.

#k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>

gpu.module @m {

// CHECK-LABEL: gpu.func @put_dynamic_offset
//  CHECK-SAME:   (%[[SRC:[^:]+]]: memref<4096xbf16>, %[[DST:[^:]+]]: memref<4096xbf16, #weave.symmetric>, %[[OFF:[^:]+]]: index, %[[N:[^:]+]]: index, %[[DEV:[^:]+]]: index)
//       CHECK:   %[[S:.*]] = memref.subview %[[SRC]][%[[OFF]]] [%[[N]]] [1]
//       CHECK:   %[[D:.*]] = memref.subview %[[DST]][%[[OFF]]] [%[[N]]] [1]
//       CHECK:   weave.put %[[S]], %[[D]] on %[[DEV]] : memref<?xbf16, strided<[1], offset: ?>> -> memref<?xbf16, strided<[1], offset: ?>, #weave.symmetric>
gpu.func @put_dynamic_offset(%src: memref<4096xbf16>, %dst: memref<4096xbf16, #weave.symmetric>, %off: index, %n: index, %dev: index) kernel attributes {weave.kernel = #k} {
  %s = memref.subview %src[%off] [%n] [1] : memref<4096xbf16> to memref<?xbf16, strided<[1], offset: ?>>
  %d = memref.subview %dst[%off] [%n] [1] : memref<4096xbf16, #weave.symmetric> to memref<?xbf16, strided<[1], offset: ?>, #weave.symmetric>
  weave.put %s, %d on %dev : memref<?xbf16, strided<[1], offset: ?>> -> memref<?xbf16, strided<[1], offset: ?>, #weave.symmetric>
  gpu.return
}

// A static offset and rows of a matrix (the outer stride is the row length).
// CHECK-LABEL: gpu.func @put_static_rows
//       CHECK:   weave.put %{{.*}}, %{{.*}} on %{{.*}} : memref<2x64xf32, strided<[64, 1], offset: 128>> -> memref<128xf32, strided<[1], offset: 7>, #weave.symmetric>
gpu.func @put_static_rows(%src: memref<8x64xf32>, %dst: memref<1024xf32, #weave.symmetric>, %dev: index) kernel attributes {weave.kernel = #k} {
  %s = memref.subview %src[2, 0] [2, 64] [1, 1] : memref<8x64xf32> to memref<2x64xf32, strided<[64, 1], offset: 128>>
  %d = memref.subview %dst[7] [128] [1] : memref<1024xf32, #weave.symmetric> to memref<128xf32, strided<[1], offset: 7>, #weave.symmetric>
  weave.put %s, %d on %dev : memref<2x64xf32, strided<[64, 1], offset: 128>> -> memref<128xf32, strided<[1], offset: 7>, #weave.symmetric>
  gpu.return
}

// CHECK-LABEL: gpu.func @put_scopes
//       CHECK:   weave.put %{{.*}}, %{{.*}} on %{{.*}} : memref<100xf16>
//       CHECK:   weave.put %{{.*}}, %{{.*}} on %{{.*}} scope(warp) : memref<100xf16>
//       CHECK:   weave.put %{{.*}}, %{{.*}} on %{{.*}} scope(thread) : memref<100xf16>
gpu.func @put_scopes(%src: memref<100xf16>, %dst: memref<100xf16, #weave.symmetric>, %dev: index) kernel attributes {weave.kernel = #k} {
  weave.put %src, %dst on %dev scope(block) : memref<100xf16> -> memref<100xf16, #weave.symmetric>
  weave.put %src, %dst on %dev scope(warp) : memref<100xf16> -> memref<100xf16, #weave.symmetric>
  weave.put %src, %dst on %dev scope(thread) : memref<100xf16> -> memref<100xf16, #weave.symmetric>
  gpu.return
}

// CHECK-LABEL: gpu.func @put_signal
//  CHECK-SAME:   (%[[SRC:[^:]+]]: memref<100xf16>, %[[DST:[^:]+]]: memref<100xf16, #weave.symmetric>, %[[DEV:[^:]+]]: index, %[[SEM:[^:]+]]: !weave.semaphore<2>, %[[ONE:[^:]+]]: !weave.semaphore, %[[I:[^:]+]]: index, %[[V:[^:]+]]: i32)
//       CHECK:   weave.put %[[SRC]], %[[DST]] on %[[DEV]] signal %[[SEM]][%[[I]]], %[[V]] : memref<100xf16> -> memref<100xf16, #weave.symmetric>, !weave.semaphore<2>
//       CHECK:   weave.put %[[SRC]], %[[DST]] on %[[DEV]] scope(warp) signal %[[ONE]], %[[V]] : memref<100xf16> -> memref<100xf16, #weave.symmetric>, !weave.semaphore
gpu.func @put_signal(%src: memref<100xf16>, %dst: memref<100xf16, #weave.symmetric>, %dev: index, %sem: !weave.semaphore<2>, %one: !weave.semaphore, %i: index, %v: i32) kernel attributes {weave.kernel = #k} {
  weave.put %src, %dst on %dev signal %sem[%i], %v : memref<100xf16> -> memref<100xf16, #weave.symmetric>, !weave.semaphore<2>
  weave.put %src, %dst on %dev scope(warp) signal %one, %v : memref<100xf16> -> memref<100xf16, #weave.symmetric>, !weave.semaphore
  gpu.return
}

// CHECK-LABEL: gpu.func @get_offset_signal
//       CHECK:   weave.get %{{.*}} on %{{.*}}, %{{.*}} scope(thread) signal %{{.*}}[%{{.*}}], %{{.*}} : memref<?xf32, strided<[1], offset: ?>, #weave.symmetric> -> memref<?xf32, strided<[1], offset: ?>>, !weave.semaphore<2>
gpu.func @get_offset_signal(%src: memref<1024xf32, #weave.symmetric>, %dst: memref<1024xf32>, %off: index, %n: index, %dev: index, %sem: !weave.semaphore<2>, %i: index, %v: i32) kernel attributes {weave.kernel = #k} {
  %s = memref.subview %src[%off] [%n] [1] : memref<1024xf32, #weave.symmetric> to memref<?xf32, strided<[1], offset: ?>, #weave.symmetric>
  %d = memref.subview %dst[%off] [%n] [1] : memref<1024xf32> to memref<?xf32, strided<[1], offset: ?>>
  weave.get %s on %dev, %d scope(thread) signal %sem[%i], %v : memref<?xf32, strided<[1], offset: ?>, #weave.symmetric> -> memref<?xf32, strided<[1], offset: ?>>, !weave.semaphore<2>
  gpu.return
}

}
