// RUN: weave-opt %s --verify-roundtrip | FileCheck %s
// A grid sized at launch: `persistent` in x, printed back as written.

// CHECK-LABEL: func.func private @persistent
// CHECK-SAME: grid = [persistent, 1, 1], block = [128, 1, 1]
func.func private @persistent() attributes {k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [persistent, 1, 1], block = [128, 1, 1]>}

// CHECK-LABEL: func.func private @persistent_cluster
// CHECK-SAME: grid = [persistent, 1, 1], block = [384, 1, 1], cluster = [2, 1, 1]
func.func private @persistent_cluster() attributes {k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent, 1, 1], block = [384, 1, 1], cluster = [2, 1, 1]>}

// A capped persistent grid: at most N blocks, fewer where fewer fit.
// CHECK-LABEL: func.func private @persistent_capped
// CHECK-SAME: grid = [persistent(256), 1, 1], block = [512, 1, 1]
func.func private @persistent_capped() attributes {k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 3>, grid = [persistent(256), 1, 1], block = [512, 1, 1]>}

// CHECK-LABEL: func.func private @persistent_capped_cluster
// CHECK-SAME: grid = [persistent(8), 1, 1], block = [128, 1, 1], cluster = [2, 1, 1]
func.func private @persistent_capped_cluster() attributes {k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = ?>, grid = [persistent(8), 1, 1], block = [128, 1, 1], cluster = [2, 1, 1]>}
