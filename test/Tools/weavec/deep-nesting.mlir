// RUN: %python %S/Inputs/nest.py scf-if 4000 > %t.if4000.mlir
// RUN: weavec %t.if4000.mlir --emit=ptx | FileCheck %s --check-prefix=PTX
// RUN: %python %S/Inputs/nest.py scf-if 10001 > %t.if10001.mlir
// RUN: not weavec %t.if10001.mlir 2>&1 | FileCheck %s --check-prefix=IF -DFILE=%t.if10001.mlir
// RUN: %python %S/Inputs/nest.py tuple 200000 > %t.tuple.mlir
// RUN: not weavec %t.tuple.mlir 2>&1 | FileCheck %s --check-prefix=TUPLE -DFILE=%t.tuple.mlir

// About 4,000 nested regions overflowed the default 8 MiB stack in the
// upstream parser (SIGSEGV). weavec compiles on a thread with a 1 GiB stack,
// so they compile; nesting deeper than 10000 levels of brackets is rejected
// before parsing, at the bracket that opens level 10001.

// PTX: .visible .entry k(

// IF: [[FILE]]:20002:20: error: expects brackets, braces, parentheses and type parameters nested at most 10000 deep, this one opens level 10001
// IF-NOT: Stack dump

// TUPLE: [[FILE]]:3:{{[0-9]+}}: error: expects brackets, braces, parentheses and type parameters nested at most 10000 deep, this one opens level 10001
// TUPLE-NOT: Stack dump
