//===- Passes.h - weave dialect passes --------------------------*- C++ -*-===//

#ifndef WEAVE_DIALECT_WEAVE_TRANSFORMS_PASSES_H
#define WEAVE_DIALECT_WEAVE_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::weave {

#define GEN_PASS_DECL
#include "weave/Dialect/Weave/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "weave/Dialect/Weave/Transforms/Passes.h.inc"

} // namespace mlir::weave

#endif // WEAVE_DIALECT_WEAVE_TRANSFORMS_PASSES_H
