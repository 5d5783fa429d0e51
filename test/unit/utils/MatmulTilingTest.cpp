//===- MatmulTilingTest.cpp - the tiling of a matmul pipeline -------------===//
//
// MatmulTiling (Utils/MatmulTiling.h): the per-consumer part of the tile,
// and every rule of every builder, each shown to hold on a legal tiling and
// to fail with the op verifier's words when broken.
//
//===----------------------------------------------------------------------===//

#include "weave/Dialect/Weave/Utils/MatmulTiling.h"

#include <gtest/gtest.h>

using namespace mlir::weave;
using namespace mlir::weave::pipeline;

namespace {

/// 1024x4096x4096 f16 in 128x256x64 tiles, 4 stages, two consumers of 64
/// rows: the plain matmul, legal.
MatmulTiling legal() {
  MatmulTiling t = MatmulTiling::make(128, 256, 64, 4, 2, /*splitM=*/true,
                                      /*inBytes=*/2, /*outBytes=*/2);
  t.m = 1024;
  t.n = 4096;
  t.k = 4096;
  t.maxRows = 1024;
  return t;
}

/// The message of `violation`, or "" when there is none.
std::string message(const TilingViolation &violation) {
  return violation ? *violation : std::string();
}

/// Expects `violation` to contain `text`.
void expectViolation(const TilingViolation &violation,
                     const std::string &text) {
  ASSERT_TRUE(violation.has_value()) << "expected: " << text;
  EXPECT_NE(violation->find(text), std::string::npos) << *violation;
}

} // namespace

TEST(MatmulTiling, DerivesEachConsumersPartOnce) {
  MatmulTiling m = MatmulTiling::make(128, 256, 64, 4, 2, true, 2, 2);
  EXPECT_EQ(m.subM, 64);
  EXPECT_EQ(m.subN, 256);
  EXPECT_EQ(m.mBlocks(), 1);
  EXPECT_EQ(m.lhsRowBytes, 128);
  EXPECT_EQ(m.epilogueBuffers, 2);
  MatmulTiling n = MatmulTiling::make(128, 256, 64, 4, 2, false, 2, 4);
  EXPECT_EQ(n.subM, 128);
  EXPECT_EQ(n.subN, 128);
  EXPECT_EQ(n.mBlocks(), 2);
  EXPECT_EQ(n.outBoxCols(), 32);
  EXPECT_EQ(n.warpgroups(), 3);
  // One 64x64 f16 part is one 64-row x 128-byte box: one buffer.
  EXPECT_EQ(MatmulTiling::make(64, 64, 64, 4, 1, true, 2, 2).epilogueBuffers,
            1);
}

TEST(MatmulTiling, LegalTilingsBreakNoRule) {
  EXPECT_EQ(message(legal().check()), "");
  // The chooser's other shapes, a cluster, split-K, tile_k 32, split N.
  for (auto [tm, tn, consumers] :
       {std::array<int64_t, 3>{256, 128, 2}, {128, 128, 2}, {64, 256, 1}}) {
    MatmulTiling t = legal();
    t = MatmulTiling::make(tm, tn, 64, 4, consumers, true, 2, 2);
    t.m = 1024, t.n = 4096, t.k = 4096;
    EXPECT_EQ(message(t.check()), "") << tm << "x" << tn;
  }
  MatmulTiling cluster = legal();
  cluster.clusterM = 2;
  cluster.clusterShape = {2, 1, 1};
  EXPECT_EQ(message(cluster.check()), "");
  MatmulTiling splitK = legal();
  splitK.splitK = 4;
  splitK.workspaceWords = splitKWorkspaceWords(1024, 4096, 128, 256, 2, 4);
  EXPECT_EQ(message(splitK.check()), "");
  MatmulTiling k32 = MatmulTiling::make(128, 256, 32, 6, 2, true, 2, 4);
  k32.m = 100, k32.n = 256, k32.k = 96;
  EXPECT_EQ(message(k32.check()), "");
  MatmulTiling splitN = MatmulTiling::make(128, 256, 64, 3, 2, false, 2, 2);
  splitN.m = 1024, splitN.n = 4096, splitN.k = 4096;
  EXPECT_EQ(message(splitN.check()), "");
}

