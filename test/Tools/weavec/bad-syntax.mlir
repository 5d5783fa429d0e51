// RUN: not weavec %s 2>&1 | FileCheck %s

// A parse error is located as file:line:col and reported once.
// CHECK: bad-syntax.mlir:[[# @LINE + 4]]:{{[0-9]+}}: error: expected attribute value
// CHECK-NOT: error:
// CHECK-NOT: {{^}}module
func.func @f() {
  %c = arith.constant : i32
  return
}
