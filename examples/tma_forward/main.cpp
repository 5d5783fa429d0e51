//===- main.cpp - run tma_forward on every GPU of a team ------------------===//
//
//   tma_forward <bundle>
//
// Device d stores its 64x64 block with a TMA tensor store into rows
// [64d, 64d + 64) of device (d + 1) mod N's `gathered`. The program checks
// those rows on every device and that the other rows kept their poison.
// In-process over 2 to 4 GPUs, or one process per GPU (RANK, WORLD_SIZE,
// LOCAL_RANK). Prints "SKIP: <reason>" and exits 0 without two GPUs.
//
//===----------------------------------------------------------------------===//

#include "weave/examples/HostSetup.h"
#include "weave/runtime/Bundle.h"
#include "weave/runtime/Kernel.h"

#include <cuda.h>

#include <cstdio>
#include <cstring>
#include <vector>

using namespace weave;
using namespace weave::examples;

namespace {
constexpr int64_t kRows = 64, kCols = 64, kGatheredRows = 256;
constexpr uint32_t kPoison = 0x7fc00bad;

int fail(const Error &error) { return reportError("tma_forward", error); }

float value(uint32_t rank, int64_t r, int64_t c) {
  return static_cast<float>(rank * 10000 + r * kCols + c);
}
} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: tma_forward <bundle>\n");
    return 1;
  }
  Expected<Bundle> bundle = readBundleFile(argv[1]);
  if (!bundle)
    return fail(bundle.error());
  TeamRequest request;
  request.program = "tma_forward";
  request.minDevices = 2;
  request.maxDevices = kGatheredRows / kRows;
  request.heapBytes = 16 << 20;
  SessionStart start = startSession(request);
  if (!start.session)
    return start.exitCode;
  auto &[team, heap, streams] = *start.session;

  Expected<SymmetricBuffer> gathered =
      heap.allocateTensor("f32", {kGatheredRows, kCols});
  Expected<SemaphoreArray> ready = heap.allocateSemaphores(1);
  if (!gathered || !ready)
    return fail(!gathered ? gathered.error() : ready.error());
  Expected<Kernel> kernel = loadKernel(team, std::move(*bundle), "tma_forward");
  if (!kernel)
    return fail(kernel.error());

  size_t local = team.localCount();
  Expected<LocalBuffers> block =
      LocalBuffers::create(team, "f32", {kRows, kCols});
  if (!block)
    return fail(block.error());
  for (size_t i = 0; i < local; ++i) {
    std::vector<float> host(kRows * kCols);
    for (int64_t e = 0; e < kRows * kCols; ++e)
      host[e] = value(team.rankOf(i), e / kCols, e % kCols);
    if (Status s = block->upload(i, host.data()); !s)
      return fail(s.error());
    (void)team.device(i).makeCurrent();
    if (cuMemsetD32(heap.localPointer(*gathered, i), kPoison,
                    kGatheredRows * kCols)) {
      std::fprintf(stderr, "tma_forward: error: cannot poison device %zu\n", i);
      return 1;
    }
  }
  if (Status s = team.synchronize(); !s)
    return fail(s.error());
  if (Status s = kernel->launch(heap, {block->args(), *gathered, *ready},
                                streams);
      !s)
    return fail(s.error());
  if (Status s = team.synchronize(); !s)
    return fail(s.error());

  size_t wrong = 0;
  for (size_t i = 0; i < local; ++i) {
    (void)team.device(i).makeCurrent();
    std::vector<float> got(kGatheredRows * kCols);
    cuMemcpyDtoH(got.data(), heap.localPointer(*gathered, i), got.size() * 4);
    uint32_t left = (team.rankOf(i) + team.size() - 1) % team.size();
    for (int64_t r = 0; r < kGatheredRows; ++r)
      for (int64_t c = 0; c < kCols; ++c) {
        float g = got[r * kCols + c];
        bool fromLeft = r / kRows == left;
        uint32_t bits;
        std::memcpy(&bits, &g, 4);
        bool ok = fromLeft ? g == value(left, r % kRows, c) : bits == kPoison;
        if (!ok && wrong++ < 5)
          std::fprintf(stderr, "tma_forward: rank %u gathered[%lld][%lld] = %g\n",
                       team.rankOf(i), (long long)r, (long long)c, g);
      }
  }
  std::printf("tma_forward: team of %u, TMA store to the right neighbour: %s\n",
              team.size(), wrong ? "FAILED" : "every row correct");
  return wrong ? 1 : 0;
}
