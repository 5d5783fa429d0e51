//===- WgmmaMainloop.h - TMA loads and wgmma of a matmul --------*- C++ -*-===//
//
// Contract. The collective mainloop of a Hopper matmul over a BarrierRing:
//  - `issueLoads(m, n, k, slot, barrier)` (the producer thread, after the
//    ring armed `slot` for `layout.stageBytes`): TMA-loads the tile_m x
//    tile_k lhs tile (swizzled by its row, 128 or 64 bytes) and the
//    tile_k x tile_n rhs tile as tile_n / 64 boxes of 128-byte rows into
//    the slot; in a cluster of c blocks this block loads 1/c of the rhs
//    boxes and multicasts them to all c, whose full barriers each count the
//    whole stage; with `shiftEdgeTiles(rows, cols)`, a tile that would
//    cross row `rows` or column `cols` is loaded from where it ends there
//    (Builders.h tileStart; MatmulTiling::shiftsEdgeTiles);
//  - `consumeTile(consumer, lane, numK, firstStep)` (a consumer warpgroup):
//    for each of the tile's numK steps waits for the slot, issues
//    `tile_k / 16` wgmma m64nSubNk16 per 64-row block of its part of the
//    tile into f32 accumulators, and releases every slot once its wgmma
//    completed (two consumers: at once; one: a step later, keeping a group
//    in flight). Returns the accumulators (one LLVM struct of subN / 2 f32
//    per 64-row block) and the step count after the tile; on return every
//    wgmma has completed and every slot of the tile was released.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_WGMMAMAINLOOP_H
#define WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_WGMMAMAINLOOP_H

#include "weave/Dialect/Weave/Transforms/Pipeline/BarrierRing.h"
#include "weave/Dialect/Weave/Transforms/Pipeline/Builders.h"
#include "weave/Dialect/Weave/Transforms/Pipeline/SmemArena.h"

namespace mlir::weave::pipeline {

class WgmmaMainloop : BuilderBase {
public:
  /// What this builder can implement (as CUTLASS's can_implement): the
  /// first of its rules `tiling` breaks, or nothing. Its rules: consumers and
  /// their split, wgmma shapes, tile_k, TMA limits of the loads, one warpgroup
  /// per role in the block (checkWgmmaMainloop in Utils/MatmulTiling.h, which
  /// MatmulTiling::check runs).
  static TilingViolation check(const MatmulTiling &tiling) {
    return checkWgmmaMainloop(tiling);
  }

  WgmmaMainloop(ImplicitLocOpBuilder &b, const MatmulTiling &tiling,
                const MatmulSmemLayout &layout, const SmemBase &smem,
                BarrierRing &ring, Type inputType, TmaOperand lhs,
                TmaOperand rhs)
      : BuilderBase(b), tiling(tiling), layout(layout), smem(smem),
        ring(ring), inputType(inputType), lhs(lhs), rhs(rhs) {}

  /// The type of one 64-row block's accumulators.
  Type getAccumulatorType();

  /// Row tiles [firstTile, firstTile + tiles) of lhs (i32 values: the
  /// pipeline's `lhs_rows`, whole row tiles) are loaded from `part` at
  /// tile - firstTile: each row tile from one of the two. In 32 bits, as
  /// the ring's regions do: two 64-bit row bounds made the producer
  /// warpgroup's 40 registers spill in the all-gather matmul's dynamic
  /// instance (ptxas: 24 bytes of spill stores).
  void readRowsFrom(TmaOperand part, Value firstTile, Value tiles) {
    lhsRows = part;
    lhsRowsFirstTile = firstTile;
    lhsRowsTiles = tiles;
  }

  /// The sizes of M and N where a tile at their edge is moved back to end
  /// at it (null: tiles at index x tile).
  void shiftEdgeTiles(Value rows, Value cols) {
    rowEdge = rows;
    colEdge = cols;
  }

  /// Producer side: tile-size constants the loads use (once, before the
  /// loop), then the loads of one step. `clusterRank` is this block's rank
  /// in its cluster.
  void prepareLoads();
  void issueLoads(Value m, Value n, Value k, Value slot, Value barrier,
                  Value clusterRank);

  /// Consumer side: the k loop of one tile. Returns the accumulators and
  /// the step count after the tile.
  std::pair<SmallVector<Value>, Value>
  consumeTile(Value consumer, Value lane, Value numK, Value firstStep);

private:
  /// wgmma shared memory descriptor of a `swizzle`-byte-swizzled operand
  /// `units` x 16 bytes from the aligned base.
  Value descriptor(Value units, int64_t leadingBytes, int64_t strideBytes,
                   int64_t swizzle);

  const MatmulTiling &tiling;
  const MatmulSmemLayout &layout;
  const SmemBase &smem;
  BarrierRing &ring;
  Type inputType;
  TmaOperand lhs, rhs;
  /// lhs_rows: unset (no argument) unless readRowsFrom was called.
  TmaOperand lhsRows{};
  Value lhsRowsFirstTile, lhsRowsTiles;
  Value rowEdge, colEdge;
  Value tmCst, tnCst, tkCst;
};

} // namespace mlir::weave::pipeline

#endif // WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_WGMMAMAINLOOP_H
