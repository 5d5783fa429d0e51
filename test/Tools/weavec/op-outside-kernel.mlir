// RUN: not weavec %s 2>&1 | FileCheck %s

// Every weave op outside a kernel is reported, each at its own location.
// CHECK: op-outside-kernel.mlir:[[# @LINE + 3]]:9: error: 'weave.device_id' op expects to be inside a gpu.func kernel with a 'weave.kernel' attribute
// CHECK: op-outside-kernel.mlir:[[# @LINE + 3]]:8: error: 'weave.num_devices' op expects to be inside a gpu.func kernel with a 'weave.kernel' attribute
func.func @host() {
  %me = weave.device_id "x"
  %n = weave.num_devices "x"
  return
}
