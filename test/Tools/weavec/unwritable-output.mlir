// RUN: rm -rf %t.dir
// RUN: not weavec %s -o %t.dir/missing/out.mlir 2>&1 | FileCheck %s -DOUT=%t.dir/missing/out.mlir

// CHECK: weavec: error: cannot open output file '[[OUT]]': No such file or directory

func.func @f() {
  return
}
