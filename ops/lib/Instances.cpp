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

// The choice table (issue #30): for each op, rows in order; Auto takes the
// first row whose team range holds the team size and whose maxBytes is at
// least N x the element size (N: the template's count, i.e. what a member
// sends to each peer: the all-reduce's whole input, the all-gather's input,
// the reduce-scatter's output block, the all-to-all's block per pair).
// The all-reduce, all-gather and reduce-scatter rows: 4 x H100 (NV18),
// 2026-11-26, bf16 and f32 summed, CUDA graphs (docs/PERF.md, "Collectives
// on 4 x H100: the bandwidth path (issue #30)"), D = 2 for the rows up to
// team 2 and D = 4 for the rows from team 3 (a team of 3 takes D = 4's
// crossovers). The all-to-all rows are the 4 x H200 sweep's (docs/PERF.md,
// "Collectives on 2 and 4 GPUs"): the H100 sweep stopped in the all-to-all
// at 4 MB. Each op's last row also holds team size 0 (an instance for any
// team size): only the all-reduce's one-shot and two-shot are one.
// `bench/collectives/choice_table.py` prints these rows from sweeps of
// `weave_bench_collectives`.
const std::vector<CollectiveChoice> &collectiveChoices() {
  constexpr int64_t kAny = int64_t(1) << 62;
  static const std::vector<CollectiveChoice> table = {
      // push: 4.3-5.9 us up to 256 KB at D = 2 (NCCL 6.5-8.8), 5.0-7.6 at
      // D = 4 (NCCL 9.7-11.5); push two-shot from 4 MB at D = 2 (1.3-1.7x
      // NCCL to 16 MB) and from 1 MB at D = 4 (0.97-1.57x NCCL to 256 MB);
      // the grid two-shot at D = 2 from 64 MB (2-11% ahead of push
      // two-shot there).
      {"all_reduce", 1, 2, 1 << 20, "push"},
      {"all_reduce", 1, 2, 16 << 20, "push_two_shot"},
      {"all_reduce", 3, 1024, 256 << 10, "push"},
      {"all_reduce", 3, 1024, kAny, "push_two_shot"},
      {"all_reduce", 0, 1024, kAny, "two_shot"},
      // push copies out of its scratch: cheaper than direct's ready
      // handshake up to 512 KB per peer at D = 2 and 256 KB at D = 4.
      {"all_gather", 1, 2, 512 << 10, "push"},
      {"all_gather", 3, 1024, 256 << 10, "push"},
      {"all_gather", 0, 1024, kAny, "direct"},
      // push sums its scratch locally; the pull kernel reads the peers in
      // place and wins from 8 MB per peer (D = 2) / 16 MB (D = 4).
      {"reduce_scatter", 1, 2, 2 << 20, "push"},
      {"reduce_scatter", 3, 1024, 4 << 20, "push"},
      {"reduce_scatter", 0, 1024, kAny, "pull"},
      {"all_to_all", 1, 2, 512 << 10, "push"},
      {"all_to_all", 3, 1024, 4 << 10, "push"},
      {"all_to_all", 0, 1024, kAny, "direct"},
      {"all_to_all_v", 0, 1024, kAny, "put"},
  };
  return table;
}

std::string chooseAlgorithm(const std::string &op, uint32_t teamSize,
                            const std::string &dtype, int64_t count) {
  int64_t bytes = count * int64_t(dtypeBytes(dtype) ? dtypeBytes(dtype) : 4);
  for (const CollectiveChoice &row : collectiveChoices())
    if (op == row.op && teamSize >= row.minTeam && teamSize <= row.maxTeam &&
        bytes <= row.maxBytes)
      return row.algorithm;
  return "";
}

namespace {

/// The template of `op` run by `algorithm` ("auto": the table's choice),
/// as {example/stem, kernel, whether it is compiled per team size}.
struct Algorithm {
  const char *name, *stem;
  bool perTeam;
};
struct OpAlgorithms {
  const char *op, *example;
  std::vector<Algorithm> algorithms;
};
const std::vector<OpAlgorithms> &opAlgorithms() {
  static const std::vector<OpAlgorithms> ops = {
      {"all_reduce",
       "all_reduce",
       {{"one_shot", "one_shot_all_reduce", false},
        {"two_shot", "two_shot_all_reduce", false},
        {"push", "push_all_reduce", true},
        {"push_two_shot", "push_two_shot_all_reduce", true}}},
      {"all_gather",
       "all_gather",
       {{"put", "all_gather", true},
        {"push", "push_all_gather", true},
        {"direct", "direct_all_gather", true}}},
      {"reduce_scatter",
       "reduce_scatter",
       {{"pull", "reduce_scatter", true},
        {"push", "push_reduce_scatter", true}}},
      {"all_to_all",
       "all_to_all",
       {{"put", "all_to_all", true},
        {"push", "push_all_to_all", true},
        {"direct", "direct_all_to_all", true}}},
      {"all_to_all_v", "all_to_all", {{"put", "all_to_all_v", true}}},
  };
  return ops;
}

Expected<KernelInstance> instanceOf(const std::string &op, const char *what,
                                    bool reduces, const char *countName,
                                    uint32_t teamSize, const std::string &dtype,
                                    int64_t count, std::string algorithm) {
  WEAVE_TRY(checkRequest(what, dtype, reduces, countName, count));
  const OpAlgorithms *entry = nullptr;
  for (const OpAlgorithms &o : opAlgorithms())
    if (op == o.op)
      entry = &o;
  if (!entry)
    return Error(ErrorCode::InvalidArgument, "no collective op '" + op + "'");
  if (algorithm == "auto")
    algorithm = chooseAlgorithm(op, teamSize, dtype, count);
  std::string names;
  for (const Algorithm &a : entry->algorithms) {
    if (algorithm == a.name)
      return KernelInstance{std::string(entry->example) + "/" + a.stem,
                            a.stem,
                            dtype,
                            a.perTeam ? teamSize : 0,
                            count,
                            {},
                            {}};
    names += std::string(names.empty() ? "" : ", ") + "'" + a.name + "'";
  }
  return Error(ErrorCode::InvalidArgument,
               std::string(what) + ": algorithm must be 'auto', " + names +
                   ", got '" + algorithm + "'");
}

} // namespace

