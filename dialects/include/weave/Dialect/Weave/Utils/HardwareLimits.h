//===- HardwareLimits.h - the runtime's limits in mlir::weave -*- C++ -*-===//
//
// The compiler's view of runtime/include/weave/runtime/HardwareLimits.h, the
// one header that names the limits of the GPUs Weave targets (shared with
// the MLIR-free runtime): `hw::kMaxSharedMemoryPerBlock` and the like inside
// namespace mlir::weave, where a bare `weave::` names this namespace.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_DIALECT_WEAVE_UTILS_HARDWARELIMITS_H
#define WEAVE_DIALECT_WEAVE_UTILS_HARDWARELIMITS_H

#include "weave/runtime/HardwareLimits.h"

namespace mlir::weave {
namespace hw = ::weave::hw;
} // namespace mlir::weave

#endif // WEAVE_DIALECT_WEAVE_UTILS_HARDWARELIMITS_H
