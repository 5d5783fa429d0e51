// RUN: weave-opt %s --verify-roundtrip | FileCheck %s

// weave.put ... packets(%flag) and weave.read_packets: low-latency packets,
// one i64 (a 32-bit word and its flag) per word of data.

#k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>

gpu.module @m {

// CHECK-LABEL: gpu.func @put_packets
//  CHECK-SAME:   (%[[SRC:[^:]+]]: memref<1024xf32>, %[[LINES:[^:]+]]: memref<1024xi64, #weave.symmetric>, %[[DEV:[^:]+]]: index, %[[FLAG:[^:]+]]: i32)
//       CHECK:   weave.put %[[SRC]], %[[LINES]] on %[[DEV]] packets(%[[FLAG]]) : memref<1024xf32> -> memref<1024xi64, #weave.symmetric>
//       CHECK:   weave.put %[[SRC]], %[[LINES]] on %[[DEV]] scope(warp) packets(%[[FLAG]]) : memref<1024xf32> -> memref<1024xi64, #weave.symmetric>
gpu.func @put_packets(%src: memref<1024xf32>, %lines: memref<1024xi64, #weave.symmetric>, %dev: index, %flag: i32) kernel attributes {weave.kernel = #k} {
  weave.put %src, %lines on %dev packets(%flag) : memref<1024xf32> -> memref<1024xi64, #weave.symmetric>
  weave.put %src, %lines on %dev scope(warp) packets(%flag) : memref<1024xf32> -> memref<1024xi64, #weave.symmetric>
  gpu.return
}

// bf16 pairs per word, views at offsets with run-time sizes.
// CHECK-LABEL: gpu.func @read_packets
//       CHECK:   weave.read_packets %{{.*}}, %{{.*}} into %{{.*}} : memref<?xi64, strided<[1], offset: ?>, #weave.symmetric> -> memref<?xbf16, strided<[1], offset: ?>>
//       CHECK:   weave.read_packets %{{.*}}, %{{.*}} into %{{.*}} scope(thread) : memref<512xi64, #weave.symmetric> -> memref<1024xbf16>
gpu.func @read_packets(%lines: memref<512xi64, #weave.symmetric>, %dst: memref<1024xbf16>, %off: index, %n: index, %words: index, %flag: i32) kernel attributes {weave.kernel = #k} {
  %p = memref.subview %lines[%off] [%words] [1] : memref<512xi64, #weave.symmetric> to memref<?xi64, strided<[1], offset: ?>, #weave.symmetric>
  %d = memref.subview %dst[%off] [%n] [1] : memref<1024xbf16> to memref<?xbf16, strided<[1], offset: ?>>
  weave.read_packets %p, %flag into %d : memref<?xi64, strided<[1], offset: ?>, #weave.symmetric> -> memref<?xbf16, strided<[1], offset: ?>>
  weave.read_packets %lines, %flag into %dst scope(thread) : memref<512xi64, #weave.symmetric> -> memref<1024xbf16>
  gpu.return
}

}
