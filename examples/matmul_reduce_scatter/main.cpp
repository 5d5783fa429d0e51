//===- main.cpp - check matmul_reduce_scatter on a team --------------------===//
//
//   matmul_reduce_scatter <bundle> [--time ITERS]
//
// Member d holds A_d and B_d (bf16 or f16, from the manifest's shapes) and
// must end with rows [d * m_shard, (d + 1) * m_shard) of sum_d A_d @ B_d.
// The inputs are multiples of 1/8 in [-1/2, 1/2], so every partial sum and
// the team's sum are exact in f32: the f32 accumulator must equal the
// float64 reference bit for bit whatever the order of the reductions, and
// `c` must be that sum rounded once to the dtype (within half an ulp). `c`
// is NaN-poisoned, and the kernel launched twice with no host
// synchronization in between (the second launch must zero and reduce
// again). Runs on 2+ GPUs or a loopback team (WEAVE_LOOPBACK_TEAM), or on
// one member (a bundle for D = 1: the epilogue's own cost). Where the
// product is too large for a float64 reference on the host (over 2^28
// multiply-adds per member), 4096 sampled elements of every member are
// checked instead of all. With --time ITERS, launches ITERS times per
// round on every member, 5 rounds, and prints the median time per launch
// (CUDA events on member 0's stream).
//
//===----------------------------------------------------------------------===//

#include "weave/examples/ExactInputs.h"
#include "weave/examples/HostSetup.h"
#include "weave/runtime/Bundle.h"
#include "weave/runtime/Kernel.h"

#include <cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <cstdio>
#include <cstring>
#include <vector>

using namespace weave;
using namespace weave::examples;

namespace {

const char *kProgram = "matmul_reduce_scatter";

int fail(const Error &error) { return reportError(kProgram, error); }

} // namespace

