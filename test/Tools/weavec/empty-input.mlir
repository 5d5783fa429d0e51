// An empty module is valid and printed back as an empty module.
// RUN: weavec /dev/null | FileCheck %s

// CHECK: module {
// CHECK-NEXT: }
