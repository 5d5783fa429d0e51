// RUN: not weavec %s 2>&1 | FileCheck %s

// CHECK: unknown-op.mlir:[[# @LINE + 2]]:3: error: custom op 'weave.frobnicate' is unknown
func.func @f() {
  weave.frobnicate
  return
}
