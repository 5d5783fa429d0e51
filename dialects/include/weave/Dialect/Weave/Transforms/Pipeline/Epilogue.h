//===- Epilogue.h - accumulators to the output through smem -----*- C++ -*-===//
//
// Contract. `store(accs, m, n)`, run by every thread of consumer warpgroup
// `consumer` after its mainloop of tile (m, n), converts its wgmma
// accumulators to the output element type (f16, bf16; f32 as they are)
// and writes them out through its `epilogueBuffers` boxes of 64 rows x 128
// bytes in shared memory, `epilogueBuffers` boxes at a time. The boxes are
// 128-byte swizzled, so the fragment stores (a pair of adjacent columns
// each: 4 or 8 bytes) are free of bank conflicts. Before a round, the
// warpgroup's leader waits until the previous round's TMA stores have read
// the boxes; after writing, the boxes are fenced to the async proxy and the
// leader issues one TMA store per box (clipped at the edge of `out`'s
// kernel argument). Box i of the consumer's part of the tile covers rows
// `64 * (i / boxesPerBlock)` and columns `boxCols * (i % boxesPerBlock)`
// of it, boxesPerBlock = subN / boxCols, boxCols = 128 / outBytes. On
// return stores may still be in flight: the caller waits (bulk group) before
// the boxes' shared memory is reused otherwise or the output is signalled.
// With a box handler (`setBoxHandler`), the leader calls it instead of
// storing each box, with the box view and its place (BoxPlace: m, n, the
// box's index in the whole tile, row-major over its tile_m / 64 x tile_n /
// boxCols boxes, and the box's first row and column in the output); the
// handler's bulk stores are waited for like the default ones. With a
// combine handler (`setCombineHandler`), every thread of the warpgroup
// calls it for each box of a round once the round's boxes are written and
// the warpgroup synchronized, with the box view, its place and the
// thread's lane in the warpgroup; the box is fenced to the async proxy and
// the warpgroup synchronized after it, before the stores. With `owned`
// (one i1 per box of the consumer's part, uniform across the warpgroup),
// only the boxes whose flag is set are written, combined and stored (a
// tail split's fix-up: each split unit stores its share of the tile,
// SplitKFixup.h); the accumulators of the others are not read. With
// `shiftEdgeTiles(rows, cols)` (no handler), a tile that would cross row
// `rows` or column `cols` lies where it ends there, as the mainloop loaded
// it (Builders.h tileStart), and only its boxes that reach past where it
// would have started (m x tile_m, n x tile_n) are stored: the others lie
// wholly on the neighbouring tile (their fragments are still written to
// shared memory, without a branch a box).
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_EPILOGUE_H
#define WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_EPILOGUE_H

#include "weave/Dialect/Weave/Transforms/Pipeline/Builders.h"
#include "weave/Dialect/Weave/Transforms/Pipeline/SmemArena.h"

#include <functional>

namespace mlir::weave::pipeline {

class Epilogue : BuilderBase {
public:
  /// What this builder can implement (as CUTLASS's can_implement): the
  /// first of its rules `tiling` breaks, or nothing. Its rules: rows of out a
  /// TMA store can stride (checkEpilogue in Utils/MatmulTiling.h, which
  /// MatmulTiling::check runs).
  static TilingViolation check(const MatmulTiling &tiling) {
    return checkEpilogue(tiling);
  }

  /// `warpgroup`: this warpgroup's index in the block (consumers are
  /// 1..consumers); `laneInGroup`: the thread's index in it.
  Epilogue(ImplicitLocOpBuilder &b, const MatmulTiling &tiling,
           const MatmulSmemLayout &layout, const SmemBase &smem,
           Type outputType, TmaOperand out, Value warpgroup,
           Value laneInGroup)
      : BuilderBase(b), tiling(tiling), layout(layout), smem(smem),
        outputType(outputType), out(out), warpgroup(warpgroup),
        laneInGroup(laneInGroup) {}

  /// Where a box lies: tile (m, n), its index in the tile, and its first
  /// element's row and column in the pipeline's output (`out` as the op
  /// sees it: a subview's offsets are not added).
  struct BoxPlace {
    Value m, n, index, row, col;
  };
  /// `handler(box, place)` emits what happens to a box (on the leader
  /// thread) instead of the TMA store to `out`.
  using BoxHandler = std::function<void(Value, const BoxPlace &)>;
  void setBoxHandler(BoxHandler handler) { boxHandler = std::move(handler); }
  /// `handler(box, place, lane)` rewrites a box in shared memory (on every
  /// thread of the warpgroup) before it is stored.
  using CombineHandler =
      std::function<void(Value, const BoxPlace &, Value)>;
  void setCombineHandler(CombineHandler handler) {
    combineHandler = std::move(handler);
  }

  /// The sizes of M and N where a tile at their edge is moved back to end
  /// at it (null: tiles at index x tile). Not with a handler: a region
  /// would see the moved tile's places.
  void shiftEdgeTiles(Value rows, Value cols) {
    rowEdge = rows;
    colEdge = cols;
  }

  void store(ArrayRef<Value> accs, Value m, Value n,
             ArrayRef<Value> owned = {});

private:
  BoxHandler boxHandler;
  CombineHandler combineHandler;
  const MatmulTiling &tiling;
  const MatmulSmemLayout &layout;
  const SmemBase &smem;
  Type outputType;
  TmaOperand out;
  Value warpgroup, laneInGroup;
  Value rowEdge, colEdge;
};

} // namespace mlir::weave::pipeline

#endif // WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_EPILOGUE_H
