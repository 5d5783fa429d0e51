// RUN: weave-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{expects a non-empty mesh axis name}}
func.func private @empty_axis() attributes {mesh = #weave.mesh<axis = "", size = 2>}

// -----

// expected-error @below {{expects a mesh size of at least 1 or '?', got 0}}
func.func private @size_zero() attributes {mesh = #weave.mesh<axis = "x", size = 0>}

// -----

// expected-error @below {{expects a mesh size of at least 1 or '?', got -4}}
func.func private @size_negative() attributes {mesh = #weave.mesh<axis = "x", size = -4>}

// -----

// expected-error @below {{expected ','}}
func.func private @size_missing() attributes {mesh = #weave.mesh<axis = "x">}

// -----

// expected-error @below {{expected 'axis'}}
func.func private @fields_swapped() attributes {mesh = #weave.mesh<size = 2, axis = "x">}

// -----

// expected-error @below {{expected string}}
func.func private @axis_not_string() attributes {mesh = #weave.mesh<axis = x, size = 2>}
