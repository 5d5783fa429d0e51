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
//    in L2; with `segments` = s > 1 the row tiles are s equal segments
//    visited one after the other, each in its own groups (its last group
//    narrower where the width does not divide it), so no group holds rows
//    of two segments; in a cluster, m is this block's row tile
//    (`clusterRank`) of the group's cluster-high row; with `interleave` =
//    I > 1 the walk's cluster-high row q (its position in the order above)
//    is mapped, before the cluster and the rotation, to row q / I of shard
//    q mod I, the shards being I runs of floor(rows / I) cluster-high rows
//    (rows past I of them keep their place): consecutive rows of a group
//    go to different shards, so every wave holds tiles of every shard
//    while a group still spans `groupWidth` row tiles; with `lag` = L > 0
//    the last shard trails the others by L of its rows (min(L, shard
//    rows)): the walk first takes rows 0..L-1 of shards 0..I-2 in turns,
//    then in turns rows L.. of shards 0..I-2 and rows 0.. of shard I-1,
//    then the last L rows of shard I-1 (L = 0 is the plain interleave;
//    L >= shard rows visits shard I-1 after all the others); with `rotateM`,
//    row tiles start at that row tile and wrap around. Every tile is visited
//    exactly once, unless `walkM` bounds the walk: then only the tiles of
//    its first min(walkM, numTilesM) row tiles (walkM a multiple of
//    clusterSize; not with segments or interleave, the op verifier
//    checks), each once, still rotated modulo numTilesM; walkM = 0: none
//    (the step stays 1 so that a constant walk folds to a legal loop).
//    With a column block W (setColumnBlock; not with segments, interleave
//    or walkM) the column tiles go in runs, one after the other: run j
//    the tiles whose last column lies in [j W, (j + 1) W), each run in its
//    own groups over every row.
//  - with `kRotation` = s > 0 (splitK = 1) the tile of column n runs its
//    k steps from n * s on (from 0 where n * s >= numK), wrapping around
//    (the k_rotation of weave.matmul_pipeline; TileOrder::kAt is the same
//    arithmetic);
//  - with `splitK` = s > 1 the work is `tiles * s` units: unit u is split
//    `u mod s` of linear tile `u / s` and covers k steps
//    `[j * numK / s, (j + 1) * numK / s)` (unitOf); the units of a tile
//    are consecutive, its last split has the highest index. With s = 1 a
//    unit is a tile with all numK steps;
//  - with a tail split (setTailSplit, before distribute; not with splitK,
//    clusters or interleave) of at most S: of T tiles on W
//    workers the first D = W * floor(T / W) are units of all numK steps
//    and the t = T - D others are split s ways at run time, s = min(S,
//    W / t, numK / 4, partialTiles / t), and 1 where that is below
//    kMinTailSplit (kMinLateTailSplit after kLateTailSplitRounds whole
//    rounds) or t is 0 or above counterTiles or (with segments)
//    above the last segment's tiles, the t tiles then lying in earlier
//    segments too: unit D + i * s + j is split j of tile D + i (its `slot`
//    i, the fix-up's index); the step is W, so the whole tiles run in
//    floor(T / W) full rounds and the split units together in the last;
//  - every unit says how many it is split into (`splits`: s, splitK or 1)
//    and its tile's place among the split tiles (`slot`);
//  - `forEachStep` walks this worker's units and their k steps, counting
//    steps across units (what the ring's slot and phase follow), and says
//    which step is its unit's first;
//    `forEachUnit` walks the units only, for a body with its own k loop.
// `numTilesM` must be a multiple of clusterSize and groupWidth of it (the
// op verifier checks both), and of segments * clusterSize (the verifier for
// a static count, the kernel for a dynamic one).
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_TILESCHEDULER_H
#define WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_TILESCHEDULER_H

#include "weave/Dialect/Weave/Transforms/Pipeline/Builders.h"
#include "weave/Dialect/Weave/Utils/MatmulTiling.h"

