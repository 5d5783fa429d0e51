// RUN: weave-opt %s -split-input-file -verify-diagnostics

// Syntax of #weave.kernel.

// expected-error @below {{unknown #weave.kernel field 'threads'; expected one of mesh, grid, block, cluster, smem}}
func.func private @unknown_field() attributes {k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], threads = [128, 1, 1]>}

// -----

// expected-error @below {{#weave.kernel expects 'mesh', 'grid' and 'block' fields}}
func.func private @missing_block() attributes {k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1]>}

// -----

// expected-error @below {{#weave.kernel expects 'mesh', 'grid' and 'block' fields}}
func.func private @missing_mesh() attributes {k = #weave.kernel<grid = [1, 1, 1], block = [128, 1, 1]>}

// -----

// expected-error @below {{expected '['}}
func.func private @scalar_grid() attributes {k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = 4, block = [128, 1, 1]>}

// -----

// expected-error @below {{invalid kind of attribute specified}}
func.func private @mesh_not_mesh() attributes {k = #weave.kernel<mesh = "x", grid = [1, 1, 1], block = [128, 1, 1]>}
