//===- TileScheduler.cpp - the persistent tile schedule -------------------===//
//
// See TileScheduler.h for the contract.
//
//===----------------------------------------------------------------------===//

#include "weave/Dialect/Weave/Transforms/Pipeline/TileScheduler.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::weave::pipeline;

Workers Workers::hardware(ImplicitLocOpBuilder &b, int64_t clusterSize) {
  // Work is handed out per cluster (a cluster is [clusterSize, 1, 1], the
  // verifier checks): its blocks share its tiles.
  Workers w;
  w.worker = clusterSize > 1
                 ? Value(gpu::ClusterIdOp::create(b, gpu::Dimension::x))
                 : Value(gpu::BlockIdOp::create(b, gpu::Dimension::x));
  w.count = clusterSize > 1
                ? Value(gpu::ClusterDimOp::create(b, gpu::Dimension::x))
                : Value(gpu::GridDimOp::create(b, gpu::Dimension::x));
  w.clusterRank =
      clusterSize > 1
          ? Value(gpu::ClusterBlockIdOp::create(b, gpu::Dimension::x))
          : Value(arith::ConstantIndexOp::create(b, 0));
  return w;
}

TileScheduler::TileScheduler(ImplicitLocOpBuilder &b, Value numTilesM,
                             Value numTilesN, int64_t clusterSize,
                             int64_t groupWidth, Value rotateM, int64_t splitK,
                             int64_t segments, int64_t interleave, int64_t lag,
                             int64_t kRotation, Value walkM, bool keepWidth)
    : BuilderBase(b), numTilesM(numTilesM), numTilesN(numTilesN),
      rotateM(rotateM), bounded(walkM != nullptr), clusterSize(clusterSize),
      groupWidth(groupWidth), splitK(splitK), segments(segments),
      interleave(interleave), lag(lag), kRotation(kRotation),
      keepWidth(keepWidth) {
  numClusterRows = arith::DivUIOp::create(b, numTilesM, cIndex(clusterSize));
  // walk_m: the walk's first min(W, row tiles) row tiles (unsigned: a
  // negative W is the whole walk), in cluster-high rows (W is a multiple of
  // the cluster: the verifier, or the kernel's trap). Its groups are the
  // plain walk's over fewer rows; the rotation still wraps at numTilesM
  // (tileCoords), so an all-gather matmul's peer shards are one launch.
  walkRows = walkM ? Value(arith::DivUIOp::create(
                         b, arith::MinUIOp::create(b, walkM, numTilesM),
                         cIndex(clusterSize)))
                   : numClusterRows;
  segmentRows =
      segments > 1
          ? Value(arith::DivUIOp::create(b, numClusterRows, cIndex(segments)))
          : walkRows;
  if (interleave > 1)
    shardRows = arith::DivUIOp::create(b, numClusterRows, cIndex(interleave));
}

void TileScheduler::setTailSplit(int64_t maxSplit, int64_t partialTiles,
                                 int64_t counterTiles, Value numK) {
  tailMax = maxSplit;
  tailPartialTiles = partialTiles;
  tailCounterTiles = counterTiles;
  tailNumK = numK;
}

