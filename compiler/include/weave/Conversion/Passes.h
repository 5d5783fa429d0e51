//===- Passes.h - Weave conversion passes -----------------------*- C++ -*-===//

#ifndef WEAVE_CONVERSION_PASSES_H
#define WEAVE_CONVERSION_PASSES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir::weave {

#define GEN_PASS_DECL
#include "weave/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "weave/Conversion/Passes.h.inc"

} // namespace mlir::weave

#endif // WEAVE_CONVERSION_PASSES_H
