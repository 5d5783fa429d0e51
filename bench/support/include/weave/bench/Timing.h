//===- Timing.h - CUDA-event timing of back-to-back launches ----*- C++ -*-===//
//
// How the benchmarks time a piece of GPU work that may span several devices
// (a kernel launched on every GPU of a team, an NCCL collective, a cuBLAS
// call): every iteration is enqueued back to back on the same streams, with
// no host synchronization in between, each one bracketed by a pair of CUDA
// events on every stream. An iteration's time is the longest of its
// per-stream spans; the result is the median over the timed iterations,
// after warm-up iterations. By default the streams are first held on a host
// flag (cuStreamWaitValue32) until everything is enqueued, so host launch
// overhead and the skew between enqueueing on device 0 and device N-1 do
// not show up in the spans.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_BENCH_TIMING_H
#define WEAVE_BENCH_TIMING_H

#include "weave/bench/TimingOptions.h"
#include "weave/bench/TimingResult.h"
#include "weave/runtime/Error.h"

#include <cuda.h>

#include <functional>
#include <string>
#include <vector>

namespace weave {
class Team;

namespace bench {

/// A stream and the context it belongs to.
struct TimedStream {
  CUcontext context = nullptr;
  CUstream stream = nullptr;
};

/// streams[i] paired with local team member i's primary context.
std::vector<TimedStream> timedStreams(const Team &team,
                                      const std::vector<CUstream> &streams);


/// Runs enqueue(i) for i in [0, warmup + iterations): it must enqueue one
/// iteration's work on `streams` (and on nothing else that is timed) and
/// not synchronize. Returns the statistics of the last `iterations` spans.
/// Timeout (ErrorCode::Timeout) when the work does not finish in time: the
/// GPU is then likely stuck and the caller should exit rather than clean up.
Expected<TimingResult> timeIterations(const std::vector<TimedStream> &streams,
                                      const std::function<Status(int)> &enqueue,
                                      const TimingOptions &options);

/// Times several pieces of work in `rounds` rounds, each round running
/// `timers` once each in an order rotated by one from the round before
/// (so that clocks drifting under a power limit fall on all alike).
/// Returns, per timer, its rounds' results pooled into one (pool()); the
/// first error ends the run.
Expected<std::vector<TimingResult>>
timeInRounds(int rounds,
             const std::vector<std::function<Expected<TimingResult>()>> &timers);

/// Waits for everything enqueued so far on `streams`; Timeout after
/// `timeoutSeconds`.
Status waitStreams(const std::vector<TimedStream> &streams,
                   double timeoutSeconds);

/// "1.234" with `digits` decimals, or "-" for a negative value.
std::string formatMs(double ms, int digits = 3);

} // namespace bench
} // namespace weave

#endif // WEAVE_BENCH_TIMING_H
