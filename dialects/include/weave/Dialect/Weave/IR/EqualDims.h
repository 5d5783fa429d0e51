//===- EqualDims.h - the weave.equal_dims kernel attribute ------*- C++ -*-===//
//
// What a kernel assumes of its dynamic dimensions, for the runtime to check
// at launch:
//
//   weave.equal_dims = array<i64: a, x, b, y, ...>
//
// on a gpu.func kernel says: dimension x of argument a must equal dimension
// y of argument b (a quadruple per equality). weave-expand-pipelines writes
// it for a matmul pipeline whose lhs and out rows are both dynamic (it
// counts the tiles from lhs and stores into out). The manifest records it
// as `equals=` on the Dim parameter of (b, y) (docs/ABI.md), and the runtime
// refuses a launch that breaks it with a message: the kernel's own check
// only traps (a printf there would serialize every wgmma).
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_DIALECT_WEAVE_IR_EQUALDIMS_H
#define WEAVE_DIALECT_WEAVE_IR_EQUALDIMS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"

namespace mlir::weave {

inline constexpr llvm::StringLiteral kEqualDimsAttrName = "weave.equal_dims";

/// Records on `kernel` that dimension `y` of argument `b` must equal
/// dimension `x` of argument `a`.
inline void addEqualDims(Operation *kernel, int64_t a, int64_t x, int64_t b,
                         int64_t y) {
  SmallVector<int64_t> values;
  if (auto old = kernel->getAttrOfType<DenseI64ArrayAttr>(kEqualDimsAttrName))
    values.assign(old.asArrayRef().begin(), old.asArrayRef().end());
  values.append({a, x, b, y});
  kernel->setAttr(kEqualDimsAttrName,
                  DenseI64ArrayAttr::get(kernel->getContext(), values));
}

} // namespace mlir::weave

#endif // WEAVE_DIALECT_WEAVE_IR_EQUALDIMS_H
