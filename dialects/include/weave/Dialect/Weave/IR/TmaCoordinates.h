//===- TmaCoordinates.h - what a TMA op's builder promises ------*- C++ -*-===//
//
// TMA coordinates are signed 32-bit. The lowering clamps a wider index to
// [INT32_MIN, INT32_MAX] so that a box past 2^31 is clipped rather than
// wrapped to a small row. A builder that derives its coordinates from the
// tensor's own extents (the matmul pipeline's loads and stores: tile index x
// tile size, below the tensor map's dims, which the runtime keeps under
// 2^31) marks the op with this unit attribute and the lowering leaves the
// clamp out: the two 64-bit min/max per coordinate made ptxas spill in the
// 40-register producer warpgroup (8 bytes in the dynamic all-gather matmul).
// The verifier accepts the attribute on TMA copies only; written by hand it
// is the writer's promise.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_DIALECT_WEAVE_IR_TMACOORDINATES_H
#define WEAVE_DIALECT_WEAVE_IR_TMACOORDINATES_H

#include "llvm/ADT/StringRef.h"

namespace mlir::weave {

inline constexpr llvm::StringLiteral kCoordinatesInRangeAttrName =
    "weave.coordinates_in_range";

} // namespace mlir::weave

#endif // WEAVE_DIALECT_WEAVE_IR_TMACOORDINATES_H