void TileScheduler::distribute(const Workers &workers) {
  clusterRank = workers.clusterRank;
  if (tailMax > 1 && splitK == 1) {
    // The whole rounds run whole tiles; the t tiles of the last, partial
    // round go s ways each, so that the round takes about 1/s of a tile
    // (the split units meet in the split-K fix-up). s: tailSplitWays
    // (MatmulTiling.h) in IR: the most that fit the idle workers (t * s <=
    // W), kMinTailSplitSteps k steps a unit at least, the workspace's
    // partials (s * t) and counters (t), kMinTailSplit at least.
    Value tiles = arith::MulIOp::create(b, walkRows, numTilesN);
    Value full = arith::DivUIOp::create(b, tiles, workers.count);
    Value whole = arith::MulIOp::create(b, full, workers.count);
    Value tail = arith::SubIOp::create(b, tiles, whole);
    Value some = arith::MaxUIOp::create(b, tail, cIndex(1));
    Value s = arith::MinUIOp::create(
        b, cIndex(tailMax), arith::DivUIOp::create(b, workers.count, some));
    s = arith::MinUIOp::create(
        b, s,
        arith::MaxUIOp::create(
            b, arith::DivUIOp::create(b, tailNumK, cIndex(kMinTailSplitSteps)),
            cIndex(1)));
    s = arith::MinUIOp::create(
        b, s, arith::DivUIOp::create(b, cIndex(tailPartialTiles), some));
    // (Fewer than kMinTailSplit ways, kMinLateTailSplit after
    // kLateTailSplitRounds whole rounds: none.)
    Value tooFew = arith::OrIOp::create(
        b,
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, s,
                              cIndex(kMinLateTailSplit)),
        arith::AndIOp::create(
            b,
            arith::CmpIOp::create(b, arith::CmpIPredicate::ult, s,
                                  cIndex(kMinTailSplit)),
            arith::CmpIOp::create(
                b, arith::CmpIPredicate::ult, tiles,
                arith::MulIOp::create(b, workers.count,
                                      cIndex(kLateTailSplitRounds)))));
    Value none = arith::OrIOp::create(
        b,
        arith::OrIOp::create(
            b, eq(tail, cIndex(0)),
            arith::CmpIOp::create(b, arith::CmpIPredicate::ugt, tail,
                                  cIndex(tailCounterTiles))),
        tooFew);
    // With segments, only a round inside the last segment splits: the
    // segments are phases whose tiles may wait for work of earlier ones
    // elsewhere (the all-gather ring forwards a shard's rows from its
    // tiles' step regions), and a split unit runs only part of its
    // tile's steps.
    if (segments > 1)
      none = arith::OrIOp::create(
          b, none,
          arith::CmpIOp::create(b, arith::CmpIPredicate::ugt, tail,
                                arith::MulIOp::create(b, segmentRows,
                                                      numTilesN)));
    tailSplits = arith::SelectOp::create(
        b, none, cIndex(1), arith::MaxUIOp::create(b, s, cIndex(1)));
    Value split = arith::CmpIOp::create(b, arith::CmpIPredicate::ugt,
                                        tailSplits, cIndex(1));
    wholeTiles = arith::SelectOp::create(b, split, whole, tiles);
    numTiles = arith::AddIOp::create(
        b, wholeTiles,
        arith::MulIOp::create(b, arith::SubIOp::create(b, tiles, wholeTiles),
                              tailSplits));
    // Split: one unit a worker a round (the split units fill the last
    // round, t * s <= W). Unsplit: the balanced walk below.
    Value rounds = arith::MaxUIOp::create(b, ceilDiv(numTiles, workers.count),
                                          cIndex(1));
    tileStep = arith::SelectOp::create(b, split, workers.count,
                                       ceilDiv(numTiles, rounds));
    tilesBegin = arith::SelectOp::create(
        b,
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, workers.worker,
                              tileStep),
        workers.worker, numTiles);
    return;
  }
  // Balanced: the grid needs ceil(tiles / workers) rounds; spread the tiles
  // over the fewest workers that need no more rounds (the rest get none),
  // so every busy worker has the same count give or take one. 1024 tiles
  // on 132 blocks: 128 blocks x 8 rounds instead of 100 x 8 + 32 x 7: the
  // same critical path, 0.5-1% faster at 2048x4096x4096 and 4096^3 on one
  // H200 (docs/PERF.md).
  numTiles = arith::MulIOp::create(b, walkRows, numTilesN);
  if (splitK > 1)
    numTiles = arith::MulIOp::create(b, numTiles, cIndex(splitK));
  Value rounds = arith::MaxUIOp::create(b, ceilDiv(numTiles, workers.count),
                                        cIndex(1));
  tileStep = ceilDiv(numTiles, rounds);
  // An empty bounded walk (W = 0) has step 0: keep it 1, or a constant W
  // would fold the tile loop to a zero step, which scf.for rejects.
  if (bounded)
    tileStep = arith::MaxUIOp::create(b, tileStep, cIndex(1));
  tilesBegin = arith::SelectOp::create(
      b,
      arith::CmpIOp::create(b, arith::CmpIPredicate::ult, workers.worker,
                            tileStep),
      workers.worker, numTiles);
}

