// RUN: rm -rf %t.missing
// RUN: not weavec %t.missing/kernel.mlir 2>&1 | FileCheck %s -DFILE=%t.missing/kernel.mlir

// The file is named once, with the reason.
// CHECK: weavec: error: cannot open input file '[[FILE]]': No such file or directory
// CHECK-NOT: [[FILE]]
