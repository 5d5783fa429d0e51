//===- Timing.cpp - CUDA-event timing of back-to-back launches ------------===//

#include "weave/bench/Timing.h"

#include "weave/runtime/Team.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

namespace weave {
namespace bench {

namespace {

Status setContext(CUcontext context) {
  WEAVE_CU_TRY(cuCtxSetCurrent(context), "making a benchmark context current");
  return ok();
}

/// Waits for `event` (in `context`) by polling, up to `deadline`.
Status waitEvent(CUcontext context, CUevent event,
                 std::chrono::steady_clock::time_point deadline,
                 double timeoutSeconds) {
  WEAVE_TRY(setContext(context));
  while (true) {
    CUresult r = cuEventQuery(event);
    if (r == CUDA_SUCCESS)
      return ok();
    if (r != CUDA_ERROR_NOT_READY)
      WEAVE_CU_TRY(r, "waiting for a benchmark event");
    if (std::chrono::steady_clock::now() > deadline)
      return Error(ErrorCode::Timeout,
                   "GPU work did not finish within " +
                       std::to_string(timeoutSeconds) +
                       " s (a kernel waiting for a signal that never came?)");
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

/// Events created in several contexts, destroyed together.
class EventPool {
public:
  ~EventPool() {
    for (auto &[context, event] : events_) {
      cuCtxSetCurrent(context);
      cuEventDestroy(event);
    }
  }
  Expected<CUevent> create(CUcontext context) {
    WEAVE_TRY(setContext(context));
    CUevent event = nullptr;
    WEAVE_CU_TRY(cuEventCreate(&event, CU_EVENT_DEFAULT),
                 "creating a timing event");
    events_.emplace_back(context, event);
    return event;
  }

private:
  std::vector<std::pair<CUcontext, CUevent>> events_;
};

/// A pinned host word that streams wait on (cuStreamWaitValue32 >= the
/// current generation) until the host bumps it. A watchdog thread bumps it
/// after kGateWatchdogSeconds if nobody did.
class StreamGate {
public:
  ~StreamGate() {
    release();
    if (word_)
      cuMemFreeHost(const_cast<uint32_t *>(word_));
  }
  /// Holds every stream; false (and holds none) when the driver refuses.
  bool hold(const std::vector<TimedStream> &streams) {
    if (!word_) {
      void *host = nullptr;
      if (setContext(streams.front().context).hasValue() &&
          cuMemHostAlloc(&host, 64,
                         CU_MEMHOSTALLOC_PORTABLE |
                             CU_MEMHOSTALLOC_DEVICEMAP) == CUDA_SUCCESS)
        word_ = static_cast<volatile uint32_t *>(host);
      if (!word_)
        return false;
      *word_ = 0;
    }
    uint32_t target = generation_ + 1;
    for (const TimedStream &s : streams) {
      CUdeviceptr device = 0;
      if (!setContext(s.context).hasValue() ||
          cuMemHostGetDevicePointer(&device, const_cast<uint32_t *>(word_),
                                    0) != CUDA_SUCCESS ||
          cuStreamWaitValue32(s.stream, device, target,
                              CU_STREAM_WAIT_VALUE_GEQ) != CUDA_SUCCESS) {
        // Let go at once of the streams already held.
        generation_ = target;
        store(target);
        return false;
      }
    }
    held_ = true;
    watchdogFired_ = false;
    watchdog_ = std::thread([this, target] {
      std::unique_lock<std::mutex> lock(mutex_);
      if (!released_.wait_for(
              lock, std::chrono::duration<double>(kGateWatchdogSeconds),
              [&] { return !held_; })) {
        std::fprintf(stderr,
                     "weave bench: warning: enqueueing took over %.0f s while "
                     "the streams were held (a call that waits for the GPU?); "
                     "letting them go, this run is not gated\n",
                     kGateWatchdogSeconds);
        watchdogFired_ = true;
        store(target);
      }
    });
    return true;
  }
  /// Lets the streams go; true when they were still held (not by the
  /// watchdog's doing).
  bool release() {
    if (!held_)
      return false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      held_ = false;
      ++generation_;
      store(generation_);
    }
    released_.notify_all();
    watchdog_.join();
    return !watchdogFired_;
  }

private:
  void store(uint32_t value) {
    __atomic_store_n(const_cast<uint32_t *>(word_), value, __ATOMIC_SEQ_CST);
  }
  volatile uint32_t *word_ = nullptr;
  uint32_t generation_ = 0;
  bool held_ = false;
  bool watchdogFired_ = false;
  std::mutex mutex_;
  std::condition_variable released_;
  std::thread watchdog_;
};

} // namespace

std::vector<TimedStream> timedStreams(const Team &team,
                                      const std::vector<CUstream> &streams) {
  std::vector<TimedStream> out;
  for (size_t i = 0; i < streams.size() && i < team.localCount(); ++i)
    out.push_back({team.device(i).context(), streams[i]});
  return out;
}

Status waitStreams(const std::vector<TimedStream> &streams,
                   double timeoutSeconds) {
  EventPool pool;
  std::vector<CUevent> done;
  for (const TimedStream &s : streams) {
    WEAVE_ASSIGN_OR_RETURN(CUevent e, pool.create(s.context));
    WEAVE_CU_TRY(cuEventRecord(e, s.stream), "recording a completion event");
    done.push_back(e);
  }
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::duration<double>(timeoutSeconds));
  for (size_t i = 0; i < streams.size(); ++i)
    WEAVE_TRY(waitEvent(streams[i].context, done[i], deadline, timeoutSeconds));
  return ok();
}

Expected<TimingResult> timeIterations(const std::vector<TimedStream> &streams,
                                      const std::function<Status(int)> &enqueue,
                                      const TimingOptions &options) {
  if (streams.empty() || options.iterations < 1 || options.warmup < 0)
    return Error(ErrorCode::InvalidArgument,
                 "timeIterations needs streams and at least one iteration");
  int total = options.warmup + options.iterations;
  size_t n = streams.size();
  EventPool pool;
  // start[i * n + s], stop[i * n + s] for timed iteration i on stream s.
  std::vector<CUevent> start, stop;
  for (int i = 0; i < options.iterations; ++i)
    for (const TimedStream &s : streams) {
      WEAVE_ASSIGN_OR_RETURN(CUevent a, pool.create(s.context));
      WEAVE_ASSIGN_OR_RETURN(CUevent b, pool.create(s.context));
      start.push_back(a);
      stop.push_back(b);
    }

  if (options.prewarm) {
    WEAVE_TRY(enqueue(0));
    WEAVE_TRY(waitStreams(streams, options.timeoutSeconds));
  }

  StreamGate gate;
  bool held =
      options.gate && total <= kMaxGatedIterations && gate.hold(streams);
  for (int iter = 0; iter < total; ++iter) {
    int timed = iter - options.warmup;
    if (timed >= 0)
      for (size_t s = 0; s < n; ++s) {
        WEAVE_TRY(setContext(streams[s].context));
        WEAVE_CU_TRY(cuEventRecord(start[timed * n + s], streams[s].stream),
                     "recording a start event");
      }
    Status enqueued = enqueue(iter);
    if (!enqueued)
      return std::move(enqueued).takeError(); // the gate lets go on return
    if (timed >= 0)
      for (size_t s = 0; s < n; ++s) {
        WEAVE_TRY(setContext(streams[s].context));
        WEAVE_CU_TRY(cuEventRecord(stop[timed * n + s], streams[s].stream),
                     "recording a stop event");
      }
  }
  bool gated = held && gate.release();

  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::duration<double>(options.timeoutSeconds));
  size_t last = static_cast<size_t>(options.iterations - 1) * n;
  for (size_t s = 0; s < n; ++s)
    WEAVE_TRY(waitEvent(streams[s].context, stop[last + s], deadline,
                        options.timeoutSeconds));

