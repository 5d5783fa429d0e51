//===- TimingResult.cpp - Statistics of timed iterations ------------------===//

#include "weave/bench/TimingResult.h"

#include <algorithm>

namespace weave {
namespace bench {

TimingResult summarize(std::vector<double> samplesMs) {
  TimingResult result;
  if (samplesMs.empty())
    return result;
  std::vector<double> sorted = samplesMs;
  std::sort(sorted.begin(), sorted.end());
  size_t k = sorted.size();
  double sum = 0;
  for (double t : sorted)
    sum += t;
  result.iterations = static_cast<int>(k);
  result.medianMs =
      k % 2 ? sorted[k / 2] : 0.5 * (sorted[k / 2 - 1] + sorted[k / 2]);
  result.minMs = sorted.front();
  result.maxMs = sorted.back();
  result.meanMs = sum / k;
  result.samplesMs = std::move(samplesMs);
  return result;
}

TimingResult pool(const std::vector<TimingResult> &runs) {
  std::vector<double> all;
  bool gated = !runs.empty();
  for (const TimingResult &run : runs) {
    all.insert(all.end(), run.samplesMs.begin(), run.samplesMs.end());
    gated = gated && run.gated;
  }
  TimingResult result = summarize(std::move(all));
  result.gated = gated;
  return result;
}

} // namespace bench
} // namespace weave
