//===- Instances.cpp - The kernel instance of each op ---------------------===//
//
// Which template each op fills, for which team size: no CUDA and no
// compiler here (library WeaveOpsHost), so the instances are checked and
// compiled ahead of time on machines without a GPU. The values follow from
// the dtype, team size and count (collectiveValues).
//
//===----------------------------------------------------------------------===//

#include "weave/ops/Collectives.h"

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
  return KernelInstance{"all_reduce/" + stem, stem, dtype, 0, count, {}};
}

Expected<KernelInstance> AllGather::instanceFor(uint32_t teamSize,
                                                const std::string &dtype,
                                                int64_t count) {
  WEAVE_TRY(checkRequest("all-gather", dtype, false, "count", count));
  return KernelInstance{"all_gather/all_gather", "all_gather", dtype,
                        teamSize, count, {}};
}

Expected<KernelInstance> ReduceScatter::instanceFor(uint32_t teamSize,
                                                    const std::string &dtype,
                                                    int64_t count) {
  WEAVE_TRY(checkRequest("reduce-scatter", dtype, true, "count", count));
  return KernelInstance{"reduce_scatter/reduce_scatter", "reduce_scatter",
                        dtype, teamSize, count, {}};
}

Expected<KernelInstance> AllToAll::instanceFor(uint32_t teamSize,
                                               const std::string &dtype,
                                               int64_t count) {
  WEAVE_TRY(checkRequest("all-to-all", dtype, false, "count", count));
  return KernelInstance{"all_to_all/all_to_all", "all_to_all", dtype,
                        teamSize, count, {}};
}

Expected<KernelInstance> AllToAllV::instanceFor(uint32_t teamSize,
                                                const std::string &dtype,
                                                int64_t capacity) {
  WEAVE_TRY(checkRequest("all-to-all-v", dtype, false, "capacity", capacity));
  return KernelInstance{"all_to_all/all_to_all_v", "all_to_all_v", dtype,
                        teamSize, capacity, {}};
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