TEST(MatmulTiling, WgmmaMainloopRules) {
  auto broken = [](int64_t tm, int64_t tn, int64_t tk, int64_t consumers,
                   bool splitM) {
    MatmulTiling t = MatmulTiling::make(tm, tn, tk, 2, consumers, splitM, 2, 2);
    t.m = 1024, t.n = 4096, t.k = 4096;
    return checkWgmmaMainloop(t);
  };
  EXPECT_EQ(message(checkWgmmaMainloop(legal())), "");
  expectViolation(broken(128, 256, 64, 3, true),
                  "expects the split dimension of the tile to be divisible by "
                  "3 consumer warpgroups");
  expectViolation(broken(64, 256, 64, 2, true),
                  "expects each consumer's tile_m to be a multiple of 64 (the "
                  "wgmma M), got 32");
  expectViolation(broken(128, 512, 64, 2, true),
                  "expects each consumer's tile_n to be a multiple of 8 and at "
                  "most 256 (legal wgmma N), got 512");
  expectViolation(broken(64, 8, 64, 2, false),
                  "expects each consumer's tile_n to be a multiple of 8 and at "
                  "most 256 (legal wgmma N), got 4");
  expectViolation(broken(192, 256, 64, 1, true),
                  "expects each consumer to own 64 or 128 rows");
  expectViolation(broken(128, 64, 64, 2, false),
                  "for split N, a multiple of 64 columns; got 128x32");
  expectViolation(broken(128, 256, 64, 1, true),
                  "expects each consumer's part of the tile to have at most "
                  "64x256 elements");
  expectViolation(broken(128, 96, 64, 2, true),
                  "expects tile_n to be a multiple of 64 (rhs tiles are loaded "
                  "as 64-column boxes), got 96");
  expectViolation(broken(128, 256, 16, 2, true),
                  "expects tile_k to be 64 or 32 (lhs rows of one 128- or "
                  "64-byte swizzle span), got 16");
  expectViolation(broken(256, 128, 64, 4, true),
                  "expects 1, 2 or 3 consumer warpgroups, got 4");
  // Three consumers of 64 x 192 (the 192 x 192 tile).
  EXPECT_EQ(message(broken(192, 192, 64, 3, true)), "");
  expectViolation(broken(64, 512, 64, 2, false),
                  "expects tile_m and tile_n of at most 256 (a TMA box limit), "
                  "got 64x512");
  MatmulTiling lhsRows = legal();
  lhsRows.k = 4004 + 2; // 8012 bytes
  expectViolation(checkWgmmaMainloop(lhsRows),
                  "expects rows of lhs to span a multiple of 16 bytes (a TMA "
                  "stride rule), got 4006 elements");
  MatmulTiling rhsRows = legal();
  rhsRows.n = 1004;
  expectViolation(checkWgmmaMainloop(rhsRows),
                  "expects rows of rhs to span a multiple of 16 bytes (a TMA "
                  "stride rule), got 1004 elements");
  // The kernel's block: a warpgroup per role.
  MatmulTiling block = legal();
  block.blockThreads = 384;
  EXPECT_EQ(message(checkWgmmaMainloop(block)), "");
  block.blockThreads = 256;
  expectViolation(checkWgmmaMainloop(block),
                  "needs 3 warpgroups (384 threads: one producer and 2 "
                  "consumers), but the kernel's block has 256 threads");
}

