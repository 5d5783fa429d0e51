//===- Builders.h - shared helpers of the pipeline builders -----*- C++ -*-===//
//
// Constants and index arithmetic every pipeline builder emits. Each helper
// creates exactly the ops its name says, at the builder's insertion point,
// and nothing else: the pieces' expansions are compared op for op (and
// PTX for PTX) with what they replaced.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_BUILDERS_H
#define WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_BUILDERS_H

#include "weave/Dialect/Weave/Utils/HardwareLimits.h"
#include "weave/Dialect/Weave/Utils/MatmulTiling.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::weave::pipeline {

/// Bytes of one 128-byte-swizzled row; also the swizzle span.
constexpr int64_t kSwizzleBytes = 128;
/// The swizzle pattern repeats every 8 rows of 128 bytes.
constexpr int64_t kSwizzleAtomBytes = 1024;
constexpr int64_t kWarpgroupThreads = hw::kWarpgroupThreads;

/// A pipeline operand as TMA sees it: a kernel argument and the element
/// offsets of the view the op reads or writes.
struct TmaOperand {
  Value argument;
  Value rowOffset, colOffset;
};

/// Index arithmetic and constants at the insertion point of one shared
/// builder: what every piece emits. (A base class so that the pieces'
/// code reads like the single builder it was split from.)
class BuilderBase {
protected:
  explicit BuilderBase(ImplicitLocOpBuilder &b) : b(b) {}

  Value cIndex(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value cI32(int64_t v) { return arith::ConstantIntOp::create(b, v, 32); }
  Value cI64(int64_t v) { return arith::ConstantIntOp::create(b, v, 64); }
  /// ceil(a / d) as (a + d - 1) / d: folds for a constant `a`, and lowers
  /// for a run-time one (a dynamic row count), which arith.ceildivui does
  /// not (it has no LLVM lowering).
  Value ceilDiv(Value a, int64_t d) {
    return arith::DivUIOp::create(
        b, arith::AddIOp::create(b, a, cIndex(d - 1)), cIndex(d));
  }
  /// ceil(a / d) for a run-time `d`: arith.ceildivui, which folds away for
  /// constants, has no LLVM lowering, so (a + d - 1) / d.
  Value ceilDiv(Value a, Value d) {
    return arith::DivUIOp::create(
        b, arith::SubIOp::create(b, arith::AddIOp::create(b, a, d), cIndex(1)),
        d);
  }
  /// Where tile `index` of `tile` elements starts along a dimension of
  /// `edge` elements: index x tile, but no later than edge - tile where
  /// that is not negative, so that a tile that would cross the edge ends
  /// at it (MatmulTiling::shiftsEdgeTiles). Without `edge`, index x tile.
  Value tileStart(Value index, int64_t tile, Value edge) {
    Value start = arith::MulIOp::create(b, index, cIndex(tile));
    if (!edge)
      return start;
    Value last = arith::MaxSIOp::create(
        b, arith::SubIOp::create(b, edge, cIndex(tile)), cIndex(0));
    return arith::MinUIOp::create(b, start, last);
  }
  /// Where a consumer's part of a tile starts, from where the tile starts
  /// along rows (`rows`) or columns: plus consumer x subM (subN) where the
  /// consumers split that dimension (MatmulTiling::splitM), else the tile's
  /// start (`consumer`: 0-based, warpgroup - 1). The epilogue stores the
  /// part there; the split-K fix-up tests its rows against M.
  Value partStart(const MatmulTiling &tiling, Value tileStart, bool rows,
                  Value consumer) {
    if (rows != tiling.splitM)
      return tileStart;
    return arith::AddIOp::create(
        b, tileStart,
        arith::MulIOp::create(b, consumer,
                              cIndex(rows ? tiling.subM : tiling.subN)));
  }
  /// A thread's place in the wgmma m64nN accumulator fragment: value 4j+q
  /// of a thread sits at row 16 x warp + lane / 4 + 8 x (q / 2) of its
  /// 64-row block, column 8j + 2 x (lane % 4) + q % 2 (`laneInGroup`: the
  /// thread's index in its warpgroup). `row` is the first of its rows.
  struct FragmentLane {
    Value warp, lane, row;
  };
  FragmentLane fragmentLane(Value laneInGroup) {
    Value warp = arith::DivUIOp::create(b, laneInGroup, cIndex(32));
    Value lane = arith::RemUIOp::create(b, laneInGroup, cIndex(32));
    Value quad = arith::DivUIOp::create(b, lane, cIndex(4));
    Value row = arith::AddIOp::create(
        b, arith::MulIOp::create(b, warp, cIndex(16)), quad);
    return {warp, lane, row};
  }
  /// `body` under `cond` (an scf.if without results); where `cond` is
  /// null, `body` unconditionally.
  void ifThen(Value cond, function_ref<void()> body) {
    if (!cond)
      return body();
    scf::IfOp::create(b, cond, [&](OpBuilder &, Location) {
      body();
      scf::YieldOp::create(b);
    });
  }
  Value eq(Value a, Value c) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::eq, a, c);
  }
  /// A memref type in shared (workgroup) memory.
  MemRefType sharedType(ArrayRef<int64_t> shape, Type elt) {
    return MemRefType::get(shape, elt, MemRefLayoutAttrInterface{},
                           gpu::AddressSpaceAttr::get(
                               b.getContext(), gpu::AddressSpace::Workgroup));
  }

  ImplicitLocOpBuilder &b;
};

} // namespace mlir::weave::pipeline

#endif // WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_BUILDERS_H
