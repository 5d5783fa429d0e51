//===- main.cpp - the all-gather on every member of a team ----------------===//
//
//   all_gather <bundle> [--rounds N]
//
// Runs all_gather (examples/all_gather/all_gather.mlir.in; team size and
// element count read from the bundle) on the team: in-process over the
// visible GPUs or a loopback team with WEAVE_LOOPBACK_TEAM=D. Each round
// poisons every output (NaN), writes fresh random inputs and launches, then
// writes new inputs on each member's stream and launches again with no host
// synchronization in between; every member's output must then hold every
// member's second input in rank order, bit for bit. Last, one launch
// captured in a CUDA graph per member is replayed three times. Exits 0 when
// every check passed, 1 otherwise; "SKIP: <reason>" and 0 where it cannot
// run.
//
//===----------------------------------------------------------------------===//

#include "weave/examples/HostSetup.h"
#include "weave/runtime/Bundle.h"
#include "weave/runtime/Kernel.h"

#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace weave;
using namespace weave::examples;

namespace {

const char *kProgram = "all_gather";

int fail(const Error &error) { return reportError(kProgram, error); }

using Inputs = std::vector<std::vector<float>>; ///< [rank][element]

Inputs randomInputs(uint32_t members, int64_t n, std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Inputs inputs(members, std::vector<float>(n));
  for (auto &member : inputs)
    for (float &x : member)
      x = dist(rng);
  return inputs;
}

struct Run {
  Team &team;
  SymmetricHeap &heap;
  LocalStreams &streams;
  Kernel &kernel;
  LocalBuffers &input;
  SymmetricBuffer output;
  SemaphoreArray arrived, barrier;
  int64_t n;

  std::vector<KernelArg> args() const {
    return {input.args(), output, arrived, barrier};
  }
  /// Writes each member's input on its stream, then launches.
  Status launch(const Inputs &inputs) {
    for (size_t i = 0; i < team.localCount(); ++i) {
      WEAVE_TRY(team.device(i).makeCurrent());
      const std::vector<float> &mine = inputs[team.rankOf(i)];
      WEAVE_CU_TRY(cuMemcpyHtoDAsync(input.pointer(i), mine.data(),
                                     mine.size() * sizeof(float), streams[i]),
                   "writing an input");
    }
    return kernel.launch(heap, args(), streams);
  }
  Status poison() {
    for (size_t i = 0; i < team.localCount(); ++i) {
      WEAVE_TRY(team.device(i).makeCurrent());
      WEAVE_CU_TRY(cuMemsetD32(heap.localPointer(output, i), 0x7fc00bad,
                               n * team.size()),
                   "poisoning an output");
    }
    return team.synchronize();
  }
  /// Every member's output against the inputs in rank order.
  size_t check(const Inputs &inputs, const char *what) {
    size_t wrong = 0;
    for (size_t i = 0; i < team.localCount(); ++i) {
      std::vector<float> got(n * team.size());
      (void)team.device(i).makeCurrent();
      if (cuMemcpyDtoH(got.data(), heap.localPointer(output, i),
                       got.size() * sizeof(float)) != CUDA_SUCCESS)
        return 1;
      for (uint32_t r = 0; r < team.size(); ++r)
        for (int64_t e = 0; e < n; ++e)
          if (std::memcmp(&got[r * n + e], &inputs[r][e], sizeof(float)) &&
              wrong++ < 5)
            std::fprintf(stderr,
                         "%s: %s: rank %u output[%u][%lld] = %.9g, "
                         "expected %.9g\n",
                         kProgram, what, team.rankOf(i), r,
                         static_cast<long long>(e), got[r * n + e],
                         inputs[r][e]);
    }
    return wrong;
  }
};

int run(const std::string &bundlePath, int rounds) {
  Expected<Bundle> bundle = readBundleFile(bundlePath);
  if (!bundle)
    return fail(bundle.error());
  const KernelInfo *info = findKernel(*bundle, kProgram);
  if (!info || info->params.empty() || info->params[0].shape.size() != 1 ||
      info->teamSize < 2)
    return fail(Error(ErrorCode::InvalidArgument,
                      bundlePath + " holds no all_gather for a team of 2 or "
                                   "more with a 1-D input"));
  int64_t n = info->params[0].shape[0];

  TeamRequest request;
  request.program = kProgram;
  request.minDevices = request.maxDevices = info->teamSize;
  request.allowMultiProcess = false;
  request.heapBytes = static_cast<size_t>(n) * info->teamSize * 4 + (1 << 20);
  SessionStart start = startSession(request);
  if (!start.session)
    return start.exitCode;
  auto &[team, heap, streams] = *start.session;

  Expected<SymmetricBuffer> output =
      heap.allocateTensor("f32", {n * int64_t(team.size())});
  Expected<SemaphoreArray> arrived = heap.allocateSemaphores(1);
  Expected<SemaphoreArray> barrier = heap.allocateSemaphores(1);
  Expected<LocalBuffers> input = LocalBuffers::create(team, "f32", {n});
  if (!output || !arrived || !barrier || !input)
    return fail(!output    ? output.error()
                : !arrived ? arrived.error()
                : !barrier ? barrier.error()
                           : input.error());
  Expected<Kernel> kernel = loadKernel(team, std::move(*bundle), kProgram);
  if (!kernel)
    return fail(kernel.error());
  Run r{team, heap, streams, *kernel, *input, *output, *arrived, *barrier, n};

  std::mt19937 rng(4321);
  size_t wrong = 0;
  Inputs last;
  for (int round = 0; round < rounds; ++round) {
    Inputs first = randomInputs(team.size(), n, rng);
    last = randomInputs(team.size(), n, rng);
    if (Status s = r.poison(); !s)
      return fail(s.error());
    if (Status s = r.launch(first); !s)
      return fail(s.error());
    if (Status s = r.launch(last); !s)
      return fail(s.error());
    if (Status s = streams.synchronize(); !s)
      return fail(s.error());
    wrong += r.check(last, "two launches");
  }

  // One captured launch per member, replayed three times.
  if (Status s = r.poison(); !s)
    return fail(s.error());
  if (Status s = replayInGraphs(team, heap, *kernel, r.args(), streams, 3);
      !s)
    return fail(s.error());
  wrong += r.check(last, "graph replay");

  std::printf("%s: %lld f32 per member, team of %u (%s), %d rounds of 2 "
              "launches + 3 graph replays: %s\n",
              kProgram, static_cast<long long>(n), team.size(),
              team.isLoopback() ? "loopback" : "one GPU each", rounds,
              wrong ? "FAILED" : "every output correct");
  return wrong ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  BundleCommandLine command;
  if (std::optional<int> exitCode =
          parseBundleCommandLine(argc, argv, kProgram, command))
    return *exitCode;
  return run(command.bundlePath, command.rounds);
}
