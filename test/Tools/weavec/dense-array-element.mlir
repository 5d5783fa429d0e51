// RUN: not weavec %s 2>&1 | FileCheck %s -DFILE=%s
// RUN: weavec %S/Inputs/dense-array-ok.txt | FileCheck %S/Inputs/dense-array-ok.txt --check-prefix=OK

// The upstream parser crashes on a dense array of a type without a bit
// width; weavec stops at the element type instead (found by the front-end
// fuzzer). Integer and float arrays still parse (OK), and `array<` inside a
// string, a comment or !llvm.array is left alone.
// CHECK: [[FILE]]:[[@LINE+1]]:38: error: expects a dense array of a builtin integer or float type (array<i32: 1, 2>)
func.func @f() attributes {a = array<index: 1>} {
  return
}
