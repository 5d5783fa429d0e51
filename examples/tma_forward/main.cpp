//===- main.cpp - run tma_forward on every GPU of a team ------------------===//
//
//   tma_forward <bundle> [--back-to-back]
//
// Device d stores its 64x64 block with a TMA tensor store into rows
// [64d, 64d + 64) of device (d + 1) mod N's `gathered`. The program checks
// those rows on every device and that the other rows kept their poison.
// With --back-to-back it launches 8 times with no host synchronization,
// other values each time; after each launch every member's stream copies
// `gathered` aside and poisons it again, and the copies are checked at the
// end (the kernel's credit keeps a launch from overwriting rows the
// previous launch's reader has not copied).
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
#include <string>
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

/// Counts (and prints the first few of) the wrong elements of member
/// `rank`'s `gathered` copy `got`, whose left neighbour sent value(left +
/// shift, ...).
size_t checkGathered(const std::vector<float> &got, uint32_t rank,
                     uint32_t left, uint32_t shift, size_t wrong) {
  for (int64_t r = 0; r < kGatheredRows; ++r)
    for (int64_t c = 0; c < kCols; ++c) {
      float g = got[r * kCols + c];
      bool fromLeft = r / kRows == left;
      uint32_t bits;
      std::memcpy(&bits, &g, 4);
      bool ok = fromLeft ? g == value(left + shift, r % kRows, c)
                         : bits == kPoison;
      if (!ok && wrong++ < 5)
        std::fprintf(stderr, "tma_forward: rank %u gathered[%lld][%lld] = %g\n",
                     rank, (long long)r, (long long)c, g);
    }
  return wrong;
}
} // namespace

int main(int argc, char **argv) {
  bool backToBack = argc == 3 && std::string(argv[2]) == "--back-to-back";
  if (argc != 2 && !backToBack) {
    std::fprintf(stderr, "usage: tma_forward <bundle> [--back-to-back]\n");
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
  // Counter 0: "your rows arrived"; counter 1: "my rows are free".
  Expected<SemaphoreArray> ready = heap.allocateSemaphores(2);
  if (!gathered || !ready)
    return fail(!gathered ? gathered.error() : ready.error());
  Expected<Kernel> kernel = loadKernel(team, std::move(*bundle), "tma_forward");
  if (!kernel)
    return fail(kernel.error());

  size_t local = team.localCount();
  const int launches = backToBack ? 8 : 1;
  std::vector<LocalBuffers> blocks, snapshots;
  for (int k = 0; k < launches; ++k) {
    Expected<LocalBuffers> block =
        LocalBuffers::create(team, "f32", {kRows, kCols});
    Expected<LocalBuffers> snapshot =
        LocalBuffers::create(team, "f32", {kGatheredRows, kCols});
    if (!block || !snapshot)
      return fail(!block ? block.error() : snapshot.error());
    for (size_t i = 0; i < local; ++i) {
      std::vector<float> host(kRows * kCols);
      for (int64_t e = 0; e < kRows * kCols; ++e)
        host[e] = value(team.rankOf(i) + 100 * k, e / kCols, e % kCols);
      if (Status s = block->upload(i, host.data()); !s)
        return fail(s.error());
    }
    blocks.push_back(std::move(*block));
    snapshots.push_back(std::move(*snapshot));
  }
  for (size_t i = 0; i < local; ++i) {
    (void)team.device(i).makeCurrent();
    if (cuMemsetD32(heap.localPointer(*gathered, i), kPoison,
                    kGatheredRows * kCols)) {
      std::fprintf(stderr, "tma_forward: error: cannot poison device %zu\n", i);
      return 1;
    }
  }
  // Rank 0's reader is slow (a 256 MiB memset before its copy), so that
  // without the credit its left neighbour's next store lands first.
  Expected<LocalBuffers> delay = LocalBuffers::create(
      team, "f32", {backToBack ? int64_t(64) << 20 : 1});
  if (!delay)
    return fail(delay.error());
  if (Status s = team.synchronize(); !s)
    return fail(s.error());
  // No host synchronization between the launches: each member's stream
  // reads `gathered` (a copy aside) and poisons it again after each one.
  for (int k = 0; k < launches; ++k) {
    if (Status s = kernel->launch(heap, {blocks[k].args(), *gathered, *ready},
                                  streams);
        !s)
      return fail(s.error());
    for (size_t i = 0; i < local; ++i) {
      (void)team.device(i).makeCurrent();
      CUdeviceptr mine = heap.localPointer(*gathered, i);
      if (backToBack && team.rankOf(i) == 0 &&
          cuMemsetD32Async(delay->pointer(i), k, 64 << 20, streams[i])) {
        std::fprintf(stderr, "tma_forward: error: cannot queue the delay\n");
        return 1;
      }
      if (cuMemcpyDtoDAsync(snapshots[k].pointer(i), mine,
                            kGatheredRows * kCols * 4, streams[i]) ||
          cuMemsetD32Async(mine, kPoison, kGatheredRows * kCols, streams[i])) {
        std::fprintf(stderr, "tma_forward: error: cannot queue the reader\n");
        return 1;
      }
    }
  }
  if (Status s = team.synchronize(); !s)
    return fail(s.error());

  size_t wrong = 0;
  for (int k = 0; k < launches; ++k)
    for (size_t i = 0; i < local; ++i) {
      std::vector<float> got(kGatheredRows * kCols);
      if (Status s = snapshots[k].download(i, got.data()); !s)
        return fail(s.error());
      uint32_t left = (team.rankOf(i) + team.size() - 1) % team.size();
      wrong = checkGathered(got, team.rankOf(i), left, 100 * k, wrong);
    }
  std::printf("tma_forward: team of %u, TMA store to the right neighbour%s: "
              "%s\n",
              team.size(), backToBack ? ", 8 launches back to back" : "",
              wrong ? "FAILED" : "every row correct");
  return wrong ? 1 : 0;
}
