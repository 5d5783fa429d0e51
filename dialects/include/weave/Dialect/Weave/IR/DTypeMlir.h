//===- DTypeMlir.h - The dtype table on MLIR types --------------*- C++ -*-===//
//
// The compiler's adapter to the runtime's dtype table (weave/runtime/DType.h,
// header only): which dtype an MLIR element type is, and the element type
// of a dtype. Verifiers, the kernel ABI and the lowerings ask the table's
// traits through it instead of testing isF16() / isBF16().
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_DIALECT_WEAVE_IR_DTYPEMLIR_H
#define WEAVE_DIALECT_WEAVE_IR_DTYPEMLIR_H

#include "weave/runtime/DType.h"

#include "mlir/IR/Types.h"

#include <optional>

namespace mlir::weave {

using ::weave::DType;
using ::weave::DTypeTraits;

/// The element type of `dtype` (u32: the signless i32).
Type getElementType(MLIRContext *ctx, DType dtype);

/// The dtype whose element type `type` is (rows with kernelArgument), or
/// nullopt (index, i1, f8E4M3FN, a vector, ...).
std::optional<DType> getDType(Type type);

/// The traits of `type`'s dtype, or null when it has none.
const DTypeTraits *getDTypeTraits(Type type);

} // namespace mlir::weave

#endif // WEAVE_DIALECT_WEAVE_IR_DTYPEMLIR_H