std::pair<Value, Value> TileScheduler::tileCoords(Value t) {
  // Segments (equal runs of rows) one after the other; inside one, groups
  // of `groupWidth` row tiles, row tiles fastest inside a group:
  // consecutive blocks share the rhs column tile and nearby lhs rows in L2.
  // A segment's last group is narrower where the width does not divide it,
  // so a group never holds rows of two segments (an all-gather's shards:
  // 9 row tiles a shard go as 8 + 1, not as 3 groups of 3).
  // (In units of cluster-high rows; the verifier keeps the width a
  // multiple of clusterSize.)
  Value firstOfSegment = cIndex(0);
  if (segments > 1) {
    Value perSegment = arith::MulIOp::create(b, segmentRows, numTilesN);
    firstOfSegment = arith::MulIOp::create(
        b, arith::DivUIOp::create(b, t, perSegment), segmentRows);
    t = arith::RemUIOp::create(b, t, perSegment);
  }
  // Column runs (setColumnBlock; TileOrder::coords has the same
  // arithmetic): run j is the column tiles [firstN, firstN + runN) whose
  // last column lies in [j W, (j + 1) W), the linear tiles [firstN * rows,
  // (firstN + runN) * rows), rows = segmentRows (all of them: no segments
  // with a column block).
  Value firstN, runN = numTilesN;
  if (columnBlock > 0) {
    Value w = cIndex(columnBlock), tn = cIndex(columnTileN);
    Value c = arith::DivUIOp::create(b, t, segmentRows);
    Value lastColumn = arith::SubIOp::create(
        b, arith::MulIOp::create(b, arith::AddIOp::create(b, c, cIndex(1)), tn),
        cIndex(1));
    Value j = arith::DivUIOp::create(b, lastColumn, w);
    auto runStart = [&](Value run) -> Value {
      return arith::MinUIOp::create(
          b,
          arith::DivUIOp::create(b, arith::MulIOp::create(b, run, w), tn),
          numTilesN);
    };
    firstN = runStart(j);
    runN = arith::SubIOp::create(
        b, runStart(arith::AddIOp::create(b, j, cIndex(1))), firstN);
    t = arith::SubIOp::create(b, t,
                              arith::MulIOp::create(b, firstN, segmentRows));
  }
  Value width = cIndex(groupWidth / clusterSize);
  if (segments > 1 && splitK == 1 && tileStep && !keepWidth) {
    // Narrower groups where a wave is long against a segment: a consumer
    // of segment j waits on the rows of segment j - 1 on another device,
    // which complete only when their whole group has run. A group of w rows
    // ends at most w * N tiles after it starts and its rows are needed S
    // tiles after that (S = segment rows x N), so with w <= rows - (rows a
    // wave covers) it ends a wave before: no block waits a whole tile. (9
    // row tiles a shard, 16 column tiles, 96 busy blocks: width 3, not 8,
    // whose groups of 128 tiles spanned two waves and left every block of
    // the second waiting on the first: 1.7-1.8x the time of 8 row tiles.)
    // Where the segments are whole waves and the full groups tile a wave
    // (8 row tiles x 16 columns on 128 busy blocks) every group lies in one
    // wave and the next segment's rows in a later one: the full width
    // stays (the 1-row groups this rule would give there measured 5%
    // slower at m_shard 1024, H100). Segments of at most
    // kUnnarrowedSegmentRows rows keep the width too: the 1- and 2-row
    // groups the rule gives there read nearly all of b every wave, which
    // cost more than the waits (MatmulTiling.h has the measurement).
    Value waveRows = ceilDiv(tileStep, numTilesN);
    Value slack = arith::SelectOp::create(
        b,
        arith::CmpIOp::create(b, arith::CmpIPredicate::ugt, segmentRows,
                              waveRows),
        arith::SubIOp::create(b, segmentRows, waveRows), cIndex(1));
    Value narrowed = arith::MaxUIOp::create(
        b, arith::MinUIOp::create(b, slack, width), cIndex(1));
    Value zero = cIndex(0);
    Value segmentTiles = arith::MulIOp::create(b, segmentRows, numTilesN);
    Value fullGroup = arith::MulIOp::create(b, width, numTilesN);
    Value aligned = arith::AndIOp::create(
        b,
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                              arith::RemUIOp::create(b, segmentTiles, tileStep),
                              zero),
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                              arith::RemUIOp::create(b, tileStep, fullGroup),
                              zero));
    Value shortSegment =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ule, segmentRows,
                              cIndex(kUnnarrowedSegmentRows / clusterSize));
    width = arith::SelectOp::create(
        b, arith::OrIOp::create(b, aligned, shortSegment), width, narrowed);
  }
  // With a lag the walk has phases (the head, where the last shard has no
  // turn, the middle, the last shard's tail, the rows past the shards),
  // each in its own groups, as segments are: a group straddling two phases
  // would visit, column tile by column tile, a row of the last shard
  // before the other shards' same row in a later column (TileOrder::coords
  // has the same arithmetic).
  Value phaseFirst, phaseRows = segmentRows;
  if (interleave > 1 && lag > 0) {
    Value l = arith::MinUIOp::create(b, cIndex(lag), shardRows);
    Value head = arith::MulIOp::create(b, l, cIndex(interleave - 1));
    Value midEnd = arith::AddIOp::create(
        b, head,
        arith::MulIOp::create(b, arith::SubIOp::create(b, shardRows, l),
                              cIndex(interleave)));
    Value shardsEnd = arith::MulIOp::create(b, shardRows, cIndex(interleave));
    auto past = [&](Value row) {
      return arith::CmpIOp::create(b, arith::CmpIPredicate::uge, t,
                                   arith::MulIOp::create(b, row, numTilesN));
    };
    Value inMid = past(head), inTail = past(midEnd), inRest = past(shardsEnd);
    auto pick = [&](Value rest, Value tail, Value mid, Value first) -> Value {
      return arith::SelectOp::create(
          b, inRest, rest,
          arith::SelectOp::create(
              b, inTail, tail, arith::SelectOp::create(b, inMid, mid, first)));
    };
    phaseFirst = pick(shardsEnd, midEnd, head, cIndex(0));
    Value phaseEnd = pick(segmentRows, shardsEnd, midEnd, head);
    phaseRows = arith::SubIOp::create(b, phaseEnd, phaseFirst);
    t = arith::SubIOp::create(b, t,
                              arith::MulIOp::create(b, phaseFirst, numTilesN));
  }
  Value perGroup = arith::MulIOp::create(b, width, runN);
  Value group = arith::DivUIOp::create(b, t, perGroup);
  Value firstM = arith::MulIOp::create(b, group, width);
  Value groupRows = arith::MinUIOp::create(
      b, arith::SubIOp::create(b, phaseRows, firstM), width);
  Value inGroup = arith::RemUIOp::create(b, t, perGroup);
  Value m = arith::AddIOp::create(
      b, firstM, arith::RemUIOp::create(b, inGroup, groupRows));
  if (segments > 1)
    m = arith::AddIOp::create(b, m, firstOfSegment);
  if (phaseFirst)
    m = arith::AddIOp::create(b, m, phaseFirst);
  Value n = arith::DivUIOp::create(b, inGroup, groupRows);
  if (firstN)
    n = arith::AddIOp::create(b, n, firstN);
  if (interleave > 1) {
    // The shards' rows interleaved (TileOrder::interleaved has the same
    // arithmetic on integers): position m is row m / I of shard m mod I,
    // a shard being floor(rows / I) cluster-high rows; rows past the I
    // shards (a count I does not divide) keep their place. A GEMM +
    // reduce-scatter's owners are the shards: each wave then holds every
    // owner's tiles, so its remote stores are a share of its boxes rather
    // than all of them, while a group still spans `groupWidth` row tiles
    // and reuses each column tile of the rhs in L2 (what 64-row groups,
    // the other way to mix owners in a wave, give up at large K x N:
    // docs/PERF.md, issue #31).
    Value shards = cIndex(interleave);
    Value inShards = arith::CmpIOp::create(
        b, arith::CmpIPredicate::ult, m,
        arith::MulIOp::create(b, shardRows, shards));
    Value spread;
    if (lag == 0) {
      spread = arith::AddIOp::create(
          b,
          arith::MulIOp::create(b, arith::RemUIOp::create(b, m, shards),
                                shardRows),
          arith::DivUIOp::create(b, m, shards));
    } else {
      // The last shard trails by L = min(lag, shard rows) of its rows
      // (TileOrder::interleaved has the same arithmetic): a head of L rows
      // of the other I - 1 shards in turns, a middle where every shard
      // takes a turn (the last one L rows behind), a tail of the last
      // shard's final L rows. A GEMM + reduce-scatter's own shard (last
      // after rotate_m from the next member) then comes L rows after the
      // peers computed the same rows, so its epilogue's wait for their
      // contributions finds them there, while most waves still mix owners.
      Value last = cIndex(interleave - 1);
      Value l = arith::MinUIOp::create(b, cIndex(lag), shardRows);
      Value head = arith::MulIOp::create(b, l, last);
      Value rest = arith::SubIOp::create(b, shardRows, l);
      Value mid = arith::MulIOp::create(b, rest, shards);
      auto lt = [&](Value x, Value y) {
        return arith::CmpIOp::create(b, arith::CmpIPredicate::ult, x, y);
      };
      auto at = [&](Value shard, Value row) -> Value {
        return arith::AddIOp::create(
            b, arith::MulIOp::create(b, shard, shardRows), row);
      };
      // Head: row q / (I - 1) of shard q mod (I - 1).
      Value inHead = at(arith::RemUIOp::create(b, m, last),
                        arith::DivUIOp::create(b, m, last));
      // Middle: turn j = q' / I, shard k = q' mod I; shard I - 1 takes row
      // j, the others row L + j.
      Value q = arith::SubIOp::create(b, m, head);
      Value j = arith::DivUIOp::create(b, q, shards);
      Value k = arith::RemUIOp::create(b, q, shards);
      Value inMid = arith::SelectOp::create(
          b, lt(k, last), at(k, arith::AddIOp::create(b, l, j)), at(last, j));
      // Tail: the last shard's rows from shardRows - L.
      Value inTail = at(last, arith::AddIOp::create(
                                  b, rest, arith::SubIOp::create(b, q, mid)));
      spread = arith::SelectOp::create(
          b, lt(m, head), inHead,
          arith::SelectOp::create(b, lt(q, mid), inMid, inTail));
    }
    m = arith::SelectOp::create(b, inShards, spread, m);
  }
  if (clusterSize > 1)
    m = arith::AddIOp::create(
        b, arith::MulIOp::create(b, m, cIndex(clusterSize)), clusterRank);
  if (rotateM)
    m = arith::RemUIOp::create(b, arith::AddIOp::create(b, m, rotateM),
                               numTilesM);
  return {m, n};
}

