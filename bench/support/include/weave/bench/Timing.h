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

struct TimingOptions {
  int warmup = 5;
  int iterations = 20;
  /// A run that has not finished after this long is reported as hung.
  double timeoutSeconds = 120;
  /// Hold the streams until everything is enqueued (see the file comment).
  /// Ignored when warmup + iterations > kMaxGatedIterations, where the
  /// enqueue itself could block on a full launch queue. Should an enqueue
  /// block on the GPU anyway (a library call that synchronizes), a watchdog
  /// lets the streams go after kGateWatchdogSeconds and the result says
  /// "not gated".
  bool gate = true;
  /// Run one iteration, not held and not timed, and wait for it before the
  /// timed run: first-call costs (library initialization, workspace or
  /// descriptor creation) stay out of the run, and none of them can block
  /// while the streams are held.
  bool prewarm = true;
};
inline constexpr int kMaxGatedIterations = 200;
inline constexpr double kGateWatchdogSeconds = 10;

struct TimingResult {
  int iterations = 0;
  double medianMs = 0, minMs = 0, maxMs = 0, meanMs = 0;
  bool gated = false; ///< the streams were held until all was enqueued
};

/// Runs enqueue(i) for i in [0, warmup + iterations): it must enqueue one
/// iteration's work on `streams` (and on nothing else that is timed) and
/// not synchronize. Returns the statistics of the last `iterations` spans.
/// Timeout (ErrorCode::Timeout) when the work does not finish in time: the
/// GPU is then likely stuck and the caller should exit rather than clean up.
Expected<TimingResult> timeIterations(const std::vector<TimedStream> &streams,
                                      const std::function<Status(int)> &enqueue,
                                      const TimingOptions &options);

/// Waits for everything enqueued so far on `streams`; Timeout after
/// `timeoutSeconds`.
Status waitStreams(const std::vector<TimedStream> &streams,
                   double timeoutSeconds);

/// "1.234" with `digits` decimals, or "-" for a negative value.
std::string formatMs(double ms, int digits = 3);

} // namespace bench
} // namespace weave

#endif // WEAVE_BENCH_TIMING_H
