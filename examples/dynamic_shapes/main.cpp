//===- main.cpp - kernels with a dynamic row count, one bundle for every M ===//
//
//   dynamic_shapes <bundle> [--rounds N]
//
// Runs the three kernels of examples/dynamic_shapes/dynamic_shapes.mlir on
// the team (in-process, or a loopback team with WEAVE_LOOPBACK_TEAM=D) at
// M = 1, 127, 1001 (not a multiple of 8) and 4099 rows, all from the one
// bundle: the runtime takes M from the buffers' shapes. Each buffer is
// allocated for the largest M and bound with the shape of this launch, so
// the checks also see that nothing past row M is written (outputs are
// NaN-poisoned first):
//   - dynamic_all_reduce: every member's output is the sum of the inputs in
//     rank order (bit for bit);
//   - dynamic_all_gather: every member's output is the inputs stacked in
//     rank order (a put into a subview at a dynamic offset and size);
//   - dynamic_tma_store: output = 2 * input + 1 through TMA stores whose
//     tensor map was built at launch with M rows (the last tile clipped).
// Also checks that a launch whose sizes contradict a static dimension is
// refused before anything launches.
//
// Given the bundle of dynamic_matmul.mlir (or auto_matmul.mlir: variants
// chosen per M at launch) instead, runs the matmul pipeline with a dynamic
// row count at M = 1, 127, 200, 1001, 4099, 9000: c = a @ b (M x 128 @ 128 x 256,
// f16, small integers, so the f32 accumulation is exact), checked element
// for element, with the 128 rows after row M left untouched. Exits 0 when every check passed, 1
// otherwise; prints "SKIP: <reason>" and exits 0 where it cannot run.
//
//===----------------------------------------------------------------------===//

#include "weave/examples/HostSetup.h"
#include "weave/runtime/Bundle.h"
#include "weave/runtime/Kernel.h"

#include <cuda.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace weave;
using namespace weave::examples;