TEST(MatmulTiling, EpilogueRules) {
  EXPECT_EQ(message(checkEpilogue(legal())), "");
  // Rows of out a tensor map cannot stride (4-byte inputs, 2-byte output:
  // the inputs' rows stride, the output's do not).
  MatmulTiling t = MatmulTiling::make(128, 256, 32, 4, 2, true, 4, 2);
  t.m = 1024, t.n = 4, t.k = 4096;
  EXPECT_EQ(message(checkWgmmaMainloop(t)).find("rows of"), std::string::npos);
  expectViolation(checkEpilogue(t),
                  "expects rows of out to span a multiple of 16 bytes (a TMA "
                  "stride rule), got 4 elements");
}

TEST(MatmulTiling, BarrierRingRules) {
  MatmulTiling t = legal();
  t.delayRelease = 3;
  EXPECT_EQ(message(checkBarrierRing(t)), "");
  t.delayRelease = 4;
  expectViolation(checkBarrierRing(t),
                  "expects delay_release (4) to be smaller than stages (4)");
  expectViolation(t.check(), "expects delay_release (4)");
}

TEST(MatmulTiling, TileSchedulerRules) {
  EXPECT_EQ(message(checkTileScheduler(legal())), "");
  MatmulTiling segments = legal();
  segments.m = 1152; // 9 row tiles
  segments.gridTileSegments = 3;
  EXPECT_EQ(message(checkTileScheduler(segments)), "");
  segments.gridTileSegments = 2;
  expectViolation(checkTileScheduler(segments),
                  "expects the 9 row tiles to divide into 2 grid_tile_segments "
                  "of whole clusters of 1");
  segments.m = MatmulTiling::kDynamic;
  EXPECT_EQ(message(checkTileScheduler(segments)), "");
  segments.clusterM = 2;
  expectViolation(checkTileScheduler(segments),
                  "expects a static row count with grid_tile_segments and "
                  "cluster_m");

  // grid_tile_keep_width only where the segments would narrow.
  MatmulTiling kept = legal();
  kept.gridTileKeepWidth = true;
  expectViolation(checkTileScheduler(kept),
                  "expects grid_tile_keep_width only with grid_tile_segments");
  kept.m = 1152;
  kept.gridTileSegments = 3;
  EXPECT_EQ(message(checkTileScheduler(kept)), "");

  MatmulTiling interleaved = legal();
  interleaved.gridTileInterleave = 2;
  EXPECT_EQ(message(checkTileScheduler(interleaved)), "");
  interleaved.m = MatmulTiling::kDynamic;
  EXPECT_EQ(message(checkTileScheduler(interleaved)), "");
  interleaved.gridTileLag = 3;
  EXPECT_EQ(message(checkTileScheduler(interleaved)), "");
  interleaved.gridTileSegments = 2;
  expectViolation(checkTileScheduler(interleaved),
                  "expects grid_tile_segments (2) or grid_tile_interleave "
                  "(2), not both");
  // One shard (a team of one): the lag has no other shard to trail.
  MatmulTiling lagged = legal();
  lagged.gridTileLag = 3;
  EXPECT_EQ(message(checkTileScheduler(lagged)), "");

  auto clustered = [](int64_t cluster) {
    MatmulTiling t = legal();
    t.clusterM = cluster;
    return t;
  };
  expectViolation(checkTileScheduler(clustered(3)),
                  "expects cluster_m to be 1, 2 or 4, got 3");
  MatmulTiling boxes = clustered(4);
  boxes = MatmulTiling::make(256, 128, 64, 4, 2, true, 2, 2);
  boxes.m = 1024, boxes.n = 4096, boxes.k = 4096, boxes.clusterM = 4;
  expectViolation(checkTileScheduler(boxes),
                  "expects the 2 rhs boxes of a tile (64 columns each) to "
                  "divide among the 4 blocks of a cluster");
  MatmulTiling width = clustered(2);
  width.gridTileWidth = 3;
  expectViolation(checkTileScheduler(width),
                  "expects grid_tile_width (3) to be a multiple of cluster_m "
                  "(2): a cluster's tiles are in one group");
  // Without a region the row tiles are padded to whole clusters; with one
  // they must be whole.
  MatmulTiling odd = clustered(2);
  odd.m = 1152;
  EXPECT_EQ(message(checkTileScheduler(odd)), "");
  odd.regions = true;
  expectViolation(checkTileScheduler(odd),
                  "expects the number of row tiles (9 of 128 rows) to be a "
                  "multiple of cluster_m (2) with a region");
  MatmulTiling dynamic = clustered(2);
  dynamic.m = MatmulTiling::kDynamic;
  EXPECT_EQ(message(checkTileScheduler(dynamic)), "");
  dynamic.regions = true;
  dynamic.operandText = "'memref<?x4096xf16>' into 'memref<?x4096xf16>'";
  expectViolation(checkTileScheduler(dynamic),
                  "expects a static row count with cluster_m(2) and a region "
                  "(the row tiles must divide among the blocks of a cluster), "
                  "got 'memref<?x4096xf16>' into 'memref<?x4096xf16>'");
  // The kernel's cluster.
  MatmulTiling shape = clustered(2);
  shape.clusterShape = {2, 1, 1};
  EXPECT_EQ(message(checkTileScheduler(shape)), "");
  shape.clusterShape = {1, 1, 1};
  expectViolation(checkTileScheduler(shape),
                  "with cluster_m(2) needs the kernel's cluster to be [2, 1, "
                  "1] (set cluster = [2, 1, 1] in #weave.kernel)");
  shape.clusterShape = {2, 2, 1};
  expectViolation(checkTileScheduler(shape), "with cluster_m(2) needs");
}