namespace mlir::weave::pipeline {

/// Who runs this code: worker index, worker count, rank in the cluster.
struct Workers {
  Value worker, count, clusterRank;
  /// The hardware's: blocks, or clusters when clusterSize > 1.
  static Workers hardware(ImplicitLocOpBuilder &b, int64_t clusterSize);
};

/// One unit of work: tile (m, n) (linear index `tile`), its split and
/// the k steps it covers.
struct Unit {
  Value m, n, tile, split, kBegin, kCount;
  /// The units the tile is split into, and its index in the fix-up's
  /// counters and partials.
  Value splits, slot;
};

class TileScheduler : BuilderBase {
public:
  /// What this builder can implement (as CUTLASS's can_implement): the
  /// first of its rules `tiling` breaks, or nothing. Its rules: segments and
  /// clusters of whole row tiles, a cluster's share of the rhs boxes, the
  /// kernel's cluster shape (checkTileScheduler in Utils/MatmulTiling.h, which
  /// MatmulTiling::check runs).
  static TilingViolation check(const MatmulTiling &tiling) {
    return checkTileScheduler(tiling);
  }

  /// `numTilesM`, `numTilesN`: index values; `rotateM` and `walkM` may be
  /// null.
  TileScheduler(ImplicitLocOpBuilder &b, Value numTilesM, Value numTilesN,
                int64_t clusterSize, int64_t groupWidth, Value rotateM,
                int64_t splitK = 1, int64_t segments = 1,
                int64_t interleave = 1, int64_t lag = 0, int64_t kRotation = 0,
                Value walkM = Value(), bool keepWidth = false);

  /// Splits the last partial round's tiles up to `maxSplit` ways (see the
  /// contract), within a workspace that holds `partialTiles` partial tiles
  /// and counters for `counterTiles` tiles (tailSplitRoom); `numK` the k
  /// steps of a tile. Call before distribute.
  void setTailSplit(int64_t maxSplit, int64_t partialTiles,
                    int64_t counterTiles, Value numK);
  /// Walks the column tiles in runs (grid_tile_column_block): run j holds
  /// those whose last column lies in [j block, (j + 1) block), `tileN`
  /// columns a tile; each run in its own groups. Not with segments,
  /// interleave or walkM (MatmulTiling's check).
  void setColumnBlock(int64_t block, int64_t tileN) {
    columnBlock = block;
    columnTileN = tileN;
  }
  /// Assigns this worker its tiles (sets begin, end, step).
  void distribute(const Workers &workers);
  Value getBegin() const { return tilesBegin; }
  Value getEnd() const { return numTiles; }
  Value getStep() const { return tileStep; }

  /// The (m, n) tile indices of linear tile `t`.
  std::pair<Value, Value> tileCoords(Value t);
  /// Unit `u` of a tile walk with `numK` k steps per tile.
  Unit unitOf(Value u, Value numK);
  /// `body(unit, step)` for every unit of this worker, in a loop that
  /// carries the step count: `body` returns the count after the unit.
  /// Returns the number of steps.
  Value forEachUnit(Value numK, function_ref<Value(const Unit &, Value)> body);
  /// `body(m, n, k, position, step, first)` for every k step of every
  /// tile of this worker (`position`: the step's place in its tile's k
  /// loop, which is `k` unless k_rotation moves the loop's start; `first`
  /// (i1): the unit's first step, a split unit's included), `afterTile(m,
  /// n, end)` after a tile's last one. Returns the number of steps.
  using StepFn = function_ref<void(Value, Value, Value, Value, Value, Value)>;
  Value forEachStep(Value numK, StepFn body,
                    function_ref<void(Value, Value, Value)> afterTile = {});

private:
  /// The k loop of `unit` over steps [kBegin, kEnd) (forEachStep's body).
  Value stepLoop(const Unit &unit, Value kBegin, Value kEnd, Value numK,
                 Value first, StepFn body);

  Value numTilesM, numTilesN, numClusterRows, segmentRows, shardRows, rotateM;
  /// The cluster-high rows the walk covers (numClusterRows without walkM).
  Value walkRows;
  bool bounded;
  int64_t clusterSize, groupWidth, splitK, segments, interleave, lag,
      kRotation;
  /// grid_tile_keep_width: the segments' groups keep groupWidth.
  bool keepWidth;
  Value clusterRank, tilesBegin, numTiles, tileStep;
  /// The tail split: its bounds, then (distribute) the whole tiles' count
  /// and the launch's split s.
  int64_t tailMax = 1, tailPartialTiles = 0, tailCounterTiles = 0;
  /// The column runs (setColumnBlock; 0: none).
  int64_t columnBlock = 0, columnTileN = 1;
  Value tailNumK, wholeTiles, tailSplits;
};

} // namespace mlir::weave::pipeline

#endif // WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_TILESCHEDULER_H
