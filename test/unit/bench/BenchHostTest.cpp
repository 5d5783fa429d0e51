//===- BenchHostTest.cpp - The benchmarks' host-side support --------------===//

#include "weave/bench/HostData.h"
#include "weave/bench/Manifest.h"
#include "weave/bench/Table.h"
#include "weave/bench/TimingResult.h"
#include "weave/test/BundleBuilder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unistd.h>
#include <filesystem>
#include <fstream>

using namespace weave;
using namespace weave::bench;
using weave::abi::ParamKind;
using weave::test::param;

namespace {

//===----------------------------------------------------------------------===//
// 16-bit conversions
//===----------------------------------------------------------------------===//

TEST(HalfConversion, KnownValues) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(floatToHalf(0.0f), 0x0000);
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(floatToHalf(65519.0f), 0x7BFF);
  EXPECT_EQ(floatToHalf(65520.0f), 0x7C00); // rounds to infinity
  EXPECT_EQ(floatToHalf(1.0f / 3.0f), 0x3555);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -14)), 0x0400); // smallest normal
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001); // smallest subnormal
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000); // tie: to even 0
  EXPECT_EQ(floatToHalf(std::ldexp(3.0f, -26)), 0x0001);
  EXPECT_EQ(floatToHalf(std::ldexp(1023.5f, -24)), 0x0400); // carries up
  EXPECT_EQ(floatToHalf(INFINITY), 0x7C00);
  EXPECT_EQ(floatToHalf(NAN) & 0x7C00, 0x7C00);
  EXPECT_NE(floatToHalf(NAN) & 0x03FF, 0);
}

TEST(HalfConversion, RoundsToNearestEven) {
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3C00); // tie, even
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(3.0f, -11)), 0x3C02); // tie, even
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)),
            0x3C01);
}

TEST(HalfConversion, EveryHalfRoundTrips) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    float f = halfToFloat(static_cast<uint16_t>(bits));
    if (std::isnan(f))
      continue;
    ASSERT_EQ(floatToHalf(f), bits) << "bits 0x" << std::hex << bits;
  }
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(halfToFloat(0xFBFF), -65504.0f);
}

TEST(Bf16Conversion, KnownValuesAndRoundTrip) {
  EXPECT_EQ(floatToBf16(1.0f), 0x3F80);
  EXPECT_EQ(floatToBf16(1.0f + std::ldexp(1.0f, -8)), 0x3F80); // tie, even
  EXPECT_EQ(floatToBf16(1.0f + std::ldexp(3.0f, -8)), 0x3F82);
  EXPECT_EQ(floatToBf16(-3.0f), 0xC040);
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBf16(NAN))));
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    float f = bf16ToFloat(static_cast<uint16_t>(bits));
    if (std::isnan(f))
      continue;
    ASSERT_EQ(floatToBf16(f), bits) << "bits 0x" << std::hex << bits;
  }
}

TEST(Poison, IsNanInBothTypes) {
  EXPECT_TRUE(std::isnan(halfToFloat(kPoison16)));
  EXPECT_TRUE(std::isnan(bf16ToFloat(kPoison16)));
}

//===----------------------------------------------------------------------===//
// Random inputs
//===----------------------------------------------------------------------===//

/// The mean, the mean square and the largest magnitude of bf16 values.
struct Moments {
  double mean = 0, meanSquare = 0, maxAbs = 0;
};
Moments momentsOf(const std::vector<uint16_t> &values) {
  Moments m;
  for (uint16_t v : values) {
    double x = bf16ToFloat(v);
    m.mean += x;
    m.meanSquare += x * x;
    m.maxAbs = std::max(m.maxAbs, std::fabs(x));
  }
  m.mean /= double(values.size());
  m.meanSquare /= double(values.size());
  return m;
}

TEST(RandomValues, SeededInRangeAndCentered) {
  const size_t n = 1 << 20; // large enough to run on several threads
  std::vector<uint16_t> a = randomValues(DType::BF16, n, 7);
  EXPECT_EQ(a, randomValues(DType::BF16, n, 7));
  EXPECT_NE(a, randomValues(DType::BF16, n, 8));
  Moments m = momentsOf(a);
  EXPECT_LE(m.maxAbs, 1.0);
  EXPECT_NEAR(m.mean, 0.0, 0.01);
  EXPECT_NEAR(m.meanSquare, 1.0 / 3.0, 0.01); // variance of U(-1, 1)
  // Element i depends on (seed, i) only: a prefix is the same values.
  std::vector<uint16_t> prefix = randomValues(DType::BF16, 1000, 7);
  EXPECT_TRUE(std::equal(prefix.begin(), prefix.end(), a.begin()));
}

