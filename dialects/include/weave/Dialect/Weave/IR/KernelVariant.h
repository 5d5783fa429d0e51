//===- KernelVariant.h - the weave.variant kernel attribute -----*- C++ -*-===//
//
// A kernel may be one variant of a kernel launched by another name: the
// runtime loads every variant of that name and launches the first whose
// range admits the launch size of one dynamic dimension. The attribute
//
//   weave.variant = {of = "matmul", arg = 0, axis = 0, lo = 1, hi = 256}
//
// on a gpu.func kernel says: this kernel is a variant of "matmul" for
// launches where dimension `axis` of argument `arg` is in [lo, hi] (`hi`
// absent: no upper bound). weave-configure-pipelines writes it on the
// copies it makes of a kernel whose tile(auto) pipeline has a dynamic row
// count (one per configuration chosen for a range of rows); a kernel may
// also carry it as written, and then tile(auto) chooses for that range.
// The bundle records it as `variant_of` and the argument's `range`
// (docs/BUNDLE.md, "Variants").
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_DIALECT_WEAVE_IR_KERNELVARIANT_H
#define WEAVE_DIALECT_WEAVE_IR_KERNELVARIANT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <string>

namespace mlir::weave {

inline constexpr llvm::StringLiteral kVariantAttrName = "weave.variant";

struct KernelVariant {
  /// No upper bound.
  static constexpr int64_t kUnbounded = INT64_MAX;
  std::string of;
  unsigned arg = 0, axis = 0;
  int64_t lo = 1, hi = kUnbounded;

  DictionaryAttr toAttr(MLIRContext *context) const;
};

/// Reads `attr` (the value of weave.variant on `op`). Its fields alone are
/// checked here, with an error at `op`; whether the argument exists and
/// its dimension is dynamic is the kernel ABI's check.
FailureOr<KernelVariant> readKernelVariant(Operation *op, Attribute attr);

/// The variant `op` carries, if any (std::nullopt also when malformed,
/// which the dialect's attribute verifier reports; this emits nothing).
std::optional<KernelVariant> getKernelVariant(Operation *op);

class MatmulPipelineOp;

/// The number of the kernel argument `op`'s lhs is, when it is one (an
/// argument of the enclosing gpu.func's entry block): the argument whose
/// rows a variant of the kernel bounds.
std::optional<unsigned> lhsKernelArgument(MatmulPipelineOp op);

/// The most rows `op`'s lhs may have: its static row count, else the `hi`
/// of the enclosing kernel's weave.variant where it bounds dimension 0 of
/// the lhs argument; std::nullopt when unbounded.
std::optional<int64_t> maxLhsRows(MatmulPipelineOp op);

} // namespace mlir::weave

#endif // WEAVE_DIALECT_WEAVE_IR_KERNELVARIANT_H
