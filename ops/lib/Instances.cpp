//===- Instances.cpp - The kernel instance of each op ---------------------===//
//
// Which template each op fills and with what: no CUDA and no compiler here
// (library WeaveOpsHost), so the instances are checked and compiled ahead
// of time on machines without a GPU.
//
//===----------------------------------------------------------------------===//

#include "weave/ops/Collectives.h"

namespace weave::ops {

namespace {

using Values = std::vector<std::pair<std::string, std::string>>;

/// The dtypes a template takes, and for the reducing ones the conversions
/// to and from the f32 accumulator (@WIDEN@ / @NARROW@).
Status checkDtype(const std::string &op, const std::string &dtype,
                  bool reduces) {
  if (dtype == "f32" || dtype == "bf16" || (!reduces && dtype == "f16"))
    return ok();
  return Error(ErrorCode::InvalidArgument,
               op + ": dtype '" + dtype + "' is not supported (" +
                   (reduces ? "f32 or bf16: sums are accumulated in f32"
                            : "f16, bf16 or f32") +
                   ")");
}

void addConversions(Values &values, const std::string &dtype) {
  bool narrow = dtype != "f32";
  values.push_back({"WIDEN", narrow ? "arith.extf" : "arith.bitcast"});
  values.push_back({"NARROW", narrow ? "arith.truncf" : "arith.bitcast"});
}

Status checkCount(const std::string &op, const char *what, int64_t count) {
  if (count >= 1 && count <= (int64_t(1) << 40))
    return ok();
  return Error(ErrorCode::InvalidArgument,
               op + ": " + what + " must be between 1 and 2^40, got " +
                   std::to_string(count));
}


std::string str(int64_t v) { return std::to_string(v); }

} // namespace

AllReduceAlgorithm AllReduce::choose(const std::string &dtype, int64_t count) {
  return uint64_t(count) * dtypeBytes(dtype) <= kOneShotMaxBytes
             ? AllReduceAlgorithm::OneShot
             : AllReduceAlgorithm::TwoShot;
}

Expected<KernelInstance> AllReduce::instanceFor(uint32_t, const std::string &dtype,
                                             int64_t count,
                                             AllReduceAlgorithm algorithm) {
  WEAVE_TRY(checkDtype("all-reduce", dtype, /*reduces=*/true));
  WEAVE_TRY(checkCount("all-reduce", "count", count));
  if (algorithm == AllReduceAlgorithm::Auto)
    algorithm = choose(dtype, count);
  std::string stem = algorithm == AllReduceAlgorithm::OneShot
                         ? "one_shot_all_reduce"
                         : "two_shot_all_reduce";
  Values values{{"N", str(count)}, {"T", dtype}};
  addConversions(values, dtype);
  return KernelInstance{"all_reduce/" + stem, stem, values};
}

Expected<KernelInstance> AllGather::instanceFor(uint32_t teamSize,
                                             const std::string &dtype,
                                             int64_t count) {
  WEAVE_TRY(checkDtype("all-gather", dtype, /*reduces=*/false));
  WEAVE_TRY(checkCount("all-gather", "count", count));
  int64_t d = teamSize;
  return KernelInstance{"all_gather/all_gather",
                        "all_gather",
                        {{"D", str(d)},
                         {"LAST", str(d - 1)},
                         {"N", str(count)},
                         {"ROWS", str(d * count)},
                         {"T", dtype}}};
}

Expected<KernelInstance> ReduceScatter::instanceFor(uint32_t teamSize,
                                                 const std::string &dtype,
                                                 int64_t count) {
  WEAVE_TRY(checkDtype("reduce-scatter", dtype, /*reduces=*/true));
  WEAVE_TRY(checkCount("reduce-scatter", "count", count));
  int64_t d = teamSize;
  Values values{{"D", str(d)}, {"N", str(count)}, {"ROWS", str(d * count)},
                {"T", dtype}};
  addConversions(values, dtype);
  return KernelInstance{"reduce_scatter/reduce_scatter", "reduce_scatter",
                        values};
}

Expected<KernelInstance> AllToAll::instanceFor(uint32_t teamSize,
                                            const std::string &dtype,
                                            int64_t count) {
  WEAVE_TRY(checkDtype("all-to-all", dtype, /*reduces=*/false));
  WEAVE_TRY(checkCount("all-to-all", "count", count));
  int64_t d = teamSize;
  return KernelInstance{"all_to_all/all_to_all",
                        "all_to_all",
                        {{"D", str(d)},
                         {"N", str(count)},
                         {"ROWS", str(d * count)},
                         {"T", dtype}}};
}

Expected<KernelInstance> AllToAllV::instanceFor(uint32_t teamSize,
                                             const std::string &dtype,
                                             int64_t capacity) {
  WEAVE_TRY(checkDtype("all-to-all-v", dtype, /*reduces=*/false));
  WEAVE_TRY(checkCount("all-to-all-v", "capacity", capacity));
  int64_t d = teamSize;
  return KernelInstance{"all_to_all/all_to_all_v",
                        "all_to_all_v",
                        {{"CAP", str(capacity)},
                         {"D", str(d)},
                         {"DD", str(d * d)},
                         {"ROWS", str(d * capacity)},
                         {"T", dtype}}};
}

} // namespace weave::ops
