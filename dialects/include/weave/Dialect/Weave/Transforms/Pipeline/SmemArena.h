//===- SmemArena.h - shared memory layout of a pipeline ---------*- C++ -*-===//
//
// Contract. SmemArena is the one place that lays out and sizes the dynamic
// shared memory of a pipeline:
//  - `SmemArena` hands out regions in order, each aligned as asked (at most
//    kSwizzleAtomBytes), as byte offsets from a base that is itself aligned
//    to kSwizzleAtomBytes at run time; `requiredBytes()` is what the kernel
//    must request: the regions plus kSwizzleAtomBytes of slack for that
//    run-time alignment.
//  - `MatmulSmemLayout` is the layout of `weave.matmul_pipeline`: the ring
//    (stage s = lhs tile, then the rhs boxes), the epilogue boxes of each
//    consumer, then the full and empty mbarriers. `getSharedMemoryBytes()`
//    of the op and the expansion both read it, so the size the kernel
//    reserves is the size the expansion uses.
//  - `SmemBase` materializes the aligned base in a kernel and turns offsets
//    into typed views and pointers.
// Its rules (checkSmemArena): the layout fits the shared memory of a block
// and the kernel's `smem`.
//
// The layout part (SmemArena, MatmulSmemLayout) is pure arithmetic in
// Utils/MatmulTiling.h, because the dialect library (the op's verifier)
// needs it and must not link the pass library; SmemBase is here.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_SMEMARENA_H
#define WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_SMEMARENA_H

#include "weave/Dialect/Weave/Utils/MatmulTiling.h"

#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::weave::pipeline {

/// The aligned base of the dynamic shared memory in a kernel.
class SmemBase {
public:
  /// Declares the dynamic shared memory and aligns its base up to
  /// SmemArena::kBaseAlignment at run time.
  static SmemBase create(ImplicitLocOpBuilder &b);

  /// A view of type `type` at byte `offset` (an index) from the base.
  Value view(ImplicitLocOpBuilder &b, Value offset, MemRefType type) const;
  /// A shared-address-space pointer at byte `offset` (an index).
  Value pointer(ImplicitLocOpBuilder &b, Value offset) const;
  /// The aligned base as an i64 shared address.
  Value alignedAddress() const { return alignedBase; }

private:
  Value dynamicSmem, pad, alignedBase;
};

} // namespace mlir::weave::pipeline

#endif // WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_SMEMARENA_H
