//===- ConfigChooser.cpp - per-shape configuration of a matmul ------------===//
//
// The cost model and the choice; the contract is in the header. The
// constants are H100/H200 figures in SM cycles (about 1.75 GHz under load),
// calibrated on docs/PERF.md's measurements of each configuration.
//
//===----------------------------------------------------------------------===//

#include "weave/Dialect/Weave/Transforms/Pipeline/ConfigChooser.h"
#include "weave/Dialect/Weave/Utils/MatmulTiling.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir::weave::pipeline;

namespace {

/// Tensor-core multiply-adds per SM cycle (f16/bf16 dense): a 128x256x64
/// step takes 1024 cycles (docs/PERF.md).
constexpr double kMacsPerCycle = 2048;
/// Bytes an SM's TMA loads bring in per cycle at most, from L2.
constexpr double kSmLoadBytesPerCycle = 64;
/// The L2's sector: a row whose pitch is not a multiple of it starts
/// inside one, and each 128-byte box row of it touches five.
constexpr int64_t kSectorBytes = 32;
/// The rhs bytes a two-consumer block streams from DRAM per cycle where its
/// rows fill one or two whole row tiles (each rhs box is used by at most
/// two blocks, so it comes from DRAM, not L2); the lhs, a few row tiles
/// read by every block, stays in L2 and comes at kSmLoadBytesPerCycle.
/// From the sweep on an H100 (docs/PERF.md): 128x128 tiles at 64-127 rows
/// moved 32 KB per 900 cycles, the rate every byte of a step got until
/// the thirty-first session (and still gets with a partial row tile or one
/// consumer). Charged to the rhs alone, a 128 x 64 tile at 256 x 4096 x
/// 4096 is no longer rated at 1.5x its measured time, and the picks at 16
/// shapes of 128 and 256 rows came within 1.2% of the best of 8-36
/// configurations measured each (6.5% before; one H200, docs/PERF.md
/// "Small M: the rhs streams, the lhs does not").
constexpr double kSmStreamBytesPerCycle = 36;
/// With a single whole row tile every block reads the same lhs box at the
/// same k step beside its rhs from DRAM: all of a step's bytes came in at
/// about this rate (one H200: 128 x 128 at 128 x 14336 x 8192 ran 67.3 us,
/// the 64 x 256 pair 62.3; 128 x 64 at 128 x 8192 x 8192 39.2, 128 x 128
/// split_k(2) 41.6; 44-46 fit 167 measured shapes best).
constexpr double kSmOneRowTileBytesPerCycle = 44;
/// A narrow tile (at most kPartialBoxMaxCols columns) whose last row or
/// column tile is partly out of bounds (TMA zero-fills the rest) brings in
/// its steps at about this rate, and a round waits for its slowest tile.
/// One H200, 128 x 64 tiles with 8 stages at a row count 1-64 past a
/// multiple of 128 against that multiple (docs/PERF.md "Small M: the rhs
/// streams, the lhs does not"): 1.23-1.66x (770 against 768 x 1024 x 4096:
/// 26.9 against 16.2 us); N 4000 (62.5 column tiles of 64) 1.14-1.36x.
/// Wider tiles lose less or nothing (128 x 128 6 stages 1.20-1.37x,
/// split_k(2) 1.09-1.19x, 128 x 256 and 128 x 192 none at 200 rows); their
/// choices stay as measured before this term.
constexpr double kPartialBoxBytesPerCycle = 32;
constexpr int64_t kPartialBoxMaxCols = 64;
/// The share of a block's load rate a cluster of two-consumer blocks keeps
/// where its rows fill fewer row tiles than it has blocks (a real tile
/// paired with padded ones, the rhs streaming from DRAM): 128 x 14336 x
/// 8192 bf16 on one H200 took 82.1 us with 128 x 256 cluster_m(2) and 64.9
/// us with 128 x 128 unclustered, the same SMs and bytes a step in this
/// model, which had them tied (DRAM-bound); 64 x 14336 x 8192: 99.4
/// against 76.6 us. The one-consumer 64 x 256 pair is exempt: at 64 x
/// 10240 x 8192 it ran 52.0 us, split_k(2) 54.8-60.4 (docs/PERF.md
/// "Small M: clusters padded with a zero row tile").
constexpr double kPaddedClusterLoadShare = 0.8;
/// At most this many rows, the estimate adds kBoundSlackShare of the lesser
/// of its compute and DRAM terms to the greater: the two overlap
/// imperfectly, and on an H200 (about 4 TB/s reached, the model's DRAM is
/// an H100's 3) the DRAM-bound ties hid differences. One H200, each change
/// it made measured as a pair (docs/PERF.md "Small M: clusters padded
/// with a zero row tile"): 64 x 8192 x 8192 split_k 2 -> 3 0.834, 64 x
/// 5120 x 13824 split_k 4 -> 5 0.917, 64 and 128 x 14336 x 8192 128 x 128
/// -> the 64 x 256 pair 0.905 and 0.937, 64 x 28672 x 4096 128 x 256 -> 64
/// x 256 0.976. At 256 rows the same term chose pairs 5-6% slower: not
/// applied there.
constexpr int64_t kSlackRows = 128;
constexpr double kBoundSlackShare = 0.1;
/// The fix-up's wait: a release, an acquire and a barrier, about 1 us.
constexpr double kFixupSyncCycles = 2000;
/// Bytes the epilogue stores per cycle (through shared memory and TMA).
constexpr double kStoreBytesPerCycle = 64;
/// L2 bytes per SM cycle for the whole device (about 5.5 TB/s).
constexpr double kL2BytesPerCycle = 3000;
/// DRAM bytes per SM cycle for the whole device (about 3 TB/s).
constexpr double kDramBytesPerCycle = 1700;
/// The tile the chooser gives the op's tail split (candidateConfigs).
constexpr int64_t kTailSplitTile[2] = {128, 256};
/// What a kernel built with a tail split costs where it splits nothing
/// (see estimateMatmulCycles).
constexpr double kTailSplitIdleCost = 1.03;
/// Launch, barrier initialization, the first loads' latency, the tail.
constexpr double kFixedCycles = 6000;
/// Split-K needs this many k steps per split at least: shorter splits
/// cost more in fix-up than they gain.
constexpr int64_t kMinStepsPerSplit = 4;
constexpr int64_t kMaxSplitK = 16;
/// The 64 x 128 tile (one consumer) is offered up to this many rows (a
/// static M, or every row of a dynamic band). One H200, 107 shapes whose
/// pick it took, against the picks without it (docs/PERF.md "A 64 x 128
/// tile"): geometric mean 0.92 at 16 rows, 0.90 at 64, 0.87 at 100, 0.95
/// at 128; 1.16 at 192, 1.02-1.14 at 256-1024, where this load-bound model
/// rated it beside the wide tiles.
constexpr int64_t kSmallTileMaxRows = 128;

/// Whether `c` may run launches of up to `maxRows` rows (< 0: unbounded).
bool admitsRows(const MatmulConfig &c, int64_t maxRows) {
  bool smallTile = c.tileM == 64 && c.tileN == 128 && c.consumers == 1;
  return !smallTile || (maxRows >= 0 && maxRows <= kSmallTileMaxRows);
}
constexpr int64_t kMinSplitKStages = 4;
constexpr int64_t kMaxStages = 8;
/// Variants of a dynamic M: chosen per band of 64 rows up to this many
/// rows (the header's kMaxVariantKernels and kMaxVariantRanges bound them).
constexpr int64_t kBandedRows = 16384;

/// The mainloop's efficiency per tile shape, relative to 128x256x64 with
/// two consumers (docs/PERF.md: 256x128 0.96-0.98x where 128x256 gave
/// 0.97-0.99x; 128x128 0.89 in the sweep with 4 stages, where the same
/// shapes ran 11-13% slower with it than with 128x256 at whole waves, and
/// 2-5% faster with 6 stages than with 4; a lone consumer keeps
/// only one wgmma group in flight and nothing hides its epilogue: a guess
/// below 128x128, not measured alone yet).
double tileEfficiency(const MatmulConfig &c) {
  if (c.tileM == 128 && c.tileN == 256)
    return 1.0;
  if (c.tileM == 256 && c.tileN == 128)
    return 0.98;
  if (c.tileM == 128 && c.tileN == 128)
    return c.stages >= 6 ? 0.92 : 0.89;
  if (c.tileM == 64 && c.tileN == 256)
    return 0.85;
  // A round of 128 x 192 tiles took 0.854 of a 128 x 256 round (the
  // all-gather matmul, m_shard 1152, 3 rounds each: 0.1109 against 0.1299
  // ms on 2 x H100, docs/PERF.md "The all-gather matmul's 128 x 192
  // tile"): 0.75 of the columns at 0.88 per column.
  if (c.tileM == 128 && c.tileN == 192)
    return 0.88;
  // Three consumers of 64 x 192: a round of 192 x 192 tiles (4608 x 4096 x
  // 4096 bf16, 528 tiles in 4 rounds: 0.1935 ms) took 1.138 of a round of
  // 128 x 256 (4096 x 4096 x 4096, 512 tiles in 4 rounds: 0.1701 ms) for
  // 1.125 of the area, one H200 (docs/PERF.md "The 192 x 192 tile").
  if (c.tileM == 192 && c.tileN == 192)
    return 0.99;
  // 128 x 64 (two consumers of 64 x 64): not measured alone; where it wins
  // (one round of tiles at 128-256 rows) its steps are load-bound in this
  // model, so the figure does not move its choices.
  return 0.9;
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The base tile shapes, in the order of preference on a tie.
std::vector<MatmulConfig> baseTiles(int64_t inBytes) {
  int64_t tk = 128 / inBytes;
  std::vector<MatmulConfig> tiles;
  auto add = [&](int64_t tm, int64_t tn, int64_t consumers) {
    MatmulConfig c;
    c.tileM = tm;
    c.tileN = tn;
    c.tileK = tk;
    c.consumers = consumers;
    c.splitM = true;
    tiles.push_back(c);
  };
  add(128, 256, 2);
  add(256, 128, 2);
  add(128, 192, 2);
  add(192, 192, 3);
  add(128, 128, 2);
  add(64, 256, 1);
  add(128, 64, 2);
  add(64, 128, 1); // at most kSmallTileMaxRows rows (admitsRows)
  return tiles;
}

} // namespace

std::string MatmulConfig::name() const {
  std::string s = std::to_string(tileM) + "x" + std::to_string(tileN) + "x" +
                  std::to_string(tileK) + " s" + std::to_string(stages) +
                  " c" + std::to_string(consumers) + (splitM ? "m" : "n");
  if (clusterM > 1)
    s += " cluster" + std::to_string(clusterM);
  if (splitK > 1)
    s += " splitk" + std::to_string(splitK);
  if (tailSplit > 1)
    s += " tail" + std::to_string(tailSplit);
  return s;
}

namespace {

/// The tiling of `config` on `p` (MatmulTiling.h), for the rules the
/// choice can break.
MatmulTiling tilingOf(const MatmulConfig &config, const MatmulProblem &p) {
  MatmulTiling t = MatmulTiling::make(config.tileM, config.tileN, config.tileK,
                                      config.stages, config.consumers,
                                      config.splitM, p.inBytes, p.outBytes);
  t.clusterM = config.clusterM;
  t.splitK = config.splitK;
  t.m = p.dynamicM() ? MatmulTiling::kDynamic : p.m;
  t.n = p.n;
  t.k = p.k;
  return t;
}

} // namespace

int64_t mlir::weave::pipeline::matmulSmemBytes(const MatmulConfig &config,
                                               int64_t inBytes,
                                               int64_t outBytes) {
  MatmulProblem p;
  p.inBytes = inBytes;
  p.outBytes = outBytes;
  return MatmulSmemLayout(tilingOf(config, p)).requiredBytes;
}

/// The ways the kernel of `c` splits its last round at `p`'s rows
/// (tailSplitWays; 1: none), the workspace's room taken as never binding.
static int64_t tailSplitWaysAt(const MatmulProblem &p, const MatmulConfig &c) {
  if (c.tailSplit <= 1 || c.splitK != 1 || c.clusterM != 1)
    return 1;
  int64_t m = std::max<int64_t>(p.m, 1);
  int64_t tiles = ceilDiv(m, c.tileM) * ceilDiv(p.n, c.tileN);
  int64_t workers = p.smCount;
  return tailSplitWays(tiles, workers, ceilDiv(p.k, c.tileK), c.tailSplit,
                       {workers, workers});
}

double mlir::weave::pipeline::estimateMatmulCycles(const MatmulProblem &p,
                                                   const MatmulConfig &c) {
  int64_t m = std::max<int64_t>(p.m, 1);
  int64_t rowTiles = ceilDiv(m, c.tileM);
  // Row tiles padded to whole clusters (the padded ones load and multiply
  // zeros).
  int64_t tiles =
      ceilDiv(rowTiles, c.clusterM) * c.clusterM * ceilDiv(p.n, c.tileN);
  int64_t units = tiles * c.splitK;
  int64_t workers = p.smCount / c.clusterM * c.clusterM;
  int64_t rounds = ceilDiv(units, workers);
  int64_t numK = ceilDiv(p.k, c.tileK);
  int64_t steps = ceilDiv(numK, c.splitK);

  // One k step: the tensor cores, or the loads when they cannot keep up
  // (small tiles bring in more bytes per multiply-add).
  double efficiency = tileEfficiency(c) * (c.clusterM > 1 ? 0.985 : 1.0);
  double mma = double(c.tileM) * c.tileN * c.tileK / kMacsPerCycle;
  // A static M below the tile loads a box of its rows only (rounded to 8;
  // MatmulTiling::lhsBoxRows), and its partial box is no longer
  // zero-filled.
  int64_t boxM = p.staticRows ? m : MatmulTiling::kDynamic;
  bool shortBox =
      MatmulTiling::shortLhsBoxOf(boxM, c.tileM, p.shiftsEdgeTiles);
  double lhsRows =
      double(MatmulTiling::lhsBoxRowsOf(boxM, c.tileM, p.shiftsEdgeTiles));
  double lhsBytes = lhsRows * c.tileK * p.inBytes;
  double rhsBytes = double(c.tileN) / c.clusterM * c.tileK * p.inBytes;
  double stageBytes = lhsBytes + rhsBytes;
  // An operand whose rows lie off the sector grid (a's where k x the
  // element size is not a multiple of kSectorBytes, b's where n x it is not)
  // loads its boxes at half the rate: each 128-byte box row touches five
  // sectors and two cache lines. So the loads, not the tensor cores, set
  // the pace where a tile brings in many such rows per multiply-add.
  // Measured (one H200 and 2 x H200, bf16, the thirty-sixth session,
  // docs/PERF.md "The all-gather matmul at odd k and n"), fixed tiles
  // against cuBLAS at M x N x K: 128 x 256 2304 x 7168 x 2056 (a off)
  // 1.040 (aligned 1.035), 2304 x 7000 x 2048 (b off) 0.858, 2304 x 7000 x
  // 2056 (both) 0.755; with cluster_m(2) 1.017, 0.987, 0.980; 128 x 128
  // 0.745, 0.701, 0.576 (aligned 0.993). Each within 10% of this rule; the
  // rhs-only penalty on the tensor cores' rate it replaces saw neither a's
  // rows nor a narrow tile's (the chooser took 128 x 128 cluster_m(2) at
  // 1792 x 6008 x 3000: 0.813 of cuBLAS, where 128 x 256 cluster_m(2) ran
  // 0.954).
  auto offGrid = [&](int64_t rowElements) {
    return (rowElements * p.inBytes) % kSectorBytes != 0;
  };
  double offGridBytes =
      (offGrid(p.k) ? lhsBytes : 0.0) + (offGrid(p.n) ? rhsBytes : 0.0);
  // Fewer row tiles than the cluster's blocks: each real tile shares its
  // rhs multicast with a padded one, and a pair of two-consumer blocks
  // keeps pace more slowly than a block alone (kPaddedClusterLoadShare).
  double share = c.clusterM > 1 && c.consumers > 1 && rowTiles < c.clusterM
                     ? kPaddedClusterLoadShare
                     : 1.0;
  double loadCycles =
      (stageBytes + offGridBytes) / (kSmLoadBytesPerCycle * share);
  // One or two row tiles: the rhs streams from DRAM. Where a two-consumer
  // tile's rows are whole, the rhs alone comes at kSmStreamBytesPerCycle,
  // and with a single row tile the whole step at
  // kSmOneRowTileBytesPerCycle. A last row tile partly out of bounds, and
  // the one-consumer 64 x 256 (whose splits and pairs were calibrated so),
  // bring the whole step at the stream rate, as before the thirty-first
  // session.
  // A kernel that moves its edge tiles (MatmulProblem::shiftsEdgeTiles)
  // loads no box partly out of bounds where the dimension holds more than
  // one tile: 128 x 64 ran 770 x 1024 x 4096 in 16.6 us so, 27.3 before,
  // 768 rows 16.1. But past two row tiles a narrow tile with a moved last
  // column tile (its rhs boxes off the rows' 128-byte lines) kept the
  // partial-box rate: 500 x 2000 x 4096 ran 128 x 64 in 21.9 us, 128 x 128
  // split_k(2) 18.6; 333 x 2000 x 4096 21.1 and 18.4 (one H200,
  // docs/PERF.md "Edge tiles moved inside").
  bool partialRows = m % c.tileM != 0 &&
                     !(p.shiftsEdgeTiles && m > c.tileM) && !shortBox;
  bool partialCols =
      p.n % c.tileN != 0 &&
      !(p.shiftsEdgeTiles && p.n > c.tileN && rowTiles <= 2);
  if (rowTiles <= 2 && (partialRows || c.consumers == 1)) {
    loadCycles = std::max(loadCycles,
                          stageBytes / (kSmStreamBytesPerCycle * share));
  } else if (rowTiles <= 2) {
    loadCycles = std::max(loadCycles, rhsBytes / kSmStreamBytesPerCycle);
    if (rowTiles == 1)
      loadCycles = std::max(loadCycles,
                            stageBytes / (kSmOneRowTileBytesPerCycle * share));
  }
  // A narrow tile whose last row or column tile is partly out of bounds:
  // its steps come in at kPartialBoxBytesPerCycle.
  if ((partialRows || partialCols) && c.tileN <= kPartialBoxMaxCols)
    loadCycles = std::max(loadCycles, stageBytes / kPartialBoxBytesPerCycle);
  double step = std::max(mma / efficiency, loadCycles);

  double unit = steps * step +
                double(c.tileM) * c.tileN * p.outBytes / kStoreBytesPerCycle;
  // The fix-up moves the partials of rows below M only (SplitKFixup::
  // skipRowsPast: a thread's two rows, 8 apart, go together).
  double fixupRows = double(std::min<int64_t>(c.tileM, ceilDiv(m, 16) * 16));
  if (c.splitK > 1) {
    // Every unit but a tile's last stores its f32 partial; the last one
    // waits for them and reads the s - 1 partials back.
    double partial = fixupRows * c.tileN * 4;
    unit += c.splitK * partial / kSmLoadBytesPerCycle + kFixupSyncCycles;
  }
  double compute = rounds * unit;
  // A tail split (the kernel's rule, tailSplitWays, without the
  // workspace's bound: a room of W tiles never binds, t < W): the whole
  // rounds, then the last round's t tiles split s ways, each unit 1/s of
  // the k steps plus the fix-up.
  int64_t tail = units % workers;
  int64_t tailWays = tailSplitWaysAt(p, c);
  if (tailWays > 1) {
    double partial = fixupRows * c.tileN * 4;
    double tailUnit = ceilDiv(numK, tailWays) * step +
                      double(c.tileM) * c.tileN * p.outBytes /
                          kStoreBytesPerCycle +
                      tailWays * partial / kSmLoadBytesPerCycle +
                      kFixupSyncCycles;
    compute = (rounds - 1) * unit + tailUnit +
              2.0 * (tailWays - 1) * tail * partial / kL2BytesPerCycle;
  }
  // The partials cross L2 twice (stored, read back by the last split) at
  // the device's L2 bandwidth: what made split_k(3) of 1024x4096x14336
  // 1.20x the unsplit kernel on an H100 where the per-unit terms alone
  // said 1.12x (docs/PERF.md, "Dynamic M").
  if (c.splitK > 1)
    compute += 2.0 * (c.splitK - 1) * tiles * fixupRows * c.tileN * 4 /
               kL2BytesPerCycle;

  double dramBytes = (double(m) * p.k + double(p.k) * p.n) * p.inBytes +
                     double(m) * p.n * p.outBytes;
  if (c.splitK > 1)
    dramBytes += double(c.splitK - 1) * tiles * fixupRows * c.tileN * 4;
  if (tailWays > 1)
    dramBytes += double(tailWays - 1) * tail * fixupRows * c.tileN * 4;
  double dram = dramBytes / kDramBytesPerCycle;
  // A kernel built with the tail split that does not split at this row
  // count: the per-unit branch and the fix-up beside the whole tile's
  // path cost 2-4% (one H100, 128 x 256 at 1024 and 2048 x 4096 x 4096;
  // the GEMM + RS's chunk launches at 1024 x 4096 x 4096, 4 x H100;
  // docs/PERF.md "The tail split calibrated"), so a variant's band takes
  // it only where its rows split.
  if (c.tailSplit > 1 && tailWays == 1)
    compute *= kTailSplitIdleCost;
  // Rows that fit one 128-row tile: the rhs streams from DRAM and the
  // candidates tie on the DRAM bound, which on an H200 is loose; the one
  // with less time under it wins (kBoundSlackShare).
  double bound = std::max(compute, dram);
  if (m <= kSlackRows)
    bound += kBoundSlackShare * std::min(compute, dram);
  return bound + kFixedCycles;
}

namespace {

/// Whether split-K `config` (splitK > 1) fits a workspace of
/// `workspaceWords` for launches of up to `maxRows` rows (< 0: unbounded,
/// which no workspace holds): SplitKFixup's rule.
bool splitKFits(const MatmulConfig &config, const MatmulProblem &p,
                int64_t maxRows, int64_t workspaceWords) {
  MatmulTiling t = tilingOf(config, p);
  if (maxRows >= 0)
    t.maxRows = maxRows;
  t.workspaceWords = workspaceWords;
  return !checkSplitKWorkspace(t);
}

/// Row counts standing for the range [lo, hi] of a dynamic M: its ends,
/// the powers of two inside and points between them, off the 128 grid too
/// (partial row tiles); an unbounded range is sampled up to 4 x lo or
/// 65536, whichever is larger.
std::vector<int64_t> sampleRows(int64_t lo, int64_t hi) {
  int64_t top = hi == MatmulProblem::kUnbounded
                    ? std::max<int64_t>(65536, 4 * std::max<int64_t>(lo, 1))
                    : hi;
  std::vector<int64_t> rows = {lo, top, lo + (top - lo) / 4,
                               lo + (top - lo) / 2, lo + 3 * (top - lo) / 4};
  for (int64_t m = 64; m <= top; m *= 2)
    if (m >= lo)
      rows.push_back(m);
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

} // namespace

std::vector<MatmulConfig>
mlir::weave::pipeline::candidateConfigs(const MatmulProblem &p,
                                        const MatmulConstraints &c) {
  std::vector<MatmulConfig> result;
  // SmemArena's rule: within a block's shared memory and the kernel's.
  auto fitsSmem = [&](const MatmulConfig &config) {
    MatmulTiling t = tilingOf(config, p);
    t.kernelSmem = c.maxSmemBytes;
    return !checkSmemArena(t);
  };
  std::vector<MatmulConfig> bases = baseTiles(p.inBytes);
  if (c.tileM) {
    // A fixed tile (written, or spelled by a callback's tile arguments):
    // the base of that shape, or one made for it (consumers of 64 or 128
    // rows; the op verifier rejects what wgmma cannot run).
    MatmulConfig fixed;
    fixed.tileM = *c.tileM;
    fixed.tileN = c.tileN.value_or(fixed.tileN);
    fixed.tileK = c.tileK.value_or(128 / p.inBytes);
    fixed.splitM = c.splitM.value_or(true);
    fixed.consumers =
        c.consumers.value_or(fixed.splitM && fixed.tileM <= 64 ? 1 : 2);
    bases.erase(std::remove_if(bases.begin(), bases.end(),
                               [&](const MatmulConfig &b) {
                                 return b.tileM != fixed.tileM ||
                                        b.tileN != fixed.tileN ||
                                        b.tileK != fixed.tileK;
                               }),
                bases.end());
    if (bases.empty())
      bases.push_back(fixed);
  }
  for (MatmulConfig base : bases) {
    if (c.consumers && *c.consumers != base.consumers)
      continue;
    if (c.splitM && *c.splitM != base.splitM)
      continue;
    // Stages: as asked; else the most that fit for an unsplit tile (a
    // deeper ring ran 128x128 tiles 2-5% faster with 6 stages than with 4,
    // docs/PERF.md "Stages"), and the largest power of two for split-K
    // units (a few k steps each: 5-6 stages measured no better there).
    int64_t deepest = 0, powerOfTwo = 0;
    if (c.stages) {
      MatmulConfig t = base;
      t.stages = *c.stages;
      if (fitsSmem(t))
        deepest = powerOfTwo = *c.stages;
    } else {
      for (int64_t s = kMaxStages; s >= 2 && !powerOfTwo; --s) {
        MatmulConfig t = base;
        t.stages = s;
        if (!fitsSmem(t))
          continue;
        if (!deepest)
          deepest = s;
        if ((s & (s - 1)) == 0)
          powerOfTwo = s;
      }
    }
    if (!deepest)
      continue;
    int64_t numK = ceilDiv(p.k, base.tileK);
    int64_t maxRows = !p.dynamicM()                            ? p.m
                      : p.mHi == MatmulProblem::kUnbounded ? -1
                                                           : p.mHi;
    // (A tile the op fixed is run at any row count.)
    if (!c.tileM && !admitsRows(base, maxRows))
      continue;
    for (int64_t cluster : {1, 2}) {
      if (c.clusterM && *c.clusterM != cluster)
        continue;
      // Blocks of a cluster take adjacent row tiles (padded to whole
      // clusters, unless a region would see them) and share the rhs boxes:
      // TileScheduler's rules.
      MatmulConfig clustered = base;
      clustered.clusterM = cluster;
      MatmulTiling scheduled = tilingOf(clustered, p);
      scheduled.regions = !c.padRowTiles;
      if (checkTileScheduler(scheduled))
        continue;
      // Split-K needs the most rows a launch may have (maxRows): the
      // workspace holds a region per tile.
      for (int64_t split = 1; split <= kMaxSplitK; ++split) {
        if (c.splitK ? *c.splitK != split
                     : split > 1 && (maxRows < 0 || cluster > 1))
          continue;
        MatmulConfig config = base;
        config.stages = split > 1 ? powerOfTwo : deepest;
        config.clusterM = cluster;
        config.splitK = split;
        if (split > 1 &&
            (cluster > 1 || !splitKFits(config, p, maxRows, c.workspaceWords)))
          continue;
        if (split > 1 && numK < split * kMinStepsPerSplit && !c.splitK)
          continue;
        // Split-K units the chooser offers on its own run a power-of-two
        // ring of at least kMinSplitKStages: the 192 x 192 tile fits 2
        // beside 3, not measured split. (Stages or a split the op fixed
        // are the op's to choose.)
        if (split > 1 && powerOfTwo < kMinSplitKStages && !c.splitK &&
            !c.stages)
          continue;
        result.push_back(config);
        // The same with the op's tail split, after it: where the launch
        // would split nothing the two estimates tie and the plain one
        // (earlier) wins, so a kernel (or a variant's band of rows) that
        // never splits on this device carries no split code. Built in,
        // the split's code cost the launches that split nothing 3-4% (the
        // GEMM + RS at 1024 x 4096 x 4096, D = 4, 4 x H100: 0.225 against
        // 0.217-0.219 ms, docs/PERF.md "The tail split calibrated").
        // Only at the 128 x 256 tile (kTailSplitTile): at fixed tiles on
        // one H100 its split won wherever it split (4-37%, 32 shapes),
        // 128 x 128's lost 2-11% at many rounds of N 4096 and 14336, and
        // through the op a 128 x 128 kernel built with it that split
        // nothing ran 7-12% slower (GEMM + RS 1152 x 6912 x 5120, 2 and 4
        // x H100); one consumer's 64 x 256 spilled 64 bytes beside the
        // fix-up (the dynamic-M sweep's 256 x 8192 x 8192: 1.23x).
        if (split == 1 && cluster == 1 && c.tailSplit > 1 &&
            config.tileM == kTailSplitTile[0] &&
            config.tileN == kTailSplitTile[1]) {
          config.tailSplit = c.tailSplit;
          MatmulTiling t = tilingOf(config, p);
          t.tailSplit = config.tailSplit;
          t.workspaceWords = c.workspaceWords;
          if (!checkTailSplitWorkspace(t))
            result.push_back(config);
        }
      }
    }
  }
  return result;
}

std::optional<MatmulConfig>
mlir::weave::pipeline::chooseMatmulConfig(const MatmulProblem &p,
                                          const MatmulConstraints &c) {
  std::vector<MatmulConfig> candidates = candidateConfigs(p, c);
  if (candidates.empty())
    return std::nullopt;
  // Dynamic M: the row counts a launch may have, each with its best
  // estimate (computed once, not once per candidate).
  std::vector<std::pair<MatmulProblem, double>> samples;
  if (p.dynamicM())
    for (int64_t m : sampleRows(p.mLo, p.mHi)) {
      MatmulProblem q = p;
      q.m = m;
      q.staticRows = false;
      double best = std::numeric_limits<double>::infinity();
      for (const MatmulConfig &other : candidates)
        best = std::min(best, estimateMatmulCycles(q, other));
      samples.emplace_back(q, best);
    }
  auto cost = [&](const MatmulConfig &config) {
    if (!p.dynamicM())
      return estimateMatmulCycles(p, config);
    // Dynamic M: the summed regret over the row counts a launch may have.
    double regret = 0;
    for (const auto &[q, best] : samples)
      regret += estimateMatmulCycles(q, config) / best;
    return regret;
  };
  const MatmulConfig *best = nullptr;
  double bestCost = std::numeric_limits<double>::infinity();
  // Earlier candidates win ties: the simpler configuration.
  for (const MatmulConfig &config : candidates) {
    double value = cost(config);
    if (value < bestCost) {
      bestCost = value;
      best = &config;
    }
  }
  return *best;
}

std::vector<MatmulVariant>
mlir::weave::pipeline::chooseMatmulVariants(const MatmulProblem &p,
                                            const MatmulConstraints &c) {
  if (!p.dynamicM() || p.mLo < 1 || p.mLo > p.mHi)
    return {};
  // Bands of 64 rows up to kBandedRows: every tile count (and so every
  // estimate but the DRAM term) is constant inside one, so its last row
  // stands for it. Above, one band: tiles fill whole waves there.
  struct Band {
    int64_t lo, hi, row; // rows [lo, hi], estimated at `row`
  };
  std::vector<Band> bands;
  for (int64_t lo = p.mLo; lo <= p.mHi;) {
    if (lo > kBandedRows) {
      bands.push_back({lo, p.mHi, -1});
      break;
    }
    int64_t hi = std::min(p.mHi, (lo + 63) / 64 * 64);
    bands.push_back({lo, hi, hi});
    lo = hi + 1;
  }
  // The candidates of the first band (split-K where the workspace holds
  // its rows); a band may take one where the workspace holds the band's
  // last row (then every earlier band's too: a run of bands is feasible
  // where its last band is).
  MatmulProblem first = p;
  first.mHi = bands.front().hi;
  std::vector<MatmulConfig> candidates = candidateConfigs(first, c);
  if (candidates.empty())
    return {};
  constexpr double kInfeasible = std::numeric_limits<double>::infinity();
  auto feasible = [&](const MatmulConfig &config, const Band &band) {
    // A tail split only on a band whose rows split: merged over bands that
    // do not, a variant would run its split's code where it splits
    // nothing (kTailSplitIdleCost; 1024 x 4096 x 4096 took the tail split
    // of the band 769-1408 rows). (The unbounded band keeps the estimate's
    // idle cost instead.)
    if (config.tailSplit > 1 && band.row > 0) {
      MatmulProblem q = p;
      q.m = band.row;
      if (tailSplitWaysAt(q, config) == 1)
        return false;
    }
    if (!c.tileM && !admitsRows(config, band.row > 0 ? band.hi : -1))
      return false;
    // (The unbounded band, row < 0, holds no split.)
    return config.splitK == 1 ||
           splitKFits(config, p, band.row > 0 ? band.hi : -1,
                      c.workspaceWords);
  };
  // cost[b][i]: regret (estimate / the band's best feasible estimate) of
  // candidate i in band b, infinite where infeasible; the unbounded band
  // sums it over its sampled rows.
  std::vector<std::vector<double>> cost(bands.size());
  for (size_t b = 0; b < bands.size(); ++b) {
    std::vector<int64_t> rows =
        bands[b].row > 0 ? std::vector<int64_t>{bands[b].row}
                         : sampleRows(bands[b].lo, bands[b].hi);
    cost[b].assign(candidates.size(), 0);
    for (int64_t m : rows) {
      MatmulProblem q = p;
      q.m = m;
      q.staticRows = false;
      std::vector<double> est;
      double best = kInfeasible;
      for (const MatmulConfig &config : candidates) {
        est.push_back(feasible(config, bands[b])
                          ? estimateMatmulCycles(q, config)
                          : kInfeasible);
        best = std::min(best, est.back());
      }
      for (size_t i = 0; i < candidates.size(); ++i)
        cost[b][i] += est[i] / best;
    }
  }
  // The configurations the variants may use (each is a function of the
  // bundle: compile time and size): every band's best, then, while more
  // than kMaxVariantKernels remain, the one whose loss costs the least
  // regret (its bands going to the best of the others) dropped.
  std::vector<bool> allowed(candidates.size(), true);
  auto bestAllowed = [&](size_t b) {
    size_t choice = 0;
    double least = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < candidates.size(); ++i)
      if (allowed[i] && cost[b][i] < least) {
        least = cost[b][i];
        choice = i;
      }
    return choice;
  };
  std::vector<bool> used(candidates.size(), false);
  for (size_t b = 0; b < bands.size(); ++b)
    used[bestAllowed(b)] = true;
  allowed = used;
  auto totalRegret = [&] {
    double sum = 0;
    for (size_t b = 0; b < bands.size(); ++b)
      sum += cost[b][bestAllowed(b)];
    return sum;
  };
  while (std::count(allowed.begin(), allowed.end(), true) >
         kMaxVariantKernels) {
    size_t drop = 0;
    double least = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (!allowed[i])
        continue;
      allowed[i] = false;
      double regret = totalRegret();
      allowed[i] = true;
      if (regret < least) {
        least = regret;
        drop = i;
      }
    }
    allowed[drop] = false;
  }
  // Runs of bands sharing a candidate: each band's best allowed one, then
  // the neighbours whose merge costs the least regret merged until at
  // most kMaxVariantRanges remain (each run is an entry of the bundle that
  // the runtime scans at launch). A run's candidate is the allowed one
  // with the least summed regret over its bands (earlier candidates win
  // ties).
  struct Run {
    size_t first, last, choice;
    double cost;
  };
  auto bestOver = [&](size_t first, size_t last) {
    Run run{first, last, 0, std::numeric_limits<double>::infinity()};
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (!allowed[i])
        continue;
      double sum = 0;
      for (size_t b = first; b <= last; ++b)
        sum += cost[b][i];
      if (sum < run.cost) {
        run.cost = sum;
        run.choice = i;
      }
    }
    return run;
  };
  std::vector<Run> runs;
  for (size_t b = 0; b < bands.size(); ++b) {
    Run run = bestOver(b, b);
    if (!runs.empty() && runs.back().choice == run.choice) {
      runs.back().last = b;
      runs.back().cost += run.cost;
    } else {
      runs.push_back(run);
    }
  }
  while (runs.size() > size_t(kMaxVariantRanges)) {
    size_t at = 0;
    double least = std::numeric_limits<double>::infinity();
    Run merged{};
    for (size_t r = 0; r + 1 < runs.size(); ++r) {
      Run candidate = bestOver(runs[r].first, runs[r + 1].last);
      double extra = candidate.cost - runs[r].cost - runs[r + 1].cost;
      if (extra < least) {
        least = extra;
        at = r;
        merged = candidate;
      }
    }
    runs[at] = merged;
    runs.erase(runs.begin() + at + 1);
    // Merging may leave neighbours with one candidate: join them.
    for (size_t r = 0; r + 1 < runs.size();) {
      if (runs[r].choice == runs[r + 1].choice) {
        runs[r].last = runs[r + 1].last;
        runs[r].cost += runs[r + 1].cost;
        runs.erase(runs.begin() + r + 1);
      } else {
        ++r;
      }
    }
  }
  std::vector<MatmulVariant> variants;
  for (const Run &run : runs)
    variants.push_back(
        {bands[run.first].lo, bands[run.last].hi, candidates[run.choice]});
  return variants;
}
