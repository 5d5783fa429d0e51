// RUN: not weavec --emit=no-such-format %s 2>&1 | FileCheck %s

// CHECK: for the --emit option: Cannot find option named 'no-such-format'
