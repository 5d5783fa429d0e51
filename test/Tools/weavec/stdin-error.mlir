// Errors in stdin input are located in <stdin>.
// RUN: not weavec < %s 2>&1 | FileCheck %s

// CHECK: <stdin>:[[# @LINE + 2]]:3: error: custom op 'weave.nope' is unknown
func.func @f() {
  weave.nope
  return
}
