//===- Common.h - What both Python extension modules share ------*- C++ -*-===//
//
// weave._core (bundles, manifests, argument checks, the JIT: no CUDA) and
// weave._cuda (teams, heaps, launches: needs libcuda.so.1) report errors the
// same way: one Python exception type, weave.WeaveError, carrying the
// runtime's error code name and its one-line message.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_PYTHON_COMMON_H
#define WEAVE_PYTHON_COMMON_H

#include "weave/runtime/Error.h"

#include <pybind11/pybind11.h>

#include <utility>

namespace weave::python {

/// Raises weave.WeaveError(code_name, message). The exception class is
/// plain Python (weave/errors.py), so both modules raise the same type.
[[noreturn]] inline void raise(const Error &error) {
  namespace py = pybind11;
  py::object type = py::module_::import("weave.errors").attr("WeaveError");
  PyErr_SetObject(type.ptr(),
                  py::make_tuple(errorCodeName(error.code()), error.toString())
                      .ptr());
  throw py::error_already_set();
}

/// The value of `expected`, or raises its error.
template <typename T> T unwrap(Expected<T> expected) {
  if (!expected)
    raise(expected.error());
  return std::move(expected).value();
}
inline void unwrap(const Status &status) {
  if (!status)
    raise(status.error());
}

/// Runs `fn` without the GIL and returns what it returns (an Expected or a
/// Status), for the caller to unwrap once the GIL is held again: raise()
/// imports weave.errors and builds a Python exception, which needs the GIL
/// (called without it, Team.from_environment() crashed the interpreter on
/// any error). Every binding that releases the GIL goes through here.
template <typename Fn> auto withoutGil(Fn &&fn) {
  pybind11::gil_scoped_release release;
  return fn();
}

} // namespace weave::python

#endif // WEAVE_PYTHON_COMMON_H
