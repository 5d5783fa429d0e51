//===- TileSchedulerTest.cpp - the persistent tile schedule ---------------===//
//
// For grids of tiles, worker counts, cluster sizes, group widths and
// rotations: every tile is visited exactly once, busy workers get the same
// number of tiles give or take one, the blocks of a cluster take vertically
// adjacent tiles of one column together, and a rotation starts at its row.
//
//===----------------------------------------------------------------------===//

#include "PipelineTestSupport.h"

#include "weave/Dialect/Weave/Transforms/Pipeline/TileOrder.h"
#include "weave/Dialect/Weave/Transforms/Pipeline/TileScheduler.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <map>
#include <set>
#include <tuple>
#include <vector>

using namespace mlir;
using namespace mlir::weave::pipeline;
using namespace weave_test;

namespace {

/// A func.func of `n` index arguments (the free inputs of the schedule
/// under test) in a module of its own, with `b` at the start of its body.
struct IndexFunction {
  IndexFunction(MLIRContext *ctx, unsigned n)
      : b(UnknownLoc::get(ctx), ctx) {
    ctx->getOrLoadDialect<func::FuncDialect>();
    OpBuilder top(ctx);
    module = ModuleOp::create(top.getUnknownLoc());
    top.setInsertionPointToEnd(module->getBody());
    SmallVector<Type> types(n, top.getIndexType());
    auto func = func::FuncOp::create(top, top.getUnknownLoc(), "schedule",
                                     top.getFunctionType(types, {}));
    Block *body = func.addEntryBlock();
    b.setInsertionPointToStart(body);
    args.assign(body->args_begin(), body->args_end());
  }
  OwningOpRef<ModuleOp> module;
  ImplicitLocOpBuilder b;
  SmallVector<Value> args;
};

struct Schedule {
  int64_t tilesM, tilesN, workers, cluster, groupWidth;
  int64_t rotate; ///< -1: none
};

/// A segmented schedule (groups of 8 row tiles, `segments` segments of
/// `segmentRows` rows, `tilesN` columns) distributed on `workers` blocks,
/// built as TileScheduler builds it into a kernel and evaluated: its step
/// (a wave) and each linear tile's (m, n).
struct SegmentedTiles {
  int64_t wave = 0;
  std::vector<std::pair<int64_t, int64_t>> coords;
};
SegmentedTiles segmentedTiles(int64_t segments, int64_t segmentRows,
                              int64_t tilesN, int64_t workers,
                              bool keepWidth = false) {
  auto ctx = makeContext();
  IndexFunction f(ctx.get(), 3);
  ImplicitLocOpBuilder &b = f.b;
  Value worker = f.args[0], count = f.args[1], t = f.args[2];
  Value zero = arith::ConstantIndexOp::create(b, 0);
  int64_t tilesM = segments * segmentRows;
  TileScheduler scheduler(b, arith::ConstantIndexOp::create(b, tilesM),
                          arith::ConstantIndexOp::create(b, tilesN),
                          /*clusterSize=*/1, /*groupWidth=*/8, Value(),
                          /*splitK=*/1, segments, /*interleave=*/1, /*lag=*/0,
                          /*kRotation=*/0, /*walkM=*/Value(), keepWidth);
  scheduler.distribute(Workers{worker, count, zero});
  auto [m, n] = scheduler.tileCoords(t);
  IndexEvaluator ev;
  ev.bind(worker, 0);
  ev.bind(count, workers);
  SegmentedTiles out;
  out.wave = ev(scheduler.getStep());
  for (int64_t tile = 0; tile < tilesM * tilesN; ++tile) {
    ev.bind(t, tile);
    out.coords.push_back({ev(m), ev(n)});
  }
  return out;
}

class TileSchedulerTest : public ::testing::TestWithParam<Schedule> {};

TEST_P(TileSchedulerTest, VisitsEveryTileOnceInBalancedShares) {
  Schedule s = GetParam();
  auto ctx = makeContext();
  // Free inputs: the worker, the worker count, the rank in the cluster,
  // the linear tile index and the rotation.
  IndexFunction f(ctx.get(), 5);
  ImplicitLocOpBuilder &b = f.b;
  Value worker = f.args[0], count = f.args[1], rank = f.args[2],
        t = f.args[3], rotate = f.args[4];
  Value tilesM = arith::ConstantIndexOp::create(b, s.tilesM);
  Value tilesN = arith::ConstantIndexOp::create(b, s.tilesN);
  TileScheduler scheduler(b, tilesM, tilesN, s.cluster, s.groupWidth,
                          s.rotate >= 0 ? rotate : Value());
  scheduler.distribute(Workers{worker, count, rank});
  auto [m, n] = scheduler.tileCoords(t);

  std::map<std::pair<int64_t, int64_t>, int> visits;
  int64_t most = 0, fewest = INT64_MAX;
  for (int64_t w = 0; w < s.workers; ++w) {
    IndexEvaluator ev;
    ev.bind(worker, w);
    ev.bind(count, s.workers);
    ev.bind(rotate, std::max<int64_t>(s.rotate, 0));
    int64_t begin = ev(scheduler.getBegin()), end = ev(scheduler.getEnd()),
            step = ev(scheduler.getStep());
    ASSERT_GT(step, 0);
    int64_t tiles = 0;
    for (int64_t tile = begin; tile < end; tile += step, ++tiles) {
      ev.bind(t, tile);
      int64_t column = -1, firstRow = -1;
      for (int64_t r = 0; r < s.cluster; ++r) {
        ev.bind(rank, r);
        int64_t mm = ev(m), nn = ev(n);
        ASSERT_LT(mm, s.tilesM);
        ASSERT_LT(nn, s.tilesN);
        ++visits[{mm, nn}];
        // A cluster's blocks: one column, consecutive rows (mod a
        // rotation), rank r on row first + r.
        if (r == 0) {
          column = nn;
          firstRow = mm;
        } else {
          EXPECT_EQ(nn, column);
          EXPECT_EQ(mm, (firstRow + r) % s.tilesM);
        }
      }
      if (w == 0 && tile == begin && s.rotate >= 0) {
        EXPECT_EQ(firstRow, s.rotate % s.tilesM) << "rotation start";
      }
    }
    if (tiles > 0) {
      most = std::max(most, tiles);
      fewest = std::min(fewest, tiles);
    }
  }
  EXPECT_EQ(static_cast<int64_t>(visits.size()), s.tilesM * s.tilesN);
  for (auto &[tile, count] : visits)
    EXPECT_EQ(count, 1) << "tile (" << tile.first << ", " << tile.second
                        << ")";
  EXPECT_LE(most - fewest, 1) << "unbalanced shares";
}

/// Split-K units: every (tile, k step) once; a tile's units consecutive
/// with its last split highest, and a unit on a worker comes after the
/// worker's lower units (what the fix-up's deadlock freedom rests on).
TEST(TileSchedulerSplitK, UnitsCoverEveryStepOnce) {
  for (auto [tilesM, tilesN, workers, splitK, numK] :
       {std::tuple{1, 16, 132, 3, 64}, {2, 16, 132, 4, 64},
        {3, 5, 7, 5, 16}, {1, 1, 132, 16, 67}}) {
    auto ctx = makeContext();
    // Free inputs: the worker, the worker count and the unit index.
    IndexFunction f(ctx.get(), 3);
    ImplicitLocOpBuilder &b = f.b;
    Value worker = f.args[0], count = f.args[1], u = f.args[2];
    Value zero = arith::ConstantIndexOp::create(b, 0);
    TileScheduler scheduler(b, arith::ConstantIndexOp::create(b, tilesM),
                            arith::ConstantIndexOp::create(b, tilesN),
                            /*clusterSize=*/1, /*groupWidth=*/8, Value(),
                            splitK);
    scheduler.distribute(Workers{worker, count, zero});
    Unit unit = scheduler.unitOf(u, arith::ConstantIndexOp::create(b, numK));

    std::map<std::tuple<int64_t, int64_t, int64_t>, int> steps;
    for (int64_t w = 0; w < workers; ++w) {
      IndexEvaluator ev;
      ev.bind(worker, w);
      ev.bind(count, workers);
      int64_t begin = ev(scheduler.getBegin()), end = ev(scheduler.getEnd()),
              step = ev(scheduler.getStep());
      EXPECT_EQ(end, tilesM * tilesN * splitK);
      for (int64_t v = begin; v < end; v += step) {
        ev.bind(u, v);
        int64_t split = ev(unit.split), kBegin = ev(unit.kBegin),
                kCount = ev(unit.kCount);
        EXPECT_EQ(ev(unit.tile), v / splitK);
        EXPECT_EQ(split, v % splitK);
        EXPECT_GE(kCount, numK / splitK) << "unit " << v;
        for (int64_t k = kBegin; k < kBegin + kCount; ++k)
          ++steps[{ev(unit.m), ev(unit.n), k}];
      }
    }
    EXPECT_EQ(static_cast<int64_t>(steps.size()), tilesM * tilesN * numK);
    for (auto &[key, visits] : steps)
      EXPECT_EQ(visits, 1);
  }
}

/// Tail split: the whole rounds' tiles whole, the last round's tiles split
/// s ways where s (the kernel's rule) is at least kMinTailSplit; every
/// (tile, k step) once; a split tile's units on different workers in the
/// last round; the IR and TileOrder agree on every unit. With segments
/// only a last round inside the last segment splits.
TEST(TileSchedulerTailSplit, UnitsCoverEveryStepOnceAndAgreeWithTileOrder) {
  struct Case {
    int64_t tilesM, tilesN, workers, maxSplit, numK, partial, counters,
        ways; // the split the rule gives
    int64_t segments = 1;
  };
  for (Case c : {Case{5, 32, 132, 4, 112, 1000, 1000, 4}, // 28 last: 4 ways
                 Case{9, 20, 132, 4, 108, 1000, 1000, 1}, // 48: 2, too few
                 // 2 ways after 2 whole rounds: 320 = 2 x 132 + 56.
                 Case{16, 20, 132, 4, 108, 1000, 1000, 2},
                 Case{16, 20, 132, 4, 108, 1, 1000, 1},   // room for 1
                 Case{4, 32, 132, 4, 64, 1000, 1000, 1},  // 128 of 132: 1
                 Case{3, 5, 7, 4, 16, 1000, 1000, 4},     // 1 last: 4 ways
                 Case{3, 5, 7, 8, 16, 3, 1000, 3},        // the room: 3
                 // Room for 2 (after 2 whole rounds: 2 ways), for 1: none.
                 Case{3, 5, 7, 8, 16, 2, 1000, 2},
                 Case{3, 5, 7, 8, 16, 1, 1000, 1},
                 Case{2, 11, 10, 4, 40, 1000, 0, 1},      // no counters
                 Case{1, 1, 132, 4, 67, 1000, 1000, 4},   // one tile
                 Case{8, 16, 128, 4, 64, 1000, 1000, 1},  // whole rounds
                 // Segments: 28 last of the second segment's 80: 4 ways;
                 // 4 of 16 (4 segments): 8; 8 last on 30 workers would
                 // split 3 ways, but the last segment has 2 tiles: none.
                 Case{10, 16, 132, 8, 64, 1000, 1000, 4, 2},
                 Case{4, 16, 60, 8, 64, 1000, 1000, 8, 4},
                 Case{4, 2, 30, 8, 64, 1000, 1000, 1, 4}}) {
    auto ctx = makeContext();
    IndexFunction f(ctx.get(), 3);
    ImplicitLocOpBuilder &b = f.b;
    Value worker = f.args[0], count = f.args[1], u = f.args[2];
    Value zero = arith::ConstantIndexOp::create(b, 0);
    Value numK = arith::ConstantIndexOp::create(b, c.numK);
    TileScheduler scheduler(b, arith::ConstantIndexOp::create(b, c.tilesM),
                            arith::ConstantIndexOp::create(b, c.tilesN),
                            /*clusterSize=*/1, /*groupWidth=*/8, Value(),
                            /*splitK=*/1, c.segments);
    scheduler.setTailSplit(c.maxSplit, c.partial, c.counters, numK);
    scheduler.distribute(Workers{worker, count, zero});
    Unit unit = scheduler.unitOf(u, numK);
    TileOrder order{c.tilesM, c.tilesN, 1, 8};
    order.segments = c.segments;
    order.tailSplit = c.maxSplit;
    order.tailPartialTiles = c.partial;
    order.tailCounterTiles = c.counters;
    ASSERT_EQ(order.tailWays(c.workers, c.numK), c.ways);
    int64_t tiles = c.tilesM * c.tilesN;
    int64_t whole = order.wholeTiles(c.workers, c.numK);
    std::map<std::tuple<int64_t, int64_t, int64_t>, int> steps;
    std::map<int64_t, std::set<int64_t>> workersOf; // split tile -> workers
    for (int64_t w = 0; w < c.workers; ++w) {
      IndexEvaluator ev;
      ev.bind(worker, w);
      ev.bind(count, c.workers);
      int64_t begin = ev(scheduler.getBegin()), end = ev(scheduler.getEnd()),
              step = ev(scheduler.getStep());
      ASSERT_EQ(begin, order.first(w, c.workers, c.numK));
      ASSERT_EQ(end, order.units(c.workers, c.numK));
      ASSERT_EQ(step, order.stride(c.workers, c.numK));
      for (int64_t v = begin; v < end; v += step) {
        ev.bind(u, v);
        TileOrder::Span span = order.unitAt(v, c.workers, c.numK);
        int64_t tile = ev(unit.tile), kBegin = ev(unit.kBegin),
                kCount = ev(unit.kCount), splits = ev(unit.splits);
        ASSERT_EQ(tile, span.tile) << "unit " << v;
        ASSERT_EQ(kBegin, span.kBegin) << "unit " << v;
        ASSERT_EQ(kBegin + kCount, span.kEnd) << "unit " << v;
        EXPECT_EQ(splits, tile >= whole ? c.ways : 1) << "unit " << v;
        if (splits > 1) {
          EXPECT_EQ(ev(unit.slot), tile - whole);
          EXPECT_GE(kCount, 1);
          workersOf[tile].insert(w);
          // In the last round: after every whole tile's round.
          EXPECT_GE(v, whole);
        }
        auto [m, n] = order.coords(tile, 0, step);
        ASSERT_EQ(ev(unit.m), m);
        ASSERT_EQ(ev(unit.n), n);
        for (int64_t k = kBegin; k < kBegin + kCount; ++k)
          ++steps[{m, n, k}];
      }
    }
    EXPECT_EQ(static_cast<int64_t>(steps.size()), tiles * c.numK);
    for (auto &[key, visits] : steps)
      EXPECT_EQ(visits, 1);
    for (auto &[tile, on] : workersOf)
      EXPECT_EQ(static_cast<int64_t>(on.size()), c.ways) << "tile " << tile;
  }
}

/// Segments (grid_tile_segments): for shard-like row counts that 8 does
/// not divide, every tile once, every linear index of a segment before the
/// next segment's (so a tile waits only on lower indices of a peer), no
/// group holding rows of two segments, and groups as wide as the segment
/// allows (8 + 1 for 9 row tiles, not 3 x 3).
TEST(TileSchedulerSegments, GroupsStayInsideSegments) {
  for (auto [segments, segmentRows, tilesN, width, rotateSegments] :
       {std::tuple{2, 9, 16, 8, 1}, {4, 9, 16, 8, 3}, {8, 3, 5, 8, 5},
        {2, 25, 14, 8, 0}, {3, 1, 7, 4, 2}, {2, 8, 16, 8, 1}}) {
    auto ctx = makeContext();
    IndexFunction f(ctx.get(), 1);
    ImplicitLocOpBuilder &b = f.b;
    Value t = f.args[0];
    int64_t tilesM = segments * segmentRows;
    TileScheduler scheduler(
        b, arith::ConstantIndexOp::create(b, tilesM),
        arith::ConstantIndexOp::create(b, tilesN), /*clusterSize=*/1, width,
        arith::ConstantIndexOp::create(b, rotateSegments * segmentRows),
        /*splitK=*/1, segments);
    auto [m, n] = scheduler.tileCoords(t);
    std::map<std::pair<int64_t, int64_t>, int> visits;
    // Rows of each group, a group being a run of tiles sharing a column.
    int64_t perSegment = segmentRows * tilesN;
    for (int64_t tile = 0; tile < tilesM * tilesN; ++tile) {
      IndexEvaluator ev;
      ev.bind(t, tile);
      int64_t mm = ev(m), nn = ev(n);
      ASSERT_LT(mm, tilesM);
      ASSERT_LT(nn, tilesN);
      ++visits[{mm, nn}];
      // The segment of a linear index, after the rotation.
      int64_t segment = (tile / perSegment + rotateSegments) % segments;
      EXPECT_EQ(mm / segmentRows, segment)
          << "tile " << tile << " of linear segment " << tile / perSegment
          << " lands in row " << mm;
      // Inside a segment: groups of `width` rows (the last one narrower),
      // row tiles fastest.
      int64_t inSegment = tile % perSegment;
      int64_t group = inSegment / (width * tilesN);
      int64_t rows = std::min<int64_t>(width, segmentRows - group * width);
      int64_t inGroup = inSegment % (width * tilesN);
      EXPECT_EQ(mm % segmentRows, group * width + inGroup % rows);
      EXPECT_EQ(nn, inGroup / rows);
    }
    EXPECT_EQ(static_cast<int64_t>(visits.size()), tilesM * tilesN);
    for (auto &[tile, count] : visits)
      EXPECT_EQ(count, 1);
  }
}

/// Segments on a distributed grid: the width narrows so that the rows of a
/// segment's group complete (their last tile's wave) before the wave that
/// needs the same rows of the next segment, wherever a segment is at least
/// a wave's rows (9 row tiles x 16 column tiles on 96 busy blocks: the
/// groups of 8 spanned two waves). Every tile still once.
TEST(TileSchedulerSegments, RowsCompleteAWaveBeforeTheNextSegmentNeedsThem) {
  for (auto [segments, segmentRows, tilesN, workers] :
       {std::tuple{2, 9, 16, 132}, {4, 9, 16, 132}, {2, 8, 16, 132},
        {4, 8, 16, 132}, {2, 32, 16, 132}, {2, 25, 56, 132},
        {4, 16, 28, 132}, {2, 12, 16, 132}}) {
    int64_t tilesM = segments * segmentRows;
    SegmentedTiles tiles = segmentedTiles(segments, segmentRows, tilesN, workers);
    int64_t wave = tiles.wave;
    // The last linear index of every row, and each index's row.
    std::map<int64_t, int64_t> rowEnd;
    std::vector<int64_t> rowOf(tilesM * tilesN);
    std::map<std::pair<int64_t, int64_t>, int> visits;
    for (int64_t tile = 0; tile < tilesM * tilesN; ++tile) {
      int64_t mm = tiles.coords[tile].first;
      ++visits[tiles.coords[tile]];
      rowOf[tile] = mm;
      rowEnd[mm] = std::max(rowEnd[mm], tile);
    }
    EXPECT_EQ(static_cast<int64_t>(visits.size()), tilesM * tilesN);
    if (segmentRows == 8 && tilesN == 16 && wave == 128) {
      // Segments of whole waves tiled by full groups keep the full width:
      // row tiles fastest in groups of 8 (tile 1 is row 1, not column 1).
      EXPECT_EQ(rowOf[1], 1);
    }
    int64_t waveRows = (wave + tilesN - 1) / tilesN;
    if (segmentRows < waveRows)
      continue; // a segment inside one wave: nothing can run ahead
    for (int64_t tile = segmentRows * tilesN; tile < tilesM * tilesN; ++tile) {
      int64_t before = rowOf[tile] - segmentRows; // same row, segment j - 1
      EXPECT_LT(rowEnd[before] / wave, tile / wave)
          << segments << " segments of " << segmentRows << " rows x "
          << tilesN << " columns, waves of " << wave << ": tile " << tile
          << " (row " << rowOf[tile] << ") waits on row " << before
          << ", which ends at tile " << rowEnd[before];
    }
  }
}

/// grid_tile_keep_width: where the segments would narrow (4 segments of 5
/// row tiles x 28 columns on 132 blocks: 5 rounds of 112 tiles, waves of 4
/// rows, so width 1), the groups keep the segment's rows (5, under the
/// width 8): tile 1 is row 1 of the first segment, not column 1. Segments
/// still come one after the other, and every tile once.
TEST(TileSchedulerSegments, KeepWidthKeepsTheGroups) {
  for (bool keep : {false, true}) {
    int64_t segments = 4, segmentRows = 5, tilesN = 28;
    int64_t tilesM = segments * segmentRows;
    SegmentedTiles tiles =
        segmentedTiles(segments, segmentRows, tilesN, /*workers=*/132, keep);
    std::map<std::pair<int64_t, int64_t>, int> visits;
    for (int64_t tile = 0; tile < tilesM * tilesN; ++tile) {
      auto [mm, nn] = tiles.coords[tile];
      ++visits[{mm, nn}];
      EXPECT_EQ(mm / segmentRows, tile / (segmentRows * tilesN));
      if (tile == 1) {
        EXPECT_EQ(mm, keep ? 1 : 0);
        EXPECT_EQ(nn, keep ? 0 : 1);
      }
    }
    EXPECT_EQ(static_cast<int64_t>(visits.size()), tilesM * tilesN);
  }
}

/// Segments of at most kUnnarrowedSegmentRows row tiles keep their groups:
/// 4 segments of 4 row tiles x 56 columns on 132 blocks (7 rounds of 128
/// tiles, waves of 3 rows) would narrow to 1-row groups, and run as one
/// group of 4 rows each (row tiles fastest over the segment); 2 rows the
/// same, 5 rows still narrow. Segments in order, every tile once.
TEST(TileSchedulerSegments, ShortSegmentsKeepTheirWidth) {
  for (int64_t segmentRows : {2, 4, 5}) {
    int64_t segments = 4, tilesN = 56, tilesM = segments * segmentRows;
    SegmentedTiles tiles =
        segmentedTiles(segments, segmentRows, tilesN, /*workers=*/132);
    bool kept = segmentRows <= kUnnarrowedSegmentRows;
    std::map<std::pair<int64_t, int64_t>, int> visits;
    for (int64_t tile = 0; tile < tilesM * tilesN; ++tile) {
      auto [mm, nn] = tiles.coords[tile];
      ++visits[{mm, nn}];
      EXPECT_EQ(mm / segmentRows, tile / (segmentRows * tilesN));
      if (kept) // row tiles fastest over the whole segment
        EXPECT_EQ(mm % segmentRows, tile % segmentRows) << "tile " << tile;
    }
    // The segment's last row at tile rows - 1 only where one group holds
    // them all (5 rows narrow to groups of 2 here).
    std::pair<int64_t, int64_t> last{segmentRows - 1, 0};
    EXPECT_EQ(tiles.coords[segmentRows - 1] == last, kept)
        << segmentRows << " rows a segment";
    EXPECT_EQ(static_cast<int64_t>(visits.size()), tilesM * tilesN);
  }
}

/// TileOrder (the schedule on integers, which the protocol checker replays)
/// and TileScheduler (the schedule built into kernels) agree on every
/// worker's units and every tile's coordinates: clusters, rotations,
/// split-K, segments with and without the narrowed groups, column runs.
TEST(TileOrder, AgreesWithTheBuiltSchedule) {
  struct Case {
    int64_t tilesM, tilesN, cluster, width, splitK, segments, rotate;
    int64_t interleave = 1, lag = 0;
    bool keep = false;
    /// grid_tile_column_block and the tile's columns (0: no runs).
    int64_t block = 0, tileN = 256;
  };
  for (Case c : {Case{8, 16, 1, 8, 1, 1, -1}, Case{18, 16, 1, 8, 1, 2, 9},
                 Case{36, 16, 1, 8, 1, 4, 27}, Case{16, 16, 1, 8, 1, 2, 0},
                 Case{4, 2, 1, 8, 1, 2, 2}, Case{8, 2, 1, 8, 1, 4, 6},
                 Case{50, 56, 1, 8, 1, 2, -1}, Case{12, 7, 2, 4, 1, 1, 3},
                 Case{16, 4, 2, 8, 1, 2, -1}, Case{9, 5, 1, 4, 3, 1, -1},
                 Case{7, 3, 1, 8, 2, 1, 4},
                 // grid_tile_interleave: exact shards, a remainder, rotated
                 // by a shard, clusters, split-K.
                 Case{64, 16, 1, 8, 1, 1, 32, 2}, Case{13, 5, 1, 8, 1, 1, -1, 4},
                 Case{24, 7, 1, 8, 1, 1, 18, 3}, Case{16, 4, 2, 8, 1, 1, 8, 2},
                 Case{10, 3, 1, 4, 3, 1, 5, 2}, Case{96, 3, 1, 8, 1, 1, 84, 8},
                 // grid_tile_lag: shorter and longer than a shard, a
                 // remainder, clusters, many shards.
                 Case{64, 16, 1, 16, 1, 1, 32, 2, 4},
                 Case{13, 5, 1, 8, 1, 1, -1, 4, 2},
                 Case{24, 7, 1, 8, 1, 1, 16, 3, 100},
                 Case{16, 4, 2, 8, 1, 1, 8, 2, 1},
                 Case{96, 3, 1, 16, 1, 1, 84, 8, 5},
                 // grid_tile_keep_width: segments that would narrow (5
                 // rows against waves of 4 to 5), rotated by a segment, a
                 // width past the segment.
                 Case{20, 28, 1, 8, 1, 4, 5, 1, 0, true},
                 Case{18, 16, 1, 8, 1, 2, 9, 1, 0, true},
                 Case{36, 16, 1, 4, 1, 4, -1, 1, 0, true},
                 // Segments of at most kUnnarrowedSegmentRows rows, which
                 // keep their width without the attribute: 4 and 2 rows
                 // (clusters of 2), and 5 that narrow.
                 Case{16, 56, 1, 8, 1, 4, 4}, Case{8, 28, 2, 8, 1, 2, 4},
                 Case{20, 28, 1, 8, 1, 4, 15},
                 // grid_tile_column_block: blocks the tile divides, blocks
                 // it does not (192-column tiles, 1000 columns), a block
                 // narrower than a tile (empty runs), one wider than the
                 // matrix, clusters, rotations, split-K.
                 Case{16, 32, 1, 8, 1, 1, -1, 1, 0, false, 4096},
                 Case{16, 56, 1, 8, 1, 1, -1, 1, 0, false, 3584},
                 Case{9, 24, 1, 8, 1, 1, 3, 1, 0, false, 2048, 192},
                 Case{8, 43, 1, 8, 1, 1, -1, 1, 0, false, 1000, 128},
                 Case{12, 7, 2, 4, 1, 1, 6, 1, 0, false, 512},
                 Case{5, 7, 1, 8, 1, 1, -1, 1, 0, false, 100},
                 Case{4, 3, 1, 8, 1, 1, -1, 1, 0, false, 100000, 128},
                 Case{9, 6, 1, 4, 3, 1, -1, 1, 0, false, 768}}) {
    auto ctx = makeContext();
    IndexFunction f(ctx.get(), 4);
    ImplicitLocOpBuilder &b = f.b;
    Value worker = f.args[0], count = f.args[1], rank = f.args[2],
          t = f.args[3];
    Value rotate = c.rotate >= 0 ? arith::ConstantIndexOp::create(b, c.rotate)
                                 : Value();
    TileScheduler scheduler(b, arith::ConstantIndexOp::create(b, c.tilesM),
                            arith::ConstantIndexOp::create(b, c.tilesN),
                            c.cluster, c.width, rotate, c.splitK, c.segments,
                            c.interleave, c.lag, 0, Value(), c.keep);
    if (c.block > 0)
      scheduler.setColumnBlock(c.block, c.tileN);
    scheduler.distribute(Workers{worker, count, rank});
    auto [m, n] = scheduler.tileCoords(t);
    TileOrder order{c.tilesM, c.tilesN, c.cluster, c.width,
                    c.splitK, c.segments, c.rotate, c.interleave, c.lag};
    order.keepWidth = c.keep;
    if (c.block > 0) {
      order.columnBlock = c.block;
      order.tileN = c.tileN;
    }
    for (int64_t workers : {1, 2, 3, 5, 16, 132}) {
      IndexEvaluator ev;
      ev.bind(count, workers);
      for (int64_t w = 0; w < workers; ++w) {
        ev.bind(worker, w);
        int64_t step = ev(scheduler.getStep());
        ASSERT_EQ(step, order.step(workers));
        ASSERT_EQ(ev(scheduler.getEnd()), order.numUnits());
        ASSERT_EQ(ev(scheduler.getBegin()), order.begin(w, workers));
      }
      int64_t step = order.step(workers);
      for (int64_t tile = 0; tile < order.numUnits() / c.splitK; ++tile)
        for (int64_t r = 0; r < c.cluster; ++r) {
          ev.bind(t, tile);
          ev.bind(rank, r);
          auto [om, on] = order.coords(tile, r, step);
          ASSERT_EQ(ev(m), om) << "tile " << tile << ", " << workers
                               << " workers, rank " << r;
          ASSERT_EQ(ev(n), on) << "tile " << tile << ", " << workers
                               << " workers, rank " << r;
        }
    }
  }
}

/// grid_tile_column_block = W: the column tiles go in runs, run j the
/// tiles whose last column lies in [j W, (j + 1) W): every tile once and
/// the runs in order (a tile of run j never before one of an earlier run),
/// with and without a tail split, and the groups within a run the plain
/// walk's over the run's columns. (TileOrder::AgreesWithTheBuiltSchedule
/// checks that the kernel's walk is this one.)
TEST(TileOrder, ColumnRunsVisitTheBlocksInOrder) {
  struct Case {
    int64_t tilesM, tilesN, tileN, block, cluster, width, rotate;
    int64_t tailSplit = 1;
  };
  constexpr int64_t kNumK = 16;
  for (Case c : {Case{16, 32, 256, 4096, 1, 8, -1},
                 Case{9, 24, 192, 2048, 1, 8, 3},
                 Case{8, 43, 128, 1000, 1, 8, -1},
                 Case{12, 7, 256, 512, 2, 4, 6},
                 Case{5, 7, 256, 100, 1, 8, -1},
                 Case{24, 16, 256, 1024, 1, 8, -1, 8}}) {
    TileOrder order{c.tilesM, c.tilesN, c.cluster, c.width,
                    1,        1,        c.rotate};
    order.columnBlock = c.block;
    order.tileN = c.tileN;
    if (c.tailSplit > 1) {
      order.tailSplit = c.tailSplit;
      order.tailPartialTiles = order.tailCounterTiles = 64;
    }
    auto runOf = [&](int64_t col) {
      return ((col + 1) * c.tileN - 1) / c.block;
    };
    for (int64_t workers : {1, 3, 16, 132}) {
      int64_t step = order.stride(workers, kNumK);
      std::set<std::pair<int64_t, int64_t>> seen;
      int64_t lastRun = 0;
      for (int64_t tile = 0; tile < c.tilesM / c.cluster * c.tilesN; ++tile)
        for (int64_t r = 0; r < c.cluster; ++r) {
          auto [m, n] = order.coords(tile, r, step);
          ASSERT_TRUE(m >= 0 && m < c.tilesM && n >= 0 && n < c.tilesN);
          EXPECT_TRUE(seen.insert({m, n}).second)
              << "tile (" << m << ", " << n << ") twice";
          EXPECT_GE(runOf(n), lastRun) << "tile " << tile << " goes back";
          lastRun = runOf(n);
        }
      EXPECT_EQ(int64_t(seen.size()), c.tilesM * c.tilesN);
      // Every unit once: a split unit's tile is a tile of the walk.
      int64_t units = order.units(workers, kNumK), covered = 0;
      for (int64_t u = 0; u < units; ++u) {
        auto span = order.unitAt(u, workers, kNumK);
        ASSERT_LT(span.tile, c.tilesM / c.cluster * c.tilesN);
        covered += span.kEnd - span.kBegin;
      }
      EXPECT_EQ(covered, c.tilesM / c.cluster * c.tilesN * kNumK);
    }
  }
  // Inside a run the walk is the plain one over the run's columns: 16 row
  // tiles, 8 columns in runs of 4, groups of 8 rows, rows fastest.
  TileOrder order{16, 8, 1, 8};
  order.columnBlock = 4 * 256;
  order.tileN = 256;
  EXPECT_EQ(order.coords(0, 0, 132), (std::pair<int64_t, int64_t>{0, 0}));
  EXPECT_EQ(order.coords(7, 0, 132), (std::pair<int64_t, int64_t>{7, 0}));
  EXPECT_EQ(order.coords(8, 0, 132), (std::pair<int64_t, int64_t>{0, 1}));
  EXPECT_EQ(order.coords(31, 0, 132), (std::pair<int64_t, int64_t>{7, 3}));
  EXPECT_EQ(order.coords(32, 0, 132), (std::pair<int64_t, int64_t>{8, 0}));
  EXPECT_EQ(order.coords(64, 0, 132), (std::pair<int64_t, int64_t>{0, 4}));
  EXPECT_EQ(order.coords(127, 0, 132), (std::pair<int64_t, int64_t>{15, 7}));
}

/// walk_m = W: the walk covers only its first min(W, tilesM) row tiles,
/// each of their tiles once (times split-K), at row (q + rotation) mod
/// tilesM for the walk's q-th row; W = 0 visits nothing; the IR (W a
/// run-time argument) and TileOrder agree on every worker's units and
/// every tile; busy workers' shares differ by at most one.
TEST(TileOrder, WalkBoundVisitsTheFirstRowsOfTheRotatedWalk) {
  struct Case {
    int64_t tilesM, tilesN, cluster, width, splitK, rotate, walk;
  };
  for (Case c : {// W < tilesM, plain and rotated (an all-gather matmul's
                 // peers: D = 4, 5 row tiles a shard, member 1).
                 Case{20, 8, 1, 8, 1, -1, 15}, Case{20, 8, 1, 8, 1, 10, 15},
                 Case{13, 3, 1, 4, 1, 6, 7}, Case{9, 5, 1, 8, 1, 8, 1},
                 // W = tilesM, W > tilesM (the whole walk), W = 0.
                 Case{13, 3, 1, 4, 1, 6, 13}, Case{13, 3, 1, 4, 1, 6, 40},
                 Case{7, 5, 1, 8, 1, -1, 9}, Case{13, 3, 1, 4, 1, 6, 0},
                 Case{8, 4, 1, 8, 1, -1, 0},
                 // Clusters (W whole clusters), split-K.
                 Case{12, 7, 2, 4, 1, 3, 6}, Case{16, 4, 2, 8, 1, 8, 16},
                 Case{12, 7, 4, 4, 1, -1, 8}, Case{16, 4, 2, 8, 1, 5, 0},
                 Case{9, 5, 1, 4, 3, 4, 5}, Case{7, 3, 1, 8, 2, -1, 7},
                 Case{7, 3, 1, 8, 2, 2, 0}}) {
    auto ctx = makeContext();
    IndexFunction f(ctx.get(), 5);
    ImplicitLocOpBuilder &b = f.b;
    Value worker = f.args[0], count = f.args[1], rank = f.args[2],
          t = f.args[3], walk = f.args[4];
    Value rotate =
        c.rotate >= 0 ? arith::ConstantIndexOp::create(b, c.rotate) : Value();
    TileScheduler scheduler(b, arith::ConstantIndexOp::create(b, c.tilesM),
                            arith::ConstantIndexOp::create(b, c.tilesN),
                            c.cluster, c.width, rotate, c.splitK,
                            /*segments=*/1, /*interleave=*/1, /*lag=*/0,
                            /*kRotation=*/0, walk);
    scheduler.distribute(Workers{worker, count, rank});
    auto [m, n] = scheduler.tileCoords(t);
    TileOrder order{c.tilesM, c.tilesN, c.cluster, c.width,
                    c.splitK, 1,        c.rotate};
    order.walkM = c.walk;
    int64_t rows = std::min(c.walk, c.tilesM);
    std::string where = "tilesM " + std::to_string(c.tilesM) + ", W " +
                        std::to_string(c.walk) + ", rotate " +
                        std::to_string(c.rotate);
    // A unit is a cluster's tiles (one per block).
    ASSERT_EQ(order.numUnits(), rows / c.cluster * c.tilesN * c.splitK)
        << where;
    for (int64_t workers : {1, 3, 16, 132}) {
      IndexEvaluator ev;
      ev.bind(count, workers);
      ev.bind(walk, c.walk);
      std::map<std::pair<int64_t, int64_t>, int64_t> visits;
      int64_t most = 0, fewest = INT64_MAX;
      int64_t step = order.step(workers);
      ASSERT_GT(step, 0) << where;
      for (int64_t w = 0; w < workers; ++w) {
        ev.bind(worker, w);
        ASSERT_EQ(ev(scheduler.getStep()), step) << where;
        ASSERT_EQ(ev(scheduler.getEnd()), order.numUnits()) << where;
        int64_t begin = order.begin(w, workers);
        ASSERT_EQ(ev(scheduler.getBegin()), begin) << where;
        int64_t units = 0;
        for (int64_t u = begin; u < order.numUnits(); u += step, ++units)
          for (int64_t r = 0; r < c.cluster; ++r) {
            int64_t tile = u / c.splitK;
            ev.bind(t, tile);
            ev.bind(rank, r);
            auto [om, on] = order.coords(tile, r, step);
            ASSERT_EQ(ev(m), om) << where << ", tile " << tile;
            ASSERT_EQ(ev(n), on) << where << ", tile " << tile;
            ++visits[{om, on}];
          }
        if (units > 0) {
          most = std::max(most, units);
          fewest = std::min(fewest, units);
        }
      }
      // Exactly the rotated walk's first `rows` row tiles, every column,
      // each tile once per split.
      EXPECT_EQ(static_cast<int64_t>(visits.size()), rows * c.tilesN)
          << where << ", " << workers << " workers";
      for (int64_t q = 0; q < rows; ++q)
        for (int64_t nn = 0; nn < c.tilesN; ++nn) {
          int64_t mm = (q + std::max<int64_t>(c.rotate, 0)) % c.tilesM;
          auto it = visits.find({mm, nn});
          EXPECT_TRUE(it != visits.end() && it->second == c.splitK)
              << where << ": tile (" << mm << ", " << nn << ") visited "
              << (it == visits.end() ? 0 : it->second) << " times";
        }
      if (most > 0)
        EXPECT_LE(most - fewest, 1) << where << ": unbalanced shares";
    }
  }
}

/// grid_tile_interleave = I: the walk's q-th row is row q / I of shard
/// q mod I (shards of floor(rows / I) rows, the rows past them in place),
/// before the rotation; every tile once; with I dividing the group width
/// and the rows, every group (and so every run of `width * tilesN` linear
/// tiles) holds width / I rows of each shard; for a row count known only
/// at run time (an argument of the kernel) the same order.
TEST(TileSchedulerInterleave, EveryShardInEveryGroup) {
  for (auto [tilesM, tilesN, width, shards, rotate] :
       {std::tuple{64, 16, 8, 2, 32}, {32, 32, 8, 2, 16}, {64, 16, 8, 4, 48},
        {16, 3, 8, 8, 14}, {13, 5, 8, 4, 0}, {7, 2, 4, 3, 2},
        {3, 4, 8, 4, 1}, {24, 14, 8, 3, 16}}) {
    auto ctx = makeContext();
    // Free inputs: the linear tile and the row-tile count (dynamic M).
    IndexFunction f(ctx.get(), 2);
    ImplicitLocOpBuilder &b = f.b;
    Value t = f.args[0], rows = f.args[1];
    TileScheduler scheduler(b, rows, arith::ConstantIndexOp::create(b, tilesN),
                            /*clusterSize=*/1, width,
                            arith::ConstantIndexOp::create(b, rotate),
                            /*splitK=*/1, /*segments=*/1, shards);
    auto [m, n] = scheduler.tileCoords(t);
    int64_t shardRows = tilesM / shards;
    std::map<std::pair<int64_t, int64_t>, int> visits;
    for (int64_t tile = 0; tile < tilesM * tilesN; ++tile) {
      IndexEvaluator ev;
      ev.bind(t, tile);
      ev.bind(rows, tilesM);
      int64_t mm = ev(m), nn = ev(n);
      ASSERT_LT(mm, tilesM);
      ASSERT_LT(nn, tilesN);
      ++visits[{mm, nn}];
      // The plain order's row q of the walk (groups of `width`, row tiles
      // fastest), then the interleave, then the rotation.
      int64_t group = tile / (width * tilesN);
      int64_t groupRows = std::min<int64_t>(width, tilesM - group * width);
      int64_t inGroup = tile % (width * tilesN);
      int64_t q = group * width + inGroup % groupRows;
      int64_t row = q < shardRows * shards
                        ? q % shards * shardRows + q / shards
                        : q;
      EXPECT_EQ(mm, (row + rotate) % tilesM)
          << "tile " << tile << ", " << shards << " shards of " << shardRows;
      EXPECT_EQ(nn, inGroup / groupRows);
    }
    EXPECT_EQ(static_cast<int64_t>(visits.size()), tilesM * tilesN);
    for (auto &[tile, count] : visits)
      EXPECT_EQ(count, 1);
    if (tilesM % shards != 0 || width % shards != 0 || tilesM % width != 0)
      continue;
    // Every group: width / shards rows of each shard (after the rotation
    // by whole shards, shard s is rows [s * shardRows, ...)).
    for (int64_t g = 0; g < tilesM / width; ++g) {
      std::map<int64_t, int> perShard;
      for (int64_t i = 0; i < width; ++i) {
        IndexEvaluator ev;
        ev.bind(t, g * width * tilesN + i);
        ev.bind(rows, tilesM);
        ++perShard[ev(m) / shardRows];
      }
      EXPECT_EQ(static_cast<int64_t>(perShard.size()), shards) << "group " << g;
      for (auto &[shard, count] : perShard)
        EXPECT_EQ(count, width / shards) << "group " << g << " shard " << shard;
    }
  }
}

/// grid_tile_lag = L: every tile once, and with L = 0 the plain
/// interleave's order. Row r of the last shard sits at least L walk rows
/// after row r of any other shard (L * I in the middle of the walk, less
/// at the tail, where the last shard's rows follow one another), so where
/// that is a whole group
/// (width) or more, every tile of row r of every other shard comes before
/// the first tile of the last shard's row r (the property a GEMM +
/// reduce-scatter's own tiles wait on); for a row count known only at run
/// time.
TEST(TileSchedulerInterleave, LastShardTrailsByTheLag) {
  for (auto [tilesM, tilesN, width, shards, lag] :
       {std::tuple{64, 16, 16, 2, 16}, {64, 16, 16, 2, 8}, {32, 32, 16, 2, 100},
        {64, 16, 16, 4, 5}, {64, 16, 8, 4, 8}, {16, 3, 8, 8, 1},
        {13, 5, 2, 4, 3}, {7, 2, 2, 3, 2}, {24, 14, 8, 3, 0},
        {4, 2, 16, 2, 65536}, {27, 5, 16, 3, 65536}, {18, 7, 16, 2, 5}}) {
    auto ctx = makeContext();
    IndexFunction f(ctx.get(), 2);
    ImplicitLocOpBuilder &b = f.b;
    Value t = f.args[0], rows = f.args[1];
    TileScheduler scheduler(b, rows, arith::ConstantIndexOp::create(b, tilesN),
                            /*clusterSize=*/1, width, /*rotateM=*/Value(),
                            /*splitK=*/1, /*segments=*/1, shards, lag);
    auto [m, n] = scheduler.tileCoords(t);
    TileOrder plain{tilesM, tilesN, 1, width, 1, 1, -1, shards, 0};
    int64_t shardRows = tilesM / shards;
    int64_t l = std::min<int64_t>(lag, shardRows);
    // Walk position of each tile; the last position of each (shard, row).
    std::map<std::pair<int64_t, int64_t>, int> visits;
    std::map<std::pair<int64_t, int64_t>, int64_t> lastOf, firstOf;
    for (int64_t tile = 0; tile < tilesM * tilesN; ++tile) {
      IndexEvaluator ev;
      ev.bind(t, tile);
      ev.bind(rows, tilesM);
      int64_t mm = ev(m), nn = ev(n);
      ++visits[{mm, nn}];
      if (lag == 0) {
        auto [pm, pn] = plain.coords(tile, 0, 0);
        EXPECT_EQ(mm, pm) << "tile " << tile;
        EXPECT_EQ(nn, pn) << "tile " << tile;
      }
      if (mm >= shardRows * shards)
        continue;
      std::pair<int64_t, int64_t> key{mm / shardRows, mm % shardRows};
      lastOf[key] = tile;
      if (!firstOf.count(key))
        firstOf[key] = tile;
    }
    EXPECT_EQ(static_cast<int64_t>(visits.size()), tilesM * tilesN);
    for (auto &[tile, count] : visits)
      EXPECT_EQ(count, 1);
    // A lag of a whole shard: the last shard after all the others, even
    // where a group of the walk would straddle the two (phases have their
    // own groups).
    if (l == shardRows && l > 0) {
      int64_t lastOther = -1, firstLast = tilesM * tilesN;
      for (auto &[key, tile] : lastOf)
        if (key.first + 1 < shards)
          lastOther = std::max(lastOther, tile);
      for (auto &[key, tile] : firstOf)
        if (key.first + 1 == shards)
          firstLast = std::min(firstLast, tile);
      EXPECT_LT(lastOther, firstLast) << "lag " << lag;
    }
    if (l == 0 || l < width)
      continue;
    for (int64_t r = 0; r < shardRows; ++r)
      for (int64_t s = 0; s + 1 < shards; ++s)
        EXPECT_LT(lastOf[std::make_pair(s, r)],
                  firstOf[std::make_pair(int64_t(shards - 1), r)])
            << "row " << r << " of the last shard, shard " << s << ", lag "
            << lag;
  }
}

/// k_rotation: the built k loop and TileOrder::kAt agree at every position
/// of every column tile, each tile's loop visits every k step once, column
/// tiles past ceil(numK / s) start at 0, and where s x column tiles covers
/// numK every k step is among some column tile's first s positions (what
/// an all-gather matmul's forwarding needs).
TEST(TileOrder, KRotationAgreesAndCoversEveryStep) {
  for (auto [tilesN, numK, s] :
       {std::tuple<int64_t, int64_t, int64_t>{22, 64, 3}, {16, 64, 4},
        {5, 7, 2}, {3, 64, 22}, {40, 16, 1}, {7, 7, 1}, {22, 64, 16},
        {20, 64, 4}, {6, 10, 7}}) {
    auto ctx = makeContext();
    IndexFunction f(ctx.get(), 2);
    ImplicitLocOpBuilder &b = f.b;
    Value worker = f.args[0], count = f.args[1];
    TileScheduler scheduler(b, arith::ConstantIndexOp::create(b, 1),
                            arith::ConstantIndexOp::create(b, tilesN), 1, 8,
                            Value(), 1, 1, 1, 0, s);
    scheduler.distribute(Workers{worker, count, Value()});
    Value kOf, positionOf, nOf, firstOf;
    scheduler.forEachStep(
        arith::ConstantIndexOp::create(b, numK),
        [&](Value, Value n, Value k, Value position, Value, Value first) {
          kOf = k;
          positionOf = position;
          nOf = n;
          firstOf = first;
        });
    TileOrder order{1, tilesN, 1, 8, 1, 1, -1, 1, 0, s};
    std::vector<int64_t> firstOwner(numK, -1);
    for (int64_t n = 0; n < tilesN; ++n) {
      std::vector<int> seen(numK, 0);
      for (int64_t position = 0; position < numK; ++position) {
        IndexEvaluator ev;
        ev.bind(worker, 0);
        ev.bind(count, 1);
        ev.bind(nOf, n);
        ev.bind(positionOf, position);
        int64_t k = ev(kOf);
        ASSERT_EQ(k, order.kAt(n, position, numK))
            << "column " << n << ", position " << position;
        // The unit's first step is its loop's first, wherever the
        // rotation starts it.
        EXPECT_EQ(ev(firstOf), position == 0 ? 1 : 0)
            << "column " << n << ", position " << position;
        ASSERT_GE(k, 0);
        ASSERT_LT(k, numK);
        ++seen[k];
        if (position < s && firstOwner[k] < 0)
          firstOwner[k] = n;
      }
      for (int64_t k = 0; k < numK; ++k)
        EXPECT_EQ(seen[k], 1) << "column " << n << " step " << k;
    }
    // Column tiles past the rotated ones start at 0.
    for (int64_t n = 0; n < tilesN; ++n) {
      if (n * s >= numK) {
        EXPECT_EQ(order.kAt(n, 0, numK), 0) << "column " << n;
      }
    }
    if (s * tilesN >= numK) {
      for (int64_t k = 0; k < numK; ++k) {
        EXPECT_GE(firstOwner[k], 0) << "step " << k << " is no column "
                                    << "tile's first " << s << " steps";
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Grids, TileSchedulerTest,
    ::testing::Values(Schedule{8, 16, 132, 1, 8, -1},   // fewer tiles
                      Schedule{64, 16, 132, 1, 8, -1},  // 1024 tiles
                      Schedule{7, 5, 4, 1, 8, -1},      // ragged groups
                      Schedule{13, 3, 5, 1, 4, 6},      // rotated
                      Schedule{16, 16, 66, 2, 8, -1},   // clusters of 2
                      Schedule{12, 7, 9, 4, 4, -1},     // clusters of 4
                      Schedule{8, 4, 3, 2, 2, 3},       // rotated clusters
                      Schedule{1, 1, 132, 1, 8, -1}));  // one tile

} // namespace
