//===- DynamicShapeTest.cpp - Dynamic dimensions: manifest and binding ----===//
//
// A `?` in a parameter's shape: how the manifest records it and its Dim
// parameters, what the reader rejects, and the launch-time checks of the
// sizes an argument brings (static dims, bounds, TMA's layout rules).
//
//===----------------------------------------------------------------------===//

#include "FakeCubin.h"
#include "weave/runtime/KernelArgs.h"
#include "weave/runtime/detail/BundleDetail.h"
#include "weave/runtime/detail/TmaLayout.h"
#include "weave/test/BundleBuilder.h"

#include <gtest/gtest.h>

using namespace weave;
using weave::abi::kDynamicDim;
using weave::abi::ParamKind;
using weave::test::addDimParams;
using weave::test::makeFakeCubin;
using weave::test::addTeamParams;
using weave::test::param;

namespace {

/// rows(?x4096 f16, symmetric), cols(16x? f32), sems, a TMA map over
/// `rows`; dims rows.dim0, cols.dim1.
KernelInfo makeKernel() {
  KernelInfo k;
  k.name = "dyn";
  k.params.push_back(param(ParamKind::Symmetric, "rows", "f16", {kDynamicDim, 4096}));
  k.params.push_back(param(ParamKind::Buffer, "cols", "f32", {16, kDynamicDim}));
  k.params.push_back(weave::test::semaphoreParam("sems", 2));
  addTeamParams(k);
  addDimParams(k);
  ParamInfo tma = param(ParamKind::Tma, "rows.tma0", "f16");
  tma.tma.sourceParam = 0;
  tma.tma.box = {64, 128};
  tma.tma.swizzleBytes = 128;
  k.params.push_back(tma);
  ParamInfo colsTma = param(ParamKind::Tma, "cols.tma1", "f32");
  colsTma.tma.sourceParam = 1;
  colsTma.tma.box = {4, 16};
  k.params.push_back(colsTma);
  return k;
}

Bundle makeBundle() {
  Bundle b;
  b.arch = "sm_90a";
  b.kernels.push_back(makeKernel());
  b.cubin = makeFakeCubin({"dyn"});
  return b;
}

const BindingTarget kTarget{/*heapId=*/7, /*localCount=*/1, /*teamSize=*/2};

std::vector<KernelArg> goodArgs(int64_t m = 127, int64_t n = 12) {
  SymmetricBuffer rows{7, 4096, uint64_t(m) * 4096 * 2, "f16", {m, 4096}};
  DeviceBuffers cols{{0x7000000000}, "f32", {16, n}, uint64_t(16 * n * 4)};
  return {rows, cols, SemaphoreArray{7, 128, 2}};
}

void expectBindingRejected(const std::vector<KernelArg> &args,
                           const std::string &needle) {
  Status s = checkKernelArgs(makeKernel(), args, kTarget);
  ASSERT_FALSE(s) << "expected failure containing '" << needle << "'";
  EXPECT_EQ(s.error().code(), ErrorCode::InvalidArgument);
  EXPECT_NE(s.error().message().find(needle), std::string::npos)
      << s.error().message();
}

void expectBundleRejected(const Bundle &bundle, const std::string &needle) {
  Status s = verifyBundle(bundle);
  ASSERT_FALSE(s) << "expected failure containing '" << needle << "'";
  EXPECT_NE(s.error().message().find(needle), std::string::npos)
      << s.error().message();
  std::vector<uint8_t> bytes = serializeBundle(bundle);
  EXPECT_FALSE(parseBundle(bytes.data(), bytes.size()));
}

/// The bundle's manifest with `from` replaced by `to`, parsed again.
Expected<Bundle> reparse(const std::string &from, const std::string &to) {
  Bundle b = makeBundle();
  std::vector<uint8_t> bytes = serializeBundle(b);
  std::string manifest = printManifest(b);
  size_t at = manifest.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  manifest.replace(at, from.size(), to);
  // Rebuild the header over the new manifest (checksum included).
  std::vector<uint8_t> out(kBundleMagic, kBundleMagic + 8);
  auto put = [&](uint64_t v, int n) {
    for (int i = 0; i < n; ++i)
      out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  put(weave::abi::kAbiVersion, 4);
  put(manifest.size(), 4);
  put(b.cubin.size(), 8);
  uint64_t h = fnv1a64(reinterpret_cast<const uint8_t *>(manifest.data()),
                       manifest.size());
  put(fnv1a64(b.cubin.data(), b.cubin.size(), h), 8);
  out.insert(out.end(), manifest.begin(), manifest.end());
  out.insert(out.end(), b.cubin.begin(), b.cubin.end());
  return parseBundle(out.data(), out.size());
}

//===----------------------------------------------------------------------===//
// The manifest
//===----------------------------------------------------------------------===//

TEST(DynamicManifest, RoundTripWithQuestionMarks) {
  Bundle b = makeBundle();
  ASSERT_TRUE(verifyBundle(b)) << verifyBundle(b).error().toString();
  std::string text = printManifest(b);
  EXPECT_NE(text.find("param symmetric rows dtype=f16 shape=?,4096 align=16"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("param buffer cols dtype=f32 shape=16,? align=16"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("param dim rows.dim0 source=0 axis=0\n"
                      "  param dim cols.dim1 source=1 axis=1\n"
                      "  param tma rows.tma0"),
            std::string::npos)
      << text;
  std::vector<uint8_t> bytes = serializeBundle(b);
  auto parsed = parseBundle(bytes.data(), bytes.size());
  ASSERT_TRUE(parsed) << parsed.error().toString();
  const KernelInfo &k = parsed->kernels[0];
  ASSERT_EQ(k.params.size(), 10u);
  EXPECT_EQ(k.params[0].shape, (std::vector<int64_t>{kDynamicDim, 4096}));
  EXPECT_EQ(k.params[1].shape, (std::vector<int64_t>{16, kDynamicDim}));
  EXPECT_EQ(k.params[6].kind, ParamKind::Dim);
  EXPECT_EQ(k.params[6].dim.sourceParam, 0u);
  EXPECT_EQ(k.params[6].dim.axis, 0u);
  EXPECT_EQ(k.params[7].dim.sourceParam, 1u);
  EXPECT_EQ(k.params[7].dim.axis, 1u);
  EXPECT_EQ(serializeBundle(*parsed), bytes);
}

TEST(DynamicManifest, DimParamsTakeEightBytesAfterTheTeam) {
  // rows 0, cols 8, sems 16, rank 24, team_size 28, peer_bases 32, dims 40
  // and 48, the descriptors at 64 and 192.
  ParamLayout layout = computeParamLayout(makeKernel());
  std::vector<uint32_t> want = {0, 8, 16, 24, 28, 32, 40, 48, 64, 192};
  EXPECT_EQ(layout.offsets, want);
  EXPECT_EQ(layout.totalBytes, 320u);
  EXPECT_EQ(paramBlockBytes(makeKernel()), 320u);
  EXPECT_EQ(userParamCount(makeKernel()), 3u);
}

TEST(DynamicManifest, MalformedShapesAndDimsAreRejected) {
  auto expect = [](Expected<Bundle> parsed, const std::string &needle) {
    ASSERT_FALSE(parsed) << "expected failure containing '" << needle << "'";
    EXPECT_EQ(parsed.error().code(), ErrorCode::InvalidBundle);
    EXPECT_NE(parsed.error().message().find(needle), std::string::npos)
        << parsed.error().message();
  };
  expect(reparse("shape=?,4096", "shape=??,4096"),
         "expected a comma-separated list of dimensions (numbers or '?') in "
         "'shape', found '??,4096'");
  expect(reparse("shape=?,4096", "shape=-1,4096"), "found '-1,4096'");
  expect(reparse("rows.dim0 source=0 axis=0", "rows.dim0 source=0"),
         "dim parameter 'rows.dim0' needs source=N and axis=N");
  expect(reparse("rows.dim0 source=0 axis=0", "rows.dim0 source=0 axis=0 box=1"),
         "unknown key 'box' for dim parameter 'rows.dim0'");
  expect(reparse("rows.dim0 source=0 axis=0", "rows.dim0 source=0 axis=x"),
         "expected an unsigned 32-bit integer for 'axis', found 'x'");
}

TEST(DynamicManifest, EveryDynamicDimNeedsItsDimParamInOrder) {
  Bundle b = makeBundle();
  auto &params = b.kernels[0].params;
  // Missing: the tma parameter stands where cols.dim1 should.
  Bundle missing = b;
  missing.kernels[0].params.erase(missing.kernels[0].params.begin() + 7);
  expectBundleRejected(missing,
                       "expected parameter 7 ('rows.tma0') to be dim source=1 "
                       "axis=1 (dimension 1 of 'cols' is '?'), found tma");
  // Swapped.
  Bundle swapped = b;
  std::swap(swapped.kernels[0].params[6], swapped.kernels[0].params[7]);
  expectBundleRejected(swapped, "expected parameter 6 ('cols.dim1') to be dim "
                                "source=0 axis=0");
  // A dim for a static dimension.
  Bundle extra = b;
  ParamInfo dim = params[6];
  dim.name = "rows.dim1";
  dim.dim.axis = 1;
  extra.kernels[0].params.insert(extra.kernels[0].params.begin() + 8, dim);
  expectBundleRejected(extra, "expected parameter 8 ('rows.dim1') to be tma "
                              "or tma_table, found dim");
  // A dim before the team parameters.
  Bundle early = b;
  early.kernels[0].params.insert(early.kernels[0].params.begin() + 3, dim);
  expectBundleRejected(early, "to be rank, found dim");
  // No dims at all, the list ends.
  Bundle none = b;
  none.kernels[0].params.resize(6);
  expectBundleRejected(none, "expected parameter 6 to be dim source=0 axis=0 "
                             "(dimension 0 of 'rows' is '?'), found end of list");
  // A negative dimension other than '?' stays an error.
  Bundle negative = b;
  negative.kernels[0].params[1].shape = {-2, kDynamicDim};
  expectBundleRejected(negative, "parameter 'cols' has a non-positive "
                                 "dimension -2");
  // The static part of a dynamic shape must still fit in 63 bits.
  Bundle huge = b;
  huge.kernels[0].params[1].shape = {int64_t(1) << 62, kDynamicDim};
  expectBundleRejected(huge, "byte size that overflows 63 bits");
}

TEST(DynamicManifest, TmaLayoutWithDynamicDimsIsCheckedWhereKnown) {
  ParamInfo tma = makeKernel().params[8];
  // ?x4096: the row pitch is known and checked; the row count is not.
  auto layout = computeTmaLayout(
      tma, param(ParamKind::Symmetric, "rows", "f16", {kDynamicDim, 4096}));
  ASSERT_TRUE(layout) << layout.error().toString();
  EXPECT_FALSE(layout->complete);
  EXPECT_EQ(layout->globalDim[0], 4096u);
  EXPECT_EQ(layout->globalDim[1], 0u);
  EXPECT_EQ(layout->globalStride[0], 8192u);
  // ?x4095 f16: rows of 8190 bytes can never be viewed.
  auto odd = computeTmaLayout(
      tma, param(ParamKind::Symmetric, "rows", "f16", {kDynamicDim, 4095}));
  ASSERT_FALSE(odd);
  EXPECT_NE(odd.error().message().find("global stride of dimension 1 is 8190 "
                                       "bytes, expected a multiple of 16"),
            std::string::npos);
  // 128x?: the pitch depends on the launch.
  ParamInfo small = tma;
  small.tma.box = {64, 16};
  auto open = computeTmaLayout(
      small, param(ParamKind::Symmetric, "rows", "f16", {128, kDynamicDim}));
  ASSERT_TRUE(open) << open.error().toString();
  EXPECT_FALSE(open->complete);
  // Fully static: complete.
  auto full = computeTmaLayout(
      tma, param(ParamKind::Symmetric, "rows", "f16", {64, 4096}));
  ASSERT_TRUE(full);
  EXPECT_TRUE(full->complete);
}

//===----------------------------------------------------------------------===//
// Binding: the launch sizes
//===----------------------------------------------------------------------===//

TEST(DynamicBinding, AcceptsAnySizeThatFits) {
  for (int64_t m : {1, 127, 1001, 4099})
    for (int64_t n : {4, 12, 1000}) {
      Status s = checkKernelArgs(makeKernel(), goodArgs(m, n), kTarget);
      EXPECT_TRUE(s) << "m=" << m << " n=" << n << ": "
                     << s.error().toString();
    }
}

TEST(DynamicBinding, LaunchShapeComesFromTheArgument) {
  KernelInfo k = makeKernel();
  auto args = goodArgs(127, 12);
  EXPECT_EQ(launchShape(k.params[0], args[0]),
            (std::vector<int64_t>{127, 4096}));
  EXPECT_EQ(launchShape(k.params[1], args[1]), (std::vector<int64_t>{16, 12}));
  EXPECT_EQ(withLaunchShape(k.params[1], args[1]).shape,
            (std::vector<int64_t>{16, 12}));
  // A static parameter keeps the manifest's shape.
  ParamInfo fixed = param(ParamKind::Buffer, "f", "f32", {4, 4});
  EXPECT_EQ(launchShape(fixed, args[1]), (std::vector<int64_t>{4, 4}));
}

TEST(DynamicBinding, SizesThatContradictStaticDims) {
  auto args = goodArgs();
  std::get<SymmetricBuffer>(args[0]).shape = {127, 4095};
  expectBindingRejected(args, "argument 0 ('rows'): expected shape "
                              "f16[?x4096], got f16[127x4095]");
  args = goodArgs();
  std::get<DeviceBuffers>(args[1]).shape = {15, 12};
  expectBindingRejected(args, "argument 1 ('cols'): expected shape f32[16x?], "
                              "got f32[15x12]");
  args = goodArgs();
  std::get<DeviceBuffers>(args[1]).shape = {16, 12, 1};
  expectBindingRejected(args, "argument 1 ('cols'): expected shape f32[16x?], "
                              "got f32[16x12x1]");
}

TEST(DynamicBinding, DynamicSizesNeedAtLeastOneElement) {
  auto args = goodArgs();
  std::get<SymmetricBuffer>(args[0]).shape = {0, 4096};
  expectBindingRejected(args, "argument 0 ('rows'): expected shape "
                              "f16[?x4096], got f16[0x4096] (dynamic "
                              "dimension 0 must be at least 1)");
  args = goodArgs();
  std::get<DeviceBuffers>(args[1]).shape = {16, -1};
  expectBindingRejected(args, "(dynamic dimension 1 must be at least 1)");
}

TEST(DynamicBinding, SizesBeyondWhatTheKernelCanIndex) {
  // The byte size must fit the kernel's signed 64-bit offsets.
  auto args = goodArgs();
  std::get<DeviceBuffers>(args[1]).shape = {16, int64_t(1) << 59};
  expectBindingRejected(args, "its byte size overflows 63 bits");
  // And the buffer must hold the launch shape.
  args = goodArgs(127, 12);
  std::get<DeviceBuffers>(args[1]).shape = {16, 13};
  expectBindingRejected(args, "argument 1 ('cols'): expected at least 832 "
                              "bytes (f32[16x13]), got 768");
  args = goodArgs(127, 12);
  std::get<SymmetricBuffer>(args[0]).shape = {128, 4096};
  expectBindingRejected(args, "argument 0 ('rows'): expected at least 1048576 "
                              "bytes (f16[128x4096]), got 1040384");
  // The kernel's TMA copies address rows with signed 32-bit coordinates:
  // at most 2^31 - 1 rows (a clamped coordinate stays outside).
  args = goodArgs();
  auto &rows = std::get<SymmetricBuffer>(args[0]);
  rows.shape = {int64_t(1) << 31, 4096};
  rows.bytes = UINT64_MAX;
  expectBindingRejected(args, "argument 0 ('rows') of shape "
                              "f16[2147483648x4096] cannot be viewed by tma "
                              "parameter 'rows.tma0': global dimension 1 is "
                              "2147483648, expected 1 to 2^31 - 1 (TMA "
                              "coordinates are signed 32-bit)");
  rows.shape = {(int64_t(1) << 31) - 1, 4096};
  EXPECT_TRUE(checkKernelArgs(makeKernel(), args, kTarget));
}

TEST(DynamicBinding, SizesThatBreakTmaAlignment) {
  // cols is 16 x n f32: its rows are 4n bytes, which TMA needs to be a
  // multiple of 16.
  auto args = goodArgs(127, 13);
  expectBindingRejected(args, "argument 1 ('cols') of shape f32[16x13] cannot "
                              "be viewed by tma parameter 'cols.tma1': global "
                              "stride of dimension 1 is 52 bytes, expected a "
                              "multiple of 16");
  // The base address must be 16-byte aligned (the parameter's alignment).
  args = goodArgs();
  std::get<DeviceBuffers>(args[1]).pointers[0] += 8;
  expectBindingRejected(args, "is not aligned to 16 bytes");
  args = goodArgs();
  std::get<SymmetricBuffer>(args[0]).offset += 8;
  expectBindingRejected(args, "heap offset 0x1008 is not aligned to 16 bytes");
}

TEST(DynamicBinding, SymmetricBufferMustCarryItsShape) {
  auto args = goodArgs();
  std::get<SymmetricBuffer>(args[0]).shape.clear();
  std::get<SymmetricBuffer>(args[0]).dtype.clear();
  expectBindingRejected(args, "argument 0 ('rows'): expected a buffer of "
                              "shape f16[?x4096], got an untyped symmetric "
                              "buffer");
}

} // namespace

//===----------------------------------------------------------------------===//
// Dimensions the kernel needs equal (DimInfo::equals)
//===----------------------------------------------------------------------===//

/// makeKernel with cols.dim1 (param 7) tied to rows.dim0 (param 6).
KernelInfo makeTiedKernel() {
  KernelInfo k = makeKernel();
  k.params[7].dim.equals = 6;
  return k;
}

TEST(DynamicManifest, EqualDimsRoundTrip) {
  Bundle b = makeBundle();
  b.kernels[0] = makeTiedKernel();
  ASSERT_TRUE(verifyBundle(b)) << verifyBundle(b).error().toString();
  std::string text = printManifest(b);
  EXPECT_NE(text.find("param dim rows.dim0 source=0 axis=0\n"
                      "  param dim cols.dim1 source=1 axis=1 equals=6\n"),
            std::string::npos)
      << text;
  std::vector<uint8_t> bytes = serializeBundle(b);
  auto parsed = parseBundle(bytes.data(), bytes.size());
  ASSERT_TRUE(parsed) << parsed.error().toString();
  EXPECT_EQ(parsed->kernels[0].params[7].dim.equals, 6u);
  EXPECT_EQ(parsed->kernels[0].params[6].dim.equals, DimInfo::kNone);
  EXPECT_EQ(serializeBundle(*parsed), bytes);
}

TEST(DynamicManifest, EqualsMustNameAnotherDim) {
  for (uint32_t bad : {7u, 0u, 99u}) {
    Bundle b = makeBundle();
    b.kernels[0].params[7].dim.equals = bad;
    expectBundleRejected(b, "equals=" + std::to_string(bad) +
                                " must name another dim parameter");
  }
  // Only a dim parameter takes the key.
  EXPECT_FALSE(reparse("param tma rows.tma0 dtype=f16",
                       "param tma rows.tma0 dtype=f16 equals=6"));
}

TEST(DynamicBinding, TiedDimsMustBeEqual) {
  EXPECT_TRUE(checkKernelArgs(makeTiedKernel(), goodArgs(128, 128), kTarget));
  Status s = checkKernelArgs(makeTiedKernel(), goodArgs(128, 12), kTarget);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), ErrorCode::InvalidArgument);
  EXPECT_NE(s.error().message().find(
                "kernel 'dyn': dimension 1 of argument 1 ('cols') is 12, but "
                "the kernel needs it equal to dimension 0 of argument 0 "
                "('rows'), which is 128"),
            std::string::npos)
      << s.error().message();
  // Untied, the same sizes bind.
  EXPECT_TRUE(checkKernelArgs(makeKernel(), goodArgs(128, 12), kTarget));
}
