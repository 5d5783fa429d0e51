//===- ConfigChooserTest.cpp - the per-shape configuration chooser --------===//
//
// chooseMatmulConfig against its contract (Pipeline/ConfigChooser.h): wave
// quantization, rows off the 32-byte grid, constraints, dynamic M, split-K
// only with a workspace, and shared memory that fits.
//
//===----------------------------------------------------------------------===//

#include "weave/Dialect/Weave/Transforms/Pipeline/ConfigChooser.h"
#include "weave/Dialect/Weave/Transforms/Pipeline/SmemArena.h"
#include "weave/Dialect/Weave/Utils/MatmulTiling.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

using namespace mlir::weave::pipeline;

namespace {

MatmulProblem problem(int64_t m, int64_t n, int64_t k, int64_t outBytes = 2) {
  MatmulProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.outBytes = outBytes;
  return p;
}

MatmulConfig choose(const MatmulProblem &p, const MatmulConstraints &c = {}) {
  std::optional<MatmulConfig> config = chooseMatmulConfig(p, c);
  EXPECT_TRUE(config.has_value());
  return config.value_or(MatmulConfig{});
}

TEST(ConfigChooser, WholeWavesKeep128x256) {
  // 8 x 16 = 128 tiles on 132 SMs, and 4096^2 and 8192^3 many full rounds.
  for (auto [m, n, k] : {std::tuple{1024, 4096, 4096}, {4096, 4096, 4096},
                         {8192, 8192, 8192}, {6144, 11008, 4096}}) {
    MatmulConfig c = choose(problem(m, n, k));
    EXPECT_EQ(c.tileM, 128) << m << "x" << n << "x" << k;
    EXPECT_EQ(c.tileN, 256) << m << "x" << n << "x" << k;
    EXPECT_EQ(c.consumers, 2);
    EXPECT_EQ(c.splitK, 1);
  }
}

TEST(ConfigChooser, HalfAWaveTakesSmallerTiles) {
  // 512 rows: 64 tiles of 128x256 on 132 SMs; smaller tiles fill them.
  MatmulConfig c = choose(problem(512, 4096, 4096));
  EXPECT_LT(c.tileM * c.tileN, 128 * 256) << c.name();
  // 3072x2048: 192 tiles of 128x256 are 1.45 waves.
  MatmulConfig d = choose(problem(3072, 2048, 8192));
  EXPECT_LT(d.tileM * d.tileN, 128 * 256) << d.name();
}

TEST(ConfigChooser, OneRoundOf128x192WhereTwoOf128x128) {
  // 640 and 768 rows of 4096 columns: 110 and 132 tiles of 128x192 make one
  // round, where 128x128 makes two (160, 192 tiles) and 128x256 one round
  // of longer tiles (80, 96); the all-gather matmul's shard launches at
  // m_shard 640 and 768. 896 rows: 154 tiles of 128x192 are two rounds,
  // 112 of 128x256 one.
  for (int64_t m : {640, 768}) {
    MatmulConfig c = choose(problem(m, 4096, 4096));
    EXPECT_EQ(c.tileM, 128) << m << ": " << c.name();
    EXPECT_EQ(c.tileN, 192) << m << ": " << c.name();
  }
  MatmulConfig c = choose(problem(896, 4096, 4096));
  EXPECT_EQ(c.tileN, 256) << c.name();
  // The dynamic instance's variant of that band is the same.
  std::vector<MatmulVariant> v = chooseMatmulVariants(problem(-1, 4096, 4096));
  auto at = [&](int64_t m) {
    for (const MatmulVariant &x : v)
      if (x.mLo <= m && m <= x.mHi)
        return x.config;
    return MatmulConfig{};
  };
  EXPECT_EQ(at(640).tileN, 192) << at(640).name();
  EXPECT_EQ(at(768).tileN, 192) << at(768).name();
}

TEST(ConfigChooser, EstimateCountsRounds) {
  MatmulConfig c; // 128x256
  // 128 tiles: one round; 136 tiles: two.
  double one = estimateMatmulCycles(problem(1024, 4096, 4096), c);
  double two = estimateMatmulCycles(problem(1024 + 64, 4096, 4096), c);
  EXPECT_GT(two, 1.8 * one - 12000);
  // More SMs, fewer rounds.
  MatmulProblem wide = problem(1024 + 64, 4096, 4096);
  wide.smCount = 264;
  EXPECT_LT(estimateMatmulCycles(wide, c), two);
}

TEST(ConfigChooser, RhsRowsOffTheGridShareOrHalveTheRhs) {
  // 4040 f16 = 8080 bytes a row: off the 32-byte grid. A cluster of 2, or
  // 128 rhs columns per block, never plain 128x256.
  for (auto [m, n, k] : {std::tuple{1000, 4040, 4000}, {2000, 4040, 4000},
                         {4096, 4040, 4096}}) {
    MatmulConfig c = choose(problem(m, n, k));
    EXPECT_LE(c.tileN / c.clusterM, 128) << c.name();
  }
  // The same shape with N on the grid keeps 128x256 unclustered.
  MatmulConfig aligned = choose(problem(4096, 4096, 4096));
  EXPECT_EQ(aligned.clusterM, 1);
}

TEST(ConfigChooser, RowsOffTheGridLoadAtHalfTheRate) {
  // Either operand's rows off the 32-byte grid cost where the loads set the
  // pace: nothing for 128 x 256 with a's rows off (its steps are mostly
  // b's), for b's rows off or both, and most for 128 x 128 (measured:
  // 1.040, 0.858 and 0.755 of cuBLAS for 128 x 256; 0.745, 0.701, 0.576
  // for 128 x 128; docs/PERF.md "The all-gather matmul at odd k and n").
  MatmulConfig wide; // 128 x 256
  MatmulConfig narrow;
  narrow.tileN = 128;
  narrow.stages = 6;
  auto cost = [](const MatmulConfig &c, int64_t n, int64_t k) {
    return estimateMatmulCycles(problem(2304, n, k), c) /
           estimateMatmulCycles(problem(2304, 7168, 2048), c);
  };
  EXPECT_NEAR(cost(wide, 7168, 2056), 1.0, 0.05);
  EXPECT_GT(cost(wide, 7000, 2048), 1.15);
  EXPECT_GT(cost(wide, 7000, 2056), cost(wide, 7000, 2048) + 0.1);
  EXPECT_GT(cost(narrow, 7168, 2056), 1.25);
  EXPECT_GT(cost(narrow, 7000, 2056), 1.6);
  // The chooser then takes the pair that halves b's rows: 1792 x 6008 x
  // 3000 ran 128 x 256 cluster_m(2) at 0.954 of cuBLAS, the 128 x 128
  // pair the older rule took at 0.813.
  MatmulConfig c = choose(problem(1792, 6008, 3000));
  EXPECT_EQ(c.tileN, 256) << c.name();
  EXPECT_EQ(c.clusterM, 2) << c.name();
}

TEST(ConfigChooser, ClustersPadOddRowTilesUnlessARegionForbids) {
  MatmulConstraints c;
  c.clusterM = 2;
  // 129 rows: 2 row tiles of 128 or one of 256 (padded by one to a pair):
  // both are candidates, and a padded pair costs a whole pair at least
  // (more: its real tile streams the rhs more slowly beside a padded one).
  bool padded = false;
  for (const MatmulConfig &cand : candidateConfigs(problem(129, 4096, 512)))
    padded |= cand.clusterM == 2 && cand.tileM == 256;
  EXPECT_TRUE(padded);
  MatmulConfig pair;
  pair.tileM = 256;
  pair.tileN = 128;
  pair.clusterM = 2;
  EXPECT_GE(estimateMatmulCycles(problem(129, 4096, 512), pair),
            estimateMatmulCycles(problem(512, 4096, 512), pair));
  // Where a region would see the padded tile, only pairs that exist.
  c.padRowTiles = false;
  MatmulConfig config = choose(problem(300, 4040, 512), c);
  EXPECT_EQ(config.clusterM, 2);
  EXPECT_EQ((300 + config.tileM - 1) / config.tileM % 2, 0) << config.name();
  EXPECT_FALSE(chooseMatmulConfig(problem(-1, 4096, 4096), c));
  // A dynamic M may take a cluster.
  c.padRowTiles = true;
  EXPECT_EQ(choose(problem(-1, 4096, 4096), c).clusterM, 2);
}

TEST(ConfigChooser, OneRowTileStreamsWithoutPaddedPairs) {
  // 128 rows of 14336 x 8192: the rhs streams from DRAM, every candidate
  // DRAM-bound in the model. A 128 x 256 cluster pairs each tile with a
  // padded one and ran 1.26x the unclustered 128 x 128 (one H200), so it
  // no longer ties; 256 rows fill the pair and keep it. With the slack
  // term (kBoundSlackShare) the one-consumer 64 x 256 pair, two real row
  // tiles here, wins: 63.8 against 68.1 us for 128 x 128.
  MatmulConfig chosen = choose(problem(128, 14336, 8192));
  EXPECT_EQ(chosen.tileM, 64) << chosen.name();
  EXPECT_EQ(chosen.consumers, 1) << chosen.name();
  EXPECT_EQ(chosen.clusterM, 2) << chosen.name();
  MatmulConfig pair;
  pair.clusterM = 2;
  MatmulConfig alone;
  alone.tileN = 128;
  alone.stages = 6;
  EXPECT_GT(estimateMatmulCycles(problem(128, 14336, 8192), pair),
            estimateMatmulCycles(problem(128, 14336, 8192), alone));
  EXPECT_LE(estimateMatmulCycles(problem(256, 14336, 8192), pair),
            estimateMatmulCycles(problem(256, 14336, 8192), alone));
  // A pair of one-consumer 64 x 256 blocks keeps pace padded (64 rows of
  // 10240 x 8192: 52.0 us, against 68.7 unclustered 128 x 128 and 119.4
  // for a padded 128 x 128 pair, one H200): 64 rows take it.
  MatmulConfig narrow;
  narrow.tileM = 64;
  narrow.consumers = 1;
  narrow.stages = 5;
  narrow.clusterM = 2;
  MatmulConfig square = alone;
  square.clusterM = 2;
  EXPECT_LT(estimateMatmulCycles(problem(64, 10240, 8192), narrow),
            estimateMatmulCycles(problem(64, 10240, 8192), square));
  // (The 64 x 128 tile, offered up to 128 rows, ties with the pair there:
  // 52.5 us unclustered; so does 128 x 128 with a 64-row lhs box, 51.9 us,
  // MatmulTiling::lhsBoxRows. The choice is no padded pair.)
  MatmulConfig at64 = choose(problem(64, 10240, 8192));
  EXPECT_EQ(at64.clusterM, 1) << at64.name();
}

TEST(ConfigChooser, SmallTileUpTo128Rows) {
  // 64 x 128 with one consumer: at 16-128 rows it beat the other picks
  // (64 x 4096 x 4096 f16: 13.7 us split 3 against 16.6 for 64 x 256
  // split_k(6); 100 x 7168 x 8192 34.2 against 43.2), from 192 rows it
  // lost (192 x 4096 x 4096: 22.1 against 16.8 for 128 x 64), one H200.
  // (The rows of a dynamic M's kernel: a static M below the tile loads a
  // box of its rows only, and there 128 x 64 split_k(2) ran 64 x 4096 x
  // 4096 f16 in 12.6 us against 13.8 for this tile, one H200.)
  for (int64_t m : {1, 16, 64, 100, 128}) {
    MatmulProblem rows = problem(m, 4096, 4096);
    rows.staticRows = false;
    MatmulConfig c = choose(rows);
    EXPECT_TRUE(c.tileM == 64 && c.tileN == 128 && c.consumers == 1)
        << m << ": " << c.name();
  }
  for (int64_t m : {129, 192, 256, 1024}) {
    MatmulConfig c = choose(problem(m, 4096, 4096));
    EXPECT_FALSE(c.tileM == 64 && c.tileN == 128) << m << ": " << c.name();
  }
  // A dynamic M takes it only for its bands up to 128 rows.
  MatmulProblem dynamic = problem(-1, 4096, 4096);
  bool taken = false;
  for (const MatmulVariant &v : chooseMatmulVariants(dynamic))
    if (v.config.tileM == 64 && v.config.tileN == 128) {
      taken = true;
      EXPECT_LE(v.mHi, 128) << v.config.name();
    }
  EXPECT_TRUE(taken);
}

TEST(ConfigChooser, SmallMStreamsTheRhsAndTakesNarrowTilesWhenWhole) {
  // Two row tiles: only the rhs streams from DRAM, the lhs stays in L2. 256
  // rows of 4096 x 4096 fill one round with 2 x 64 tiles of 128 x 64 (17.0
  // us against 20.1 for 64 x 256 split_k(2), one H200), and 256 rows of
  // 7168 x 4096 with 2 x 56 of 128 x 128 (25.8 against 29.1 for the 64 x
  // 256 pair).
  MatmulConfig narrow = choose(problem(256, 4096, 4096));
  EXPECT_EQ(narrow.tileM, 128) << narrow.name();
  EXPECT_EQ(narrow.tileN, 64) << narrow.name();
  EXPECT_EQ(narrow.consumers, 2) << narrow.name();
  EXPECT_EQ(narrow.stages, 8) << narrow.name();
  MatmulConfig square = choose(problem(256, 7168, 4096));
  EXPECT_EQ(square.tileM, 128) << square.name();
  EXPECT_EQ(square.tileN, 128) << square.name();
  // A last row or column tile partly out of bounds slows a narrow tile's
  // loads: 770 rows of 1024 x 4096 ran 128 x 64 at 1.66x 768 rows, and 192
  // rows of 4096 x 4096 at 1.53x 256 rows. A pipeline with regions keeps
  // such tiles (MatmulTiling::shiftsEdgeTiles): with the split-K the ops'
  // workspace allows, it takes no narrow tile there; nor at N 4000 (62.5
  // column tiles of 64), nor at 64 rows (half a tile).
  MatmulConstraints ops;
  ops.workspaceWords = 5243552;
  ops.tailSplit = 8;
  for (auto [m, n, k] : {std::tuple{770, 1024, 4096}, {192, 4096, 4096},
                         {256, 4000, 4040}, {64, 8192, 8192}}) {
    MatmulProblem withRegions = problem(m, n, k);
    withRegions.shiftsEdgeTiles = false;
    MatmulConfig c = choose(withRegions, ops);
    EXPECT_FALSE(c.tileM == 128 && c.tileN == 64)
        << m << "x" << n << "x" << k << ": " << c.name();
  }
  MatmulConfig t64;
  t64.tileN = 64;
  t64.stages = 8;
  MatmulProblem kept = problem(770, 1024, 4096);
  kept.shiftsEdgeTiles = false;
  EXPECT_GT(estimateMatmulCycles(kept, t64),
            estimateMatmulCycles(problem(768, 1024, 4096), t64) * 1.2);
  // A plain pipeline moves its last tile back inside: 770 rows ran 128 x 64
  // in 16.6 us, 768 rows in 16.1 (and 128 x 128 split_k(2) 18.0; one H200,
  // docs/PERF.md "Edge tiles moved inside"). It takes the narrow tile; at
  // 64 rows (no whole tile to move) it does not. Nor at 256 x 4000 x 4040,
  // whose rows of a lie off the 32-byte grid: a narrow tile's steps are
  // mostly a's rows there, loaded at half the rate, so 128 x 128
  // split_k(2), which ran 22.6 us against cuBLAS's 22.8 (one H200, bf16,
  // docs/PERF.md "Small M: the rhs streams").
  EXPECT_LT(estimateMatmulCycles(problem(770, 1024, 4096), t64),
            estimateMatmulCycles(problem(768, 1024, 4096), t64) * 1.05);
  MatmulConfig narrowTile = choose(problem(770, 1024, 4096), ops);
  EXPECT_TRUE(narrowTile.tileM == 128 && narrowTile.tileN == 64)
      << narrowTile.name();
  MatmulConfig offGrid = choose(problem(256, 4000, 4040), ops);
  EXPECT_TRUE(offGrid.tileM == 128 && offGrid.tileN == 128 &&
              offGrid.splitK == 2)
      << offGrid.name();
  // A static M below the tile loads a box of its rows only (MatmulTiling::
  // lhsBoxRows): nothing is zero-filled, and 64 rows take the narrow tile
  // (37.5 us against 43.8 for the 64 x 128 pair, one H200). A dynamic M's
  // kernel loads the whole box: it does not.
  MatmulConfig half = choose(problem(64, 8192, 8192), ops);
  EXPECT_TRUE(half.tileM == 128 && half.tileN == 64) << half.name();
  MatmulProblem dynamicRows = problem(64, 8192, 8192);
  dynamicRows.staticRows = false;
  MatmulConfig whole = choose(dynamicRows, ops);
  EXPECT_FALSE(whole.tileM == 128 && whole.tileN == 64) << whole.name();
  // The wide tiles' steps are the tensor cores': their partial tiles cost
  // nothing more (128 x 256 at 200 and 256 rows of 5120 x 13824: 57.9 and
  // 59.2 us).
  MatmulConfig wide;
  EXPECT_EQ(estimateMatmulCycles(problem(1100, 4096, 4096), wide),
            estimateMatmulCycles(problem(1152, 4096, 4096), wide));
}

TEST(ConfigChooser, TailSplitShortensThePartialLastRound) {
  // 640 x 8192 in 128 x 256 tiles: 160 tiles, one round and 28 tiles,
  // split 4 ways (132 / 28 = 4, 7168 / 64 / 4 = 28 k steps a unit): about
  // 1.25 rounds instead of 2.
  MatmulProblem p = problem(640, 8192, 7168);
  MatmulConfig plain;
  MatmulConfig tail = plain;
  tail.tailSplit = 4;
  double whole = estimateMatmulCycles(p, plain);
  double split = estimateMatmulCycles(p, tail);
  // (Measured at this tile on one H100: 0.1053 against 0.1381 ms, 0.76;
  // docs/PERF.md "The tail split calibrated".)
  EXPECT_LT(split, 0.80 * whole);
  EXPECT_GT(split, 0.55 * whole);
  // 1152 x 5120: 180 tiles, 48 in the last round: 2 ways only, below
  // kMinTailSplit, so no split: the split's code costs its 3% there
  // (kTailSplitIdleCost), and the plain kernel is the better estimate.
  MatmulProblem two = problem(1152, 5120, 6912);
  EXPECT_GT(estimateMatmulCycles(two, tail), estimateMatmulCycles(two, plain));
  EXPECT_LT(estimateMatmulCycles(two, tail),
            1.05 * estimateMatmulCycles(two, plain));
  // Whole rounds: nothing to split, the same.
  // (8 x 16 = 128 tiles on 128 SMs: one whole round.)
  MatmulProblem exact = problem(1024, 4096, 4096);
  exact.smCount = 128;
  EXPECT_GT(estimateMatmulCycles(exact, tail),
            estimateMatmulCycles(exact, plain));
  // Candidates take the op's tail_split only with a workspace that holds a
  // partial tile, only without clusters or split-K, and only at 128 x 256
  // (where it was measured to win); each such candidate comes twice,
  // plain first (a tie goes to it).
  MatmulConstraints none;
  none.tailSplit = 4;
  for (const MatmulConfig &c : candidateConfigs(p, none))
    EXPECT_EQ(c.tailSplit, 1) << c.name();
  MatmulConstraints room = none;
  room.workspaceWords = 4194848;
  bool some = false;
  std::vector<MatmulConfig> candidates = candidateConfigs(p, room);
  for (size_t i = 0; i < candidates.size(); ++i) {
    const MatmulConfig &c = candidates[i];
    if (c.clusterM > 1 || c.splitK > 1 || c.tileM != 128 || c.tileN != 256) {
      EXPECT_EQ(c.tailSplit, 1) << c.name();
    }
    if (c.tailSplit == 4) {
      // Right after the same configuration without it.
      ASSERT_GT(i, 0u);
      MatmulConfig plainTwin = c;
      plainTwin.tailSplit = 1;
      EXPECT_EQ(candidates[i - 1], plainTwin) << c.name();
      some = true;
    }
  }
  EXPECT_TRUE(some);
  EXPECT_EQ(choose(p, room).tailSplit, 4) << choose(p, room).name();
  // Where the split would split nothing: the plain kernel.
  EXPECT_EQ(choose(exact, room).tailSplit, 1) << choose(exact, room).name();
}

TEST(ConfigChooser, SplitKOnlyWithAWorkspace) {
  MatmulProblem p = problem(64, 4096, 8192);
  EXPECT_EQ(choose(p).splitK, 1);
  MatmulConstraints ws;
  ws.workspaceWords = int64_t(1) << 28;
  MatmulConfig c = choose(p, ws);
  EXPECT_GT(c.splitK, 1) << c.name();
  // At least four k steps per split.
  EXPECT_GE(8192 / c.tileK / c.splitK, 4);
  // Not where the workspace is too small for its partial tiles.
  MatmulConstraints small;
  small.workspaceWords = 64 * 4096;
  EXPECT_EQ(choose(p, small).splitK, 1);
  // Large M fills the machine without it.
  EXPECT_EQ(choose(problem(8192, 8192, 4096), ws).splitK, 1);
  // The chooser's own split-K runs at least kMinSplitKStages stages, but
  // stages the op fixed below that still take a split.
  MatmulConstraints fewStages = ws;
  fewStages.stages = 3;
  MatmulConfig fixed = choose(p, fewStages);
  EXPECT_EQ(fixed.stages, 3) << fixed.name();
  EXPECT_GT(fixed.splitK, 1) << fixed.name();
}

TEST(ConfigChooser, ConstraintsAreHonoured) {
  MatmulConstraints one;
  one.consumers = 1;
  MatmulConfig c = choose(problem(1024, 4096, 4096), one);
  EXPECT_EQ(c.consumers, 1);
  EXPECT_EQ(c.blockThreads(), 256);
  MatmulConstraints stages;
  stages.stages = 3;
  EXPECT_EQ(choose(problem(1024, 4096, 4096), stages).stages, 3);
  MatmulConstraints tiny;
  tiny.maxSmemBytes = 20000;
  EXPECT_FALSE(chooseMatmulConfig(problem(1024, 4096, 4096), tiny));
  MatmulConstraints noCluster;
  noCluster.clusterM = 1;
  EXPECT_EQ(choose(problem(1000, 4040, 4000), noCluster).clusterM, 1);
}

TEST(ConfigChooser, UnboundedRowsDoNotSplit) {
  MatmulConstraints ws;
  ws.workspaceWords = int64_t(1) << 28;
  for (int64_t n : {1024, 4096, 4040, 14336})
    EXPECT_EQ(choose(problem(-1, n, 4096), ws).splitK, 1);
}

TEST(ConfigChooser, VariantsCoverTheRowRangeInOrder) {
  for (int64_t n : {256, 1024, 4096, 4040, 14336}) {
    for (int64_t k : {128, 4096}) {
      std::vector<MatmulVariant> variants =
          chooseMatmulVariants(problem(-1, n, k));
      ASSERT_FALSE(variants.empty()) << n << "x" << k;
      EXPECT_EQ(variants.front().mLo, 1);
      EXPECT_EQ(variants.back().mHi, MatmulProblem::kUnbounded);
      for (size_t i = 0; i < variants.size(); ++i) {
        const MatmulVariant &v = variants[i];
        EXPECT_LE(v.mLo, v.mHi);
        EXPECT_EQ(v.config.splitK, 1) << v.config.name();
        if (i > 0) {
          EXPECT_EQ(v.mLo, variants[i - 1].mHi + 1);
          // Neighbours that chose alike are merged.
          EXPECT_FALSE(v.config == variants[i - 1].config) << v.config.name();
        }
      }
      EXPECT_LE(variants.size(), size_t(kMaxVariantRanges));
      std::set<std::string> configs;
      for (const MatmulVariant &v : variants)
        configs.insert(v.config.name());
      EXPECT_LE(configs.size(), size_t(kMaxVariantKernels));
      // Each 64-row band runs within a few percent of its best candidate
      // (the merges to the caps cost little).
      double regret = 0;
      int bands = 0;
      for (int64_t m = 64; m <= 16384; m += 64, ++bands) {
        MatmulProblem q = problem(m, n, k);
        double best = 1e300;
        for (const MatmulConfig &c : candidateConfigs(problem(-1, n, k)))
          best = std::min(best, estimateMatmulCycles(q, c));
        for (const MatmulVariant &v : variants)
          if (v.mLo <= m && m <= v.mHi)
            regret += estimateMatmulCycles(q, v.config) / best;
      }
      EXPECT_LT(regret / bands, 1.02) << n << "x" << k;
    }
  }
  // Whole waves of 128x256 tiles at large M; something smaller for a
  // handful of rows, where 128x256 leaves most SMs idle.
  std::vector<MatmulVariant> v = chooseMatmulVariants(problem(-1, 4096, 4096));
  ASSERT_GT(v.size(), 1u);
  EXPECT_EQ(v.back().config.tileM * v.back().config.tileN, 128 * 256);
  EXPECT_LT(v.front().config.tileM * v.front().config.tileN, 128 * 256);
}

TEST(ConfigChooser, VariantsTakeTheStaticChoiceOfEveryBand) {
  // Below the caps, the variant of each 64-row band is what a static M at
  // the band's last row chooses (that M read at run time): a dynamic
  // instance runs the static kernel. (With runs as the cap, 24, the tail split's bands alternating
  // with unsplit ones made the merges give 769-1536 rows of N = K = 4096
  // one 128 x 128 variant.)
  MatmulConstraints tail;
  tail.tailSplit = 8;
  tail.workspaceWords = 5243552;
  for (auto [n, k, c] : std::vector<std::tuple<int64_t, int64_t,
                                               MatmulConstraints>>{
           {4096, 4096, tail}, {5120, 6912, tail}, {1024, 4096, {}},
           {4096, 14336, {}}}) {
    std::vector<MatmulVariant> variants =
        chooseMatmulVariants(problem(-1, n, k), c);
    ASSERT_LT(variants.size(), size_t(kMaxVariantRanges)) << n << "x" << k;
    for (const MatmulVariant &v : variants) {
      if (v.mHi == MatmulProblem::kUnbounded)
        continue;
      for (int64_t hi = (v.mLo + 63) / 64 * 64; hi <= v.mHi; hi += 64) {
        // (As the variant's kernel sees its rows: known at run time, so
        // no short lhs box below the tile.)
        MatmulProblem rows = problem(hi, n, k);
        rows.staticRows = false;
        MatmulConfig expected = choose(rows, c);
        EXPECT_EQ(v.config.name(), expected.name())
            << n << "x" << k << " at " << hi << " rows";
      }
    }
  }
}

TEST(ConfigChooser, VariantsSplitKWhereTheWorkspaceHoldsTheirRows) {
  // A workspace for 1024 rows: the variants for few rows split K (the
  // tiles do not fill the SMs), each only where the workspace holds its
  // last row; the unbounded one never.
  MatmulConstraints ws;
  ws.workspaceWords = 4 * 1024 * 4096 + 2 * 16 * 64;
  for (int64_t k : {4096, 8192, 14336}) {
    std::vector<MatmulVariant> v =
        chooseMatmulVariants(problem(-1, 4096, k), ws);
    ASSERT_GT(v.size(), 1u);
    EXPECT_GT(v.front().config.splitK, 1) << v.front().config.name();
    EXPECT_EQ(v.back().config.splitK, 1) << v.back().config.name();
    for (const MatmulVariant &variant : v) {
      const MatmulConfig &c = variant.config;
      if (c.splitK == 1)
        continue;
      ASSERT_NE(variant.mHi, MatmulProblem::kUnbounded);
      EXPECT_LE(splitKWorkspaceWords(variant.mHi, 4096, c.tileM, c.tileN,
                                     c.consumers, c.splitK),
                ws.workspaceWords)
          << c.name() << " up to " << variant.mHi << " rows";
    }
  }
  // Without a workspace, no variant splits.
  for (const MatmulVariant &variant :
       chooseMatmulVariants(problem(-1, 4096, 8192)))
    EXPECT_EQ(variant.config.splitK, 1);
}

TEST(ConfigChooser, SplitKWorkspaceLayout) {
  // Counters first (a multiple of 32 words fixed by the size), then the
  // partials; the least size fits, and so does every larger one.
  EXPECT_EQ(splitKCounterWords(1), 32);
  EXPECT_EQ(splitKCounterWords(8192 * 32), 32);
  EXPECT_EQ(splitKCounterWords(8192 * 32 + 1), 64);
  for (int64_t m : {1, 64, 127, 1024}) {
    int64_t tiles = (m + 127) / 128 * 16;
    int64_t partials = tiles * 3 * 128 * 256;
    int64_t need = splitKWorkspaceWords(m, 4096, 128, 256, 2, 4);
    for (int64_t w = need; w < need + 70000; w += 97) {
      EXPECT_LE(splitKCounterWords(w) + partials, w) << m << " rows, " << w;
      EXPECT_GE(splitKCounterWords(w), tiles * 2);
    }
    EXPECT_GT(splitKCounterWords(need - 1) + partials, need - 1);
  }
}

TEST(ConfigChooser, SplitKWorkspaceIsCheckedArithmetic) {
  // The counters' share is a closed form now (one 8192-word step at a time
  // took 2^40 steps for a row bound of 2^50 with one column tile): it must
  // give what the steps gave, where they finish.
  auto stepped = [](int64_t m, int64_t n, int64_t tm, int64_t tn,
                    int64_t consumers, int64_t splitK) {
    int64_t tiles = (m + tm - 1) / tm * ((n + tn - 1) / tn);
    int64_t partials = tiles * (splitK - 1) * tm * tn;
    int64_t words = partials + 32;
    for (int64_t next; (next = partials + 32 + words / 8192) != words;)
      words = next;
    while (splitKCounterWords(words) < tiles * consumers)
      words += 8192;
    return words;
  };
  for (int64_t m : {1, 63, 64, 65, 1000, 4096, 100000, 1 << 22})
    for (auto [tm, tn] : {std::pair<int64_t, int64_t>{64, 64}, {128, 256},
                          {64, 8}, {128, 16}})
      for (int64_t splitK : {2, 4})
        for (int64_t consumers : {1, 2})
          EXPECT_EQ(splitKWorkspaceWords(m, 256, tm, tn, consumers, splitK),
                    stepped(m, 256, tm, tn, consumers, splitK))
              << m << " rows, " << tm << "x" << tn << ", split " << splitK;
  // Sizes past 64 bits are INT64_MAX (no workspace holds them), never a
  // wrapped small number; near 2^50 rows the answer comes at once.
  EXPECT_EQ(splitKWorkspaceWords(INT64_MAX - 1000, 4096, 128, 256, 2, 4),
            INT64_MAX);
  EXPECT_EQ(splitKWorkspaceWords(int64_t(1) << 62, 64, 128, 64, 2, 2),
            INT64_MAX);
  int64_t big = splitKWorkspaceWords(int64_t(1) << 50, 64, 128, 64, 2, 2);
  EXPECT_LT(big, INT64_MAX);
  EXPECT_GE(splitKCounterWords(big), (int64_t(1) << 50) / 128 * 2);
}

TEST(ConfigChooser, VariantsOfABoundedRangeAndOfStaticRows) {
  MatmulProblem p = problem(-1, 4096, 4096);
  p.mLo = 1;
  p.mHi = 100;
  std::vector<MatmulVariant> v = chooseMatmulVariants(p);
  ASSERT_FALSE(v.empty());
  EXPECT_LE(v.size(), 2u); // (1-64 rows, a padded pair; 65-100, a pair)
  EXPECT_EQ(v.front().mLo, 1);
  EXPECT_EQ(v.back().mHi, 100);
  p.mLo = 300;
  p.mHi = 5000;
  v = chooseMatmulVariants(p);
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v.front().mLo, 300);
  EXPECT_EQ(v.back().mHi, 5000);
  EXPECT_TRUE(chooseMatmulVariants(problem(512, 4096, 4096)).empty());
  MatmulConstraints cluster;
  cluster.clusterM = 2;
  cluster.padRowTiles = false;
  EXPECT_TRUE(chooseMatmulVariants(problem(-1, 4096, 4096), cluster).empty());
}