TEST(ScaledValues, RandomValuesTimesTheScale) {
  const size_t n = 1 << 16;
  std::vector<uint16_t> u = randomValues(DType::BF16, n, 5);
  // A power of two scales exactly: the same values, a quarter.
  std::vector<uint16_t> q = scaledValues(DType::BF16, n, 5, 0.25f);
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(bf16ToFloat(q[i]), 0.25f * bf16ToFloat(u[i])) << i;
  // K^-1/2 (the down projection's weights): within the scaled range.
  float s = 1.0f / std::sqrt(7168.0f);
  for (uint16_t v : scaledValues(DType::F16, n, 5, s))
    ASSERT_LE(std::fabs(halfToFloat(v)), s);
}

TEST(MlpActivations, SeededBoundedAndShapedLikeSwiGlu) {
  const size_t n = 1 << 20;
  std::vector<uint16_t> a = mlpActivations(DType::BF16, n, 11);
  EXPECT_EQ(a, mlpActivations(DType::BF16, n, 11));
  EXPECT_NE(a, mlpActivations(DType::BF16, n, 12));
  // silu(g) * u, g and u uniform in +-1/sqrt(3): |silu(g)| < 0.37, so
  // |a| < 0.22; mean 0 (u is centered and independent of g); variance
  // E[silu(g)^2] E[u^2], about 0.029 x 1/9.
  Moments m = momentsOf(a);
  EXPECT_LT(m.maxAbs, 0.22);
  EXPECT_NEAR(m.mean, 0.0, 1e-3);
  EXPECT_GT(m.meanSquare, 0.0025);
  EXPECT_LT(m.meanSquare, 0.0040);
}

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

std::vector<uint16_t> ramp(DType dtype, size_t n) {
  std::vector<uint16_t> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = fromFloat(dtype, static_cast<float>(i % 200) - 100.0f);
  return v;
}

TEST(Compare, IdenticalPasses) {
  std::vector<uint16_t> ref = ramp(DType::F16, 100000);
  Comparison c = compare(DType::F16, ref.data(), ref.data(), ref.size(),
                         defaultTolerance(DType::F16));
  EXPECT_TRUE(c.passed) << c.summary();
  EXPECT_EQ(c.relFrobenius, 0.0);
  EXPECT_EQ(c.maxAbsRef, 100.0);
}

TEST(Compare, OneUlpDifferencesPass) {
  // What two fp32-accumulating kernels legitimately differ by: one unit in
  // the last place of the output on some elements.
  for (DType dtype : {DType::F16, DType::BF16}) {
    std::vector<uint16_t> ref = ramp(dtype, 100000), ours = ref;
    for (size_t i = 0; i < ours.size(); i += 3)
      if (ours[i] & 0x7fff)
        ours[i] += 1;
    Comparison c = compare(dtype, ours.data(), ref.data(), ref.size(),
                           defaultTolerance(dtype));
    EXPECT_TRUE(c.passed) << dtypeName(dtype) << ": " << c.summary();
    EXPECT_GT(c.relFrobenius, 0.0);
  }
}

TEST(Compare, PoisonLeftFails) {
  std::vector<uint16_t> ref = ramp(DType::BF16, 100000), ours = ref;
  ours[4242] = kPoison16;
  Comparison c = compare(DType::BF16, ours.data(), ref.data(), ref.size(),
                         defaultTolerance(DType::BF16));
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.nonFiniteOurs, 1u);
  EXPECT_EQ(c.worstIndex, 4242u);
}

TEST(Compare, OneWrongElementFails) {
  // A single bad element barely moves the Frobenius norm; the elementwise
  // bound catches it.
  std::vector<uint16_t> ref = ramp(DType::F16, 1 << 20), ours = ref;
  ours[777777] = fromFloat(DType::F16, toFloat(DType::F16, ref[777777]) + 5);
  Comparison c = compare(DType::F16, ours.data(), ref.data(), ref.size(),
                         defaultTolerance(DType::F16));
  EXPECT_LT(c.relFrobenius, 1e-2);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.outOfTolerance, 1u);
  EXPECT_EQ(c.worstIndex, 777777u);
  EXPECT_NEAR(c.maxAbsError, 5.0, 0.1);
}

