//===- main.cpp - run callback_rhs on every member of a team --------------===//
//
//   callback_rhs <bundle>
//
// The callback of member d's pipeline stores every rhs tile of its first
// row tile into member (d + n) mod D's symmetric `bcopy` (n the column
// tile), through a per-member tensor-map table. So member d's `bcopy`
// columns [256 n, 256 n + 256) must equal those of member (d - n) mod D's
// b, bit for bit (NaN-poisoned before, every element must be written), and
// c = A_d @ B_d exactly (the inputs are multiples of 1/8, ExactInputs.h).
// Two launches, no host synchronization between them. Runs on any team
// (1 member included) or a loopback team (WEAVE_LOOPBACK_TEAM).
//
//===----------------------------------------------------------------------===//

#include "weave/examples/ExactInputs.h"
#include "weave/examples/HostSetup.h"
#include "weave/runtime/Bundle.h"
#include "weave/runtime/Kernel.h"

#include <cuda.h>

#include <cstdio>
#include <vector>

using namespace weave;
using namespace weave::examples;

namespace {
constexpr int64_t kM = 200, kK = 192, kN = 320, kTileN = 256;
constexpr const char *kProgram = "callback_rhs";

int fail(const Error &error) { return reportError(kProgram, error); }
} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <bundle>\n", kProgram);
    return 1;
  }
  Expected<Bundle> bundle = readBundleFile(argv[1]);
  if (!bundle)
    return fail(bundle.error());
  TeamRequest request;
  request.program = kProgram;
  request.minDevices = 1;
  request.heapBytes = 16 << 20;
  SessionStart start = startSession(request);
  if (!start.session)
    return start.exitCode;
  auto &[team, heap, streams] = *start.session;

  Expected<SymmetricBuffer> bcopy = heap.allocateTensor("bf16", {kK, kN});
  if (!bcopy)
    return fail(bcopy.error());
  Expected<Kernel> kernel = loadKernel(team, std::move(*bundle), kProgram);
  if (!kernel)
    return fail(kernel.error());
  size_t local = team.localCount();
  Expected<LocalBuffers> a = LocalBuffers::create(team, "bf16", {kM, kK});
  Expected<LocalBuffers> b = LocalBuffers::create(team, "bf16", {kK, kN});
  Expected<LocalBuffers> c = LocalBuffers::create(team, "f32", {kM, kN});
  if (!a || !b || !c)
    return fail(!a ? a.error() : !b ? b.error() : c.error());
  if (Status s = uploadExactOperands(team, *a, *b, kM, kK, kN, /*bf16=*/true);
      !s)
    return fail(s.error());
  for (size_t i = 0; i < local; ++i) {
    (void)team.device(i).makeCurrent();
    // NaN in bf16: every element of bcopy must be stored.
    if (cuMemsetD16(heap.localPointer(*bcopy, i), 0x7fff, kK * kN) ||
        cuMemsetD32(c->pointer(i), 0x7fc00000, kM * kN)) {
      std::fprintf(stderr, "%s: cannot poison device %zu\n", kProgram, i);
      return 1;
    }
  }
  std::vector<KernelArg> args{a->args(), b->args(), c->args(), *bcopy};
  for (int launch = 0; launch < 2; ++launch)
    if (Status s = kernel->launch(heap, args, streams); !s)
      return fail(s.error());
  if (Status s = team.synchronize(); !s)
    return fail(s.error());

  size_t wrongCopy = 0, wrongC = 0;
  uint32_t size = team.size();
  for (size_t i = 0; i < local; ++i) {
    (void)team.device(i).makeCurrent();
    uint32_t d = team.rankOf(i);
    std::vector<uint16_t> got(kK * kN);
    std::vector<float> product(kM * kN);
    if (cuMemcpyDtoH(got.data(), heap.localPointer(*bcopy, i), got.size() * 2))
      return fail(Error(ErrorCode::DriverError, "reading bcopy"));
    if (Status s = c->download(i, product.data()); !s)
      return fail(s.error());
    for (int64_t k = 0; k < kK; ++k)
      for (int64_t q = 0; q < kN; ++q) {
        uint32_t n = static_cast<uint32_t>(q / kTileN);
        uint32_t source = (d + size - n % size) % size;
        uint16_t want = exactBits16(exactB(source, k, q), /*bf16=*/true);
        if (got[k * kN + q] != want && wrongCopy++ < 5)
          std::fprintf(stderr,
                       "%s: rank %u bcopy[%lld][%lld] = 0x%04x, expected "
                       "0x%04x (b of rank %u)\n",
                       kProgram, d, (long long)k, (long long)q,
                       got[k * kN + q], want, source);
      }
    for (int64_t r = 0; r < kM; ++r)
      for (int64_t q = 0; q < kN; ++q) {
        double want = 0;
        for (int64_t k = 0; k < kK; ++k)
          want += exactA(d, r, k) * exactB(d, k, q);
        if (product[r * kN + q] != want && wrongC++ < 5)
          std::fprintf(stderr, "%s: rank %u c[%lld][%lld] = %.9g, expected "
                               "%.9g\n",
                       kProgram, d, (long long)r, (long long)q,
                       product[r * kN + q], want);
      }
  }
  std::printf("%s: team of %u, %lldx%lldx%lld bf16, rhs tiles forwarded "
              "from the callback through a per-member tensor-map table: "
              "bcopy %s, c %s\n",
              kProgram, size, (long long)kM, (long long)kK, (long long)kN,
              wrongCopy ? "WRONG" : "exact", wrongC ? "WRONG" : "exact");
  return wrongCopy || wrongC ? 1 : 0;
}
