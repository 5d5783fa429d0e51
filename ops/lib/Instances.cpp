//===- Instances.cpp - The kernel instance of each op ---------------------===//
//
// Which template each op fills, for which team size: no CUDA and no
// compiler here (library WeaveOpsHost), so the instances are checked and
// compiled ahead of time on machines without a GPU. The values follow from
// the dtype, team size and count (collectiveValues).
//
//===----------------------------------------------------------------------===//

#include "weave/ops/Collectives.h"
#include "weave/ops/FusedMatmul.h"

#include <algorithm>

namespace weave::ops {

namespace {

/// The dtypes a template takes: the reducing ones sum in f32 and round once
/// to T, which f16 would do on the way too (not offered).
Status checkRequest(const std::string &op, const std::string &dtype,
                    bool reduces, const char *what, int64_t count) {
  if (!(dtype == "f32" || dtype == "bf16" || (!reduces && dtype == "f16")))
    return Error(ErrorCode::InvalidArgument,
                 op + ": dtype '" + dtype + "' is not supported (" +
                     (reduces ? "f32 or bf16: sums are accumulated in f32"
                              : "f16, bf16 or f32") +
                     ")");
  if (count < 1 || count > (int64_t(1) << 40))
    return Error(ErrorCode::InvalidArgument,
                 op + ": " + what + " must be between 1 and 2^40, got " +
                     std::to_string(count));
  return ok();
}

} // namespace

AllReduceAlgorithm AllReduce::choose(const std::string &dtype, int64_t count) {
  return uint64_t(count) * dtypeBytes(dtype) <= kOneShotMaxBytes
             ? AllReduceAlgorithm::OneShot
             : AllReduceAlgorithm::TwoShot;
}

Expected<KernelInstance> AllReduce::instanceFor(uint32_t,
                                                const std::string &dtype,
                                                int64_t count,
                                                AllReduceAlgorithm algorithm) {
  WEAVE_TRY(checkRequest("all-reduce", dtype, true, "count", count));
  if (algorithm == AllReduceAlgorithm::Auto)
    algorithm = choose(dtype, count);
  std::string stem = algorithm == AllReduceAlgorithm::OneShot
                         ? "one_shot_all_reduce"
                         : "two_shot_all_reduce";
  // One bundle serves every team size.
  return KernelInstance{"all_reduce/" + stem, stem, dtype, 0, count, {}, {}};
}

Expected<KernelInstance> AllGather::instanceFor(uint32_t teamSize,
                                                const std::string &dtype,
                                                int64_t count) {
  WEAVE_TRY(checkRequest("all-gather", dtype, false, "count", count));
  return KernelInstance{"all_gather/all_gather", "all_gather", dtype,
                        teamSize, count, {}, {}};
}

Expected<KernelInstance> ReduceScatter::instanceFor(uint32_t teamSize,
                                                    const std::string &dtype,
                                                    int64_t count) {
  WEAVE_TRY(checkRequest("reduce-scatter", dtype, true, "count", count));
  return KernelInstance{"reduce_scatter/reduce_scatter", "reduce_scatter",
                        dtype, teamSize, count, {}, {}};
}

Expected<KernelInstance> AllToAll::instanceFor(uint32_t teamSize,
                                               const std::string &dtype,
                                               int64_t count) {
  WEAVE_TRY(checkRequest("all-to-all", dtype, false, "count", count));
  return KernelInstance{"all_to_all/all_to_all", "all_to_all", dtype,
                        teamSize, count, {}, {}};
}

Expected<KernelInstance> AllToAllV::instanceFor(uint32_t teamSize,
                                                const std::string &dtype,
                                                int64_t capacity) {
  WEAVE_TRY(checkRequest("all-to-all-v", dtype, false, "capacity", capacity));
  return KernelInstance{"all_to_all/all_to_all_v", "all_to_all_v", dtype,
                        teamSize, capacity, {}, {}};
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
  if (dtype != "f16" && dtype != "bf16")
    return fail("dtype '" + dtype +
                "' is not supported (f16 or bf16: the matmul sums in f32)");
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

Expected<KernelInstance> AllGatherMatmul::instanceFor(uint32_t teamSize,
                                                      const std::string &dtype,
                                                      int64_t k, int64_t n) {
  WEAVE_TRY(checkShape(teamSize, dtype, kRowTile, k, n));
  // The template's tiles: 128 x 256 output tiles, k steps of 64.
  constexpr int64_t kTileN = 256, kTileK = 64;
  auto str = [](int64_t v) { return std::to_string(v); };
  int64_t steps = (k + kTileK - 1) / kTileK;
  int64_t colTiles = (n + kTileN - 1) / kTileN;
  // ROWS = ?: one bundle serves every m_shard (rows bound at launch).
  // Row-tile groups of 1, the only width that divides every shard (a group
  // must not straddle two: the template says why).
  TemplateValues extra{{"ROWS", "?"},
                       {"M_SHARD", "?"},
                       {"K", str(k)},
                       {"N_SHARD", str(n)},
                       {"DTYPE", dtype},
                       {"GROUP_ROWS", "1"},
                       {"LAST_K", str(steps - 1)},
                       {"COL_TILES", str(colTiles)},
                       // A row tile arrives in min(column tiles, k steps)
                       // parts.
                       {"PARTS_PER_TILE", str(std::min(colTiles, steps))}};
  return KernelInstance{"collective_matmul/all_gather_matmul",
                        "all_gather_matmul",
                        dtype,
                        teamSize,
                        0,
                        std::move(extra),
                        "mdyn_k" + str(k) + "_n" + str(n)};
}

Expected<KernelInstance> MatmulReduceScatter::instanceFor(
    uint32_t teamSize, const std::string &dtype, int64_t mShard, int64_t k,
    int64_t n) {
  WEAVE_TRY(checkMatmul("matmul reduce-scatter", dtype, teamSize, mShard, k, n));
  // @N@ = m_shard and @ROWS@ = D x m_shard come from the count.
  auto str = [](int64_t v) { return std::to_string(v); };
  return KernelInstance{"matmul_reduce_scatter/matmul_reduce_scatter",
                        "matmul_reduce_scatter",
                        dtype,
                        teamSize,
                        mShard,
                        {{"K", str(k)}, {"COLS", str(n)}},
                        "m" + str(mShard) + "_k" + str(k) + "_n" + str(n)};
}

Expected<KernelInstance> matmulOpInstance(const std::string &op,
                                          uint32_t teamSize,
                                          const std::string &dtype,
                                          const MatmulShape &shape) {
  if (op == "all_gather_matmul") {
    WEAVE_TRY(AllGatherMatmul::checkShape(teamSize, dtype, shape.mShard,
                                          shape.k, shape.n));
    return AllGatherMatmul::instanceFor(teamSize, dtype, shape.k, shape.n);
  }
  if (op == "matmul_reduce_scatter")
    return MatmulReduceScatter::instanceFor(teamSize, dtype, shape.mShard,
                                            shape.k, shape.n);
  return Error(ErrorCode::InvalidArgument,
               "unknown fused matmul op '" + op +
                   "' (all_gather_matmul, matmul_reduce_scatter)");
}

Expected<AllReduceAlgorithm> parseAllReduceAlgorithm(const std::string &name) {
  if (name == "auto")
    return AllReduceAlgorithm::Auto;
  if (name == "one_shot")
    return AllReduceAlgorithm::OneShot;
  if (name == "two_shot")
    return AllReduceAlgorithm::TwoShot;
  return Error(ErrorCode::InvalidArgument,
               "algorithm must be 'auto', 'one_shot' or 'two_shot', got '" +
                   name + "'");
}

Expected<KernelInstance> opInstance(const std::string &op, uint32_t teamSize,
                                    const std::string &dtype, int64_t count,
                                    const std::string &algorithm) {
  if (op == "all_reduce") {
    WEAVE_ASSIGN_OR_RETURN(AllReduceAlgorithm a,
                           parseAllReduceAlgorithm(algorithm));
    return AllReduce::instanceFor(teamSize, dtype, count, a);
  }
  if (op == "all_gather")
    return AllGather::instanceFor(teamSize, dtype, count);
  if (op == "reduce_scatter")
    return ReduceScatter::instanceFor(teamSize, dtype, count);
  if (op == "all_to_all")
    return AllToAll::instanceFor(teamSize, dtype, count);
  if (op == "all_to_all_v")
    return AllToAllV::instanceFor(teamSize, dtype, count);
  return Error(ErrorCode::InvalidArgument,
               "unknown op '" + op +
                   "' (all_reduce, all_gather, reduce_scatter, all_to_all, "
                   "all_to_all_v)");
}

} // namespace weave::ops