TEST(Compare, ZeroedTileFails) {
  std::vector<uint16_t> ref = ramp(DType::BF16, 1 << 16), ours = ref;
  std::fill(ours.begin(), ours.begin() + 1024, 0);
  Comparison c = compare(DType::BF16, ours.data(), ref.data(), ref.size(),
                         defaultTolerance(DType::BF16));
  EXPECT_FALSE(c.passed);
  EXPECT_GT(c.outOfTolerance, 1000u);
}

TEST(SampleCheck, CatchesATransposedReference) {
  const int64_t m = 8, n = 5, k = 16;
  auto a = [](int64_t i, int64_t j) { return float((i * 7 + j * 3) % 5) - 2; };
  auto b = [](int64_t i, int64_t j) { return float((i * 2 + j * 5) % 7) - 3; };
  auto exact = [&](int64_t i, int64_t j) {
    double s = 0;
    for (int64_t t = 0; t < k; ++t)
      s += double(a(i, t)) * b(t, j);
    return float(s);
  };
  auto wrong = [&](int64_t i, int64_t j) { return exact(j % m, i % n); };
  Tolerance tol = defaultTolerance(DType::F16);
  SampleCheck good =
      checkSamples(a, b, exact, exact, m, n, k, 10.0, tol, 40, 1);
  EXPECT_EQ(good.badOurs, 0);
  EXPECT_EQ(good.badRef, 0);
  SampleCheck bad = checkSamples(a, b, exact, wrong, m, n, k, 10.0, tol, 40, 1);
  EXPECT_EQ(bad.badOurs, 0);
  EXPECT_GT(bad.badRef, 0);
}

//===----------------------------------------------------------------------===//
// Contract checks, tables
//===----------------------------------------------------------------------===//

KernelInfo matmulKernel() {
  return test::kernelInfo("matmul", {1, 1, 1}, {128, 1, 1}, 0,
                          {param(ParamKind::Buffer, "a", "f16", {64, 32}),
                           param(ParamKind::Buffer, "b", "f16", {32, 16}),
                           param(ParamKind::Buffer, "c", "f16", {64, 16})});
}

TEST(Contract, AcceptsTheContract) {
  KernelInfo k = matmulKernel();
  EXPECT_TRUE(expectUserParamCount(k, 3));
  auto a = contractParam(k, 0, "a", ParamKind::Buffer, "f16", 2);
  ASSERT_TRUE(a) << a.error().toString();
  EXPECT_EQ((*a)->shape, (std::vector<int64_t>{64, 32}));
}

TEST(Contract, SaysWhatDiffers) {
  KernelInfo k = matmulKernel();
  auto expectMessage = [](const auto &result, const std::string &needle) {
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().code(), ErrorCode::InvalidBundle);
    EXPECT_NE(result.error().message().find(needle), std::string::npos)
        << result.error().message();
  };
  expectMessage(contractParam(k, 1, "a", ParamKind::Buffer, "f16", 2),
                "is 'b' (buffer), expected 'a' (buffer)");
  expectMessage(contractParam(k, 0, "a", ParamKind::Symmetric, "f16", 2),
                "expected 'a' (symmetric)");
  expectMessage(contractParam(k, 0, "a", ParamKind::Buffer, "bf16", 2),
                "has dtype f16, expected bf16");
  expectMessage(contractParam(k, 0, "a", ParamKind::Buffer, "f16", 3),
                "has shape [64,32], expected rank 3");
  expectMessage(expectUserParamCount(k, 4), "has 3 user parameters");
  Bundle bundle = test::wrapCubin({}, {k}, "test");
  auto missing = contractKernel(bundle, "all_gather_matmul");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("(it has: matmul)"),
            std::string::npos);
}

