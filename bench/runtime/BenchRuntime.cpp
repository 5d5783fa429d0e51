//===- BenchRuntime.cpp - Runtime primitive benchmarks between 2 GPUs -----===//
//
// Semaphore ping-pong round trip (weave signal/wait vs raw volatile flags)
// and put bandwidth (16-byte vector stores into peer memory vs
// cuMemcpyPeerAsync), one direction and both at once. CUDA events, warm-up,
// median of many runs. Kernels: test/support/kernels/AbiTestKernels.cu.
// Usage: weave_bench_runtime [cubin]
//
//===----------------------------------------------------------------------===//

#include "weave/runtime/Kernel.h"
#include "weave/test/AbiTestKernels.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

using namespace weave;

namespace {

using test::kPutWords; // i32 words: 128 MiB
constexpr uint32_t kRounds = 20000;
constexpr int kWarmup = 3;
constexpr int kRuns = 15;

#define CHECK_OK(expr)                                                         \
  do {                                                                         \
    const auto &benchStatus_ = (expr);                                         \
    if (!benchStatus_) {                                                       \
      std::fprintf(stderr, "error: %s\n",                                      \
                   benchStatus_.error().toString().c_str());                   \
      std::exit(1);                                                            \
    }                                                                          \
  } while (false)

#define CHECK_CU(call)                                                         \
  do {                                                                         \
    CUresult benchResult_ = (call);                                            \
    if (benchResult_ != CUDA_SUCCESS) {                                        \
      const char *name = "?";                                                  \
      cuGetErrorName(benchResult_, &name);                                     \
      std::fprintf(stderr, "error: %s failed with %s\n", #call, name);         \
      std::exit(1);                                                            \
    }                                                                          \
  } while (false)

/// Milliseconds between two events on each of the given devices' streams
/// (the longest), for one run of `body`.
struct Timer {
  Team &team;
  std::vector<CUstream> &streams;
  std::vector<CUevent> start, stop;
  Timer(Team &t, std::vector<CUstream> &s) : team(t), streams(s) {
    for (size_t i = 0; i < team.localCount(); ++i) {
      CHECK_OK(team.device(i).makeCurrent());
      CUevent a, b;
      CHECK_CU(cuEventCreate(&a, CU_EVENT_DEFAULT));
      CHECK_CU(cuEventCreate(&b, CU_EVENT_DEFAULT));
      start.push_back(a);
      stop.push_back(b);
    }
  }
  /// Median over kRuns (after kWarmup) of the longest per-device time.
  double medianMs(const std::function<void()> &body,
                  const std::function<void()> &between = {}) {
    std::vector<double> times;
    for (int run = 0; run < kWarmup + kRuns; ++run) {
      if (between)
        between();
      for (size_t i = 0; i < start.size(); ++i) {
        CHECK_OK(team.device(i).makeCurrent());
        CHECK_CU(cuEventRecord(start[i], streams[i]));
      }
      body();
      double longest = 0;
      for (size_t i = 0; i < start.size(); ++i) {
        CHECK_OK(team.device(i).makeCurrent());
        CHECK_CU(cuEventRecord(stop[i], streams[i]));
      }
      for (size_t i = 0; i < start.size(); ++i) {
        CHECK_OK(team.device(i).makeCurrent());
        CHECK_CU(cuEventSynchronize(stop[i]));
        float ms = 0;
        CHECK_CU(cuEventElapsedTime(&ms, start[i], stop[i]));
        longest = std::max(longest, double(ms));
      }
      if (run >= kWarmup)
        times.push_back(longest);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
  }
};

} // namespace

int main(int argc, char **argv) {
  auto bundle = test::loadAbiTestBundle(argc > 1 ? argv[1] : "");
  CHECK_OK(bundle);
  auto team = Team::createInProcess({0, 1});
  CHECK_OK(team);
  auto heap = SymmetricHeap::create(*team, 2 * kPutWords * 4 + (1 << 20));
  CHECK_OK(heap);
  auto program = Program::load(*team, std::move(*bundle));
  CHECK_OK(program);
  auto sem = Kernel::get(*program, "bench_ping_pong_sem");
  auto flag = Kernel::get(*program, "bench_ping_pong_flag");
  auto put = Kernel::get(*program, "bench_put");
  CHECK_OK(sem);
  CHECK_OK(flag);
  CHECK_OK(put);
  auto sems = heap->allocateSemaphores(2);
  auto src = heap->allocateTensor("i32", {int64_t(kPutWords)});
  auto dst = heap->allocateTensor("i32", {int64_t(kPutWords)});
  CHECK_OK(sems);
  CHECK_OK(src);
  CHECK_OK(dst);
  std::vector<CUstream> streams(2);
  for (size_t i = 0; i < 2; ++i) {
    CHECK_OK(team->device(i).makeCurrent());
    CHECK_CU(cuStreamCreate(&streams[i], CU_STREAM_NON_BLOCKING));
  }
  Timer timer(*team, streams);
  auto reset = [&] { CHECK_OK(heap->resetSemaphores()); };

  double semMs = timer.medianMs(
      [&] {
        CHECK_OK(sem->launch(*heap, {*sems, ScalarValue::u32(kRounds)},
                             streams));
      },
      reset);
  double flagMs = timer.medianMs(
      [&] {
        CHECK_OK(flag->launch(*heap, {*sems, ScalarValue::u32(kRounds)},
                              streams));
      },
      reset);
  // The round trip as soon as it is measured (a put test that cannot run
  // on this machine still leaves it).
  std::fprintf(stderr, "ping-pong round trip: %.2f us (signal/wait), %.2f us "
                       "(volatile flags)\n",
               semMs * 1e3 / kRounds, flagMs * 1e3 / kRounds);

  // Reference buffers for cuMemcpyPeerAsync: plain allocations with peer
  // access enabled (the benchmark's choice; the runtime enables nothing).
  size_t bytes = kPutWords * 4;
  std::vector<CUdeviceptr> plainSrc(2), plainDst(2);
  for (size_t i = 0; i < 2; ++i) {
    CHECK_OK(team->device(i).makeCurrent());
    CHECK_CU(cuMemAlloc(&plainSrc[i], bytes));
    CHECK_CU(cuMemAlloc(&plainDst[i], bytes));
    CUresult enabled = cuCtxEnablePeerAccess(team->device(1 - i).context(), 0);
    if (enabled != CUDA_SUCCESS &&
        enabled != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
      CHECK_CU(enabled);
  }
  auto putRun = [&](uint32_t mask) {
    return timer.medianMs([&] {
      CHECK_OK(put->launch(*heap, {*src, *dst, ScalarValue::u32(mask)},
                           streams));
    });
  };
  auto copyRun = [&](bool both) {
    return timer.medianMs([&] {
      for (size_t i = 0; i < (both ? 2u : 1u); ++i) {
        CHECK_OK(team->device(i).makeCurrent());
        CHECK_CU(cuMemcpyPeerAsync(plainDst[1 - i],
                                   team->device(1 - i).context(), plainSrc[i],
                                   team->device(i).context(), bytes,
                                   streams[i]));
      }
    });
  };
  double putOneMs = putRun(1), putBothMs = putRun(3);
  double copyOneMs = copyRun(false), copyBothMs = copyRun(true);
  // Check that the put moved the right bytes (rank 1's dst = rank 0's src).
  {
    std::vector<int32_t> pattern(1 << 20);
    for (size_t k = 0; k < pattern.size(); ++k)
      pattern[k] = int32_t(k * 2654435761u);
    CHECK_OK(team->device(0).makeCurrent());
    CHECK_CU(cuMemcpyHtoD(heap->localPointer(*src, 0), pattern.data(),
                          pattern.size() * 4));
    CHECK_OK(put->launch(*heap, {*src, *dst, ScalarValue::u32(1)}, streams));
    CHECK_CU(cuStreamSynchronize(streams[0]));
    std::vector<int32_t> back(pattern.size());
    CHECK_OK(team->device(1).makeCurrent());
    CHECK_CU(cuMemcpyDtoH(back.data(), heap->localPointer(*dst, 1),
                          back.size() * 4));
    if (back != pattern) {
      std::fprintf(stderr, "error: put delivered wrong data\n");
      return 1;
    }
  }

  auto gbps = [&](double ms, int directions) {
    return directions * double(bytes) / (ms * 1e-3) / 1e9;
  };
  double semUs = semMs * 1e3 / kRounds, flagUs = flagMs * 1e3 / kRounds;
  std::printf("\nweave runtime primitives, %s x2, median of %d runs\n",
              team->device(0).name().c_str(), kRuns);
  std::printf("| test | ours | reference | ratio (ours/ref) |\n");
  std::printf("|---|---|---|---|\n");
  std::printf("| ping-pong round trip (%u rounds) | %.2f us (signal/wait) | "
              "%.2f us (volatile flags) | %.2f |\n",
              kRounds, semUs, flagUs, semUs / flagUs);
  std::printf("| put 128 MiB, one direction | %.1f GB/s | %.1f GB/s "
              "(cuMemcpyPeerAsync) | %.2f |\n",
              gbps(putOneMs, 1), gbps(copyOneMs, 1),
              gbps(putOneMs, 1) / gbps(copyOneMs, 1));
  std::printf("| put 128 MiB, both directions | %.1f GB/s | %.1f GB/s "
              "(cuMemcpyPeerAsync) | %.2f |\n",
              gbps(putBothMs, 2), gbps(copyBothMs, 2),
              gbps(putBothMs, 2) / gbps(copyBothMs, 2));
  for (size_t i = 0; i < 2; ++i) {
    CHECK_OK(team->device(i).makeCurrent());
    cuMemFree(plainSrc[i]);
    cuMemFree(plainDst[i]);
    cuStreamDestroy(streams[i]);
  }
  return 0;
}
