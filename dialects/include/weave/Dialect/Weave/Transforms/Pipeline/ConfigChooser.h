//===- ConfigChooser.h - per-shape configuration of a matmul ----*- C++ -*-===//
//
// Contract. `chooseMatmulConfig(problem, constraints)` returns the
// configuration of `weave.matmul_pipeline` (tile, stages, consumers and
// their split, cluster_m, split_k) with the least estimated time for an
// M x N x K problem on `problem.smCount` SMs, among the candidates of
// `candidateConfigs`:
//  - 128x256 (2 consumers, split M), 256x128 (2 consumers of 128 rows),
//    128x192, 128x128 and 128x64 (2 consumers), 192x192 (3 consumers),
//    64x256 (1 consumer), 64x128 (1 consumer; at most 128 rows, a static
//    M or every row of a dynamic band), each also with
//    cluster_m(2) (an odd row-tile count padded by one tile), and each
//    with split_k(s) (2 <= s <= 16, at least 4 k steps per split) when the
//    constraints allow it (a workspace large enough, a bounded M, no
//    cluster);
//  - tile_k is one 128-byte lhs row; stages the most (at most 8) whose
//    shared memory fits a Hopper block, for split-K the largest power of
//    two that does (its units run few k steps each);
//  - constraints fix what the user wrote (the tile, consumers, split,
//    cluster_m, stages, the kernel's dynamic shared memory); a fixed tile
//    not among those above is a candidate of its own; a candidate that
//    contradicts one is not considered. None left: std::nullopt.
// `estimateMatmulCycles` is the model, in SM cycles:
//    rounds = ceil(units / workers), units = tiles * split_k, workers = the
//    SMs (whole clusters of them);
//    per unit = steps * max(tensor cycles / efficiency, stage bytes / the
//    SM's load bandwidth; the rhs bytes at a lower rate where they stream
//    from DRAM at one or two row tiles, and the whole step at one whole
//    row tile, a partial one or one consumer; a narrow tile's steps
//    lower still where its last row or column tile is partly out of
//    bounds: a kernel that moves its edge tiles inside
//    (`problem.shiftsEdgeTiles`) has none where the dimension holds more
//    than one tile, but past two row tiles a narrow tile's moved last
//    column tile keeps that rate) + epilogue, with efficiency per configuration
//    (docs/PERF.md's measurements: 128x256 1.0, 256x128 and clusters
//    0.98-0.985, 128x128 0.89, 0.92 with 6 or more stages, 64x256 0.85)
//    and, for an operand whose rows lie off the 32-byte grid (a's by k, b's
//    by n), its box bytes counted twice in the step's loads (docs/PERF.md
//    "The chooser's rule for rows off the grid"); a cluster
//    of two-consumer blocks with fewer row tiles than blocks (padded)
//    loads at 0.8 of the rate ("Small M: clusters padded with a zero row
//    tile");
//    split-K adds the fix-up (partials stored into the f32 workspace, read
//    back by the last unit, and the wait) and the partials' L2 traffic;
//    time = max(rounds * per unit, DRAM bytes / DRAM bandwidth) + a fixed
//    launch and prologue cost, and at most 128 rows a tenth of the lesser
//    of the two terms too (they overlap imperfectly: kBoundSlackShare).
// For a dynamic M (`problem.m < 0`) it minimizes the summed regret
// (estimate / best estimate) over row counts sampled from the range
// [problem.mLo, problem.mHi] the launch may take instead (split-K only
// where mHi is finite: the workspace holds a region per tile).
// `chooseMatmulVariants` gives a dynamic M's range the variants a bundle
// carries for the runtime to pick from at launch (KernelInfo::variantOf):
// the range in bands of 64 rows up to 16384 (the tile counts, and so the
// estimate, are constant inside one) and one band above, each band's best
// candidate; while more than kMaxVariantKernels candidates are used, the
// one whose loss adds the least regret (its bands taking the best of the
// others) is dropped; then neighbours with the same candidate are joined,
// and while more than kMaxVariantRanges runs remain, the two neighbours
// whose merge adds the least regret are merged (the merged run takes the
// candidate with the least summed regret). One configuration may serve
// several runs: the bundle compiles it once (Pipeline/SharedVariants.h).
// The rules a candidate must keep are MatmulTiling's (Utils/MatmulTiling.h):
// checkSmemArena, checkTileScheduler, checkSplitKWorkspace and
// checkTailSplitWorkspace, the ones a choice of tile, stages, cluster and
// split can break; the op verifier
// reports the others (the user's clauses, the shape) after the choice.
// Pure arithmetic: no MLIR type, so it is unit-tested directly.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_CONFIGCHOOSER_H
#define WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_CONFIGCHOOSER_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::weave::pipeline {

/// One configuration of a matmul pipeline.
struct MatmulConfig {
  int64_t tileM = 128, tileN = 256, tileK = 64, stages = 4, consumers = 2;
  bool splitM = true;
  int64_t clusterM = 1, splitK = 1;
  /// The most units a tile of the last, partial round is split into (the
  /// op's tail_split, on a configuration without clusters or split-K; 1:
  /// off).
  int64_t tailSplit = 1;