TEST(MatmulTiling, SplitKFixupRules) {
  MatmulTiling t = legal();
  t.splitK = 4;
  int64_t need = splitKWorkspaceWords(1024, 4096, 128, 256, 2, 4);
  t.workspaceWords = need;
  EXPECT_EQ(message(checkSplitKFixup(t)), "");
  t.workspaceWords = need - 1;
  expectViolation(checkSplitKFixup(t),
                  "needs a workspace of at least " + std::to_string(need) +
                      " f32 (counters, then tiles x (split_k - 1) x tile_m x "
                      "tile_n partials), got " +
                      std::to_string(need - 1));
  expectViolation(checkSplitKWorkspace(t), "needs a workspace of at least");
  t.workspaceWords = need;
  t.maxRows.reset();
  expectViolation(checkSplitKWorkspace(t),
                  "expects a static row count, or a kernel argument whose "
                  "rows a weave.variant bounds (hi), with split_k(4)");
  t.maxRows = INT64_MAX - 1000;
  expectViolation(checkSplitKWorkspace(t),
                  "needs a split-K workspace of more than 2^63 f32 for up to "
                  "9223372036854774807 lhs rows");
  MatmulTiling steps = legal();
  steps.k = 256; // 4 k steps
  steps.splitK = 8;
  steps.workspaceWords = INT64_MAX;
  expectViolation(checkSplitKFixup(steps),
                  "expects split_k (8) to be at most the 4 k steps of a tile");
  // The k-step rule is not the workspace's: the chooser asks only that.
  EXPECT_EQ(message(checkSplitKWorkspace(steps)), "");
  // No split, no rule.
  MatmulTiling none = legal();
  none.maxRows.reset();
  EXPECT_EQ(message(checkSplitKFixup(none)), "");
}

TEST(MatmulTiling, SmemArenaRules) {
  MatmulTiling t = legal();
  int64_t bytes = MatmulSmemLayout(t).requiredBytes;
  EXPECT_EQ(bytes, 4 * 49152 + 2 * 2 * 8192 + 64 + 1024);
  EXPECT_LE(bytes, int64_t(hw::kMaxSharedMemoryPerBlock));
  EXPECT_EQ(message(checkSmemArena(t)), "");
  // 7 stages of 128x64 + 64x128 f16 tiles fit the stage bound, not the
  // block with the epilogue boxes and barriers.
  MatmulTiling seven = MatmulTiling::make(128, 128, 64, 7, 2, true, 2, 2);
  expectViolation(checkSmemArena(seven),
                  "needs 263280 bytes of shared memory, more than the 232448 a "
                  "Hopper block can have; reduce stages or tiles");
  t.stages = 1 << 30;
  expectViolation(checkSmemArena(t),
                  "expects at most 4 stages of 49152 bytes (the shared memory "
                  "a Hopper block can have), got 1073741824");
  // The kernel's smem.
  t.stages = 4;
  t.kernelSmem = bytes;
  EXPECT_EQ(message(checkSmemArena(t)), "");
  t.kernelSmem = bytes - 1;
  expectViolation(checkSmemArena(t),
                  "needs " + std::to_string(bytes) +
                      " bytes of dynamic shared memory, but the kernel "
                      "declares smem = " +
                      std::to_string(bytes - 1));
}

