//===- TimingResult.h - Statistics of timed iterations ----------*- C++ -*-===//
//
// What a timed run yields (Timing.h), apart from the CUDA code that takes
// it, so that the statistics are tested without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_BENCH_TIMINGRESULT_H
#define WEAVE_BENCH_TIMINGRESULT_H

#include <vector>

namespace weave {
namespace bench {

struct TimingResult {
  int iterations = 0;
  double medianMs = 0, minMs = 0, maxMs = 0, meanMs = 0;
  bool gated = false; ///< the streams were held until all was enqueued
  std::vector<double> samplesMs; ///< every timed iteration, in run order
};

/// The statistics of `samplesMs` (all zero when there are none); `gated`
/// is left false.
TimingResult summarize(std::vector<double> samplesMs);

/// Pools the samples of several runs of the same work (rounds that
/// alternate with other work, so that clocks drifting under a power limit
/// fall on both alike); gated when every run was.
TimingResult pool(const std::vector<TimingResult> &runs);

} // namespace bench
} // namespace weave

#endif // WEAVE_BENCH_TIMINGRESULT_H
