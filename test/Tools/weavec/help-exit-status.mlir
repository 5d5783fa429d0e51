// --help succeeds, prints to stdout and leaves stderr empty.
// RUN: weavec --help 2>%t.err | FileCheck %s
// RUN: count 0 < %t.err

// CHECK: weavec options:
