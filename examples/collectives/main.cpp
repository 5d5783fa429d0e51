//===- main.cpp - runs and checks a collective kernel on a team -----------===//
//
//   collectives <bundle> [--rounds N]
//
// Runs the collective kernel of a bundle built from a template of
// ops/templates/ (any collective kernel of the op registry: `weave-ops
// kernels` lists them;
// dtype, sizes and team size read from the manifest) on the team: in-process over the visible GPUs or
// a loopback team with WEAVE_LOOPBACK_TEAM=D. Each round draws fresh random
// inputs (and all-to-all-v counts) for two launches, NaN-poisons two
// output copies, and launches twice back to back with no host
// synchronization in between (the second launch's inputs are written on
// each member's stream right after the first launch); then checks both
// outputs against float64 (weave::examples::CollectiveBuffers::check).
// Last, one launch captured in a CUDA graph per member is replayed three
// times (no counter is reset in between) and checked. Exits 0 when every
// check passed, 1 otherwise; prints "SKIP: <reason>" and exits 0 where it
// cannot run.
//
//===----------------------------------------------------------------------===//

#include "weave/examples/Collectives.h"
#include "weave/examples/HostSetup.h"

#include <cstdio>

using namespace weave;
using namespace weave::examples;

namespace {

const char *kProgram = "collectives";

int fail(const Error &error) { return reportError(kProgram, error); }

int run(const std::string &bundlePath, int rounds) {
  Expected<Bundle> bundle = readBundleFile(bundlePath);
  if (!bundle)
    return fail(bundle.error());
  Expected<CollectiveKernel> kernelInfo = findCollective(*bundle);
  if (!kernelInfo)
    return fail(kernelInfo.error());
  const CollectiveKernel &collective = *kernelInfo;
  std::string name = collective.info->name;

  TeamRequest request;
  request.program = kProgram;
  if (collective.teamSize)
    request.minDevices = request.maxDevices = collective.teamSize;
  request.allowMultiProcess = false; // every output is checked here
  request.heapBytes = collective.heapBytes(2);
  SessionStart start = startSession(request);
  if (!start.session)
    return start.exitCode;
  auto &[team, heap, streams] = *start.session;

  Expected<CollectiveBuffers> buffers =
      CollectiveBuffers::create(team, heap, collective, 2);
  if (!buffers)
    return fail(buffers.error());
  Expected<Kernel> kernel = loadKernel(team, std::move(*bundle), name);
  if (!kernel)
    return fail(kernel.error());

  std::mt19937 rng(1234);
  size_t wrong = 0;
  CollectiveData last;
  for (int round = 0; round < rounds; ++round) {
    CollectiveData data[2] = {randomCollectiveData(collective, team.size(), rng),
                              randomCollectiveData(collective, team.size(), rng)};
    for (int slot = 0; slot < 2; ++slot)
      if (Status s = buffers->poison(slot); !s)
        return fail(s.error());
    // Two launches, each member ordered on its own stream only.
    for (int slot = 0; slot < 2; ++slot) {
      if (Status s = buffers->write(slot, data[slot], streams); !s)
        return fail(s.error());
      if (Status s = kernel->launch(heap, buffers->args(slot), streams); !s)
        return fail(s.error());
    }
    if (Status s = streams.synchronize(); !s)
      return fail(s.error());
    wrong += buffers->check(0, data[0], kProgram, "first launch");
    wrong += buffers->check(1, data[1], kProgram, "second launch");
    last = std::move(data[1]);
  }

  // Graph replay: one captured launch per member, replayed three times.
  if (Status s = buffers->poison(0); !s)
    return fail(s.error());
  if (Status s = replayInGraphs(team, heap, *kernel, buffers->args(0),
                                streams, 3);
      !s)
    return fail(s.error());
  wrong += buffers->check(0, last, kProgram, "graph replay");

  std::printf("%s: %s, %s, n = %lld, team of %u (%s), grid %u blocks, %d "
              "rounds of 2 launches + 3 graph replays: %s\n",
              kProgram, name.c_str(), collective.dtype.c_str(),
              static_cast<long long>(collective.n), team.size(),
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
