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

// -----

// expected-error @below {{expects a persistent grid's cap to be positive, got 0}}
func.func private @cap_zero() attributes {k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [persistent(0), 1, 1], block = [128, 1, 1]>}

// -----

// expected-error @below {{expects positive grid dimensions, got -4}}
func.func private @negative_grid() attributes {k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [-4, 1, 1], block = [128, 1, 1]>}

// -----

// expected-error @below {{expects a persistent grid's cap (5) to be a multiple of the cluster dimension (2)}}
func.func private @cap_cluster() attributes {k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [persistent(5), 1, 1], block = [128, 1, 1], cluster = [2, 1, 1]>}
