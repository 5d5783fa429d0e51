//===- main.cpp - run epilogue_reduce on every member of a team -----------===//
//
//   epilogue_reduce <bundle>
//
// Device d computes P_d = A_d @ B_d (bf16 inputs, f32 output) with
// weave.matmul_pipeline and its epilogue region reduce-adds every output
// box into its own `c` and the next device's, with TMA reductions. The
// inputs are multiples of 1/8 in [-1/2, 1/2], so every partial sum is exact
// in f32: device d's `c` must equal P_d + P_(d-1 mod D) bit for bit (the
// float64 reference), including the ragged edge tiles. Two launches, `c`
// zeroed before each. Runs on 2+ GPUs or a loopback team
// (WEAVE_LOOPBACK_TEAM).
//
//===----------------------------------------------------------------------===//

#include "weave/examples/ExactInputs.h"
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
constexpr int64_t kM = 200, kK = 256, kN = 320;

int fail(const Error &error) { return reportError("epilogue_reduce", error); }

/// P_d = A_d @ B_d in float64.
std::vector<double> partial(uint32_t d) {
  std::vector<double> p(kM * kN, 0.0);
  for (int64_t r = 0; r < kM; ++r)
    for (int64_t k = 0; k < kK; ++k) {
      double a = exactA(d, r, k);
      for (int64_t c = 0; c < kN; ++c)
        p[r * kN + c] += a * exactB(d, k, c);
    }
  return p;
}
} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: epilogue_reduce <bundle>\n");
    return 1;
  }
  Expected<Bundle> bundle = readBundleFile(argv[1]);
  if (!bundle)
    return fail(bundle.error());
  TeamRequest request;
  request.program = "epilogue_reduce";
  request.minDevices = 2;
  request.maxDevices = 8;
  request.heapBytes = 16 << 20;
  SessionStart start = startSession(request);
  if (!start.session)
    return start.exitCode;
  auto &[team, heap, streams] = *start.session;

  Expected<SymmetricBuffer> c = heap.allocateTensor("f32", {kM, kN});
  if (!c)
    return fail(c.error());
  Expected<Kernel> kernel =
      loadKernel(team, std::move(*bundle), "epilogue_reduce");
  if (!kernel)
    return fail(kernel.error());
  size_t local = team.localCount();
  Expected<LocalBuffers> a = LocalBuffers::create(team, "bf16", {kM, kK});
  Expected<LocalBuffers> b = LocalBuffers::create(team, "bf16", {kK, kN});
  if (!a || !b)
    return fail(!a ? a.error() : b.error());
  if (Status s = uploadExactOperands(team, *a, *b, kM, kK, kN, /*bf16=*/true);
      !s)
    return fail(s.error());
  std::vector<std::vector<double>> partials(team.size());
  for (uint32_t d = 0; d < team.size(); ++d)
    partials[d] = partial(d);

  size_t wrong = 0;
  for (int launch = 0; launch < 2; ++launch) {
    for (size_t i = 0; i < local; ++i) {
      (void)team.device(i).makeCurrent();
      if (cuMemsetD32(heap.localPointer(*c, i), 0, kM * kN)) {
        std::fprintf(stderr, "epilogue_reduce: cannot zero device %zu\n", i);
        return 1;
      }
    }
    if (Status s = team.synchronize(); !s)
      return fail(s.error());
    if (Status s = kernel->launch(heap, {a->args(), b->args(), *c}, streams);
        !s)
      return fail(s.error());
    if (Status s = team.synchronize(); !s)
      return fail(s.error());
    for (size_t i = 0; i < local; ++i) {
      (void)team.device(i).makeCurrent();
      std::vector<float> got(kM * kN);
      cuMemcpyDtoH(got.data(), heap.localPointer(*c, i), got.size() * 4);
      uint32_t d = team.rankOf(i);
      uint32_t prev = (d + team.size() - 1) % team.size();
      for (int64_t e = 0; e < kM * kN; ++e) {
        double want = partials[d][e] + partials[prev][e];
        if (got[e] != want && wrong++ < 5)
          std::fprintf(stderr,
                       "epilogue_reduce: launch %d rank %u c[%lld][%lld] = %.9g, "
                       "expected %.9g\n",
                       launch, d, (long long)(e / kN), (long long)(e % kN),
                       got[e], want);
      }
    }
  }
  std::printf("epilogue_reduce: team of %u, %lldx%lldx%lld bf16 -> f32, "
              "epilogue reduce-add into self and next: %s\n",
              team.size(), (long long)kM, (long long)kK, (long long)kN,
              wrong ? "FAILED" : "exact");
  return wrong ? 1 : 0;
}
