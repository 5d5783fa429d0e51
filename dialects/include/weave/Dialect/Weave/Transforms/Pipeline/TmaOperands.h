//===- TmaOperands.h - a pipeline's operands as TMA sees them ---*- C++ -*-===//
//
// Contract. Each operand of `weave.matmul_pipeline` (lhs, rhs, out) becomes
// a TMA tensor map that the host builds from a kernel argument:
//  - `verifyTmaOperands(op)` checks that each operand is a kernel argument
//    or a chain of unit-stride 2-d memref.subviews of one, and that a view
//    smaller than its argument has static sizes that are whole tiles (TMA
//    clips and zero-fills at the argument's edge, not the view's; a row
//    range of lhs with a dynamic size is allowed where only `out` sees the
//    products: no region). The first operand that breaks a rule gets an
//    error at the op. weave-verify-kernel runs it (before weavec prints or
//    lowers anything) and weave-expand-pipelines again before it builds.
//  - `resolveTmaOperand` (on a verified operand) returns the argument and
//    the element offsets of the view, as index values built at `builder`.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_TMAOPERANDS_H
#define WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_TMAOPERANDS_H

#include "weave/Dialect/Weave/IR/WeaveOps.h"
#include "weave/Dialect/Weave/Transforms/Pipeline/Builders.h"

namespace mlir::weave::pipeline {

/// Checks lhs, rhs and out (when there is one) of an op with an explicit
/// tile; reports the first that breaks a rule at `op`.
LogicalResult verifyTmaOperands(MatmulPipelineOp op);

/// The kernel argument and view offsets of `value`, an operand
/// verifyTmaOperands accepted.
TmaOperand resolveTmaOperand(Value value, OpBuilder &builder, Location loc);

} // namespace mlir::weave::pipeline

#endif // WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_TMAOPERANDS_H
