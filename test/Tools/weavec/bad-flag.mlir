// RUN: not weavec --no-such-flag %s 2>&1 | FileCheck %s

// CHECK: Unknown command line argument '--no-such-flag'