int main(int argc, char **argv) {
  int timeIters = 0;
  if (argc == 4 && std::string(argv[2]) == "--time")
    timeIters = std::atoi(argv[3]);
  if ((argc != 2 && argc != 4) || (argc == 4 && timeIters <= 0)) {
    std::fprintf(stderr, "usage: %s <bundle> [--time ITERS]\n", kProgram);
    return 1;
  }
  Expected<Bundle> bundle = readBundleFile(argv[1]);
  if (!bundle)
    return fail(bundle.error());
  const KernelInfo *info = findKernel(*bundle, kProgram);
  if (!info)
    return fail(Error(ErrorCode::NotFound, "no kernel matmul_reduce_scatter"));
  // a: rows x k, b: k x cols, c: shard x cols (manifest order); acc has
  // 64 rows of halo above the shard (the template says why).
  const std::vector<int64_t> &aShape = info->params[0].shape;
  const std::vector<int64_t> &bShape = info->params[1].shape;
  const std::vector<int64_t> &cShape = info->params[4].shape;
  constexpr int64_t kHalo = 64;
  int64_t rows = aShape[0], depth = aShape[1], cols = bShape[1],
          shard = cShape[0];
  std::string dtype = info->params[0].dtype;
  bool bf16 = dtype == "bf16";

  TeamRequest request;
  request.program = kProgram;
  request.minDevices = 1;
  request.heapBytes = ((shard + kHalo) * cols * 4 + (8 << 20));
  SessionStart start = startSession(request);
  if (!start.session)
    return start.exitCode;
  auto &[team, heap, streams] = *start.session;
  if (team.size() * shard != rows)
    return fail(Error(ErrorCode::InvalidArgument,
                      "the bundle is for a team of " +
                          std::to_string(rows / shard) + ", the team has " +
                          std::to_string(team.size())));

  Expected<SymmetricBuffer> acc =
      heap.allocateTensor("f32", {shard + kHalo, cols});
  Expected<SemaphoreArray> barrier = heap.allocateSemaphores(2);
  if (!acc || !barrier)
    return fail(!acc ? acc.error() : barrier.error());
  Expected<Kernel> kernel = loadKernel(team, std::move(*bundle), kProgram);
  if (!kernel)
    return fail(kernel.error());
  size_t local = team.localCount();
  Expected<LocalBuffers> a = LocalBuffers::create(team, dtype, {rows, depth});
  Expected<LocalBuffers> b = LocalBuffers::create(team, dtype, {depth, cols});
  Expected<LocalBuffers> partial = LocalBuffers::create(team, "f32", {rows, cols});
  Expected<LocalBuffers> c = LocalBuffers::create(team, dtype, {shard, cols});
  if (!a || !b || !partial || !c)
    return fail(!a ? a.error() : !b ? b.error() : !partial ? partial.error() : c.error());
  if (Status s = uploadExactOperands(team, *a, *b, rows, depth, cols, bf16); !s)
    return fail(s.error());
  for (size_t i = 0; i < local; ++i) {
    // NaN everywhere in c: every element must be written.
    std::vector<uint16_t> poison(shard * cols, 0x7fff);
    if (Status s = c->upload(i, poison.data()); !s)
      return fail(s.error());
  }
  // The reference: sum over the team of A_d @ B_d in float64, of every
  // element (small products) or of sampled ones.
  bool sampled = double(rows) * cols * depth > double(1 << 28);
  auto reference = [&](int64_t r, int64_t q) {
    double sum = 0;
    for (uint32_t d = 0; d < team.size(); ++d)
      for (int64_t k = 0; k < depth; ++k)
        sum += exactA(d, r, k) * exactB(d, k, q);
    return sum;
  };

  // Two launches, no host synchronization between them.
  std::vector<KernelArg> args{a->args(), b->args(), partial->args(), *acc,
                              c->args(), *barrier};
  for (int launch = 0; launch < 2; ++launch)
    if (Status s = kernel->launch(heap, args, streams); !s)
      return fail(s.error());
  if (Status s = team.synchronize(); !s)
    return fail(s.error());
  std::vector<float> perLaunchMs;
  if (timeIters > 0) {
    (void)team.device(0).makeCurrent();
    CUevent begin, end;
    cuEventCreate(&begin, CU_EVENT_DEFAULT);
    cuEventCreate(&end, CU_EVENT_DEFAULT);
    for (int round = 0; round < 5; ++round) {
      cuEventRecord(begin, streams[0]);
      for (int it = 0; it < timeIters; ++it)
        if (Status s = kernel->launch(heap, args, streams); !s)
          return fail(s.error());
      cuEventRecord(end, streams[0]);
      if (Status s = team.synchronize(); !s)
        return fail(s.error());
      float ms = 0;
      cuEventElapsedTime(&ms, begin, end);
      perLaunchMs.push_back(ms / timeIters);
    }
    cuEventDestroy(begin);
    cuEventDestroy(end);
    std::sort(perLaunchMs.begin(), perLaunchMs.end());
  }

  size_t wrongAcc = 0, wrongC = 0;
  double ulp = bf16 ? std::ldexp(1.0, -8) : std::ldexp(1.0, -11);
  for (size_t i = 0; i < local; ++i) {
    uint32_t d = team.rankOf(i);
    std::vector<float> sums(shard * cols);
    std::vector<uint16_t> got(shard * cols);
    (void)team.device(i).makeCurrent();
    if (cuMemcpyDtoH(sums.data(),
                     heap.localPointer(*acc, i) + kHalo * cols * 4,
                     sums.size() * 4))
      return fail(Error(ErrorCode::DriverError, "reading acc"));
    if (Status s = c->download(i, got.data()); !s)
      return fail(s.error());
    int64_t count = sampled ? 4096 : shard * cols;
    for (int64_t j = 0; j < count; ++j) {
      // Sampled: a fixed pseudo-random walk over the shard.
      int64_t e = sampled ? (j * 2654435761LL + d * 97) % (shard * cols) : j;
      double w = reference(d * shard + e / cols, e % cols);
      if (sums[e] != w && wrongAcc++ < 5)
        std::fprintf(stderr, "%s: rank %u acc[%lld][%lld] = %.9g, expected %.9g\n",
                     kProgram, d, (long long)(e / cols), (long long)(e % cols),
                     sums[e], w);
      float value = float16Value(got[e], bf16);
      if (!(std::fabs(value - w) <= ulp * std::fabs(w)) && wrongC++ < 5)
        std::fprintf(stderr, "%s: rank %u c[%lld][%lld] = %.9g, expected %.9g\n",
                     kProgram, d, (long long)(e / cols), (long long)(e % cols),
                     value, w);
    }
  }
  std::printf("%s: team of %u, %s, m_shard %lld, %lldx%lldx%lld per member, two "
              "launches: acc %s, c %s%s\n",
              kProgram, team.size(), dtype.c_str(), (long long)shard,
              (long long)rows, (long long)depth, (long long)cols,
              wrongAcc ? "WRONG" : "exact", wrongC ? "WRONG" : "rounded once",
              sampled ? " (4096 sampled elements per member)" : "");
  if (!perLaunchMs.empty())
    std::printf("%s: time per launch, median of 5 rounds of %d: %.4f ms "
                "(min %.4f)\n",
                kProgram, timeIters, perLaunchMs[2], perLaunchMs[0]);
  return wrongAcc || wrongC ? 1 : 0;
}