namespace {

const char *kProgram = "dynamic_shapes";
constexpr int64_t kRowCounts[] = {1, 127, 1001, 4099};
/// The matmul's: also 200 and 9000, which the variants of auto_matmul.mlir
/// serve with other configurations than 1, 127, 1001 and 4099.
constexpr int64_t kMatmulRowCounts[] = {1, 127, 200, 1001, 4099, 9000};
constexpr int64_t kMaxRows = 4099;
constexpr int64_t kMatmulMaxRows = 9000;
constexpr uint32_t kPoison = 0x7fc00bad;

int fail(const Error &error) { return reportError(kProgram, error); }

/// The same buffer bound with another shape (it must hold that many bytes).
SymmetricBuffer shaped(SymmetricBuffer buffer, std::vector<int64_t> shape) {
  buffer.shape = std::move(shape);
  return buffer;
}
DeviceBuffers shaped(DeviceBuffers buffers, std::vector<int64_t> shape) {
  buffers.shape = std::move(shape);
  return buffers;
}

std::vector<float> randomValues(size_t n, std::mt19937 &rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> values(n);
  for (float &x : values)
    x = dist(rng);
  return values;
}

Status upload(const Team &team, size_t local, CUdeviceptr to,
              const std::vector<float> &values) {
  WEAVE_TRY(team.device(local).makeCurrent());
  WEAVE_CU_TRY(cuMemcpyHtoD(to, values.data(), values.size() * sizeof(float)),
               "writing an input");
  return ok();
}

Expected<std::vector<float>> download(const Team &team, size_t local,
                                      CUdeviceptr from, size_t count) {
  WEAVE_TRY(team.device(local).makeCurrent());
  std::vector<float> values(count);
  WEAVE_CU_TRY(cuMemcpyDtoH(values.data(), from, count * sizeof(float)),
               "reading an output");
  return values;
}

Status poison(const Team &team, size_t local, CUdeviceptr at, size_t bytes) {
  WEAVE_TRY(team.device(local).makeCurrent());
  WEAVE_CU_TRY(cuMemsetD32(at, kPoison, bytes / 4), "poisoning an output");
  return ok();
}

/// Counts the elements of `got` that differ (bitwise) from `want`, and the
/// `tail` elements after them that are not the poison; prints the first few.
size_t compare(const std::vector<float> &got, const std::vector<float> &want,
               size_t tail, const std::string &what) {
  size_t wrong = 0;
  for (size_t e = 0; e < want.size() + tail && e < got.size(); ++e) {
    bool ok;
    if (e < want.size()) {
      ok = std::memcmp(&got[e], &want[e], sizeof(float)) == 0;
    } else {
      uint32_t bits;
      std::memcpy(&bits, &got[e], 4);
      ok = bits == kPoison;
    }
    if (!ok && wrong++ < 5)
      std::fprintf(stderr, "%s: %s: element %zu is %.9g, expected %s\n",
                   kProgram, what.c_str(), e, got[e],
                   e < want.size() ? std::to_string(want[e]).c_str()
                                   : "the poison (written past row M)");
  }
  return wrong;
}

/// f16 bits of a small integer (|v| <= 2048, exact) and back.
uint16_t halfOf(int v) {
  if (v == 0)
    return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  unsigned m = static_cast<unsigned>(v < 0 ? -v : v);
  int e = 31 - __builtin_clz(m); // m = 1.f * 2^e
  uint16_t mantissa = static_cast<uint16_t>((m << (10 - e)) & 0x3ff);
  return sign | static_cast<uint16_t>((e + 15) << 10) | mantissa;
}
float floatOf(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  float v = e == 0 ? std::ldexp(float(m), -24)
                   : std::ldexp(float(m | 0x400), e - 25);
  if (e == 31)
    v = m ? NAN : INFINITY;
  return (h & 0x8000) ? -v : v;
}

/// The dynamic_matmul bundle: c = a @ b at every M, on every member.
int runMatmul(Bundle bundle) {
  constexpr int64_t kK = 128, kN = 256, kTail = 128;
  TeamRequest request;
  request.program = kProgram;
  request.minDevices = 1;
  request.heapBytes = 1 << 20;
  SessionStart start = startSession(request);
  if (!start.session)
    return start.exitCode;
  auto &[team, heap, streams] = *start.session;
  auto a = LocalBuffers::create(team, "f16", {kMatmulMaxRows, kK});
  auto b = LocalBuffers::create(team, "f16", {kK, kN});
  auto c = LocalBuffers::create(team, "f16", {kMatmulMaxRows + kTail, kN});
  if (!a || !b || !c)
    return fail(!a ? a.error() : !b ? b.error() : c.error());
  Bundle bundleCopy = bundle;
  Expected<Kernel> kernel = loadKernel(team, std::move(bundle),
                                       "dynamic_matmul");
  if (!kernel)
    return fail(kernel.error());
  std::mt19937 rng(77);
  std::uniform_int_distribution<int> small(-2, 2);
  size_t totalWrong = 0;
  // A bundle of variants (auto_matmul.mlir): each launch runs the variant
  // whose range holds M; a variant launched by its own name refuses an M
  // outside its range before anything launches.
  std::vector<const Kernel *> variants = kernel->variants();
  if (!variants.empty()) {
    const KernelInfo &first = variants.front()->info();
    int64_t beyond = first.params[0].ranges[0].hi + 1;
    Expected<Kernel> direct = loadKernel(team, bundleCopy, first.name);
    if (!direct)
      return fail(direct.error());
    Status refused = direct->launch(heap,
                                    {shaped(a->args(), {beyond, kK}),
                                     b->args(), shaped(c->args(), {beyond, kN})},
                                    streams);
    bool good = !refused &&
                refused.error().code() == ErrorCode::InvalidArgument &&
                refused.error().message().find("outside") != std::string::npos;
    std::printf("%s: variant %s launched with M=%lld: %s\n", kProgram,
                first.name.c_str(), static_cast<long long>(beyond),
                good ? ("refused: " + refused.error().message()).c_str()
                     : "NOT refused as out of range (FAILED)");
    if (!good)
      return 1;
  }
  for (int64_t m : kMatmulRowCounts) {
    std::vector<int> av(m * kK), bv(kK * kN);
    for (int &x : av)
      x = small(rng);
    for (int &x : bv)
      x = small(rng);
    std::vector<uint16_t> ah(kMatmulMaxRows * kK, 0), bh(kK * kN);
    for (size_t i = 0; i < av.size(); ++i)
      ah[i] = halfOf(av[i]);
    for (size_t i = 0; i < bv.size(); ++i)
      bh[i] = halfOf(bv[i]);
    for (size_t i = 0; i < team.localCount(); ++i) {
      if (Status s = a->upload(i, ah.data()); !s)
        return fail(s.error());
      if (Status s = b->upload(i, bh.data()); !s)
        return fail(s.error());
      if (Status s = poison(team, i, c->pointer(i), c->bytes()); !s)
        return fail(s.error());
    }
    if (Status s = team.synchronize(); !s)
      return fail(s.error());
    Expected<BoundArgs> bound =
        kernel->bind(heap, {shaped(a->args(), {m, kK}), b->args(),
                            shaped(c->args(), {m, kN})});
    if (!bound)
      return fail(bound.error());
    const Kernel &ran = *bound->kernel();
    if (!variants.empty() && !ran.info().params[0].ranges[0].contains(m)) {
      std::fprintf(stderr, "%s: matmul M=%lld ran variant %s, whose range "
                   "does not hold M\n", kProgram, static_cast<long long>(m),
                   ran.info().name.c_str());
      return 1;
    }
    if (Status s = kernel->launch(*bound, streams); !s)
      return fail(s.error());
    if (Status s = streams.synchronize(); !s)
      return fail(s.error());
    size_t wrong = 0;
    for (size_t i = 0; i < team.localCount(); ++i) {
      std::vector<uint16_t> got((kMatmulMaxRows + kTail) * kN);
      if (Status s = c->download(i, got.data()); !s)
        return fail(s.error());
      for (int64_t r = 0; r < m + kTail && r < kMatmulMaxRows + kTail; ++r)
        for (int64_t col = 0; col < kN; ++col) {
          uint16_t bits = got[r * kN + col];
          bool ok;
          long want = 0;
          if (r < m) {
            for (int64_t k = 0; k < kK; ++k)
              want += long(av[r * kK + k]) * bv[k * kN + col];
            ok = floatOf(bits) == float(want);
          } else {
            // Nothing written past row M: the 32-bit poison covers two
            // 16-bit elements, its low half the even one (little endian).
            uint16_t half = (r * kN + col) % 2 == 0 ? kPoison & 0xffff
                                                    : kPoison >> 16;
            ok = bits == half;
          }
          if (!ok && wrong++ < 5)
            std::fprintf(stderr,
                         "%s: matmul M=%lld: member %zu c[%lld][%lld] = %g, "
                         "expected %s\n",
                         kProgram, static_cast<long long>(m), i,
                         static_cast<long long>(r),
                         static_cast<long long>(col), floatOf(bits),
                         r < m ? std::to_string(want).c_str()
                               : "the poison (written past row M)");
        }
    }
    std::printf("%s: matmul M=%-5lld (x 128 @ 128 x 256, %s, grid %u): %s\n",
                kProgram, static_cast<long long>(m), ran.info().name.c_str(),
                ran.launchGrid()[0], wrong ? "FAILED" : "ok");
    totalWrong += wrong;
  }
  std::printf("%s: matmul with a dynamic row count, team of %u, M = 1, 127, "
              "200, 1001, 4099, 9000 from one bundle (%zu variants): %s\n",
              kProgram, team.size(), variants.size(),
              totalWrong ? "FAILED" : "every output correct");
  return totalWrong ? 1 : 0;
}

struct Buffers {
  SymmetricBuffer reduceInput, gatherOutput;
  SemaphoreArray reduceBarrier, arrived, gatherBarrier;
  std::optional<LocalBuffers> rows32In, rows32Out, rows64In, rows64Out;
};

int run(const std::string &bundlePath, int rounds) {
  Expected<Bundle> bundle = readBundleFile(bundlePath);
  if (!bundle)
    return fail(bundle.error());
  if (findKernel(*bundle, "dynamic_matmul") ||
      !findVariants(*bundle, "dynamic_matmul").empty())
    return runMatmul(std::move(*bundle));
  for (const char *name :
       {"dynamic_all_reduce", "dynamic_all_gather", "dynamic_tma_store"}) {
    const KernelInfo *info = findKernel(*bundle, name);
    if (!info || info->params.empty() ||
        info->params[0].shape.size() != 2 ||
        info->params[0].shape[0] != abi::kDynamicDim)
      return fail(Error(ErrorCode::InvalidArgument,
                        bundlePath + " holds no " + name +
                            " with a dynamic row count"));
  }

  TeamRequest request;
  request.program = kProgram;
  request.heapBytes = 32 << 20;
  SessionStart start = startSession(request);
  if (!start.session)
    return start.exitCode;
  auto &[team, heap, streams] = *start.session;
  if (team.isMultiProcess())
    return fail(Error(ErrorCode::InvalidArgument,
                      "this example checks every member's output in one "
                      "process: run it in-process or as a loopback team"));
  const int64_t members = team.size();

  Buffers b;
  {
    auto in = heap.allocateTensor("f32", {kMaxRows, 32});
    auto gathered = heap.allocateTensor("f32", {members * kMaxRows, 32});
    auto bar2 = heap.allocateSemaphores(2);
    auto arrived = heap.allocateSemaphores(1);
    auto bar1 = heap.allocateSemaphores(1);
    auto in32 = LocalBuffers::create(team, "f32", {kMaxRows, 32});
    auto out32 = LocalBuffers::create(team, "f32", {kMaxRows, 32});
    auto in64 = LocalBuffers::create(team, "f32", {kMaxRows, 64});
    // One tile more than the largest M: the rows a TMA store must clip.
    auto out64 = LocalBuffers::create(team, "f32", {kMaxRows + 64, 64});
    for (const Error *e :
         {in ? nullptr : &in.error(), gathered ? nullptr : &gathered.error(),
          bar2 ? nullptr : &bar2.error(), arrived ? nullptr : &arrived.error(),
          bar1 ? nullptr : &bar1.error(), in32 ? nullptr : &in32.error(),
          out32 ? nullptr : &out32.error(), in64 ? nullptr : &in64.error(),
          out64 ? nullptr : &out64.error()})
      if (e)
        return fail(*e);
    b.reduceInput = *in;
    b.gatherOutput = *gathered;
    b.reduceBarrier = *bar2;
    b.arrived = *arrived;
    b.gatherBarrier = *bar1;
    b.rows32In.emplace(std::move(*in32));
    b.rows32Out.emplace(std::move(*out32));
    b.rows64In.emplace(std::move(*in64));
    b.rows64Out.emplace(std::move(*out64));
  }
  Expected<Kernel> reduce = loadKernel(team, *bundle, "dynamic_all_reduce");
  if (!reduce)
    return fail(reduce.error());
  Expected<Kernel> gather = loadKernel(team, *bundle, "dynamic_all_gather");
  if (!gather)
    return fail(gather.error());
  Expected<Kernel> store = loadKernel(team, *bundle, "dynamic_tma_store");
  if (!store)
    return fail(store.error());

  std::mt19937 rng(4242);
  size_t totalWrong = 0;
  size_t local = team.localCount();
  for (int round = 0; round < rounds; ++round) {
    for (int64_t m : kRowCounts) {
      size_t wrong[3] = {0, 0, 0};
      auto check = [&](Status s) {
        if (!s)
          fail(s.error());
        return bool(s);
      };
      // All-reduce: inputs[rank], M x 32.
      std::vector<std::vector<float>> inputs(members);
      for (auto &in : inputs)
        in = randomValues(m * 32, rng);
      for (size_t i = 0; i < local; ++i) {
        if (!check(upload(team, i, heap.localPointer(b.reduceInput, i),
                          inputs[team.rankOf(i)])) ||
            !check(poison(team, i, b.rows32Out->pointer(i),
                          b.rows32Out->bytes())))
          return 1;
      }
      if (!check(team.synchronize()) ||
          !check(reduce->launch(
              heap,
              {shaped(b.reduceInput, {m, 32}),
               shaped(b.rows32Out->args(), {m, 32}), b.reduceBarrier},
              streams)) ||
          !check(streams.synchronize()))
        return 1;
      std::vector<float> sum(m * 32, 0.0f);
      for (int64_t e = 0; e < m * 32; ++e)
        for (int64_t r = 0; r < members; ++r)
          sum[e] += inputs[r][e];
      for (size_t i = 0; i < local; ++i) {
        auto got = download(team, i, b.rows32Out->pointer(i),
                            std::min<int64_t>(m + 1, kMaxRows) * 32);
        if (!got)
          return fail(got.error());
        wrong[0] += compare(*got, sum, m < kMaxRows ? 32 : 0,
                            "all-reduce M=" + std::to_string(m));
      }

      // All-gather: the same inputs, from plain buffers.
      for (size_t i = 0; i < local; ++i) {
        if (!check(upload(team, i, b.rows32In->pointer(i),
                          inputs[team.rankOf(i)])) ||
            !check(poison(team, i, heap.localPointer(b.gatherOutput, i),
                          b.gatherOutput.bytes)))
          return 1;
      }
      if (!check(team.synchronize()) ||
          !check(gather->launch(
              heap,
              {shaped(b.rows32In->args(), {m, 32}),
               shaped(b.gatherOutput, {members * m, 32}), b.arrived,
               b.gatherBarrier},
              streams)) ||
          !check(streams.synchronize()))
        return 1;
      std::vector<float> stacked;
      for (const auto &in : inputs)
        stacked.insert(stacked.end(), in.begin(), in.end());
      for (size_t i = 0; i < local; ++i) {
        // The row after the D*M rows must still be poison (when the
        // buffer has one).
        size_t tail = m < kMaxRows ? 32 : 0;
        auto got = download(team, i, heap.localPointer(b.gatherOutput, i),
                            members * m * 32 + tail);
        if (!got)
          return fail(got.error());
        wrong[1] += compare(*got, stacked, tail,
                            "all-gather M=" + std::to_string(m));
      }

      // TMA store: M x 64, one tile of poison after row M checked.
      std::vector<std::vector<float>> wide(members);
      for (auto &in : wide)
        in = randomValues(m * 64, rng);
      for (size_t i = 0; i < local; ++i) {
        if (!check(upload(team, i, b.rows64In->pointer(i),
                          wide[team.rankOf(i)])) ||
            !check(poison(team, i, b.rows64Out->pointer(i),
                          b.rows64Out->bytes())))
          return 1;
      }
      if (!check(team.synchronize()) ||
          !check(store->launch(heap,
                               {shaped(b.rows64In->args(), {m, 64}),
                                shaped(b.rows64Out->args(), {m, 64})},
                               streams)) ||
          !check(streams.synchronize()))
        return 1;
      for (size_t i = 0; i < local; ++i) {
        const auto &in = wide[team.rankOf(i)];
        std::vector<float> want(in.size());
        for (size_t e = 0; e < in.size(); ++e)
          want[e] = in[e] * 2.0f + 1.0f;
        auto got = download(team, i, b.rows64Out->pointer(i), (m + 64) * 64);
        if (!got)
          return fail(got.error());
        wrong[2] += compare(*got, want, 64 * 64,
                            "tma store M=" + std::to_string(m));
      }
      std::printf("%s: round %d M=%-5lld all-reduce %s, all-gather %s, "
                  "tma store %s\n",
                  kProgram, round, static_cast<long long>(m),
                  wrong[0] ? "FAILED" : "ok", wrong[1] ? "FAILED" : "ok",
                  wrong[2] ? "FAILED" : "ok");
      totalWrong += wrong[0] + wrong[1] + wrong[2];
    }
  }

  // Sizes that contradict a static dimension are refused before launching.
  Status refused = store->prepare(
      heap, {shaped(b.rows64In->args(), {8, 64}),
             shaped(b.rows64Out->args(), {8, 63})});
  bool refusedOk = !refused &&
                   refused.error().code() == ErrorCode::InvalidArgument &&
                   refused.error().message().find("'output'") !=
                       std::string::npos;
  std::printf("%s: a launch with output f32[8x63] for f32[?x64] is %s%s\n",
              kProgram, refusedOk ? "refused: " : "NOT refused as expected",
              refused ? "" : refused.error().message().c_str());

  std::printf("%s: team of %u (%s), M = 1, 127, 1001, 4099 from one bundle, "
              "%d round(s): %s\n",
              kProgram, team.size(),
              team.isLoopback() ? "loopback" : "one GPU each", rounds,
              totalWrong || !refusedOk ? "FAILED" : "every output correct");
  return totalWrong || !refusedOk ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  BundleCommandLine command;
  if (std::optional<int> exitCode =
          parseBundleCommandLine(argc, argv, kProgram, command))
    return *exitCode;
  return run(command.bundlePath, command.rounds);
}
