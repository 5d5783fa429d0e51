//===- TileOrder.h - the persistent tile schedule as plain arithmetic -----===//
//
// Contract. The same schedule as TileScheduler (its header states it), on
// integers instead of IR: which linear tiles a worker takes and the (m, n)
// tile of each. TileScheduler builds this arithmetic into a kernel; the
// protocol checker replays it to know which rows a block reads and
// forwards, in which order. TileSchedulerTest checks that the two agree on
// every input it tries, so there is one schedule with two spellings, not
// two schedules. Header-only, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_TILEORDER_H
#define WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_TILEORDER_H

#include "weave/Dialect/Weave/Utils/MatmulTiling.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace mlir::weave::pipeline {

struct TileOrder {
  int64_t tilesM = 1, tilesN = 1;
  int64_t clusterSize = 1, groupWidth = 1, splitK = 1, segments = 1;
  /// Row tile the walk starts at; negative: no rotation.
  int64_t rotateM = -1;
  /// grid_tile_interleave: shards whose row tiles the walk interleaves.
  int64_t interleave = 1;
  /// grid_tile_lag: rows of its own the last interleaved shard trails by.
  int64_t lag = 0;
  /// k_rotation: the tile of column n starts its k loop at n * s where
  /// that is below numK, else at 0 (0: every tile at 0).
  int64_t kRotation = 0;
  /// walk_m: the walk covers only its first min(walkM, tilesM) row tiles
  /// (a multiple of clusterSize; not with segments or interleave);
  /// negative: no bound.
  int64_t walkM = -1;
  /// grid_tile_keep_width: with segments, the groups keep groupWidth.
  bool keepWidth = false;
  /// grid_tile_column_block: the column tiles walked in runs by the block
  /// of `columnBlock` columns their last column lies in, each run in its
  /// own groups (0: one run); `tileN` the columns of a tile. Not with
  /// segments, interleave or walkM.
  int64_t columnBlock = 0, tileN = 1;
  /// tail_split (TileScheduler::setTailSplit): the most ways a tile of the
  /// last, partial round is split (1: none), and the workspace's room
  /// (tailSplitRoom). Not with splitK, clusters or interleave; with
  /// segments, only where the partial round lies in the last segment.
  int64_t tailSplit = 1, tailPartialTiles = 0, tailCounterTiles = 0;

  /// The k step at `position` of column tile `n`'s loop of `numK` steps.
  int64_t kAt(int64_t n, int64_t position, int64_t numK) const {
    if (kRotation <= 0)
      return position;
    int64_t start = n * kRotation < numK ? n * kRotation : 0;
    return (start + position) % numK;
  }

  static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

  int64_t clusterRows() const { return tilesM / clusterSize; }
  /// The cluster-high rows the walk covers: all of them, or those of its
  /// first min(walkM, tilesM) row tiles.
  int64_t walkRows() const {
    return walkM < 0 ? clusterRows() : std::min(walkM, tilesM) / clusterSize;
  }
  int64_t segmentRows() const {
    return segments > 1 ? clusterRows() / segments : walkRows();
  }
  /// Units of work (tiles x splitK), in cluster-high rows.
  int64_t numUnits() const { return walkRows() * tilesN * splitK; }
  /// The stride between a worker's units (every busy worker's share); at
  /// least 1 with a walk bound (whose walk may be empty).
  int64_t step(int64_t workers) const {
    int64_t rounds = std::max<int64_t>(ceilDiv(numUnits(), workers), 1);
    int64_t s = ceilDiv(numUnits(), rounds);
    return walkM >= 0 ? std::max<int64_t>(s, 1) : s;
  }
  /// A worker's first unit; numUnits() for a worker with none.
  int64_t begin(int64_t worker, int64_t workers) const {
    return worker < step(workers) ? worker : numUnits();
  }

  //===--- The walk's units with a tail split (splitK and none alike) -----===//
  /// The ways each tile of the last, partial round is split on `workers`
  /// workers (1: none; the kernel's rule, tailSplitWays).
  int64_t tailWays(int64_t workers, int64_t numK) const {
    if (splitK > 1)
      return 1;
    return tailSplitWays(walkRows() * tilesN, workers, numK, tailSplit,
                         {tailPartialTiles, tailCounterTiles},
                         segments > 1 ? segmentRows() * tilesN : INT64_MAX);
  }
  /// The tiles that run whole (all of them without a split).
  int64_t wholeTiles(int64_t workers, int64_t numK) const {
    int64_t tiles = walkRows() * tilesN;
    return tailWays(workers, numK) > 1 ? tiles - tiles % workers : tiles;
  }
  /// The units of the walk, the stride between a worker's units and its
  /// first one (numUnits(), step(), begin() without a split).
  int64_t units(int64_t workers, int64_t numK) const {
    int64_t s = tailWays(workers, numK);
    if (s <= 1)
      return numUnits();
    int64_t whole = wholeTiles(workers, numK);
    return whole + (walkRows() * tilesN - whole) * s;
  }
  int64_t stride(int64_t workers, int64_t numK) const {
    return tailWays(workers, numK) > 1 ? workers : step(workers);
  }
  int64_t first(int64_t worker, int64_t workers, int64_t numK) const {
    return worker < stride(workers, numK) ? worker : units(workers, numK);
  }
  /// Unit `u`: its linear tile and k steps [kBegin, kEnd).
  struct Span {
    int64_t tile, kBegin, kEnd;
  };
  Span unitAt(int64_t u, int64_t workers, int64_t numK) const {
    int64_t s = splitK, j = 0, tile = u;
    if (splitK > 1) {
      tile = u / splitK;
      j = u % splitK;
    } else if (int64_t ways = tailWays(workers, numK); ways > 1) {
      int64_t whole = wholeTiles(workers, numK);
      s = 1;
      if (u >= whole) {
        s = ways;
        tile = whole + (u - whole) / ways;
        j = (u - whole) % ways;
      }
    }
    return {tile, j * numK / s, (j + 1) * numK / s};
  }

