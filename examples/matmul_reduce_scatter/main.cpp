//===- main.cpp - check matmul_reduce_scatter on a team --------------------===//
//
//   matmul_reduce_scatter <bundle> [--m-shard M] [--time ITERS]
//
// Member d holds A_d and B_d (bf16 or f16, from the manifest's shapes) and
// must end with rows [d * m_shard, (d + 1) * m_shard) of sum_d A_d @ B_d.
// The inputs are multiples of 1/8 in [-1/2, 1/2], so every partial product
// P_s is exact in float64; the kernel rounds each partial to the dtype,
// sums the team's in f32 and rounds once, so every element of `c` must be
// within one rounding (an ulp of the dtype) of sum_s round(P_s), the
// float64 model of that. The model's own error against the exact sum is
// reported beside it. `c` is NaN-poisoned and the kernel launched three
// times with no host synchronization in between (the slots of both
// parities are written, and the first parity's again). Runs on 2+ GPUs or
// a loopback team (WEAVE_LOOPBACK_TEAM), or on one member (a bundle for
// D = 1: the epilogue's own cost). The bundle's m_shard is its `c`'s row
// count, or --m-shard M for a bundle with a dynamic one. Where the product
// is too large for a float64 reference on the host (over 2^28
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
  int64_t mShardArg = 0;
  bool usage = argc < 2;
  for (int i = 2; i < argc && !usage; i += 2) {
    std::string flag = argv[i];
    if (i + 1 >= argc)
      usage = true;
    else if (flag == "--time")
      usage = (timeIters = std::atoi(argv[i + 1])) <= 0;
    else if (flag == "--m-shard")
      usage = (mShardArg = std::atoll(argv[i + 1])) <= 0;
    else
      usage = true;
  }
  if (usage) {
    std::fprintf(stderr, "usage: %s <bundle> [--m-shard M] [--time ITERS]\n",
                 kProgram);
    return 1;
  }
  Expected<Bundle> bundle = readBundleFile(argv[1]);
  if (!bundle)
    return fail(bundle.error());
  // The op's kernel, or the owner-reduce template's (same parameters but
  // its semaphores).
  const char *kernelName =
      findKernel(*bundle, "owner_combine") ? "owner_combine" : kProgram;
  const KernelInfo *info = findKernel(*bundle, kernelName);
  if (!info)
    return fail(Error(ErrorCode::NotFound, "no kernel matmul_reduce_scatter"));
  // Its semaphores: the op's `barrier` (2) or the owner-reduce template's
  // per-source `flags`, as many counters as the kernel declares.
  const ParamInfo *flagsParam = nullptr;
  for (const ParamInfo &param : info->params)
    if ((param.name == "flags" || param.name == "barrier") &&
        param.kind == abi::ParamKind::Semaphore)
      flagsParam = &param;
  if (!flagsParam || info->params.size() < 7)
    return fail(Error(ErrorCode::InvalidBundle,
                      "kernel matmul_reduce_scatter has no semaphore "
                      "parameter 'barrier' or 'flags' (expected a, b, "
                      "partial, slots, c, launches, then one of them)"));
  // a: rows x k, b: k x cols, c: shard x cols (manifest order).
  const std::vector<int64_t> &aShape = info->params[0].shape;
  const std::vector<int64_t> &bShape = info->params[1].shape;
  const std::vector<int64_t> &cShape = info->params[4].shape;
  int64_t depth = aShape[1], cols = bShape[1];
  int64_t shard = cShape[0] >= 0 ? cShape[0] : mShardArg;
  if (shard <= 0)
    return fail(Error(ErrorCode::InvalidArgument,
                      "the bundle's m_shard is dynamic: pass --m-shard M"));
  if (mShardArg && cShape[0] >= 0 && mShardArg != cShape[0])
    return fail(Error(ErrorCode::InvalidArgument,
                      "--m-shard " + std::to_string(mShardArg) +
                          ", but the bundle is for m_shard " +
                          std::to_string(cShape[0])));
  std::string dtype = info->params[0].dtype;
  bool bf16 = dtype == "bf16";
  int bits = bf16 ? 8 : 11;

  TeamRequest request;
  request.program = kProgram;
  request.minDevices = 1;
  // The slots: 2 parities x D sources x m_shard rows (the template says
  // why); D is the bundle's team size, read after the team starts, so
  // size the heap for the largest team a bundle of this shape may have.
  int64_t bundleTeam = aShape[0] >= 0 ? aShape[0] / shard : 16;
  request.heapBytes = 2 * bundleTeam * shard * cols * 2 + (8 << 20);
  SessionStart start = startSession(request);
  if (!start.session)
    return start.exitCode;
  auto &[team, heap, streams] = *start.session;
  int64_t rows = int64_t(team.size()) * shard;
  if (aShape[0] >= 0 && aShape[0] != rows)
    return fail(Error(ErrorCode::InvalidArgument,
                      "the bundle is for a team of " +
                          std::to_string(aShape[0] / shard) + ", the team has " +
                          std::to_string(team.size())));

  Expected<SymmetricBuffer> slots = heap.allocateTensor(dtype, {2 * rows, cols});
  // Zeroed once; every launch raises them.
  Expected<SemaphoreArray> flags =
      heap.allocateSemaphores(flagsParam->semaphoreCount);
  if (!slots || !flags)
    return fail(!slots ? slots.error() : flags.error());
  Expected<Kernel> kernel = loadKernel(team, std::move(*bundle), kernelName);
  if (!kernel)
    return fail(kernel.error());
  size_t local = team.localCount();
  Expected<LocalBuffers> a = LocalBuffers::create(team, dtype, {rows, depth});
  Expected<LocalBuffers> b = LocalBuffers::create(team, dtype, {depth, cols});
  Expected<LocalBuffers> partial = LocalBuffers::create(team, dtype, {rows, cols});
  Expected<LocalBuffers> c = LocalBuffers::create(team, dtype, {shard, cols});
  Expected<LocalBuffers> launches = LocalBuffers::create(team, "i64", {1});
  if (!a || !b || !partial || !c || !launches)
    return fail(!a ? a.error() : !b ? b.error() : !partial ? partial.error()
                : !c ? c.error() : launches.error());
  if (Status s = uploadExactOperands(team, *a, *b, rows, depth, cols, bf16); !s)
    return fail(s.error());
  for (size_t i = 0; i < local; ++i) {
    // NaN everywhere in c: every element must be written.
    std::vector<uint16_t> poison(shard * cols, 0x7fff);
    int64_t zero = 0;
    if (Status s = c->upload(i, poison.data()); !s)
      return fail(s.error());
    if (Status s = launches->upload(i, &zero); !s)
      return fail(s.error());
  }
  // The references at (r, q): the exact sum over the team of A_d @ B_d,
  // and the model of the kernel, the sum of the partials each rounded to
  // the dtype (float64, of every element for small products or of sampled
  // ones).
  bool sampled = double(rows) * cols * depth > double(1 << 28);
  auto reference = [&](int64_t r, int64_t q, double &exact) {
    double model = 0;
    exact = 0;
    for (uint32_t d = 0; d < team.size(); ++d) {
      double partial = 0;
      for (int64_t k = 0; k < depth; ++k)
        partial += exactA(d, r, k) * exactB(d, k, q);
      exact += partial;
      model += roundToDtype(partial, bf16);
    }
    return model;
  };

  // Three launches, no host synchronization between them: both parities
  // of the slots, then the first again.
  std::vector<KernelArg> args{a->args(), b->args(), partial->args(), *slots,
                              c->args(), launches->args(), *flags};
  for (int launch = 0; launch < 3; ++launch)
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

  size_t wrongC = 0;
  double ulp = std::ldexp(1.0, -bits);
  double modelErr = 0, exactNorm = 0, maxAbs = 0;
  for (size_t i = 0; i < local; ++i) {
    uint32_t d = team.rankOf(i);
    std::vector<uint16_t> got(shard * cols);
    (void)team.device(i).makeCurrent();
    if (Status s = c->download(i, got.data()); !s)
      return fail(s.error());
    int64_t count = sampled ? 4096 : shard * cols;
    for (int64_t j = 0; j < count; ++j) {
      // Sampled: a fixed pseudo-random walk over the shard.
      int64_t e = sampled ? (j * 2654435761LL + d * 97) % (shard * cols) : j;
      double exact = 0;
      double w = reference(d * shard + e / cols, e % cols, exact);
      float value = float16Value(got[e], bf16);
      if (!(std::fabs(value - w) <= ulp * std::fabs(w)) && wrongC++ < 5)
        std::fprintf(stderr, "%s: rank %u c[%lld][%lld] = %.9g, expected %.9g\n",
                     kProgram, d, (long long)(e / cols), (long long)(e % cols),
                     value, w);
      modelErr += (value - exact) * (value - exact);
      exactNorm += exact * exact;
      maxAbs = std::max(maxAbs, std::fabs(value - exact));
    }
  }
  std::printf("%s: team of %u, %s, m_shard %lld, %lldx%lldx%lld per member, three "
              "launches: c %s%s (against the exact sum: rel err %.2e, max abs "
              "%.3g)\n",
              kProgram, team.size(), dtype.c_str(), (long long)shard,
              (long long)rows, (long long)depth, (long long)cols,
              wrongC ? "WRONG" : "rounded once from the rounded partials",
              sampled ? " (4096 sampled elements per member)" : "",
              exactNorm > 0 ? std::sqrt(modelErr / exactNorm) : 0.0, maxAbs);
  if (!perLaunchMs.empty())
    std::printf("%s: time per launch, median of 5 rounds of %d: %.4f ms "
                "(min %.4f)\n",
                kProgram, timeIters, perLaunchMs[2], perLaunchMs[0]);
  return wrongC ? 1 : 0;
}