TEST(ConfigChooser, StagesFitSharedMemory) {
  // The most stages that fit; split-K the largest power of two.
  MatmulConstraints ws;
  ws.workspaceWords = int64_t(1) << 28;
  bool deeper = false;
  for (const MatmulConfig &c :
       candidateConfigs(problem(256, 4096, 16384), ws)) {
    int64_t smem = matmulSmemBytes(c, 2, 2);
    EXPECT_LE(smem, 227 * 1024) << c.name();
    MatmulConfig more = c;
    if (c.splitK > 1) {
      EXPECT_EQ(c.stages & (c.stages - 1), 0) << c.name();
      more.stages *= 2;
    } else {
      more.stages += 1;
      deeper |= (c.stages & (c.stages - 1)) != 0;
    }
    EXPECT_TRUE(more.stages > 8 ||
                matmulSmemBytes(more, 2, 2) > 227 * 1024)
        << c.name();
  }
  EXPECT_TRUE(deeper); // 128x128 takes 6 stages
  // The layout of SmemArena.h: 128x256x64, 4 stages, f16 out.
  MatmulConfig c;
  EXPECT_EQ(matmulSmemBytes(c, 2, 2), 230464);
}

TEST(ConfigChooser, Names) {
  MatmulConfig c;
  EXPECT_EQ(c.name(), "128x256x64 s4 c2m");
  c.clusterM = 2;
  c.splitK = 4;
  EXPECT_EQ(c.name(), "128x256x64 s4 c2m cluster2 splitk4");
}

} // namespace