Unit TileScheduler::unitOf(Value u, Value numK) {
  Unit unit;
  if (tailSplits) {
    // Units past the whole tiles: split u' mod s of tile D + u' / s.
    Value inTail =
        arith::CmpIOp::create(b, arith::CmpIPredicate::uge, u, wholeTiles);
    Value splits = arith::SelectOp::create(b, inTail, tailSplits, cIndex(1));
    Value past = arith::SelectOp::create(
        b, inTail, arith::SubIOp::create(b, u, wholeTiles), cIndex(0));
    unit.slot = arith::DivUIOp::create(b, past, splits);
    unit.split = arith::RemUIOp::create(b, past, splits);
    unit.tile = arith::SelectOp::create(
        b, inTail, arith::AddIOp::create(b, wholeTiles, unit.slot), u);
    unit.splits = splits;
    auto bound = [&](Value j) {
      return arith::DivUIOp::create(b, arith::MulIOp::create(b, j, numK),
                                    splits);
    };
    unit.kBegin = bound(unit.split);
    unit.kCount = arith::SubIOp::create(
        b, bound(arith::AddIOp::create(b, unit.split, cIndex(1))),
        unit.kBegin);
  } else if (splitK == 1) {
    unit.tile = u;
    unit.split = cIndex(0);
    unit.kBegin = cIndex(0);
    unit.kCount = numK;
    unit.splits = cIndex(1);
    unit.slot = u;
  } else {
    // Balanced k ranges: every split gets floor(numK / s) steps or one
    // more, and none is empty (the verifier keeps s <= numK).
    unit.tile = arith::DivUIOp::create(b, u, cIndex(splitK));
    unit.split = arith::RemUIOp::create(b, u, cIndex(splitK));
    auto bound = [&](Value j) {
      return arith::DivUIOp::create(b, arith::MulIOp::create(b, j, numK),
                                    cIndex(splitK));
    };
    unit.kBegin = bound(unit.split);
    unit.kCount = arith::SubIOp::create(
        b, bound(arith::AddIOp::create(b, unit.split, cIndex(1))),
        unit.kBegin);
    unit.splits = cIndex(splitK);
    unit.slot = unit.tile;
  }
  std::tie(unit.m, unit.n) = tileCoords(unit.tile);
  return unit;
}

