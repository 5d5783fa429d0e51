// RUN: env WEAVE_PTXAS=/nonexistent/ptxas not weavec %examples/ring_exchange/ring_exchange.mlir --emit=cubin -o %t.cubin 2>&1 | FileCheck %s

// CHECK: ring_exchange.mlir:{{[0-9]+}}:{{[0-9]+}}: error: ptxas (/nonexistent/ptxas) failed: posix_spawn failed: No such file or directory