TEST(ConfigChooser, TailSplitVariantsOnlyWhereTheirRowsSplit) {
  // A variant built with the tail split runs its code at every row of its
  // range; where the last round is not split that code costs 2-4% (one
  // H100). So every bounded row of a tail-split variant splits on the
  // device the chooser sizes for (132 SMs), and the plain 128 x 256 tile
  // keeps the rows that do not (1024 x 4096 x 4096: 128 tiles, one round).
  MatmulConstraints c;
  c.tailSplit = 4;
  c.workspaceWords = 4194848;
  bool some = false;
  for (auto [n, k] : std::vector<std::pair<int64_t, int64_t>>{
           {4096, 4096}, {8192, 7168}, {5120, 6912}, {14336, 8192}}) {
    MatmulProblem p = problem(-1, n, k);
    std::vector<MatmulVariant> variants = chooseMatmulVariants(p, c);
    for (const MatmulVariant &v : variants) {
      if (v.config.tailSplit == 1 || v.mHi == MatmulProblem::kUnbounded)
        continue;
      some = true;
      EXPECT_EQ(v.config.tileM, 128) << v.config.name();
      EXPECT_EQ(v.config.tileN, 256) << v.config.name();
      for (int64_t m = v.mLo; m <= v.mHi; ++m) {
        int64_t tiles = (m + 127) / 128 * ((n + 255) / 256);
        int64_t ways = tailSplitWays(tiles, p.smCount, (k + 63) / 64, 4,
                                     {p.smCount, p.smCount});
        EXPECT_GT(ways, 1) << n << "x" << k << " at " << m << " rows, "
                           << v.config.name();
        if (ways == 1)
          break;
      }
    }
    if (n == 4096) {
      for (const MatmulVariant &v : variants) {
        if (v.mLo <= 1024 && 1024 <= v.mHi) {
          EXPECT_EQ(v.config.tailSplit, 1) << v.config.name();
        }
      }
    }
  }
  EXPECT_TRUE(some);
}
