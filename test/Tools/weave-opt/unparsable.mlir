// RUN: not weave-opt %s 2>&1 | FileCheck %s -DFILE=%s
// RUN: %python %S/../weavec/Inputs/nest.py scf-if 4000 > %t.if4000.mlir
// RUN: weave-opt %t.if4000.mlir -o /dev/null
// RUN: %python %S/../weavec/Inputs/nest.py scf-if 10001 > %t.if10001.mlir
// RUN: not weave-opt %t.if10001.mlir 2>&1 | FileCheck %s --check-prefix=IF -DFILE=%t.if10001.mlir
// RUN: %python %S/../weavec/Inputs/nest.py tuple 200000 > %t.tuple.mlir
// RUN: not weave-opt %t.tuple.mlir 2>&1 | FileCheck %s --check-prefix=TUPLE -DFILE=%t.tuple.mlir
// RUN: weave-opt %S/../weavec/Inputs/dense-array-ok.txt | FileCheck %S/../weavec/Inputs/dense-array-ok.txt --check-prefix=OK

// weave-opt shares weavec's guards (findUnparsableSource): a dense array of
// `index` crashed the upstream parser, and about 4,000 nested regions
// overflowed the default stack; both are errors at the offending text now,
// and 4,000 levels parse on the compiler stack.
// CHECK: [[FILE]]:[[@LINE+1]]:38: error: expects a dense array of a builtin integer or float type (array<i32: 1, 2>)
func.func @f() attributes {a = array<index: 1>} {
  return
}

// IF: [[FILE]]:20002:20: error: expects brackets, braces, parentheses and type parameters nested at most 10000 deep, this one opens level 10001
// IF-NOT: Stack dump
// TUPLE: [[FILE]]:3:{{[0-9]+}}: error: expects brackets, braces, parentheses and type parameters nested at most 10000 deep, this one opens level 10001
// TUPLE-NOT: Stack dump
