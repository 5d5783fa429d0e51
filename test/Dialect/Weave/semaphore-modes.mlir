// RUN: weave-opt %s --verify-roundtrip | FileCheck %s

gpu.module @modes {

// The default mode (add) and comparison (ge) are not printed.
// CHECK-LABEL: gpu.func @defaults_elided
//  CHECK-SAME:   (%[[SEM:.*]]: !weave.semaphore, %[[V:.*]]: i32, %[[PEER:.*]]: index)
//       CHECK:   weave.semaphore_signal %[[SEM]], %[[V]] on %[[PEER]] : !weave.semaphore{{$}}
//       CHECK:   weave.semaphore_wait %[[SEM]], %[[V]] decrement : !weave.semaphore{{$}}
//       CHECK:   weave.semaphore_signal %[[SEM]], %[[V]] : !weave.semaphore{{$}}
//       CHECK:   weave.semaphore_wait %[[SEM]], %[[V]] : !weave.semaphore{{$}}
gpu.func @defaults_elided(%sem: !weave.semaphore, %v: i32, %peer: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [1, 1, 1]>} {
  weave.semaphore_signal %sem, %v on %peer mode(add) : !weave.semaphore
  weave.semaphore_wait %sem, %v cmp(ge) decrement scope(thread) : !weave.semaphore
  weave.semaphore_signal %sem, %v : !weave.semaphore
  weave.semaphore_wait %sem, %v : !weave.semaphore
  gpu.return
}

// CHECK-LABEL: gpu.func @set_and_eq
//  CHECK-SAME:   (%[[SEM:.*]]: !weave.semaphore<8>, %[[I:.*]]: index, %[[V:.*]]: i32, %[[PEER:.*]]: index)
//       CHECK:   weave.semaphore_signal %[[SEM]][%[[I]]], %[[V]] on %[[PEER]] mode(set) : !weave.semaphore<8>
//       CHECK:   weave.semaphore_signal %[[SEM]][%[[I]]], %[[V]] mode(set) : !weave.semaphore<8>
//       CHECK:   weave.semaphore_wait %[[SEM]][%[[I]]], %[[V]] cmp(eq) : !weave.semaphore<8>
//       CHECK:   weave.semaphore_wait %[[SEM]][%[[I]]], %[[V]] cmp(eq) decrement : !weave.semaphore<8>
gpu.func @set_and_eq(%sem: !weave.semaphore<8>, %i: index, %v: i32, %peer: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [1, 1, 1]>} {
  weave.semaphore_signal %sem[%i], %v on %peer mode(set) : !weave.semaphore<8>
  weave.semaphore_signal %sem[%i], %v mode(set) : !weave.semaphore<8>
  weave.semaphore_wait %sem[%i], %v cmp(eq) : !weave.semaphore<8>
  weave.semaphore_wait %sem[%i], %v cmp(eq) decrement : !weave.semaphore<8>
  gpu.return
}

// Zero is a value to set (clear a flag) and to wait for with eq (drained),
// though not to add or to wait for with ge.
// CHECK-LABEL: gpu.func @zero_set_and_eq
//       CHECK:   %[[ZERO:.*]] = arith.constant 0 : i32
//       CHECK:   weave.semaphore_signal %{{.*}}, %[[ZERO]] on %{{.*}} mode(set) : !weave.semaphore
//       CHECK:   weave.semaphore_wait %{{.*}}, %[[ZERO]] cmp(eq) : !weave.semaphore
gpu.func @zero_set_and_eq(%sem: !weave.semaphore, %peer: index) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  %zero = arith.constant 0 : i32
  weave.semaphore_signal %sem, %zero on %peer mode(set) : !weave.semaphore
  weave.semaphore_wait %sem, %zero cmp(eq) : !weave.semaphore
  gpu.return
}

// The generic form: the attributes default to add and ge.
// CHECK-LABEL: gpu.func @generic_defaults
//       CHECK:   weave.semaphore_signal %{{.*}}, %{{.*}} : !weave.semaphore{{$}}
//       CHECK:   weave.semaphore_wait %{{.*}}, %{{.*}} : !weave.semaphore{{$}}
//       CHECK:   weave.semaphore_signal %{{.*}}, %{{.*}} mode(set) : !weave.semaphore{{$}}
//       CHECK:   weave.semaphore_wait %{{.*}}, %{{.*}} cmp(eq) : !weave.semaphore{{$}}
gpu.func @generic_defaults(%sem: !weave.semaphore, %v: i32) kernel attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>} {
  "weave.semaphore_signal"(%sem, %v) {operandSegmentSizes = array<i32: 1, 0, 1, 0>} : (!weave.semaphore, i32) -> ()
  "weave.semaphore_wait"(%sem, %v) : (!weave.semaphore, i32) -> ()
  "weave.semaphore_signal"(%sem, %v) <{mode = 1 : i32, operandSegmentSizes = array<i32: 1, 0, 1, 0>}> : (!weave.semaphore, i32) -> ()
  "weave.semaphore_wait"(%sem, %v) <{cmp = 1 : i32}> : (!weave.semaphore, i32) -> ()
  gpu.return
}

}