std::string allReduceAlgorithmName(AllReduceAlgorithm algorithm) {
  switch (algorithm) {
  case AllReduceAlgorithm::OneShot:
    return "one_shot";
  case AllReduceAlgorithm::TwoShot:
    return "two_shot";
  case AllReduceAlgorithm::Push:
    return "push";
  case AllReduceAlgorithm::PushTwoShot:
    return "push_two_shot";
  case AllReduceAlgorithm::Auto:
    break;
  }
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
  return instanceOf("all_reduce", "all-reduce", true, "count", teamSize, dtype,
                    count, allReduceAlgorithmName(algorithm));
}

Expected<KernelInstance> AllGather::instanceFor(uint32_t teamSize,
                                                const std::string &dtype,
                                                int64_t count,
                                                const std::string &algorithm) {
  return instanceOf("all_gather", "all-gather", false, "count", teamSize,
                    dtype, count, algorithm);
}

Expected<KernelInstance> ReduceScatter::instanceFor(uint32_t teamSize,
                                                    const std::string &dtype,
                                                    int64_t count,
                                                    const std::string &algorithm) {
  return instanceOf("reduce_scatter", "reduce-scatter", true, "count",
                    teamSize, dtype, count, algorithm);
}

Expected<KernelInstance> AllToAll::instanceFor(uint32_t teamSize,
                                               const std::string &dtype,
                                               int64_t count,
                                               const std::string &algorithm) {
  return instanceOf("all_to_all", "all-to-all", false, "count", teamSize, dtype,
                    count, algorithm);
}

Expected<KernelInstance> AllToAllV::instanceFor(uint32_t teamSize,
                                                const std::string &dtype,
                                                int64_t capacity,
                                                const std::string &algorithm,
                                                int64_t rowElements) {
  if (rowElements == 1)
    return instanceOf("all_to_all_v", "all-to-all-v", false, "capacity",
                      teamSize, dtype, capacity, algorithm);
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
  WEAVE_ASSIGN_OR_RETURN(
      KernelInstance instance,
      instanceOf("all_to_all_v", "all-to-all-v", false, "capacity", teamSize,
                 dtype, capacity * rowElements, algorithm));
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
  // ROWS = ?: one bundle serves every m_shard (rows bound at launch),
  // with the static instances' schedule: groups of 8 row tiles that stay
  // inside a shard (grid_tile_segments), 16 chunk counters per shard.
  TemplateValues extra{{"ROWS", "?"},
                       {"M_SHARD", "?"},
                       {"K", str(k)},
                       {"N_SHARD", str(n)},
                       {"DTYPE", dtype},
                       {"GROUP_ROWS", "8"},
                       {"READY", str(int64_t(teamSize) * 16)},
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

Expected<KernelInstance> MatmulReduceScatter::instanceFor(
    uint32_t teamSize, const std::string &dtype, int64_t k, int64_t n) {
  WEAVE_TRY(checkShape(teamSize, dtype, kRowTile, k, n));
  // ROWS = N = ?: one bundle serves every m_shard (rows bound at launch;
  // the kernel traps on an m_shard that is not whole row tiles).
  auto str = [](int64_t v) { return std::to_string(v); };
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
                                          const MatmulShape &shape) {
  if (op == "all_gather_matmul") {
    WEAVE_TRY(AllGatherMatmul::checkShape(teamSize, dtype, shape.mShard,
                                          shape.k, shape.n));
    return AllGatherMatmul::instanceFor(teamSize, dtype, shape.k, shape.n);
  }
  if (op == "matmul_reduce_scatter") {
    WEAVE_TRY(MatmulReduceScatter::checkShape(teamSize, dtype, shape.mShard,
                                              shape.k, shape.n));
    return MatmulReduceScatter::instanceFor(teamSize, dtype, shape.k, shape.n);
  }
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
  if (name == "push")
    return AllReduceAlgorithm::Push;
  if (name == "push_two_shot")
    return AllReduceAlgorithm::PushTwoShot;
  return Error(ErrorCode::InvalidArgument,
               "algorithm must be 'auto', 'one_shot', 'two_shot', 'push' or "
               "'push_two_shot', got '" +
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
    return AllGather::instanceFor(teamSize, dtype, count, algorithm);
  if (op == "reduce_scatter")
    return ReduceScatter::instanceFor(teamSize, dtype, count, algorithm);
  if (op == "all_to_all")
    return AllToAll::instanceFor(teamSize, dtype, count, algorithm);
  if (op == "all_to_all_v")
    return AllToAllV::instanceFor(teamSize, dtype, count, algorithm);
  return Error(ErrorCode::InvalidArgument,
               "unknown op '" + op +
                   "' (all_reduce, all_gather, reduce_scatter, all_to_all, "
                   "all_to_all_v)");
}

} // namespace weave::ops
