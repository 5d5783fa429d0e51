// RUN: weavec --help | FileCheck %s

// The help names the tool, the input and the flags weavec owns. The list of
// --emit values grows; only `mlir` is checked here.
// CHECK: OVERVIEW: weavec
// CHECK: USAGE: weavec [options] <input .mlir file, or - for stdin>
// CHECK: --emit=<value>
// CHECK: =mlir
// CHECK: -o <file>
