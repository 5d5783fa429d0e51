//===- main.cpp - the one-shot all-reduce on every member of a team -------===//
//
//   all_reduce <bundle> [--rounds N]
//
// Runs one_shot_all_reduce (examples/all_reduce/one_shot_all_reduce.mlir.in,
// its element count read from the bundle) on the team: in-process over the
// visible GPUs, a loopback team with WEAVE_LOOPBACK_TEAM=D, or one GPU per
// process (RANK/WORLD_SIZE/LOCAL_RANK). Each round writes fresh random
// inputs and launches twice back to back with no host synchronization in
// between (the second round's inputs are written on each member's stream
// right after the first launch), into two NaN-poisoned outputs; then
// checks both against the sum in rank order (bit for bit: the kernel adds
// in the same order) and a float64 reference. Last, one launch captured in
// a CUDA graph per member is replayed three times (the barrier's counters
// need no reset). Exits 0 when every check passed, 1 otherwise; prints
// "SKIP: <reason>" and exits 0 where it cannot run.
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
#include <random>
#include <string>
#include <vector>

using namespace weave;
using namespace weave::examples;

namespace {

const char *kProgram = "all_reduce";
const char *kKernel = "one_shot_all_reduce";

int fail(const Error &error) { return reportError(kProgram, error); }

/// Inputs of one launch: inputs[member][element].
using Inputs = std::vector<std::vector<float>>;

Inputs randomInputs(size_t members, int64_t n, std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Inputs inputs(members, std::vector<float>(n));
  for (auto &member : inputs)
    for (float &x : member)
      x = dist(rng);
  return inputs;
}

/// Compares every member's `output` with the sum of `inputs` in rank order
/// (bit for bit) and in float64 (relative 1e-5); returns the wrong count.
size_t check(const Team &team, const LocalBuffers &output,
             const Inputs &inputs, const char *what) {
  size_t wrong = 0;
  int64_t n = static_cast<int64_t>(inputs[0].size());
  for (size_t i = 0; i < team.localCount(); ++i) {
    std::vector<float> got(n);
    if (Status s = output.download(i, got.data()); !s) {
      fail(s.error());
      return 1;
    }
    for (int64_t e = 0; e < n; ++e) {
      float sum = 0.0f;
      double exact = 0.0;
      for (size_t r = 0; r < inputs.size(); ++r) {
        sum += inputs[r][e];
        exact += inputs[r][e];
      }
      bool ok = std::memcmp(&got[e], &sum, sizeof(float)) == 0 &&
                std::fabs(got[e] - exact) <= 1e-5 * (1.0 + std::fabs(exact));
      if (!ok && wrong++ < 5)
        std::fprintf(stderr,
                     "%s: %s: rank %u output[%lld] = %.9g, expected %.9g "
                     "(float64 %.9g)\n",
                     kProgram, what, team.rankOf(i),
                     static_cast<long long>(e), got[e], sum, exact);
    }
  }
  return wrong;
}

/// Writes member i's `inputs[rank]` into its symmetric input, on its stream.
Status writeInputs(const Team &team, const SymmetricHeap &heap,
                   const SymmetricBuffer &input, const LocalStreams &streams,
                   const Inputs &inputs) {
  for (size_t i = 0; i < team.localCount(); ++i) {
    WEAVE_TRY(team.device(i).makeCurrent());
    const std::vector<float> &mine = inputs[team.rankOf(i)];
    WEAVE_CU_TRY(cuMemcpyHtoDAsync(heap.localPointer(input, i), mine.data(),
                                   mine.size() * sizeof(float), streams[i]),
                 "writing the input of member " + std::to_string(i));
  }
  return ok();
}

Status poison(const Team &team, const LocalBuffers &output) {
  for (size_t i = 0; i < team.localCount(); ++i) {
    WEAVE_TRY(team.device(i).makeCurrent());
    WEAVE_CU_TRY(cuMemsetD32(output.pointer(i), 0x7fc00bad,
                             output.bytes() / sizeof(float)),
                 "poisoning an output");
  }
  return ok();
}

int run(const std::string &bundlePath, int rounds) {
  Expected<Bundle> bundle = readBundleFile(bundlePath);
  if (!bundle)
    return fail(bundle.error());
  const KernelInfo *info = findKernel(*bundle, kKernel);
  if (!info || info->params.empty() || info->params[0].shape.size() != 1)
    return fail(Error(ErrorCode::InvalidArgument,
                      bundlePath + " holds no " + kKernel +
                          " with a 1-D input"));
  int64_t n = info->params[0].shape[0];

  TeamRequest request;
  request.program = kProgram;
  request.heapBytes = static_cast<size_t>(n) * sizeof(float) + (1 << 20);
  SessionStart start = startSession(request);
  if (!start.session)
    return start.exitCode;
  auto &[team, heap, streams] = *start.session;
  if (team.isMultiProcess())
    return fail(Error(ErrorCode::InvalidArgument,
                      "this example checks every member's output in one "
                      "process: run it in-process or as a loopback team"));

  Expected<SymmetricBuffer> input = heap.allocateTensor("f32", {n});
  Expected<SemaphoreArray> barrier = heap.allocateSemaphores(2);
  Expected<LocalBuffers> out0 = LocalBuffers::create(team, "f32", {n});
  Expected<LocalBuffers> out1 = LocalBuffers::create(team, "f32", {n});
  if (!input || !barrier || !out0 || !out1)
    return fail(!input     ? input.error()
                : !barrier ? barrier.error()
                : !out0    ? out0.error()
                           : out1.error());
  Expected<Kernel> kernel = loadKernel(team, std::move(*bundle), kKernel);
  if (!kernel)
    return fail(kernel.error());

  std::mt19937 rng(1234);
  size_t wrong = 0;
  Inputs last;
  for (int round = 0; round < rounds; ++round) {
    Inputs first = randomInputs(team.size(), n, rng);
    Inputs second = randomInputs(team.size(), n, rng);
    if (Status s = poison(team, *out0); !s)
      return fail(s.error());
    if (Status s = poison(team, *out1); !s)
      return fail(s.error());
    if (Status s = team.synchronize(); !s)
      return fail(s.error());
    // Two launches with new inputs in between, each member ordered on its
    // own stream only: the kernel's second barrier keeps a member's input
    // until every peer has read it.
    for (auto [inputs, output] :
         {std::pair<Inputs *, LocalBuffers *>{&first, &*out0},
          {&second, &*out1}}) {
      if (Status s = writeInputs(team, heap, *input, streams, *inputs); !s)
        return fail(s.error());
      if (Status s = kernel->launch(heap, {*input, output->args(), *barrier},
                                    streams);
          !s)
        return fail(s.error());
    }
    if (Status s = streams.synchronize(); !s)
      return fail(s.error());
    wrong += check(team, *out0, first, "first launch");
    wrong += check(team, *out1, second, "second launch");
    last = std::move(second);
  }

  // Graph replay: one captured launch per member, replayed three times.
  std::vector<KernelArg> args = {*input, out0->args(), *barrier};
  if (Status s = poison(team, *out0); !s)
    return fail(s.error());
  if (Status s = team.synchronize(); !s)
    return fail(s.error());
  if (Status s = replayInGraphs(team, heap, *kernel, args, streams, 3); !s)
    return fail(s.error());
  wrong += check(team, *out0, last, "graph replay");

  std::printf("%s: %lld f32 elements, team of %u (%s), grid %u blocks, %d "
              "rounds of 2 launches + 3 graph replays: %s\n",
              kProgram, static_cast<long long>(n), team.size(),
              team.isLoopback() ? "loopback" : "one GPU each",
              kernel->launchGrid()[0], rounds,
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
