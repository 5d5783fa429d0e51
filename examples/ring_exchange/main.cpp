//===- main.cpp - run the ring_exchange kernel on every GPU of a team -----===//
//
//   ring_exchange <bundle> [--iterations N] [--back-to-back]
//
// In-process by default (one process drives every visible GPU); one GPU per
// process when RANK/WORLD_SIZE/LOCAL_RANK are set (torchrun style). Each
// iteration poisons every inbox, launches, and checks that device d received
// exactly device (d - 1) mod N's block. With --back-to-back the launches
// follow each other with no host synchronization: each launch sends other
// values, and after it each member's stream copies its inbox aside (the
// reader; rank 0's is delayed) and poisons it again; the copies are
// checked at the end. The
// kernel's credit (ring_exchange.mlir) keeps a launch from overwriting an
// inbox its reader has not copied yet. Exits 0 when every check passed, 1 on
// a wrong value or an error, and prints "SKIP: <reason>" and exits 0 where
// there are not two GPUs to run on.
//
//===----------------------------------------------------------------------===//

#include "weave/examples/HostSetup.h"
#include "weave/runtime/Bundle.h"
#include "weave/runtime/Kernel.h"

#include <cuda.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace weave;
using namespace weave::examples;

namespace {

constexpr int64_t kElements = 65536;

int fail(const Error &error) { return reportError("ring_exchange", error); }

float expectedValue(uint32_t rank, int64_t i) {
  return static_cast<float>(rank * 100000 + i);
}

/// --back-to-back: `iterations` launches with no host synchronization
/// between them, launch k sending expectedValue(rank + D k) (exact in f32
/// for D k < 160); after each,
/// every member's stream copies its inbox into a snapshot of its own and
/// poisons the inbox. Returns the exit code.
int runBackToBack(Team &team, SymmetricHeap &heap, const LocalStreams &streams,
                  Kernel &kernel, const SymmetricBuffer &inbox,
                  const SemaphoreArray &ready, int iterations) {
  if (int64_t(team.size()) * iterations > 160) {
    std::fprintf(stderr, "ring_exchange: error: --back-to-back takes at most "
                         "160 / team size iterations (exact f32 values)\n");
    return 1;
  }
  size_t local = team.localCount();
  std::vector<LocalBuffers> sources, snapshots;
  for (int k = 0; k < iterations; ++k) {
    Expected<LocalBuffers> src = LocalBuffers::create(team, "f32", {kElements});
    Expected<LocalBuffers> snap =
        LocalBuffers::create(team, "f32", {kElements});
    if (!src || !snap)
      return fail(!src ? src.error() : snap.error());
    for (size_t i = 0; i < local; ++i) {
      std::vector<float> host(kElements);
      for (int64_t e = 0; e < kElements; ++e)
        host[e] = expectedValue(team.rankOf(i) + team.size() * k, e);
      if (Status s = src->upload(i, host.data()); !s)
        return fail(s.error());
    }
    sources.push_back(std::move(*src));
    snapshots.push_back(std::move(*snap));
  }
  // Rank 0's reader is slow: a 256 MiB memset before its copy (about 0.1
  // ms on an H100), so that its left neighbour's next launch is ready to
  // write long before rank 0 has read. Without the credit the next launch
  // overwrites the inbox first and the check fails.
  Expected<LocalBuffers> delay = LocalBuffers::create(team, "f32", {64 << 20});
  if (!delay)
    return fail(delay.error());
  if (Status s = team.synchronize(); !s)
    return fail(s.error());
  for (int k = 0; k < iterations; ++k) {
    if (Status s = kernel.launch(heap, {sources[k].args(), inbox, ready},
                                 streams);
        !s)
      return fail(s.error());
    for (size_t i = 0; i < local; ++i) {
      (void)team.device(i).makeCurrent();
      CUdeviceptr mine = heap.localPointer(inbox, i);
      if (team.rankOf(i) == 0 &&
          cuMemsetD32Async(delay->pointer(i), k, 64 << 20, streams[i])) {
        std::fprintf(stderr, "ring_exchange: error: cannot queue the delay\n");
        return 1;
      }
      if (cuMemcpyDtoDAsync(snapshots[k].pointer(i), mine,
                            kElements * sizeof(float), streams[i]) ||
          cuMemsetD32Async(mine, 0x7fc00bad, kElements, streams[i])) {
        std::fprintf(stderr, "ring_exchange: error: cannot queue the reader\n");
        return 1;
      }
    }
  }
  if (Status s = team.synchronize(); !s)
    return fail(s.error());
  size_t wrong = 0;
  for (int k = 0; k < iterations; ++k)
    for (size_t i = 0; i < local; ++i) {
      std::vector<float> got(kElements);
      if (Status s = snapshots[k].download(i, got.data()); !s)
        return fail(s.error());
      uint32_t left = (team.rankOf(i) + team.size() - 1) % team.size();
      for (int64_t e = 0; e < kElements; ++e)
        if (got[e] != expectedValue(left + team.size() * k, e) && wrong++ < 5)
          std::fprintf(stderr,
                       "ring_exchange: launch %d: rank %u inbox[%lld] = %g, "
                       "expected %g (from rank %u)\n",
                       k, team.rankOf(i), static_cast<long long>(e), got[e],
                       expectedValue(left + team.size() * k, e), left);
    }
  std::printf("ring_exchange: team of %u (%s), %d launches back to back: "
              "%s\n",
              team.size(),
              team.isMultiProcess() ? "one process per GPU" : "in-process",
              iterations, wrong ? "FAILED" : "every inbox correct");
  return wrong ? 1 : 0;
}

/// Runs the example; returns the process exit code.
int run(const std::string &bundlePath, int iterations, bool backToBack) {
  Expected<Bundle> bundle = readBundleFile(bundlePath);
  if (!bundle)
    return fail(bundle.error());

  TeamRequest request;
  request.program = "ring_exchange";
  request.heapBytes = 64 << 20;
  SessionStart start = startSession(request);
  if (!start.session)
    return start.exitCode;
  auto &[team, heap, streams] = *start.session;

  Expected<SymmetricBuffer> inbox = heap.allocateTensor("f32", {kElements});
  // Counter 0: "your inbox is full"; counter 1: "my inbox is free".
  Expected<SemaphoreArray> ready = heap.allocateSemaphores(2);
  if (!inbox || !ready)
    return fail(!inbox ? inbox.error() : ready.error());

  Expected<Kernel> kernel =
      loadKernel(team, std::move(*bundle), "ring_exchange");
  if (!kernel)
    return fail(kernel.error());

  // Per-device source blocks.
  size_t local = team.localCount();
  Expected<LocalBuffers> src = LocalBuffers::create(team, "f32", {kElements});
  if (!src)
    return fail(src.error());
  for (size_t i = 0; i < local; ++i) {
    std::vector<float> host(kElements);
    for (int64_t e = 0; e < kElements; ++e)
      host[e] = expectedValue(team.rankOf(i), e);
    if (Status s = src->upload(i, host.data()); !s)
      return fail(s.error());
  }

  if (backToBack)
    return runBackToBack(team, heap, streams, *kernel, *inbox, *ready,
                         iterations);

  std::vector<KernelArg> args = {src->args(), *inbox, *ready};
  size_t wrong = 0;
  for (int iter = 0; iter < iterations; ++iter) {
    // Poison every inbox (NaN bit pattern), then make sure no device starts
    // writing into a peer before that peer's poison has landed.
    for (size_t i = 0; i < local; ++i) {
      (void)team.device(i).makeCurrent();
      cuMemsetD32(heap.localPointer(*inbox, i), 0x7fc00bad, kElements);
    }
    if (Status s = team.synchronize(); !s)
      return fail(s.error());
    if (Status s = kernel->launch(heap, args, streams); !s)
      return fail(s.error());
    if (Status s = team.synchronize(); !s)
      return fail(s.error());
    for (size_t i = 0; i < local; ++i) {
      (void)team.device(i).makeCurrent();
      std::vector<float> got(kElements);
      cuMemcpyDtoH(got.data(), heap.localPointer(*inbox, i),
                   kElements * sizeof(float));
      uint32_t left = (team.rankOf(i) + team.size() - 1) % team.size();
      for (int64_t e = 0; e < kElements; ++e)
        if (got[e] != expectedValue(left, e) && wrong++ < 5)
          std::fprintf(stderr,
                       "ring_exchange: rank %u inbox[%lld] = %g, expected %g "
                       "(from rank %u)\n",
                       team.rankOf(i), static_cast<long long>(e), got[e],
                       expectedValue(left, e), left);
    }
  }
  std::printf("ring_exchange: team of %u (%s), %d iterations: %s\n",
              team.size(),
              team.isMultiProcess() ? "one process per GPU" : "in-process",
              iterations, wrong ? "FAILED" : "every inbox correct");
  return wrong ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  std::string bundlePath;
  int iterations = 10;
  bool backToBack = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--iterations" && i + 1 < argc) {
      iterations = std::atoi(argv[++i]);
    } else if (arg == "--back-to-back") {
      backToBack = true;
    } else if (arg == "-h" || arg == "--help") {
      std::printf("usage: ring_exchange <bundle> [--iterations N] "
                  "[--back-to-back]\n");
      return 0;
    } else if (bundlePath.empty() && arg[0] != '-') {
      bundlePath = arg;
    } else {
      std::fprintf(stderr, "ring_exchange: error: unexpected argument '%s'\n",
                   arg.c_str());
      return 1;
    }
  }
  if (bundlePath.empty() || iterations < 1) {
    std::fprintf(stderr, "usage: ring_exchange <bundle> [--iterations N]\n");
    return 1;
  }
  return run(bundlePath, iterations, backToBack);
}
