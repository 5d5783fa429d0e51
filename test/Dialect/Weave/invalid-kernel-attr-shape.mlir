// RUN: weave-opt %s -split-input-file -verify-diagnostics

// Launch-shape limits of #weave.kernel.

// expected-error @below {{expects grid to have 3 dimensions [x, y, z], got 1}}
func.func private @grid_1d() attributes {k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [132], block = [128, 1, 1]>}

// -----

// expected-error @below {{expects block to have 3 dimensions [x, y, z], got 4}}
func.func private @block_4d() attributes {k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1, 1]>}

// -----

// expected-error @below {{expects cluster to have 3 dimensions [x, y, z], got 2}}
func.func private @cluster_2d() attributes {k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [2, 1, 1], block = [128, 1, 1], cluster = [2, 1]>}

// -----

// expected-error @below {{expects positive grid dimensions, got 0}}
func.func private @grid_zero() attributes {k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [0, 1, 1], block = [128, 1, 1]>}

// -----

// expected-error @below {{expects positive block dimensions, got -128}}
func.func private @block_negative() attributes {k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [-128, 1, 1]>}

// -----

// expected-error @below {{expects positive cluster dimensions, got 0}}
func.func private @cluster_zero() attributes {k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1], cluster = [1, 0, 1]>}