TEST(Contract, MatmulParams) {
  KernelInfo k = matmulKernel();
  auto p = matmulParams(k, "f16");
  ASSERT_TRUE(p) << p.error().toString();
  EXPECT_EQ(p->a, &k.params[0]);
  EXPECT_EQ(p->b, &k.params[1]);
  EXPECT_EQ(p->c, &k.params[2]);
  EXPECT_EQ(shapeText(p->c->shape), "[64,16]");
  EXPECT_EQ(shapeText({}), "[]");
  // The first operand that differs is the error.
  auto symmetric = matmulParams(k, "f16", ParamKind::Symmetric);
  ASSERT_FALSE(symmetric);
  EXPECT_NE(symmetric.error().message().find("parameter 0 is 'a' (buffer), "
                                             "expected 'a' (symmetric)"),
            std::string::npos)
      << symmetric.error().message();
  auto bf16 = matmulParams(k, "bf16");
  ASSERT_FALSE(bf16);
  EXPECT_NE(bf16.error().message().find("parameter 0 ('a') has dtype f16"),
            std::string::npos)
      << bf16.error().message();
  k.params[2].kind = ParamKind::Symmetric;
  auto c = matmulParams(k, "f16");
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message().find("parameter 2 is 'c' (symmetric)"),
            std::string::npos)
      << c.error().message();
}

TEST(Table, PadsColumns) {
  Table t({"shape", "ms"});
  t.addRow({"1024x4096x4096", "0.1"});
  EXPECT_EQ(t.str(), "| shape          | ms  |\n"
                     "|----------------|-----|\n"
                     "| 1024x4096x4096 | 0.1 |\n");
}

TEST(Table, ParsesLists) {
  EXPECT_EQ(parseIntList("1024,2048"), (std::vector<int64_t>{1024, 2048}));
  EXPECT_FALSE(parseIntList("1024,x"));
  EXPECT_FALSE(parseIntList(""));
  EXPECT_EQ(splitCommas("a,,b"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(strprintf("%d-%s", 3, "x"), "3-x");
}

//===----------------------------------------------------------------------===//
// Timing statistics
//===----------------------------------------------------------------------===//

TEST(TimingResult, MedianOfOddAndEvenCounts) {
  TimingResult odd = summarize({3.0, 1.0, 2.0});
  EXPECT_EQ(odd.iterations, 3);
  EXPECT_DOUBLE_EQ(odd.medianMs, 2.0);
  EXPECT_DOUBLE_EQ(odd.minMs, 1.0);
  EXPECT_DOUBLE_EQ(odd.maxMs, 3.0);
  EXPECT_DOUBLE_EQ(odd.meanMs, 2.0);
  // Samples stay in run order.
  EXPECT_EQ(odd.samplesMs, (std::vector<double>{3.0, 1.0, 2.0}));
  EXPECT_DOUBLE_EQ(summarize({4.0, 1.0, 2.0, 3.0}).medianMs, 2.5);
  EXPECT_EQ(summarize({}).iterations, 0);
}

TEST(TimingResult, PoolsRoundsIntoOneMedian) {
  TimingResult a = summarize({1.0, 1.0, 1.0});
  TimingResult b = summarize({5.0, 5.0});
  a.gated = b.gated = true;
  TimingResult both = pool({a, b});
  EXPECT_EQ(both.iterations, 5);
  // The median of the pooled samples, not the median of the medians (3).
  EXPECT_DOUBLE_EQ(both.medianMs, 1.0);
  EXPECT_DOUBLE_EQ(both.maxMs, 5.0);
  EXPECT_TRUE(both.gated);
  b.gated = false;
  EXPECT_FALSE(pool({a, b}).gated);
  EXPECT_FALSE(pool({}).gated);
}

} // namespace

namespace {

TEST(FindBundleFiles, MatchesWholeNamesAndReturnsGroupsInNameOrder) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() /
                 ("weave-bench-files-" + std::to_string(::getpid()));
  fs::create_directories(dir / "sub");
  for (const char *name :
       {"mm_f16_d2_m1024.wbundle", "mm_bf16_d4_mdyn.wbundle",
        "mm_f16_d2_m1024.wbundle.config", "xmm_f16_d2_m8.wbundle",
        "sub/mm_f16_d8_m8.wbundle"})
    std::ofstream(dir / name) << "x";
  std::regex pattern("mm_(f16|bf16)_d([0-9]+)_m([0-9]+|dyn)\\.wbundle");
  std::vector<weave::bench::BundleFile> files =
      weave::bench::findBundleFiles(dir.string(), pattern);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].groups,
            (std::vector<std::string>{"mm_bf16_d4_mdyn.wbundle", "bf16", "4",
                                      "dyn"}));
  EXPECT_EQ(files[1].groups[3], "1024");
  EXPECT_EQ(files[1].path, (dir / "mm_f16_d2_m1024.wbundle").string());
  EXPECT_TRUE(
      weave::bench::findBundleFiles((dir / "missing").string(), pattern)
          .empty());
  fs::remove_all(dir);
}

} // namespace
