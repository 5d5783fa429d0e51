//===- Instances.cpp - The kernel instance of each op ---------------------===//
//
// The kernel instance of each op: its template and kernel come from the
// op's registry entry (Registry.cpp); the values follow from the dtype, team
// size and count (collectiveValues), and for the fused matmuls from their
// shape (below). No CUDA and no compiler here (library WeaveOpsHost), so
// the instances are checked and compiled ahead of time on machines without
// a GPU.
//
//===----------------------------------------------------------------------===//

#include "weave/ops/Collectives.h"
#include "weave/ops/FusedMatmul.h"
#include "weave/ops/Registry.h"

// (Header-only and MLIR-free: the schedule on integers.)
#include "weave/Dialect/Weave/Transforms/Pipeline/TileOrder.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <utility>

namespace weave::ops {

namespace {

/// The dtypes a template takes (the dtype table's `collectives`): the
/// reducing ones sum in f32 and round once to T, which f16 would do on the
/// way too (not offered).
Status checkRequest(const std::string &op, const std::string &dtype,
                    bool reduces, const char *what, int64_t count) {
  Expected<DType> known = parseDType(dtype);
  if (!known)
    return std::move(known).takeError().addContext(op);
  CollectiveUse use = traitsOf(*known).collectives;
  if (use == CollectiveUse::None ||
      (reduces && use != CollectiveUse::MoveAndReduce))
    return Error(
        ErrorCode::InvalidArgument,
        op + ": dtype '" + dtype + "' is not supported (" +
            (reduces ? dtypeNames([](const DTypeTraits &t) {
                         return t.collectives == CollectiveUse::MoveAndReduce;
                       }) + ": sums are accumulated in f32"
                     : dtypeNames([](const DTypeTraits &t) {
                         return t.collectives != CollectiveUse::None;
                       })) +
            ")");
  if (count < 1 || count > (int64_t(1) << 40))
    return Error(ErrorCode::InvalidArgument,
                 op + ": " + what + " must be between 1 and 2^40, got " +
                     std::to_string(count));
  return ok();
}

} // namespace

// Auto's choice table: the rows of every op's OpSpec::choices (the
// measurements behind them are in Registry.cpp), flattened for callers that
// print or test the whole table.
const std::vector<CollectiveChoice> &collectiveChoices() {
  static const std::vector<CollectiveChoice> table = [] {
    std::vector<CollectiveChoice> rows;
    for (const OpSpec &op : opRegistry())
      for (const ChoiceRow &row : op.choices)
        rows.push_back({op.name.c_str(), row.minTeam, row.maxTeam,
                        row.maxBytes, row.algorithm.c_str()});
    return rows;
  }();
  return table;
}

std::string chooseAlgorithm(const std::string &op, uint32_t teamSize,
                            const std::string &dtype, int64_t count) {
  const OpSpec *spec = findOp(op);
  if (!spec)
    return "";
  int64_t bytes = count * int64_t(dtypeBytes(dtype) ? dtypeBytes(dtype) : 4);
  for (const ChoiceRow &row : spec->choices)
    if (teamSize >= row.minTeam && teamSize <= row.maxTeam &&
        bytes <= row.maxBytes)
      return row.algorithm;
  return "";
}

namespace {

/// The instance of the collective `op` run by `algorithm` ("auto": the
/// table's choice; otherwise one of the op's offered algorithms).
Expected<KernelInstance> instanceOf(const std::string &op, uint32_t teamSize,
                                    const std::string &dtype, int64_t count,
                                    std::string algorithm) {
  const OpSpec *spec = findOp(op);
  if (!spec || spec->family != OpFamily::Collective)
    return Error(ErrorCode::InvalidArgument,
                 "unknown op '" + op + "' (" +
                     opNames(OpFamily::Collective) + ")");
  WEAVE_TRY(checkRequest(spec->title, dtype, spec->reduces,
                         spec->countName.c_str(), count));
  if (algorithm == "auto")
    algorithm = chooseAlgorithm(op, teamSize, dtype, count);
  const AlgorithmSpec *a = spec->algorithm(algorithm);
  if (!a || !a->offered)
    return Error(ErrorCode::InvalidArgument,
                 spec->title + ": algorithm must be 'auto', " +
                     spec->offeredNames() + ", got '" + algorithm + "'");
  // An algorithm that fixes template values (AlgorithmSpec::values) is a
  // bundle of its own: its key names it after the count.
  std::string shape;
  if (!a->values.empty())
    shape = "n" + std::to_string(count) + "_" + a->name;
  return KernelInstance{a->templateName, a->kernel, dtype,
                        a->perTeam ? teamSize : 0, count, a->values, shape};
}

} // namespace

namespace {
/// The spelling of each AllReduceAlgorithm (the registry's algorithm
/// names), the one table both directions read.
constexpr std::pair<AllReduceAlgorithm, const char *> kAllReduceNames[] = {
    {AllReduceAlgorithm::Auto, "auto"},
    {AllReduceAlgorithm::OneShot, "one_shot"},
    {AllReduceAlgorithm::TwoShot, "two_shot"},
    {AllReduceAlgorithm::Push, "push"},
    {AllReduceAlgorithm::PushTwoShot, "push_two_shot"},
    {AllReduceAlgorithm::Ll, "ll"},
};
} // namespace

std::string allReduceAlgorithmName(AllReduceAlgorithm algorithm) {
  for (const auto &[value, name] : kAllReduceNames)
    if (value == algorithm)
      return name;
  return "auto";
}

AllReduceAlgorithm AllReduce::choose(uint32_t teamSize, const std::string &dtype,
                                     int64_t count) {
  Expected<AllReduceAlgorithm> chosen =
      parseAllReduceAlgorithm(chooseAlgorithm("all_reduce", teamSize, dtype, count));
  return chosen ? *chosen : AllReduceAlgorithm::TwoShot;
}

Expected<KernelInstance> AllReduce::instanceFor(uint32_t teamSize,
                                                const std::string &dtype,
                                                int64_t count,
                                                AllReduceAlgorithm algorithm) {
  return instanceOf("all_reduce", teamSize, dtype, count,
                    allReduceAlgorithmName(algorithm));
}

Expected<KernelInstance> AllGather::instanceFor(uint32_t teamSize,
                                                const std::string &dtype,
                                                int64_t count,
                                                const std::string &algorithm) {
  return instanceOf("all_gather", teamSize, dtype, count, algorithm);
}

Expected<KernelInstance> ReduceScatter::instanceFor(uint32_t teamSize,
                                                    const std::string &dtype,
                                                    int64_t count,
                                                    const std::string &algorithm) {
  return instanceOf("reduce_scatter", teamSize, dtype, count, algorithm);
}

Expected<KernelInstance> AllToAll::instanceFor(uint32_t teamSize,
                                               const std::string &dtype,
                                               int64_t count,
                                               const std::string &algorithm) {
  return instanceOf("all_to_all", teamSize, dtype, count, algorithm);
}

Expected<KernelInstance> AllToAllV::instanceFor(uint32_t teamSize,
                                                const std::string &dtype,
                                                int64_t capacity,
                                                const std::string &algorithm,
                                                int64_t rowElements) {
  if (rowElements == 1)
    return instanceOf("all_to_all_v", teamSize, dtype, capacity, algorithm);
  // The token form: capacity and counts in rows of rowElements elements.
  constexpr int64_t kMost = int64_t(1) << 40;
  if (rowElements < 1 || rowElements > kMost)
    return Error(ErrorCode::InvalidArgument,
                 "all-to-all-v: the elements per row must be between 1 and "
                 "2^40, got " + std::to_string(rowElements));
  if (capacity < 1 || capacity > kMost / rowElements)
    return Error(ErrorCode::InvalidArgument,
                 "all-to-all-v: capacity x elements per row must be between "
                 "1 and 2^40, got " + std::to_string(capacity) + " rows of " +
                     std::to_string(rowElements));
  WEAVE_ASSIGN_OR_RETURN(KernelInstance instance,
                         instanceOf("all_to_all_v", teamSize, dtype,
                                    capacity * rowElements, algorithm));
  instance.extra.push_back({"HIDDEN", std::to_string(rowElements)});
  instance.shape =
      "r" + std::to_string(capacity) + "x" + std::to_string(rowElements);
  return instance;
}

namespace {

/// The dtypes and dimensions the fused matmul templates take: 16-bit
/// operands (wgmma f16/bf16, f32 sums) whose rows are whole 16-byte TMA
/// rows.
Status checkMatmul(const std::string &op, const std::string &dtype,
                   uint32_t teamSize, int64_t mShard, int64_t k, int64_t n) {
  auto fail = [&](const std::string &what) {
    return Error(ErrorCode::InvalidArgument, op + ": " + what);
  };
  Expected<DType> known = parseDType(dtype);
  if (!known)
    return std::move(known).takeError().addContext(op);
  if (!traitsOf(*known).matmulOperand)
    return fail("dtype '" + dtype + "' is not supported (" +
                dtypeNames([](const DTypeTraits &t) {
                  return t.matmulOperand;
                }) +
                ": the matmul sums in f32)");
  if (teamSize < 1)
    return fail("the team size must be at least 1");
  for (auto [name, value] : {std::pair<const char *, int64_t>{"k", k},
                             {"n", n}})
    if (value < 8 || value % 8 != 0 || value > (int64_t(1) << 31))
      return fail(std::string(name) +
                  " must be a positive multiple of 8 (whole 16-byte rows) "
                  "up to 2^31, got " +
                  std::to_string(value));
  // (Divided, not multiplied: m_shard x D overflowed for a huge m_shard.)
  if (mShard < 1 || mShard > (int64_t(1) << 31) / int64_t(teamSize))
    return fail("m_shard must be between 1 and 2^31 / team size, got " +
                std::to_string(mShard));
  return ok();
}

} // namespace

Status AllGatherMatmul::checkShape(uint32_t teamSize, const std::string &dtype,
                                   int64_t mShard, int64_t k, int64_t n) {
  WEAVE_TRY(checkMatmul("all-gather matmul", dtype, teamSize, mShard, k, n));
  // The ring forwards to the previous member: a team of one has none (its
  // all-gather matmul is a plain matmul).
  if (teamSize < 2)
    return Error(ErrorCode::InvalidArgument,
                 "all-gather matmul: the team size must be at least 2 (a ring), "
                 "got " + std::to_string(teamSize));
  // The ring forwards and counts whole row tiles of a shard.
  if (mShard % kRowTile != 0)
    return Error(ErrorCode::InvalidArgument,
                 "all-gather matmul: m_shard must be a multiple of " +
                     std::to_string(kRowTile) + " (the row tile), got " +
                     std::to_string(mShard));
  return ok();
}

double AllGatherMatmul::estimate(uint32_t teamSize, int64_t mShard, int64_t n,
                                 int64_t tileCols, int64_t smCount) {
  int64_t tiles = int64_t(teamSize) * (mShard / kRowTile) *
                  ((n + tileCols - 1) / tileCols);
  int64_t rounds = (tiles + smCount - 1) / smCount;
  return double(rounds) * double(tileCols) / 256.0 / tileEfficiency(tileCols);
}

bool AllGatherMatmul::pushes(int64_t mShard, int64_t colTiles,
                             int64_t smCount) {
  int64_t shardTiles = (mShard + kRowTile - 1) / kRowTile * colTiles;
  return 2 * shardTiles <= smCount;
}

double AllGatherMatmul::tileEfficiency(int64_t tileCols) {
  return tileCols == 128 ? kTile128Efficiency
         : tileCols == 192 ? kTile192Efficiency
                           : 1.0;
}

int64_t AllGatherMatmul::tileN(uint32_t teamSize, int64_t mShard, int64_t n,
                               int64_t smCount) {
  // At least 3% better than 256 columns, not merely different: within
  // that the two are as likely to swap as the model is to be off, and 256
  // columns move less through L2 (every lhs tile is loaded once per column
  // tile). Among the narrower tiles that are, the fastest estimate.
  int64_t best = kTileCols[0];
  double bestEstimate = 0.97 * estimate(teamSize, mShard, n, best, smCount);
  for (size_t i = 1; i < std::size(kTileCols); ++i) {
    int64_t cols = kTileCols[i];
    double e = estimate(teamSize, mShard, n, cols, smCount);
    if (e < bestEstimate) {
      best = cols;
      bestEstimate = e;
    }
  }
  return best;
}

std::string AllGatherMatmul::choose(uint32_t teamSize, int64_t mShard,
                                    int64_t k, int64_t n) {
  // "gather" where one shard's launch of the plain matmul is at most one
  // round of 128 x 128 or 128 x 192 tiles (gatherFill), the ring elsewhere.
  // Measured (4 x H100, bf16, K = N = 4096, the Python op in CUDA graphs,
  // docs/PERF.md "The all-gather matmul's gather: one launch after the
  // all-gather, or the peers' rows in runs"), gather by its schedule
  // (gatherSchedule) against the ring, ms: D = 4 m_shard 256 (fill 0.48,
  // After) 0.075 / 0.096, 384 (0.73, After) 0.107 / 0.140, 512 (0.97)
  // 0.121 / 0.161, 640 and 768 (128 x 192: 0.83 and 1) 0.172 / 0.205 and
  // 0.173 / 0.200; D = 2 256 0.043 / 0.049, 384 0.056 / 0.067, 512 0.073 /
  // 0.075. Lost past one round (896-1536: 1.7 rounds of 128 x
  // 128 and more, 0.215-0.364 / 0.192-0.289 at D = 4): each launch then
  // pays a partial last round while the ring's tiles run in one persistent
  // grid.
  // Past one round, gather also where b is streamed (streamsB): the
  // ring's D steps then each read all of b from memory. 2 x H100, bf16,
  // graphs (fourteenth session, docs/PERF.md "Where b does not stay in
  // the L2"), After / ring, ms: k 4096 n 14336 m_shard 256 0.104 / 0.143,
  // 512 0.189 / 0.204; k 8192 n 28672 256 0.344 / 0.697, 512 0.713 /
  // 0.739; the ring won at m_shard 1024 (0.339 / 0.347 and 1.476 /
  // 1.506), past kStreamedMaxRows.
  // "copy_engine" first where copyEngineWins (4 x H100, bf16, graphs,
  // sixteenth session; docs/PERF.md "The all-gather matmul's copy engines
  // in one launch"), ms, copy_engine against the rule's choice before it
  // (PyTorch's fused op): D = 4 640 x 8192 x 7168 0.488 against the
  // ring's 0.623 (0.478); D = 3 the same shape 0.381 against 0.435
  // (0.363); D = 4 512 x 8192 x 14336 0.707 against gather's 0.755
  // (0.757). Where the ring's groups stay wider it kept its lead: D = 4 at
  // 896 and 1024 rows of 8192 x 7168 (2 and 3 rows) 0.616 and 0.674
  // against 0.660 and 0.742, 1152 x 5120 x 13824 (6 rows) 0.984 against
  // 1.012; b under 96 MiB, 768 x 5120 x 6912 (1 row, 70 MiB of b) 0.335
  // against 0.339; BesideNarrow at D = 4 256 x 8192 x 14336 0.370
  // against 0.403. Seventeenth session (the same machine and script):
  // also where the ring's steps leave most of a round idle
  // (kCopyEngineMinRingIdle): 640 x 8192 x 14336 0.911 against the ring's
  // 1.119 (D = 4; 0.937) and 0.696 against 0.761 (D = 3; 0.714); and
  // before BesideNarrow: D = 4 512 x 8192 x 8192 0.418 against 0.468
  // (the ring 0.405; 0.417).
  // At D = 2 with shards of at most 4 row tiles the ring keeps its
  // groups' width (since the twenty-fifth session), and the one-round
  // condition no longer picks the faster: 4 x H200 (D = 2 on two of
  // them), bf16, the Python op in graphs, 0.5 s sustained (twenty-sixth
  // session, docs/PERF.md "Auto's gather at D = 2 short shards, refit"),
  // ring / gather, ms: one round (fill <= 1) 256 x 4096 x 7168 0.061 /
  // 0.063, 256 x 5120 x 6912 0.073 / 0.075, 384 x 4096 x 7168 0.086 /
  // 0.092, 384 x 5120 x 6912 0.102 / 0.107, and where b streams 256 x
  // 8192 x 7168 0.116 / 0.138, 384 x 8192 x 7168 0.169 / 0.180 (the
  // ring at all six, 3-16%; 256 x 4096 x 11008 level); past one round
  // with b streamed the gather kept its lead at 10 of 11 shapes (3-28%:
  // 384 x 4096 x 14336 0.211 / 0.165, 384 x 5120 x 13824 0.244 / 0.193,
  // 512 x 5120 x 13824 0.264 / 0.243, 256 x 8192 x 28672 0.444 /
  // 0.406; 512 x 8192 x 7168 the ring by 1-3%). Re-measured on today's
  // kernels (2 x H200, thirty-fourth session, ringStreamsShortShard): where
  // b is at most 128 MiB and the ring's steps leave under 0.7 of a round
  // idle, the ring led in bursts by 5-15% (sustained: ahead by 4% at n
  // 7168, behind by 3-4% at n 14336); past it the gather. D = 4 kept the
  // gather at
  // every one-round shape of 256-384 rows (0.145 / 0.161 at 256 x 5120 x
  // 6912, 0.174 / 0.194 at 384 x 4096 x 7168).
  if (teamSize < 2)
    return "ring";
  if (copyEngineWins(teamSize, mShard, k, n))
    return "copy_engine";
  double fill = gatherFill(mShard, n);
  bool streamed = streamsB(mShard, k, n);
  // ... but where every member's rows together are one round of 128 x 128
  // tiles, the gather's one launch is that round while the ring's D steps
  // each fill a part of one: 256 x 4096 x 4096 (2 x 2 x 32 tiles), gather
  // 0.041 against the ring's 0.048 (the same machine and script, in a
  // second call that checked the rule at ten shapes it was not fitted on:
  // it took the faster at eight, 1-26%; the two misses 512 x 7168 x 7168,
  // b 98 MiB, the ring 6% ahead of the gather, and this one).
  if (ringKeepsShortShard(teamSize, mShard)) {
    int64_t gatheredTiles =
        int64_t(teamSize) * (mShard / kRowTile) * ((n + 127) / 128);
    bool streamedPastRound = streamed && fill > 1.0 &&
                             !ringStreamsShortShard(teamSize, mShard, k, n);
    return streamedPastRound || gatheredTiles <= kSmCount ? "gather" : "ring";
  }
  return fill <= 1.0 || streamed ? "gather" : "ring";
}

bool AllGatherMatmul::ringKeepsShortShard(uint32_t teamSize, int64_t mShard) {
  // One row tile: a group is one row whether narrowed or not, so the
  // ring did not change there and the gather's measurements stand.
  int64_t rows = mShard / kRowTile;
  return teamSize >= 2 && teamSize < kGatherOneRoundMinTeam && rows >= 2 &&
         rows <= mlir::weave::pipeline::kUnnarrowedSegmentRows;
}

bool AllGatherMatmul::ringStreamsShortShard(uint32_t teamSize, int64_t mShard,
                                            int64_t k, int64_t n,
                                            int64_t smCount) {
  return ringKeepsShortShard(teamSize, mShard) &&
         double(k) * double(n) * 2 <= double(kShortShardRingMaxBBytes) &&
         ringStepIdle(teamSize, mShard, n, smCount) < kCopyEngineMinRingIdle;
}

/// The ring's launch as TileOrder sees it (the dialect's rule, the schedule
/// the kernels are built with): D segments of mShard / 128 rows, its
/// template's groups of kGroupRows, tileN's column tiles; std::nullopt for
/// an empty one.
static std::optional<mlir::weave::pipeline::TileOrder>
ringOrder(uint32_t teamSize, int64_t mShard, int64_t n, int64_t smCount) {
  int64_t tileCols = AllGatherMatmul::tileN(teamSize, mShard, n, smCount);
  mlir::weave::pipeline::TileOrder order;
  order.tilesM = int64_t(teamSize) * (mShard / AllGatherMatmul::kRowTile);
  order.tilesN = (n + tileCols - 1) / tileCols;
  order.groupWidth = AllGatherMatmul::kGroupRows;
  order.segments = teamSize;
  if (order.tilesM < 1 || order.tilesN < 1 || smCount < 1)
    return std::nullopt;
  return order;
}

int64_t AllGatherMatmul::ringGroupRows(uint32_t teamSize, int64_t mShard,
                                       int64_t n, int64_t smCount) {
  auto order = ringOrder(teamSize, mShard, n, smCount);
  return order ? order->groupRows(order->step(smCount)) : 1;
}

int64_t AllGatherMatmul::ringWaveRows(uint32_t teamSize, int64_t mShard,
                                      int64_t n, int64_t smCount) {
  auto order = ringOrder(teamSize, mShard, n, smCount);
  return order ? order->waveNarrowedRows(order->step(smCount)) : 1;
}

double AllGatherMatmul::ringStepIdle(uint32_t teamSize, int64_t mShard,
                                     int64_t n, int64_t smCount) {
  int64_t tileCols = tileN(teamSize, mShard, n, smCount);
  int64_t stepTiles = (mShard / kRowTile) * ((n + tileCols - 1) / tileCols);
  if (stepTiles < 1 || smCount < 1)
    return 0;
  int64_t rounds = (stepTiles + smCount - 1) / smCount;
  return double(rounds * smCount - stepTiles) / double(smCount);
}

bool AllGatherMatmul::copyEngineWins(uint32_t teamSize, int64_t mShard,
                                     int64_t k, int64_t n, int64_t smCount) {
  if (teamSize < kCopyEngineMinTeam || mShard < kCopyEngineMinRows ||
      double(k) * double(n) * 2 <= double(kStreamedBBytes))
    return false;
  // (The gather's BesideNarrow no longer comes first: at D = 4 512 x 8192
  // x 8192 it took 0.468 ms against the copy engines' 0.418.)
  return ringWaveRows(teamSize, mShard, n, smCount) == 1 ||
         ringStepIdle(teamSize, mShard, n, smCount) >= kCopyEngineMinRingIdle;
}

AllGatherMatmul::GatherSchedule
AllGatherMatmul::gatherSchedule(uint32_t teamSize, int64_t mShard, int64_t k,
                                int64_t n) {
  // Beside pays a round of tiles for the own shard alone, beside the
  // all-gather whose blocks take SMs from it; After pays the all-gather's
  // time before any tile. Measured (4 x H100, bf16, K = 4096, the Python
  // op in CUDA graphs; docs/PERF.md "The all-gather matmul's gather: one
  // launch after the all-gather"), ms, After / Beside:
  // - small shards, After: N = 4096 D = 4 m_shard 128 0.047 / 0.082, 256
  //   0.075 / 0.086, 384 0.107 / 0.120; D = 2 128-384 0.043-0.056 / 0.055-
  //   0.068; N = 8192 m_shard 256 (fill 0.97, 2 MiB of a) D = 4 0.119 /
  //   0.131, D = 2 0.064 / 0.080; N = 2048 m_shard 512 (fill 0.48) D = 4
  //   0.094 / 0.098.
  // - Beside: N = 4096 m_shard 512 (fill 0.97, 4 MiB) D = 4 0.137 / 0.121,
  //   640 (0.83) 0.180 / 0.172 (D = 2 0.101 / 0.094); N = 2048 m_shard
  //   1024 (0.97, 8 MiB) D = 4 0.176 / 0.159, D = 2 0.080 / 0.076.
  // So After where the all-gather (its bytes, the shard's) is short
  // against what Beside loses, a part of a round that grows as the own
  // shard fills less of it: a shard under kGatherAfterBaseBytes +
  // kGatherAfterIdleBytes x (1 - fill). That line separates every point
  // above but one: N = 4096 m_shard 512 at D = 2 (4 MiB, fill 0.97) runs
  // Beside, 0.073 against After's 0.068.
  // Past one round with b streamed (2 x H100, k 4096 n 14336 and k 8192
  // n 28672, m_shard 256 and 512: After 0.104, 0.189, 0.344, 0.713 ms
  // against Beside's 0.116, 0.196, 0.393, 0.820): one launch reads b
  // once where Beside's reads it twice.
  // From kNarrowMinTeam members the all-gather before that launch is D - 1
  // shards, and Beside with its all-gather on kNarrowAllGatherBlocks blocks
  // hides it, where splitting the launch costs no round of 128 x 256 tiles
  // (narrowPaysNoRound). 4 x H100, bf16, graphs (fifteenth session,
  // docs/PERF.md "The gather's all-gather on 8 blocks"), After / Beside
  // narrow, ms, with the rounds own + peers against all: D = 4 k 8192 n
  // 14336 m_shard 256 (1 + 3, 4) 0.412 / 0.361 and 0.389 / 0.363, 512
  // (2 + 6, 7) 0.780 / 0.720; k 5120 n 13824 384 (2 + 4, 5) 0.324 / 0.334
  // and 0.321 / 0.331; D = 3 k 8192 n 18944 256 (2 + 3, 4) 0.387 / 0.469,
  // 512 (3 + 5, 7) 0.764 / 0.838; k 6144 n 9216 384 (1 + 2, 3) 0.245 /
  // 0.206. The rule takes the faster at five of the six (not D = 4 at 512
  // rows, where After is kept: 8% slower there). At D = 2 the all-gather
  // is one shard and After won every point (k 8192 n 28672 256 0.343 /
  // 0.377, 512 0.674 / 0.724; k 5120 n 27648 384 0.301 / 0.357).
  // Only where b is streamed: there the own shard's launch is long enough
  // to hide an all-gather on 8 blocks. At K = N = 4096 (fourteenth
  // session, Beside at D = 4) 8 blocks lost to 64: m_shard 640 0.186
  // against 0.174 ms, 768 0.196 against 0.175.
  double fill = gatherFill(mShard, n);
  if (fill > 1.0 && streamsB(mShard, k, n))
    return teamSize >= kNarrowMinTeam && narrowPaysNoRound(teamSize, mShard, n)
               ? GatherSchedule::BesideNarrow
               : GatherSchedule::After;
  double shardBytes = double(mShard) * double(k) * 2; // f16 or bf16
  double idle = 1.0 - fill;
  return shardBytes < kGatherAfterBaseBytes + kGatherAfterIdleBytes * idle
             ? GatherSchedule::After
             : GatherSchedule::Beside;
}

bool AllGatherMatmul::narrowPaysNoRound(uint32_t teamSize, int64_t mShard,
                                        int64_t n, int64_t smCount) {
  if (teamSize < 2)
    return false;
  double own = estimate(1, mShard, n, 256, smCount);
  double peers = estimate(teamSize - 1, mShard, n, 256, smCount);
  return own + peers <= estimate(teamSize, mShard, n, 256, smCount);
}

double AllGatherMatmul::gatherFill(int64_t mShard, int64_t n,
                                   int64_t smCount) {
  // The plain matmul's chooser takes 128 x 192 tiles where they make one
  // round and 128 x 128 ones would make two (ConfigChooser.cpp: m_shard
  // 513-768 at N = 4096). Counted only up to kGatherWideTileMaxRows: such
  // a round takes the same time whatever m_shard, while the all-gather the
  // peers' rounds wait for grows with it (gatherFill's declaration).
  double best = 0, first = 0;
  for (int64_t columns : {int64_t(128), int64_t(192)}) {
    if (columns == 192 && mShard > kGatherWideTileMaxRows)
      continue;
    int64_t tiles = (mShard / kRowTile) * ((n + columns - 1) / columns);
    double fill = double(tiles) / double(smCount);
    if (columns == 128)
      first = fill;
    if (fill <= 1.0)
      best = std::max(best, fill);
  }
  return best > 0 ? best : first;
}

Expected<KernelInstance> AllGatherMatmul::instanceFor(
    uint32_t teamSize, const std::string &dtype, int64_t k, int64_t n,
    const std::string &algorithm) {
  WEAVE_TRY(checkShape(teamSize, dtype, kRowTile, k, n));
  std::string chosen = algorithm == "auto" ? "ring" : algorithm;
  const OpSpec *spec = findOp("all_gather_matmul");
  const AlgorithmSpec *a = spec->algorithm(chosen);
  if (!a || !a->offered)
    return Error(ErrorCode::InvalidArgument,
                 "all-gather matmul: algorithm must be 'auto' or one of " +
                     spec->offeredNames() + ", got '" + algorithm + "'");
  if (!a->kernelOf.empty()) {
    // Another op's kernel (gather's matmul, the GEMM + RS's copy-engine
    // chunk matmul): the instance of the owner's algorithm that runs it,
    // the same bundle.
    RegisteredKernel owner = findRegisteredKernel(a->kernel);
    return matmulOpInstance(owner.op->name, teamSize, dtype, {kRowTile, k, n},
                            owner.algorithm->name);
  }
  constexpr int64_t kTileK = 64;
  auto str = [](int64_t v) { return std::to_string(v); };
  int64_t steps = (k + kTileK - 1) / kTileK;
  // Only the ring's kernel pushes: copy_engine's rows come from the copy
  // engines, so its runs of m_shard split on the tile alone.
  bool ring = chosen == "ring";
  // The values of one column tile: its stages (the deepest ring that fits:
  // 4 of 48 KB, 6 of 32 KB), the column tiles that share a row tile's
  // forwarding, and whether the kernel pushes up to m_shard `lastShard`
  // (pushes is false from some m_shard on, so a range pushes where its
  // last does). No k rotation: the push took its place (FusedMatmul.h).
  auto tileValues = [&](int64_t tileCols, int64_t lastShard) {
    int64_t colTiles = (n + tileCols - 1) / tileCols;
    return TemplateValues{
        {"TILE_N", str(tileCols)},
        {"STAGES", tileCols == 128 ? "6" : "4"},
        {"COL_TILES", str(colTiles)},
        {"K_ROTATION", "0"},
        {"PUSH", ring && pushes(lastShard, colTiles) ? "1" : "0"}};
  };
  // pushes turns off from some m_shard on and never back: a run of
  // m_shards pushes where its last one does.
  auto pushesAt = [&](int64_t lastShard, int64_t tileCols) {
    return ring && pushes(lastShard, (n + tileCols - 1) / tileCols);
  };
  // ROWS = ?: one bundle serves every m_shard (rows bound at launch),
  // with the static instances' schedule: groups of 8 row tiles that stay
  // inside a shard (grid_tile_segments), 16 chunk counters per shard.
  TemplateValues extra{{"ROWS", "?"},
                       {"M_SHARD", "?"},
                       {"K", str(k)},
                       {"N_SHARD", str(n)},
                       {"DTYPE", dtype},
                       {"GROUP_ROWS", str(kGroupRows)},
                       {"READY", str(int64_t(teamSize) * 16)},
                       {"FLAGS", str(int64_t(teamSize) * 2)},
                       {"LAST_K", str(steps - 1)},
                       {"KERNEL", a->kernel},
                       {"VARIANT", ""}};
  for (auto &value : tileValues(256, kVariantMaxShard))
    extra.push_back(value);
  // Variants over runs of m_shard with one column tile (tileN at every
  // multiple of the row tile up to kVariantMaxShard; the last run has no
  // upper bound), as ranges of `a`'s rows (D x m_shard): the runtime
  // picks the one that holds the launch's rows. One run: no variants.
  struct Run {
    int64_t first, last, tileCols;
  };
  // Neighbouring runs that one variant can serve: the same tile, both
  // pushing or neither.
  auto sameKernel = [&](const Run &x, const Run &y) {
    return x.tileCols == y.tileCols &&
           pushesAt(x.last, x.tileCols) == pushesAt(y.last, y.tileCols);
  };
  std::vector<Run> runs;
  for (int64_t m = kRowTile; m <= kVariantMaxShard; m += kRowTile) {
    Run one{m, m, tileN(teamSize, m, n)};
    if (runs.empty() || !sameKernel(runs.back(), one))
      runs.push_back(one);
    else
      runs.back().last = m;
  }
  // At most kMaxVariants (each is a whole kernel to compile): while more,
  // merge the two neighbours whose merge adds the least regret (the sum
  // over their m_shards of estimate / best estimate - 1), the merged run
  // taking the tile of least regret over both. (n = 320: the two tiles
  // alternate with the rounds' quantization up to m_shard 16384.)
  auto regret = [&](int64_t first, int64_t last, int64_t cols) {
    double sum = 0;
    for (int64_t m = first; m <= last; m += kRowTile) {
      double best = estimate(teamSize, m, n, kTileCols[0]);
      for (int64_t cols : kTileCols)
        best = std::min(best, estimate(teamSize, m, n, cols));
      sum += estimate(teamSize, m, n, cols) / best - 1;
    }
    return sum;
  };
  while (runs.size() > kMaxVariants) {
    size_t at = 0;
    Run merged{};
    double added = 0;
    for (size_t i = 0; i + 1 < runs.size(); ++i) {
      int64_t first = runs[i].first, last = runs[i + 1].last;
      double before = regret(runs[i].first, runs[i].last, runs[i].tileCols) +
                      regret(runs[i + 1].first, runs[i + 1].last,
                             runs[i + 1].tileCols);
      for (int64_t cols : kTileCols) {
        double cost = regret(first, last, cols) - before;
        if ((i == 0 && cols == kTileCols[0]) || cost < added) {
          at = i;
          merged = {first, last, cols};
          added = cost;
        }
      }
    }
    runs[at] = merged;
    runs.erase(runs.begin() + at + 1);
    // A merge may leave neighbours with one tile (and rotation): join
    // them.
    for (size_t i = 0; i + 1 < runs.size();)
      if (sameKernel(runs[i], runs[i + 1])) {
        runs[i].last = runs[i + 1].last;
        runs.erase(runs.begin() + i + 1);
      } else {
        ++i;
      }
  }
  std::vector<TemplateValues> variants;
  if (runs.size() > 1) {
    int64_t d = teamSize;
    for (size_t i = 0; i < runs.size(); ++i) {
      // Rows (D x (previous run's last m_shard), D x last]: every row count
      // is covered; one that is not whole row tiles traps in the kernel.
      int64_t lo = i == 0 ? 1 : d * runs[i - 1].last + 1;
      std::string hi =
          i + 1 == runs.size() ? "" : ", hi = " + str(d * runs[i].last);
      TemplateValues variant = tileValues(runs[i].tileCols, runs[i].last);
      // all_gather_matmul__m<first m_shard>_<last|up>_n<tile columns>.
      variant.push_back({"KERNEL", a->kernel + "__m" + str(runs[i].first) +
                                       (i + 1 == runs.size()
                                            ? std::string("_up")
                                            : "_" + str(runs[i].last)) +
                                       "_n" + str(runs[i].tileCols)});
      variant.push_back(
          {"VARIANT", ", weave.variant = {of = \"" + a->kernel +
                          "\", arg = 0, axis = 0, lo = " + str(lo) + hi +
                          "}"});
      variants.push_back(std::move(variant));
    }
  }
  return KernelInstance{a->templateName,
                        a->kernel,
                        dtype,
                        teamSize,
                        0,
                        std::move(extra),
                        "mdyn_k" + str(k) + "_n" + str(n),
                        std::move(variants)};
}

Status MatmulReduceScatter::checkShape(uint32_t teamSize,
                                       const std::string &dtype,
                                       int64_t mShard, int64_t k, int64_t n) {
  WEAVE_TRY(checkMatmul("matmul reduce-scatter", dtype, teamSize, mShard, k, n));
  // A box of the matmul's output must belong to one owner's slot.
  if (mShard % kRowTile != 0)
    return Error(ErrorCode::InvalidArgument,
                 "matmul reduce-scatter: m_shard must be a multiple of " +
                     std::to_string(kRowTile) + " (the row tile), got " +
                     std::to_string(mShard));
  return ok();
}

std::string MatmulReduceScatter::choose(uint32_t teamSize,
                                        const std::string &dtype,
                                        int64_t mShard, int64_t k, int64_t n) {
  // The copy engines from D = 2, measured (4 x H200, bf16 and f16, CUDA
  // graphs, docs/PERF.md "GEMM + reduce-scatter on the copy engines"):
  // faster than the fused kernel (owner_slots) at 10 of 12 shapes, by
  // 0.5-7% (D = 4, 4096 x 4096 x 4096: 0.7772 against 0.8195 ms; D = 2:
  // 0.3865 against 0.4080), and within 1.3% where slower (D = 4, 1024 x
  // 14336 x 8192: 1.3355 against 1.3252; D = 2, 4096 x 7168 x 8192: 1.3844
  // against 1.3672). A team of one has no copy to hide and nothing of the
  // copy engines was measured there: the fused kernel.
  // "scatter" where one owner's chunk is at most one round of tiles
  // (AllGatherMatmul::gatherFill, the same tiles), at D = 2 only up to
  // kScatterMaxRows rows: there each of the copy engines' D chunk launches
  // pays a round for a part of one and reads all of b again. Measured
  // (4 x H100, bf16, graphs, fourteenth session; docs/PERF.md "The GEMM +
  // reduce-scatter's small shards: one matmul, then the reduce-scatter"),
  // scatter / copy_engine, ms:
  // - D = 4: m_shard 128 k 3584 n 4096 0.043 / 0.116, k 7168 n 8192 0.110
  //   / 0.271; 256: 0.072 / 0.134, 0.208 / 0.239, k 4096 n 4096 0.077 /
  //   0.146; 512 (fill 0.97): k 3584 n 4096 0.133 / 0.147, k 4096 0.145 /
  //   0.166; past a round the copy engines (1024 x 4096 x 4096: 0.279 /
  //   0.226).
  // - D = 2: m_shard 256 k 7168 n 4096 0.061 / 0.107, k 14336 n 8192
  //   0.194 / 0.205, k 4096 n 4096 0.046 / 0.072; 512, where the copy
  //   engines won (one chunk beside the own one hides its copy): k 7168 n
  //   4096 0.114 / 0.101, k 4096 n 4096 0.082 / 0.076.
  // From 3 members only up to kScatterMaxRowsFrom3 rows: past 512 the
  // chunk of 128 x 192 tiles fills a round (gatherFill 0.83-1.0) and the
  // copy engines (their flags batched since the seventeenth session) won
  // every shape measured (eighteenth session, bf16, graphs, scatter /
  // copy_engine, ms): 4 x H100, D = 4 768 x 3584 x 4096 0.209 / 0.159;
  // 4 x H200, D = 4 640 and 768 x 3584 x 4096 0.172 / 0.143 and 0.199 /
  // 0.154, 640 and 768 x 4096 x 4096 0.185 / 0.159 and 0.214 / 0.169, D =
  // 3 640 and 768 x 3584 x 4096 0.124 / 0.110 and 0.144 / 0.114. At 512
  // the H200 run had the copy engines ahead too (D = 4 0.131 / 0.119, D =
  // 3 0.100 / 0.092) against the fourteenth session's H100 numbers above:
  // 512 stayed "scatter" until one machine measured both again: the
  // thirty-fifth session did (below), and the element bound now sends
  // 512 x 3584 x 4096 to the copy engines.
  // Past kScatterMaxRows rows only up to kScatterMaxElementsPastMaxRows
  // elements (m_shard x n: the reduce-scatter after the matmul moves and
  // sums them with nothing to hide it; a chunk of 512 rows within a round
  // has n up to about 4096, 384 rows about 5600). Measured (4 x H200,
  // bf16, graphs, the thirty-fifth session, docs/PERF.md "The
  // reduce-scatter's size bounds scatter"), scatter / copy_engine, ms,
  // sustained (0.5 s of replays: the H200's clock settled under its power
  // limit) and in bursts (20 replays), two calls where two values:
  // - past it the copy engines won: D = 4 512 x 3584 x 4096 (2M elements)
  //   0.1331 / 0.1173 and 0.1351 / 0.1182 sustained, 0.1324 / 0.1188 and
  //   0.1333 / 0.1130 burst; 512 x 6912 x 5120 (2.6M) 0.2663 / 0.2417
  //   burst, 0.2772 / 0.2814 sustained (the one loss, 1.5%);
  // - at it "scatter" won: D = 4 384 x 14336 x 4096 0.3236 / 0.3469 and
  //   0.3280 / 0.3501 sustained (burst 0.2928 / 0.3003 and 0.2988 /
  //   0.2914); D = 3 384 x 4096 x 4096 (burst) 0.0830 / 0.0858.
  // At 256 rows (at most about 2.1M elements within a round) no bound:
  // 256 x 7168 x 8192 (2M) "scatter" won sustained and lost in bursts, D
  // = 4 0.2212 / 0.2299 and 0.2216 / 0.2363 (burst 0.2060 / 0.1896 and
  // 0.2070 / 0.1924), D = 2 0.1111 / 0.1126 and 0.1132 / 0.1145 (burst
  // 0.1051 / 0.0955), D = 2 256 x 14336 x 8192 0.2033 / 0.2204 (burst
  // 0.1833 / 0.1844); at D = 3 it lost both, 0.1777 / 0.1704 and 0.1788 /
  // 0.1747 (burst 0.1618 / 0.1422). The fused kernel (owner_slots) was
  // the fastest of the three at four of these five sustained (0.2132,
  // 0.2139, 0.1058, 0.1074, 0.2005) but lost at D = 3 (0.1789, 0.1814) and
  // at 512 rows (0.1203, 0.1215): not chosen.
  // Where the dtype is one "scatter" takes (its reduce-scatter's).
  // Up to kOwnerSlotsMaxK the fused kernel wherever the copy engines would
  // run: a chunk's copy (m_shard x n elements) then takes longer than the
  // chunk matmul it should hide behind (m_shard x n x k), whatever m_shard
  // and n, and the fused kernel's stores to the owners run inside its
  // rounds. Measured (2 x H200, D = 2, bf16, graphs, the thirty-sixth
  // session, docs/PERF.md "The fused GEMM + RS at short k"), owner_slots /
  // copy_engine, ms, burst and sustained (0.5 s of replays):
  // - k 1024: 1024 x 1024 x 4096 0.0567 / 0.0806 and 0.0541 / 0.0701, 768
  //   x 1024 x 4096 (the fused kernel's fill 0.73) 0.0480 / 0.0559 and
  //   0.0473 / 0.0550, 1536 and 2048 x 1024 x 8192 0.1297 / 0.1722 and
  //   0.1612 / 0.2192 (sustained alike), 512 x 1024 x 4096 sustained
  //   0.0363 / 0.0438; k 1000 and 2056 (640 x 1000 x 3000, 1152 x 2056 x
  //   7000) 0.0391 / 0.0485 and 0.1531 / 0.1904: 14-30% faster;
  // - k 2048: 384, 512, 1024, 1536 and 2048 rows (n 4096 and 8192)
  //   1.5-9% faster both ways; 1-2% slower at 768 x 2048 x 4096 (fill
  //   0.73: 0.0672 / 0.0664, 0.0666 / 0.0652);
  // - from k 2560 the copy engines: 1024 x 2560 x 5120 0.1092 / 0.1057
  //   burst, level sustained; k 3072 and 3584, 512-1024 rows, 4-21% ahead
  //   (1024 x 3072 x 4096 0.0969 / 0.0853, 640 x 3072 x 4096 0.0829 /
  //   0.0689), but for 768 x 3072 x 8192 sustained (1% behind) and 512 x
  //   3584 x 4096 in bursts (the copy engines at 1.69 of local cuBLAS
  //   there, 1.25 sustained: an outlier of that call).
  // - past k 1792 (kOwnerSlotsAnyRoundsMaxK) only up to
  //   kOwnerSlotsShortKMaxRounds rounds of the fused kernel's tiles (its
  //   launch over every member's chunk): at k 2048 the copy engines caught
  //   up past them (call 5 of that session, burst and sustained: 4096 x
  //   2048 x 4096, 7.8 rounds, 0.2371 / 0.2333 and 0.2686 / 0.2499; 2560 x
  //   2048 x 8192, 9.7 rounds, 0.2898 / 0.2852 and 0.3258 / 0.3210; level
  //   at 4.85 rounds, 2560 x 2048 x 4096, 0.1574 / 0.1597 and 0.1675 /
  //   0.1692, call 10), where at 1-3.9 rounds the fused kernel led (above;
  //   512 x 2048 x 4096 0.0468 / 0.0480 and 0.0468 / 0.0488, 1152 x 1792 x
  //   4096 0.0848 / 0.0855 and 0.0836 / 0.0860). At k 1536 and below it
  //   led at every size measured (call 10): 5.8 rounds, 1536 x 1536 x 8192
  //   0.1535 / 0.1716 and 0.1614 / 0.1888, 3072 x 1536 x 4096 0.1540 /
  //   0.1837 and 0.1613 / 0.1884; 2048 x 1536 x 4096 (3.9) 0.1093 / 0.1220;
  //   k 1024 at 5.8-15.5 rounds 3072 x 1024 x 4096 0.1301 / 0.1772, 4096 x
  //   1024 x 8192 0.2894 / 0.3958, 8192 x 1024 x 4096 0.2892 / 0.3970
  //   (sustained alike). At k 1792, with the sum's slots prefetched
  //   (thirty-eighth session, calls 7-8, docs/PERF.md "The sum's slots
  //   prefetched"), the fused kernel led or was level past 4 rounds too,
  //   burst and sustained: 3072 x 1792 x 4096 (5.8 rounds) 0.1636 / 0.1772
  //   and 0.1744 / 0.1856, 2048 x 1792 x 7168 (6.8) 0.1894 / 0.2002 and
  //   0.2020 / 0.2160, 6144 x 1792 x 4096 (11.6) 0.3006 / 0.3429 and
  //   0.3412 / 0.3411, 4096 x 1792 x 8192 (15.5) 0.3952 / 0.4328 and
  //   0.4456 / 0.4452; so the bound of any size is k 1792 (was 1536). At k
  //   2048 past 4 rounds it stays the copy engines': the fused kernel
  //   1.5-3% ahead in bursts at six of seven shapes (7.8-15.5 rounds) but
  //   2-9% behind at all seven sustained (4096 x 2048 x 4096 0.2281 /
  //   0.2352 and 0.2701 / 0.2470).
  // "scatter" kept its rows (bf16: 128 x 24 x 40 0.0206 against the fused
  // kernel's 0.0264); with f16 there the fused kernel (0.0274 against the
  // copy engines' 0.0357). Fitted at D = 2 only; from 3 members each peer
  // chunk's copy hides behind the next chunk's matmul, the last behind
  // the own one, the same ratio, but not yet measured.
  if (teamSize < 2)
    return "owner_slots";
  // The inputs gathered where they are at most kInputGatherMaxBytesShare
  // of the partial products (inputGatherWins has the measurements).
  if (inputGatherWins(teamSize, mShard, k, n))
    return "input_gather";
  const char *copyEngines = ownerSlotsBeatsCopyEngines(teamSize, mShard, k, n)
                                ? "owner_slots"
                                : "copy_engine";
  const OpSpec *spec = findOp("matmul_reduce_scatter");
  bool rows = mShard <= kScatterMaxRows ||
              (teamSize > 2 && mShard <= kScatterMaxRowsFrom3 &&
               mShard * n <= kScatterMaxElementsPastMaxRows);
  if (!rows || AllGatherMatmul::gatherFill(mShard, n) > 1.0)
    return copyEngines;
  // Where "scatter" would run, the fused kernel when its one launch fills
  // its rounds (ownerSlotsFillsRounds). Measured (4 x H200, bf16, graphs,
  // the thirty-fifth session, docs/PERF.md "The fused kernel where
  // scatter would run"), owner_slots / scatter, ms, sustained and burst:
  // - a fill of 0.97 (128 or 256 tiles of 128 x 256 on 132 SMs), the fused
  //   kernel faster at every point: D = 4 256 x 7168 x 8192 0.2132 /
  //   0.2212 and 0.2139 / 0.2216 sustained, 0.1909 / 0.2060 and 0.1875 /
  //   0.2070 burst; D = 4 128 x 7168 x 8192 0.1111 / 0.1167, 0.1121 /
  //   0.1151 (burst 0.1043 / 0.1075, 0.1051 / 0.1085); D = 4 256 x 3584 x
  //   4096 0.0682 / 0.0706 (burst 0.0692 / 0.0717); D = 2 256 x 7168 x
  //   8192 0.1058 / 0.1111, 0.1074 / 0.1132 (burst 0.0982 / 0.1051, 0.0987
  //   / 0.1063); D = 2 256 x 14336 x 8192 0.2005 / 0.2033 (burst 0.1775 /
  //   0.1833);
  // - below it the fused kernel lost: fill 0.73 (1.45 rounds) D = 4 384 x
  //   14336 x 4096 0.3369 / 0.3236 (burst 0.3460 / 0.2928) and D = 3 256 x
  //   7168 x 8192 0.1789 / 0.1777 (burst 0.1677 / 0.1618); 0.55 at D = 3
  //   384 x 4096 x 4096 (burst 0.1047 / 0.0830); under a round at D = 2
  //   (thirty-fourth session, burst) 128 x 4096 x 4096 0.0542 / 0.0281, 256
  //   x 4096 x 4096 0.0574 / 0.0420, 256 x 7168 x 4096 0.0846 / 0.0575.
  if (ownerSlotsFillsRounds(teamSize, mShard, n))
    return "owner_slots";
  return spec->takesDtype(dtype, *spec->algorithm("scatter")) ? "scatter"
                                                               : copyEngines;
}

/// The fused kernel's tiles: one launch over every member's chunk
/// (teamSize x mShard rows by n) in kRowTile x kOwnerSlotsTileColumns.
static int64_t ownerSlotsTiles(uint32_t teamSize, int64_t mShard, int64_t n) {
  using MRS = MatmulReduceScatter;
  int64_t rowTiles =
      (int64_t(teamSize) * mShard + MRS::kRowTile - 1) / MRS::kRowTile;
  return rowTiles * ((n + MRS::kOwnerSlotsTileColumns - 1) /
                     MRS::kOwnerSlotsTileColumns);
}

bool MatmulReduceScatter::ownerSlotsFillsRounds(uint32_t teamSize,
                                                int64_t mShard, int64_t n,
                                                int64_t smCount) {
  int64_t tiles = ownerSlotsTiles(teamSize, mShard, n);
  if (tiles <= 0 || smCount <= 0)
    return false;
  int64_t rounds = (tiles + smCount - 1) / smCount;
  return double(tiles) / double(rounds * smCount) >= kOwnerSlotsMinRoundFill;
}

bool MatmulReduceScatter::ownerSlotsBeatsCopyEngines(uint32_t teamSize,
                                                     int64_t mShard, int64_t k,
                                                     int64_t n,
                                                     int64_t smCount) {
  if (k > kOwnerSlotsMaxK || smCount <= 0)
    return false;
  if (k <= kOwnerSlotsAnyRoundsMaxK)
    return true;
  int64_t tiles = ownerSlotsTiles(teamSize, mShard, n);
  return tiles > 0 && tiles <= kOwnerSlotsShortKMaxRounds * smCount;
}

int64_t MatmulReduceScatter::inputGatherColumnBlock(int64_t mShard,
                                                   int64_t k, int64_t n,
                                                   int64_t elementBytes) {
  // 2 x H200, D = 2, bf16, through torch, burst, ms, one block (f674459)
  // against two and four (docs/PERF.md "b in column blocks"), the better
  // of two rounds each; n / m_shard in brackets:
  //   2048 x 1024 x 8192 (4)   0.1382 -> 0.1240 (2), 0.1236 (4)
  //   2048 x 1536 x 8192 (4)   0.1832 -> 0.1612, 0.1604
  //   2048 x 1024 x 14336 (7)  0.2049 -> 0.1955, 0.1956
  //   1024 x 1024 x 8192 (8)   0.1111 -> 0.1007, 0.1149
  //   2048 x 1024 x 5000 (2.4) 0.1184 -> 0.1116, 0.1223
  //   2048 x 1024 x 4096 (2)   0.0851 -> 0.0910, 0.0978
  //   3072 x 1024 x 6144 (2)   0.1319 -> 0.1394, 0.1383
  //   8192 x 1024 x 2048 (1/4) 0.1188 -> 0.1273, 0.1387
  // and within 1.5% at the five shapes where the own product hides the
  // copies (4096 x 1024 x 4096 and 8192, 4096 x 1536 x 5120, 6144 x 1024
  // x 4096). Where b is short against a's rows the blocks only delay a
  // (block 0 goes first) and add a copy and a flag (4-6 us, "What a copy
  // engine's part costs"); from n = 4 m_shard on they start the add 10-12%
  // sooner. Four gained nothing over two. At shapes not fitted (call 2,
  // the better of three rounds against two):
  //   2048 x 2048 x 8192 (4)   0.2291 -> 0.2039
  //   2048 x 1280 x 12288 (6)  0.2205 -> 0.2028
  //   2048 x 1024 x 6144 (3)   0.1149 -> 0.1136
  //   2560 x 1024 x 10240 (4)  0.1948 -> 0.1952
  //   3072 x 1024 x 9216 (3)   0.1897 -> 0.2001
  //   1536 x 1024 x 7168 (4.7) 0.1167 -> 0.1209
  // So n / m_shard is not the whole rule: from 2560 rows the own product
  // (m_shard x k x n flops) nearly hides the copies (k x (m_shard + n)
  // elements) and the blocks only reorder them. The ratio of the two is
  // H = m_shard x n / (m_shard + n) up to k and the rates (some 300 GB/s a
  // copy engine, some 700 TFLOP/s on the H200: the copies take about 2330
  // / H times the own product). The blocks won where H was 1638-1792
  // (m_shard 2048, n 8192-14336) and lost or were level at 2048 and 2304.
  // Call 3, shapes fitted to neither bound (better of three rounds, ms):
  //   1792 x 1024 x 8192 (4.6, H 1470)   0.1416 -> 0.1310
  //   2048 x 1792 x 10240 (5, H 1707)    0.2507 -> 0.2366
  //   2304 x 1024 x 9216 (4, H 1843)     0.1531 -> 0.1629
  //   2048 x 1024 x 28672 (14, H 1911)   0.3764 -> 0.3752
  // (sustained, 1000 replays after 250: 0.1440 -> 0.1338, 0.2599 ->
  // 0.2601, 0.1625 -> 0.1647, 0.4385 -> 0.4452). 2304 x 9216 lost to the
  // blocks' width, not to H: with its blocks away from the slow pitched
  // widths (below; call 9, medians of three rounds against one block):
  //   2304 x 1024 x 9216 (H 1843)   0.1532 -> 0.1462 (0.954)
  //   2048 x 1024 x 28672 (H 1911)  0.3816 -> 0.3819 (1.001)
  //   2560 x 1024 x 10240 (H 2048)  0.1946 -> 0.1980 (1.017)
  //   3072 x 1024 x 12288 (H 2458)  0.2474 -> 0.2499 (1.010)
  // Two blocks where n is at least 4 m_shard (b at least four times a's
  // rows: 3 was level at 2048 x 6144) and H at most 1900 (the copies some
  // 1.2 times the own product: won at 1843, level at 1911, lost 1-2% from
  // 2048); 1536 x 7168 (H 1264, 3.6% slower) is the one point inside that
  // lost, a shape "auto" does not gather at (below kInputGatherMinRows).
  if (mShard <= 0 || n <= 0 || n < kInputGatherColumnMinShare * mShard ||
      mShard * n > kInputGatherColumnMaxOwnPerCopy * (mShard + n) ||
      kInputGatherColumnParts <= 1)
    return std::max<int64_t>(n, 1);
  int64_t per = (n + kInputGatherColumnParts - 1) / kInputGatherColumnParts;
  int64_t even = (per + kInputGatherColumnQuantum - 1) /
                 kInputGatherColumnQuantum * kInputGatherColumnQuantum;
  // The copy engines move each block with a pitched copy, and those are
  // slow where a block's rows are more than 8 and less than 11 KB wide
  // (docs/PERF.md "b in column blocks", calls 5-7, two blocks of 1024 rows
  // both ways, against plain copies of the same bytes: rows of 17-21 KB
  // in halves 1.07-1.29x, every block 8.5-10.5 KB; split 8 + 9, 8 + 10
  // and 12 + 9 KB 1.09-1.15x; 8 + 11 and 12 + 8 KB 1.02-1.04x; halves
  // 4-8 and 11.5-16 KB wide within 6%). So where an even block would be
  // that wide, W moves by quanta, the nearest first, to where no block
  // is and the count of blocks stays, up to n / 4 away (two blocks: the
  // first the wider; n 9216 at bf16: 5632 + 3584 columns, 11 + 7 KB, not
  // 9 + 9; n 10240: 6144 + 4096, 12 + 8 KB).
  auto slow = [&](int64_t cols) {
    int64_t bytes = cols * elementBytes;
    return bytes > kCopyEngineSlowRowMinBytes &&
           bytes < kCopyEngineSlowRowMaxBytes;
  };
  auto fits = [&](int64_t w) {
    if (w <= 0 || w >= n)
      return false;
    int64_t blocks = (n + w - 1) / w;
    return !slow(w) && !slow(n - (blocks - 1) * w);
  };
  if (fits(even))
    return even;
  for (int64_t d = kInputGatherColumnQuantum; d <= n / 4;
       d += kInputGatherColumnQuantum)
    for (int64_t w : {even - d, even + d})
      if (fits(w) && (n + w - 1) / w == (n + even - 1) / even)
        return w;
  return even;
}

bool MatmulReduceScatter::inputGatherWins(uint32_t teamSize, int64_t mShard,
                                          int64_t k, int64_t n) {
  // Measured (2 x H200, bf16, CUDA graphs, the op through torch, every
  // algorithm in one run, the kernel whose add waits for the flags itself;
  // docs/PERF.md "The inputs gathered"), ms, input_gather against the
  // best other algorithm, burst / sustained, by the share of bytes k x
  // (m_shard + n) / (m_shard x n):
  // - 0.375-0.75, 4-20% faster: 4096 x 1024 x 8192 0.2193 / 0.2752 and
  //   0.2649 / 0.2897, 4096 x 1024 x 4096 0.1307 / 0.1537 and 0.1332 /
  //   0.1574, 3072 x 1024 x 6144 0.1384 / 0.1815 and 0.1455 / 0.1829,
  //   2048 x 1024 x 8192 and x 14336, 4096 x 1536 x 5120, 4096 x 2048 x
  //   8192, 8192 x 2048 x 4096 (0.3-0.6 of the partials' bytes), and at
  //   0.75 2048 x 1024 x 4096 (the rule's smallest m_shard x n) 0.0904 /
  //   0.0937 and 0.0883 / 0.0938;
  // - 0.94-1.0: 4096 x 2048 x 4096 0.2161 / 0.2330 and 0.2305 / 0.2474;
  //   2048 x 1536 x 8192 level (0.1899 / 0.1903 burst);
  // - past 1.0 mixed or slower: 1024 x 1024 x 8192 (1.125) 11% behind,
  //   2048 x 2048 x 8192 (1.25) 3.6% behind, 8192 x 4096 x 4096 (1.5)
  //   2.7% behind in bursts and 2.4% ahead sustained, 4096 x 4096 x 4096
  //   (2.0) 1% and 3% ahead, 2048 x 4096 x 4096 (3.0) and 1024 x 4096 x
  //   4096 (5.0) 24% and 75% behind.
  // With a's rows in 2 parts (the fortieth session, docs/PERF.md "The
  // inputs gathered in parts": its add starts on the first part) past
  // 1.0, against copy_engine, the better of them: ahead at every point up
  // to 2.33 in bursts and sustained: 2048 x 2048 x 8192 (1.25) 0.2316 /
  // 0.2380 and 0.2492 / 0.2524, 4096 x 3072 x 4096 (1.5) 0.2940 / 0.3123
  // and 0.3497 / 0.3552, 8192 x 4096 x 4096 (1.5) 0.7942 / 0.8029 and
  // 0.8867 / 0.9150, 4096 x 4096 x 8192 (1.5) 0.8108 / 0.8177 and 0.8918
  // / 0.9168, 6144 x 4096 x 4096 (1.67) 0.5956 / 0.6246 and 0.6678 /
  // 0.6935, 4096 x 4096 x 4096 (2.0) 0.3860 / 0.3980 and 0.4486 / 0.4652,
  // 3072 x 4096 x 4096 (2.33) 0.2910 / 0.3042 and 0.3448 / 0.3482; behind
  // at 2048 x 4096 x 4096 (3.0) 0.2316 / 0.2069 and 0.2521 / 0.2312. The
  // bound is 2.0, below the point (2.33) where the sustained margin
  // was 1%.
  // f16 as bf16 (4096 x 1024 x 8192 0.2259 / 0.2785, 4096 x 1536 x 5120
  // 0.2018 / 0.2355, burst).
  // Only D = 2 was measured: from 3 members the own product that hides
  // the copies is 1 / D of the work while the copies grow with D - 1, so
  // the rule does not take it there. Nor below kInputGatherMinRows rows
  // or kInputGatherMinElements of m_shard x n, the smallest measured
  // (the own product that hides the copies shrinks with m_shard, and the
  // two launches weigh more on smaller calls: 1024 x 1024 x 4096, 0.0730
  // / 0.0549 in the first measurement).
  if (teamSize != 2 || mShard < kInputGatherMinRows || k <= 0 || n <= 0 ||
      mShard * n < kInputGatherMinElements)
    return false;
  return double(k) * double(mShard + n) <=
         kInputGatherMaxBytesShare * double(mShard) * double(n);
}

bool MatmulReduceScatter::sumsInEpilogue(uint32_t teamSize, int64_t mShard,
                                         int64_t k, int64_t n,
                                         int64_t smCount) {
  // Measured (2 x H200, D = 2, bf16, graphs, the op's copy_engine with the
  // sum in the own chunk's epilogue against the ce_sum pass, two runs
  // each; docs/PERF.md "The owner's sum in the own chunk's epilogue"),
  // ms: one round or less of own tiles, the epilogue always won: 768 x
  // 3584 x 4096 0.074 / 0.085, 1024 x 4096 x 4096 0.101 / 0.108, 640 x
  // 5120 x 3072 0.068 / 0.074; past a round it won where m_shard x n / k
  // was small (640 x 7168 x 8192, 731: 0.222 / 0.229; 1024 x 7168 x 8192,
  // 1170: 0.314 / 0.324; 896 x 6912 x 5120, 663: 0.213 / 0.216) and lost
  // at 2048 x 4096 x 4096 (2048: 0.205 / 0.198), whose first round of
  // tiles waited for the copy. The bound lies between 1170 and 1536:
  // 1536 x 4096 x 4096 (m_shard x n / k = 1536) lost at every team size
  // (4 x H200, twenty-sixth session, graphs, epilogue / pass, ms: D = 2
  // 0.183 / 0.163, D = 3 0.264 / 0.238, D = 4 0.339 / 0.310 and 0.331 /
  // 0.315): its chunk runs 128 x 128 tiles (the chooser's for 1409-1536
  // rows at k = n = 4096: 2.9 rounds), whose rounds are half as long as
  // the 128 x 256 ones this bound was fitted on, so the wait at the first
  // round held back two more. The same runs kept 1024 x 7168 x 8192
  // (1170) with the epilogue at D = 2 and 4 (2-3% ahead; 5% behind at D =
  // 3) and found the other shapes within 3% either way (PERF.md, "The
  // sum's place at D = 2, 3 and 4").
  // Past one round, from 3 members the pass won or tied at every point
  // under the bound but one, in the same runs (epilogue / pass, ms): D = 4
  // 1152 x 4096 x 4096 0.294 / 0.284, 1280 0.291 / 0.285, 640 x 7168 x
  // 8192 0.454 / 0.445 and 0.459 / 0.454, 1152 x 6912 x 5120 0.491 /
  // 0.488 and 0.502 / 0.500; D = 3 640 x 7168 x 8192 0.350 / 0.340, 1024
  // x 7168 x 8192 0.516 / 0.488, 1152 x 6912 x 5120 0.378 / 0.377; the
  // exception D = 4 1024 x 7168 x 8192, 0.669 / 0.685 and 0.662 / 0.681.
  // At D = 2 the same points went to the epilogue (1152-1408 x 4096 x
  // 4096 by 1-3%). With more members the in-kernel sum reads D - 1 slots
  // per box on the own chunk's critical path, where the pass reads them
  // once at full bandwidth.
  int64_t tiles = ((mShard + kRowTile - 1) / kRowTile) * ((n + 255) / 256);
  if (tiles <= smCount)
    return true;
  return teamSize <= kSumInEpilogueMaxTeamPastRound && k > 0 &&
         mShard * n <= kSumInEpilogueMaxPerK * k;
}

Expected<KernelInstance> MatmulReduceScatter::instanceFor(
    uint32_t teamSize, const std::string &dtype, int64_t k, int64_t n,
    const std::string &algorithm, int64_t mShard) {
  WEAVE_TRY(checkShape(teamSize, dtype, kRowTile, k, n));
  auto str = [](int64_t v) { return std::to_string(v); };
  // "auto" without a shape: the fused kernel for one member, else the
  // copy-engine instance, which "scatter" shares (ce_matmul's bundle).
  std::string chosen = algorithm != "auto" ? algorithm
                       : teamSize >= 2     ? "copy_engine"
                                           : "owner_slots";
  const OpSpec *spec = findOp("matmul_reduce_scatter");
  const AlgorithmSpec *a = spec->algorithm(chosen);
  if (!a || !a->offered)
    return Error(ErrorCode::InvalidArgument,
                 "matmul reduce-scatter: algorithm must be 'auto' or one of " +
                     spec->offeredNames() + ", got '" + algorithm + "'");
  if (!spec->takesDtype(dtype, *a))
    return Error(ErrorCode::InvalidArgument,
                 "matmul reduce-scatter: algorithm '" + chosen +
                     "' does not take dtype '" + dtype +
                     "' (its reduce-scatter sums bf16 or f32)");
  if (chosen == "copy_engine" || chosen == "scatter" ||
      chosen == "input_gather") {
    // One bundle of both kernels, every m_shard: the chunk matmul with `?`
    // rows and the sum with `?` m_shard (D is its trip count); or the own
    // product (K = k) and the peers' (KP = (D - 1) k, k for a team of one,
    // which never launches it).
    TemplateValues values{{"K", str(k)}, {"COLS", str(n)}};
    std::string shape = "mdyn_k" + str(k) + "_n" + str(n);
    if (chosen == "input_gather") {
      values.push_back(
          {"KP", str(k * std::max<int64_t>(teamSize - 1, 1))});
      values.push_back({"PARTS", str(kInputGatherRowParts)});
      shape += "_p" + str(kInputGatherRowParts);
      // b's column blocks: their width, their count, and the add's walk in
      // runs of them (0: one run, the plain walk, where b is one block).
      int64_t blockCols = inputGatherColumnBlock(
          mShard, k, n, dtypeBytes(dtype) ? dtypeBytes(dtype) : 2);
      int64_t blocks = (n + blockCols - 1) / blockCols;
      values.push_back({"CBLOCK", str(blockCols)});
      values.push_back({"CPARTS", str(blocks)});
      values.push_back({"CWALK", str(blocks > 1 ? blockCols : 0)});
      if (blocks > 1)
        shape += "_cw" + str(blockCols);
    }
    return KernelInstance{a->templateName,
                          a->kernel,
                          dtype,
                          teamSize,
                          0,
                          std::move(values),
                          std::move(shape)};
  }
  // ROWS = N = ?: one bundle serves every m_shard (rows bound at launch;
  // the kernel traps on an m_shard that is not whole row tiles).
  return KernelInstance{"matmul_reduce_scatter/matmul_reduce_scatter",
                        "matmul_reduce_scatter",
                        dtype,
                        teamSize,
                        0,
                        {{"ROWS", "?"}, {"N", "?"}, {"K", str(k)}, {"COLS", str(n)}},
                        "mdyn_k" + str(k) + "_n" + str(n)};
}

Expected<KernelInstance> matmulOpInstance(const std::string &op,
                                          uint32_t teamSize,
                                          const std::string &dtype,
                                          const MatmulShape &shape,
                                          const std::string &algorithm) {
  const OpSpec *spec = findOp(op);
  if (!spec || spec->family != OpFamily::FusedMatmul)
    return Error(ErrorCode::InvalidArgument,
                 "unknown fused matmul op '" + op + "' (" +
                     opNames(OpFamily::FusedMatmul) + ")");
  return spec->matmulInstance(teamSize, dtype, shape, algorithm);
}

Expected<std::vector<CompanionOp>>
matmulOpCompanions(const std::string &op, uint32_t teamSize,
                   const std::string &dtype, const MatmulShape &shape,
                   const std::string &algorithm) {
  WEAVE_ASSIGN_OR_RETURN(
      KernelInstance instance,
      matmulOpInstance(op, teamSize, dtype, shape, algorithm));
  (void)instance; // the shape and algorithm are valid
  std::string chosen =
      matmulOpAlgorithm(op, teamSize, dtype, shape, algorithm);
  std::vector<CompanionOp> companions;
  if (op == "all_gather_matmul" && chosen == "gather") {
    bool narrow = AllGatherMatmul::gatherSchedule(teamSize, shape.mShard,
                                                  shape.k, shape.n) ==
                  AllGatherMatmul::GatherSchedule::BesideNarrow;
    companions.push_back(
        {"all_gather", shape.mShard * shape.k, narrow ? "narrow" : "auto"});
  }
  if (op == "matmul_reduce_scatter" && chosen == "scatter")
    companions.push_back({"reduce_scatter", shape.mShard * shape.n});
  return companions;
}

std::string matmulOpAlgorithm(const std::string &op, uint32_t teamSize,
                              const std::string &dtype,
                              const MatmulShape &shape,
                              const std::string &algorithm) {
  if (algorithm != "auto")
    return algorithm;
  if (op == "all_gather_matmul")
    return AllGatherMatmul::choose(teamSize, shape.mShard, shape.k, shape.n);
  if (op == "matmul_reduce_scatter")
    return MatmulReduceScatter::choose(teamSize, dtype, shape.mShard,
                                       shape.k, shape.n);
  return algorithm;
}

Expected<AllReduceAlgorithm> parseAllReduceAlgorithm(const std::string &name) {
  std::string names;
  size_t count = std::size(kAllReduceNames);
  for (size_t i = 0; i < count; ++i) {
    if (name == kAllReduceNames[i].second)
      return kAllReduceNames[i].first;
    names += std::string(i == 0 ? "" : i + 1 == count ? " or " : ", ") + "'" +
             kAllReduceNames[i].second + "'";
  }
  return Error(ErrorCode::InvalidArgument,
               "algorithm must be " + names + ", got '" + name + "'");
}

Expected<KernelInstance> opInstance(const std::string &op, uint32_t teamSize,
                                    const std::string &dtype, int64_t count,
                                    const std::string &algorithm,
                                    int64_t rowElements) {
  if (rowElements == 1)
    return instanceOf(op, teamSize, dtype, count, algorithm);
  // Only the all-to-all-v has a token form (counts in rows).
  if (op != "all_to_all_v")
    return Error(ErrorCode::InvalidArgument,
                 "--row-elements is for all_to_all_v (the token form), got " +
                     std::to_string(rowElements) + " for " + op);
  return AllToAllV::instanceFor(teamSize, dtype, count, algorithm,
                                rowElements);
}

} // namespace weave::ops
