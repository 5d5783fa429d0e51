//===- TimingOptions.h - How the benchmarks time their runs -----*- C++ -*-===//
//
// The options of timeIterations (Timing.h), apart from it so that code
// without CUDA (the command-line parsing in Args.h) can fill them in.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_BENCH_TIMINGOPTIONS_H
#define WEAVE_BENCH_TIMINGOPTIONS_H

namespace weave {
namespace bench {

struct TimingOptions {
  int warmup = 5;
  int iterations = 20;
  /// A run that has not finished after this long is reported as hung.
  double timeoutSeconds = 120;
  /// Hold the streams until everything is enqueued (see Timing.h).
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

} // namespace bench
} // namespace weave

#endif // WEAVE_BENCH_TIMINGOPTIONS_H
