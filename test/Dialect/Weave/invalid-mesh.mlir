// RUN: weave-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{expects a non-empty mesh axis name}}
func.func private @empty_axis() attributes {mesh = #weave.mesh<axis = "", size = 2>}

// -----

// expected-error @below {{expects a mesh size in [1, 65536] or '?', got 0}}
func.func private @size_zero() attributes {mesh = #weave.mesh<axis = "x", size = 0>}

// -----

// expected-error @below {{expects a mesh size in [1, 65536] or '?', got -4}}
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

// -----

// The manifest and the kernel's team parameters are 32-bit: a larger size
// would be truncated (4294967297 to 1, 2^32 to 0, "any team").
// expected-error @below {{expects a mesh size in [1, 65536] or '?', got 4294967297}}
func.func private @size_truncated() attributes {mesh = #weave.mesh<axis = "x", size = 4294967297>}

// -----

// expected-error @below {{expects a mesh size in [1, 65536] or '?', got 4294967296}}
func.func private @size_two_to_32() attributes {mesh = #weave.mesh<axis = "x", size = 4294967296>}

// -----

// expected-error @below {{expects a mesh size in [1, 65536] or '?', got 65537}}
func.func private @size_above_bound() attributes {mesh = #weave.mesh<axis = "x", size = 65537>}

// -----

// The largest size is accepted.
func.func private @size_at_bound() attributes {mesh = #weave.mesh<axis = "x", size = 65536>}

// -----

// INT64_MIN is the stored form of '?': written out, it is an error, not '?'.
// expected-error @below {{expects a mesh size in [1, 65536] or '?', got -9223372036854775808}}
func.func private @size_int64_min() attributes {mesh = #weave.mesh<axis = "x", size = -9223372036854775808>}
