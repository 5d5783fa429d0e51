// RUN: weave-opt %s -split-input-file -verify-diagnostics

// Hardware limits checked by #weave.kernel.

// expected-error @below {{expects at most 1024 threads per block, got 1152}}
func.func private @too_many_threads() attributes {k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [384, 3, 1]>}

// -----

// expected-error @below {{expects at most 16 blocks per cluster, got 32}}
func.func private @cluster_too_big() attributes {k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [32, 1, 1], block = [128, 1, 1], cluster = [32, 1, 1]>}

// -----

// expected-error @below {{expects grid dimension 1 (3) to be a multiple of the cluster dimension (2)}}
func.func private @grid_not_multiple_of_cluster() attributes {k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [4, 3, 1], block = [128, 1, 1], cluster = [2, 2, 1]>}

// -----

// expected-error @below {{expects dynamic shared memory in [0, 232448] bytes, got 232449}}
func.func private @smem_too_big() attributes {k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1], smem = 232449>}

// -----

// expected-error @below {{expects dynamic shared memory in [0, 232448] bytes, got -1}}
func.func private @smem_negative() attributes {k = #weave.kernel<mesh = #weave.mesh<axis = "x", size = 2>, grid = [1, 1, 1], block = [128, 1, 1], smem = -1>}