  /// "128x256x64 s4 c2m", then " cluster2" / " splitk4" / " tail4" where
  /// they apply.
  std::string name() const;
  /// Threads of the block: one producer and `consumers` warpgroups.
  int64_t blockThreads() const { return 128 * (1 + consumers); }
  bool operator==(const MatmulConfig &o) const {
    return tileM == o.tileM && tileN == o.tileN && tileK == o.tileK &&
           stages == o.stages && consumers == o.consumers &&
           splitM == o.splitM && clusterM == o.clusterM &&
           splitK == o.splitK && tailSplit == o.tailSplit;
  }
};

/// The most configurations the variants of a dynamic M use: each is a
/// function of the bundle, about 0.4 s of ptxas at 128 x 256. (The cap
/// was on runs of rows before their functions were shared, 24: at N = K =
/// 4096 with the tail split, 8 configurations alternate over 37 runs, and
/// to stay within it the merges gave 769-1536 rows 128 x 128, 8% slower
/// at 1152 rows on one H200 than the 128 x 256 tail split.)
constexpr int64_t kMaxVariantKernels = 16;
/// The most runs of rows (entries of the bundle, which the runtime scans
/// at launch: 0.1-0.2 us at 76 entries, chooseVariant). At 64, N = 8192
/// (tail split and not alternating every 256 rows, and the 192 x 192
/// bands) merged 2049-2304 rows into 128 x 256 tail8: 2304 x 8192 x 7168
/// ran 1.03 of its static 192 x 192 kernel; at 128, 0.97 of that
/// (docs/PERF.md "The 192 x 192 tile").
constexpr int64_t kMaxVariantRanges = 128;

/// The problem: sizes (m < 0 for a dynamic row count, which lies in
/// [mLo, mHi]), element bytes of the inputs (2: f16, bf16) and the output
/// (2 or 4), the SM count.
struct MatmulProblem {
  /// No upper bound on a dynamic M.
  static constexpr int64_t kUnbounded = INT64_MAX;
  int64_t m = 0, n = 0, k = 0;
  int64_t mLo = 1, mHi = kUnbounded;
  int64_t inBytes = 2, outBytes = 2;
  int64_t smCount = 132;
  /// Whether the kernel moves a tile that would cross the edge of M or N
  /// back to end at it (MatmulTiling::shiftsEdgeTiles: a pipeline without
  /// regions or lhs_rows), so that no box it loads is partly out of bounds
  /// where the dimension holds more than one tile.
  bool shiftsEdgeTiles = true;
  /// Whether `m` is the kernel's own row count, known when it is compiled
  /// (false for the row counts sampled from a dynamic M's range): then an
  /// M below the tile loads a box of its rows only (MatmulTiling::
  /// lhsBoxRows).
  bool staticRows = true;
  bool dynamicM() const { return m < 0; }
};

/// What the user fixed; unset fields are free.
struct MatmulConstraints {
  std::optional<int64_t> stages, consumers, clusterM, splitK;
  /// A fixed tile (all three or none): an explicit tile without stages, or
  /// the one a callback's tile arguments spell. The candidates are that
  /// tile with the free fields chosen.
  std::optional<int64_t> tileM, tileN, tileK;
  std::optional<bool> splitM;
  /// Dynamic shared memory the kernel declares (a candidate must fit).
  std::optional<int64_t> maxSmemBytes;
  /// Whether row tiles may be padded to whole clusters (false where a
  /// region of the pipeline would see the padded tile: then a cluster
  /// needs a static M whose row tiles pair up).
  bool padRowTiles = true;
  /// f32 words of the workspace operand (0: none); split-K candidates
  /// must fit in it (splitKWorkspaceWords, Utils/MatmulTiling.h).
  int64_t workspaceWords = 0;
  /// The op's tail_split (1: none): candidates without clusters or
  /// split-K take it, where the workspace holds a partial tile.
  int64_t tailSplit = 1;
};

/// Shared memory the pipeline needs in this configuration (the layout of
/// Utils/MatmulTiling.h).
int64_t matmulSmemBytes(const MatmulConfig &config, int64_t inBytes,
                        int64_t outBytes);

/// The estimated time of `config` on `problem` (static M), in SM cycles.
double estimateMatmulCycles(const MatmulProblem &problem,
                            const MatmulConfig &config);

/// Every configuration the chooser considers for `problem`.
std::vector<MatmulConfig> candidateConfigs(const MatmulProblem &problem,
                                           const MatmulConstraints &c = {});

/// The candidate with the least estimate (see the contract above).
std::optional<MatmulConfig>
chooseMatmulConfig(const MatmulProblem &problem,
                   const MatmulConstraints &constraints = {});

/// A configuration for the row counts [mLo, mHi] of a dynamic M.
struct MatmulVariant {
  int64_t mLo = 1, mHi = MatmulProblem::kUnbounded;
  MatmulConfig config;
};

/// The variants of a dynamic-M problem (see the contract above), in
/// increasing M, covering [problem.mLo, problem.mHi]; one when a single
/// configuration serves the whole range; empty when no candidate satisfies
/// the constraints.
std::vector<MatmulVariant>
chooseMatmulVariants(const MatmulProblem &problem,
                     const MatmulConstraints &constraints = {});

} // namespace mlir::weave::pipeline

#endif // WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_CONFIGCHOOSER_H
