// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: not weavec %s -o %t.d 2>&1 | FileCheck %s -DOUT=%t.d

// CHECK: weavec: error: cannot open output file '[[OUT]]'

func.func @f() {
  return
}