Value TileScheduler::forEachUnit(
    Value numK, function_ref<Value(const Unit &, Value)> body) {
  auto tiles = scf::ForOp::create(b, tilesBegin, numTiles, tileStep,
                                  ValueRange{cIndex(0)});
  b.setInsertionPointToStart(tiles.getBody());
  Unit unit = unitOf(tiles.getInductionVar(), numK);
  Value end = body(unit, tiles.getRegionIterArg(0));
  scf::YieldOp::create(b, ValueRange{end});
  b.setInsertionPointAfter(tiles);
  return tiles.getResult(0);
}

Value TileScheduler::forEachStep(
    Value numK, StepFn body, function_ref<void(Value, Value, Value)> afterTile) {
  return forEachUnit(numK, [&](const Unit &unit, Value first) {
    if (tailSplits) {
      // A whole tile's loop as without the split (constant bounds: the
      // compiler unrolls it as before), a split unit's over its range.
      // One dynamic loop for both ran the unsplit kernels up to 12%
      // slower (one H100: 512x4096x4096 in one round, 0.0256 -> 0.0287
      // ms, nothing split).
      Type index = b.getIndexType();
      auto whole = scf::IfOp::create(b, TypeRange{index},
                                     eq(unit.splits, cIndex(1)),
                                     /*withElseRegion=*/true);
      b.setInsertionPointToStart(whole.thenBlock());
      scf::YieldOp::create(
          b, stepLoop(unit, cIndex(0), numK, numK, first, body));
      b.setInsertionPointToStart(whole.elseBlock());
      scf::YieldOp::create(
          b, stepLoop(unit, unit.kBegin,
                      arith::AddIOp::create(b, unit.kBegin, unit.kCount),
                      numK, first, body));
      b.setInsertionPointAfter(whole);
      if (afterTile)
        afterTile(unit.m, unit.n, whole.getResult(0));
      return whole.getResult(0);
    }
    Value kEnd = splitK == 1 ? numK
                             : Value(arith::AddIOp::create(b, unit.kBegin,
                                                           unit.kCount));
    Value end = stepLoop(unit, unit.kBegin, kEnd, numK, first, body);
    if (afterTile)
      afterTile(unit.m, unit.n, end);
    return end;
  });
}

