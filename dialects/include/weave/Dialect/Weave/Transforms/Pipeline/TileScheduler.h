//===- TileScheduler.h - the persistent tile schedule -----------*- C++ -*-===//
//
// Contract. Hands the `numTilesM x numTilesN` output tiles of a persistent
// kernel to `workerCount` workers (blocks, or clusters of `clusterSize`
// blocks that take vertically adjacent tiles together):
//  - a worker's tiles are the linear indices `begin, begin + step, ...` below
//    `numTiles` (distribute): R = ceil(tiles / workers) rounds on the first
//    W = ceil(tiles / R) workers, the rest get none, so every busy worker
//    has the same count give or take one;
//  - `tileCoords(t)` maps linear index t to tile (m, n): groups of
//    `groupWidth` row tiles (in units of cluster-high rows) with row tiles
//    fastest inside a group, so neighbouring workers share column tiles
//    in L2; in a cluster, m is this block's row tile (`clusterRank`) of the
//    group's cluster-high row; with `rotateM`, row tiles start at that row
//    tile and wrap around. Every tile is visited exactly once.
//  - `forEachStep` walks this worker's tiles and their `numK` k steps,
//    counting steps across tiles (what the ring's slot and phase follow);
//    `forEachTile` walks the tiles only, for a body with its own k loop.
// `numTilesM` must be a multiple of clusterSize and groupWidth of it (the
// op verifier checks both).
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_TILESCHEDULER_H
#define WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_TILESCHEDULER_H

#include "weave/Dialect/Weave/Transforms/Pipeline/Builders.h"

namespace mlir::weave::pipeline {

/// Who runs this code: worker index, worker count, rank in the cluster.
struct Workers {
  Value worker, count, clusterRank;
  /// The hardware's: blocks, or clusters when clusterSize > 1.
  static Workers hardware(ImplicitLocOpBuilder &b, int64_t clusterSize);
};

class TileScheduler : BuilderBase {
public:
  /// `numTilesM`, `numTilesN`: index values; `rotateM` may be null.
  TileScheduler(ImplicitLocOpBuilder &b, Value numTilesM, Value numTilesN,
                int64_t clusterSize, int64_t groupWidth, Value rotateM);

  /// Assigns this worker its tiles (sets begin, end, step).
  void distribute(const Workers &workers);
  Value getBegin() const { return tilesBegin; }
  Value getEnd() const { return numTiles; }
  Value getStep() const { return tileStep; }

  /// The (m, n) tile indices of linear tile `t`.
  std::pair<Value, Value> tileCoords(Value t);
  /// `body(m, n, step)` for every tile of this worker, in a loop that
  /// carries the step count: `body` returns the count after the tile.
  /// Returns the number of steps.
  Value forEachTile(function_ref<Value(Value, Value, Value)> body);
  /// `body(m, n, k, step)` for every k step of every tile of this worker,
  /// `afterTile(m, n, end)` after a tile's last one. Returns the number of
  /// steps.
  Value forEachStep(Value numK,
                    function_ref<void(Value, Value, Value, Value)> body,
                    function_ref<void(Value, Value, Value)> afterTile = {});

private:
  Value numTilesM, numTilesN, numClusterRows, rotateM;
  int64_t clusterSize, groupWidth;
  Value clusterRank, tilesBegin, numTiles, tileStep;
};

} // namespace mlir::weave::pipeline

#endif // WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_TILESCHEDULER_H
