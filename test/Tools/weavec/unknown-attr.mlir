// RUN: not weavec %s 2>&1 | FileCheck %s

// A typo in a weave attribute mnemonic is reported at the attribute.
// CHECK: unknown-attr.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: unknown attribute `kernal` in dialect `weave`
func.func private @f() attributes {k = #weave.kernal<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1]>}