Value TileScheduler::stepLoop(const Unit &unit, Value kBegin, Value kEnd,
                              Value numK, Value first, StepFn body) {
  // The rotated loop's first step, once per tile (no split: kBegin = 0):
  // n * s where that is a step, else 0.
  Value kStart;
  if (kRotation > 0) {
    Value start = arith::MulIOp::create(b, unit.n, cIndex(kRotation));
    Value inside =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, start, numK);
    kStart = arith::SelectOp::create(b, inside, start, cIndex(0));
  }
  auto steps = scf::ForOp::create(b, kBegin, kEnd, cIndex(1),
                                  ValueRange{first});
  b.setInsertionPointToStart(steps.getBody());
  Value step = steps.getRegionIterArg(0);
  Value position = steps.getInductionVar(), k = position;
  if (kRotation > 0) {
    // start + position, wrapped once (both below numK).
    Value sum = arith::AddIOp::create(b, kStart, position);
    Value wraps =
        arith::CmpIOp::create(b, arith::CmpIPredicate::uge, sum, numK);
    k = arith::SelectOp::create(b, wraps,
                                arith::SubIOp::create(b, sum, numK), sum);
  }
  body(unit.m, unit.n, k, position, step, eq(position, kBegin));
  scf::YieldOp::create(
      b, ValueRange{arith::AddIOp::create(b, step, cIndex(1))});
  b.setInsertionPointAfter(steps);
  return steps.getResult(0);
}