TEST(MatmulTiling, CheckRunsTheBuildersInOrder) {
  // A tiling that breaks a mainloop rule and the arena's: the mainloop's
  // is reported (the arena's arithmetic assumes its tile limits).
  MatmulTiling t = legal();
  t.stages = 1 << 30;
  t.consumers = 3;
  t.subM = 128 / 3;
  expectViolation(t.check(), "divisible by 3 consumer warpgroups");
  // Each builder's rules in turn: scheduler before split-K before arena.
  MatmulTiling u = legal();
  u.clusterM = 3;
  u.splitK = 2;
  u.stages = 5;
  expectViolation(u.check(), "expects cluster_m to be 1, 2 or 4");
  u.clusterM = 1;
  expectViolation(u.check(), "needs a workspace of at least");
  u.splitK = 1;
  expectViolation(u.check(), "expects at most 4 stages of 49152 bytes");
}

TEST(MatmulTiling, SplitKWorkspaceArithmetic) {
  EXPECT_EQ(splitKCounterWords(1), 32);
  EXPECT_EQ(splitKCounterWords(8192 * 32 + 1), 64);
  int64_t need = splitKWorkspaceWords(1024, 4096, 128, 256, 2, 4);
  // 128 tiles x 3 partials of 128x256, then room for 256 counters.
  EXPECT_GE(need - splitKCounterWords(need), 128 * 3 * 128 * 256);
  EXPECT_GE(splitKCounterWords(need), 256);
  EXPECT_EQ(splitKWorkspaceWords(INT64_MAX - 1000, 4096, 128, 256, 2, 4),
            INT64_MAX);
}

TEST(MatmulTiling, LhsBoxHoldsTheRowsOfAShortStaticM) {
  // A static M below tile_m loads M rows rounded to the 8-row swizzle atom
  // (TMA would zero-fill the rest at every step); the stage's barrier
  // expects those bytes, while the ring keeps a whole tile a stage.
  MatmulTiling t = legal();
  for (auto [m, rows] : {std::pair{1, 8}, {8, 8}, {16, 16}, {17, 24},
                         {100, 104}, {127, 128}}) {
    t.m = m;
    EXPECT_EQ(t.lhsBoxRows(), rows) << m;
    MatmulSmemLayout layout(t);
    EXPECT_EQ(layout.stageLoadBytes, layout.stageBytes - (128 - rows) * 128)
        << m;
  }
  // Whole tiles, a dynamic M (its kernel cannot know M), a region (it would
  // see the stale rows) and lhs_rows load the whole box.
  t.m = 128;
  EXPECT_EQ(t.lhsBoxRows(), 128);
  t.m = 1000;
  EXPECT_EQ(t.lhsBoxRows(), 128);
  t.m = MatmulTiling::kDynamic;
  EXPECT_EQ(t.lhsBoxRows(), 128);
  t.m = 16;
  t.regions = true;
  EXPECT_EQ(t.lhsBoxRows(), 128);
  t.regions = false;
  t.lhsRows = true;
  EXPECT_EQ(t.lhsBoxRows(), 128);
  EXPECT_EQ(MatmulSmemLayout(t).stageLoadBytes, MatmulSmemLayout(t).stageBytes);
}
