// RUN: weave-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{expects a persistent grid to be [persistent, 1, 1], got y = 2, z = 1}}
func.func private @persistent_2d() attributes {k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [persistent, 2, 1], block = [128, 1, 1]>}

// -----

// expected-error @below {{expected integer value}}
func.func private @persistent_y() attributes {k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, persistent, 1], block = [128, 1, 1]>}

// -----

// expected-error @below {{expects positive grid dimensions, got 0 (a grid sized at launch is written [persistent, 1, 1])}}
func.func private @zero_is_not_persistent() attributes {k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [0, 1, 1], block = [128, 1, 1]>}

// -----

// expected-error @below {{expects grid dimension 1 (1) to be a multiple of the cluster dimension (4)}}
func.func private @persistent_cluster_y() attributes {k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [persistent, 1, 1], block = [128, 1, 1], cluster = [1, 4, 1]>}