  /// The walk's cluster-high row `q` with the shards interleaved: the
  /// first `interleave * shardRows` rows (shardRows = clusterRows() /
  /// interleave) are `interleave` shards of shardRows rows, and position q
  /// takes row q / interleave of shard q mod interleave; the rows past them
  /// (clusterRows() mod interleave) keep their place. With lag L > 0 the
  /// last shard trails by min(L, shardRows) rows: first rows 0..L-1 of the
  /// other shards in turns, then every shard in turns (the last one L rows
  /// behind), then the last shard's final L rows.
  int64_t interleaved(int64_t q) const {
    if (interleave <= 1)
      return q;
    int64_t shardRows = clusterRows() / interleave;
    if (q >= shardRows * interleave)
      return q;
    if (lag == 0)
      return q % interleave * shardRows + q / interleave;
    int64_t last = interleave - 1, l = std::min(lag, shardRows);
    int64_t head = l * last, rest = shardRows - l, mid = rest * interleave;
    if (q < head)
      return q % last * shardRows + q / last;
    int64_t r = q - head;
    if (r < mid) {
      int64_t j = r / interleave, k = r % interleave;
      return k < last ? k * shardRows + l + j : last * shardRows + j;
    }
    return last * shardRows + rest + (r - mid);
  }

  /// The rows of a group (cluster-high) on a grid whose busy workers
  /// take `step` units a round: groupWidth, narrowed with segments
  /// (waveNarrowedRows; not with keepWidth, nor in segments of at most
  /// kUnnarrowedSegmentRows row tiles).
  int64_t groupRows(int64_t step) const {
    if (segments > 1 && splitK == 1 && step > 0 && !keepWidth &&
        segmentRows() > kUnnarrowedSegmentRows / clusterSize)
      return waveNarrowedRows(step);
    return groupWidth / clusterSize;
  }
  /// The segments' wave rule alone: groupWidth narrowed to the rows past
  /// one wave unless the segments are whole waves of full groups
  /// (TileScheduler::tileCoords says why); 1 where a wave covers a whole
  /// segment.
  int64_t waveNarrowedRows(int64_t step) const {
    int64_t width = groupWidth / clusterSize;
    if (segments <= 1 || step <= 0)
      return width;
    int64_t rows = segmentRows();
    int64_t waveRows = ceilDiv(step, tilesN);
    int64_t slack = rows > waveRows ? rows - waveRows : 1;
    int64_t narrowed = std::max<int64_t>(std::min(slack, width), 1);
    bool aligned =
        (rows * tilesN) % step == 0 && step % (width * tilesN) == 0;
    return aligned ? width : narrowed;
  }

  /// Tile (m, n) of linear tile `t` (a unit's tile is unit / splitK), for
  /// the block of rank `clusterRank` in its cluster; `step` is
  /// step(workers).
  std::pair<int64_t, int64_t> coords(int64_t t, int64_t clusterRank,
                                     int64_t step) const {
    int64_t rows = segmentRows();
    int64_t firstOfSegment = 0;
    if (segments > 1) {
      int64_t perSegment = rows * tilesN;
      firstOfSegment = t / perSegment * rows;
      t %= perSegment;
    }
    // Column runs: run j is the column tiles [firstN, firstN + runN) whose
    // last column lies in [j W, (j + 1) W); its tiles are the linear ones
    // [firstN * rows, (firstN + runN) * rows).
    int64_t firstN = 0, runN = tilesN;
    if (columnBlock > 0) {
      int64_t c = t / rows; // a column tile of t's run
      int64_t j = ((c + 1) * tileN - 1) / columnBlock;
      firstN = std::min(j * columnBlock / tileN, tilesN);
      runN = std::min((j + 1) * columnBlock / tileN, tilesN) - firstN;
      t -= firstN * rows;
    }
    int64_t width = groupRows(step);
    // With a lag: phases (head, middle, tail, rows past the shards), each
    // in its own groups.
    int64_t phaseFirst = 0;
    if (interleave > 1 && lag > 0) {
      int64_t shardRows = clusterRows() / interleave;
      int64_t l = std::min(lag, shardRows);
      int64_t bounds[] = {0, l * (interleave - 1),
                          l * (interleave - 1) + (shardRows - l) * interleave,
                          shardRows * interleave, rows};
      int phase = 0;
      for (int i = 1; i < 4; ++i)
        if (t >= bounds[i] * tilesN)
          phase = i;
      phaseFirst = bounds[phase];
      rows = bounds[phase + 1] - bounds[phase];
      t -= phaseFirst * tilesN;
    }
    int64_t perGroup = width * runN;
    int64_t group = t / perGroup, firstM = group * width;
    int64_t groupRows = std::min(rows - firstM, width);
    int64_t inGroup = t % perGroup;
    int64_t m = firstM + inGroup % groupRows + firstOfSegment + phaseFirst;
    int64_t n = firstN + inGroup / groupRows;
    m = interleaved(m);
    if (clusterSize > 1)
      m = m * clusterSize + clusterRank;
    if (rotateM >= 0)
      m = (m + rotateM) % tilesM;
    return {m, n};
  }
};

} // namespace mlir::weave::pipeline

#endif // WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_TILEORDER_H