  std::vector<double> times;
  for (int i = 0; i < options.iterations; ++i) {
    double longest = 0;
    for (size_t s = 0; s < n; ++s) {
      WEAVE_TRY(setContext(streams[s].context));
      float ms = 0;
      WEAVE_CU_TRY(cuEventElapsedTime(&ms, start[i * n + s], stop[i * n + s]),
                   "reading a timing event pair");
      longest = std::max(longest, static_cast<double>(ms));
    }
    times.push_back(longest);
  }
  TimingResult result = summarize(std::move(times));
  result.gated = gated;
  return result;
}

Expected<std::vector<TimingResult>>
timeInRounds(int rounds,
             const std::vector<std::function<Expected<TimingResult>()>> &timers) {
  size_t n = timers.size();
  std::vector<std::vector<TimingResult>> runs(n);
  for (int round = 0; round < rounds; ++round)
    for (size_t turn = 0; turn < n; ++turn) {
      size_t which = (turn + round) % n;
      WEAVE_ASSIGN_OR_RETURN(TimingResult t, timers[which]());
      runs[which].push_back(std::move(t));
    }
  std::vector<TimingResult> pooled;
  for (const std::vector<TimingResult> &r : runs)
    pooled.push_back(pool(r));
  return pooled;
}

std::string formatMs(double ms, int digits) {
  if (ms < 0)
    return "-";
  char text[64];
  std::snprintf(text, sizeof(text), "%.*f", digits, ms);
  return text;
}

} // namespace bench
} // namespace weave
