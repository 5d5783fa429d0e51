//===- VariantTest.cpp - Kernel variants: manifest, checks, binding -------===//
//
// Kernels that are variants of one name (KernelInfo::variantOf), each for
// a range of a dynamic dimension (ParamInfo::ranges): how the manifest
// writes and reads them, what verifyBundle rejects, and the binding check
// that refuses a size outside a variant's range; entries that share one
// cubin function (KernelInfo::function). Choosing a variant at
// launch (Kernel::get/bind) needs a device: examples/dynamic_shapes with
// auto_matmul.wbundle in the GPU suite.
//
//===----------------------------------------------------------------------===//

#include "FakeCubin.h"
#include "weave/runtime/KernelArgs.h"
#include "weave/runtime/detail/BundleDetail.h"
#include "weave/test/BundleBuilder.h"

#include <gtest/gtest.h>

using namespace weave;
using weave::abi::kDynamicDim;
using weave::abi::ParamKind;
using weave::test::addDimParams;
using weave::test::addTeamParams;
using weave::test::makeFakeCubin;
using weave::test::param;

namespace {

/// A variant of "mm": a(?x64 f16) with rows in [lo, hi], b(64x32 f16),
/// c(?x32 f16).
KernelInfo makeVariant(const std::string &name, int64_t lo, int64_t hi) {
  KernelInfo k;
  k.name = name;
  k.variantOf = "mm";
  k.params.push_back(param(ParamKind::Buffer, "a", "f16", {kDynamicDim, 64}));
  k.params.push_back(param(ParamKind::Buffer, "b", "f16", {64, 32}));
  k.params.push_back(param(ParamKind::Buffer, "c", "f16", {kDynamicDim, 32}));
  k.params[0].ranges = {{lo, hi}, {64, 64}};
  addTeamParams(k);
  addDimParams(k);
  return k;
}

Bundle makeBundle() {
  Bundle b;
  b.arch = "sm_90a";
  b.kernels.push_back(makeVariant("mm__m1_128", 1, 128));
  b.kernels.push_back(makeVariant("mm__m129_up", 129, DimRange::kUnbounded));
  b.cubin = makeFakeCubin({"mm__m1_128", "mm__m129_up"});
  return b;
}

void expectRejected(const Bundle &bundle, const std::string &needle) {
  Status s = verifyBundle(bundle);
  ASSERT_FALSE(s) << "expected failure containing '" << needle << "'";
  EXPECT_EQ(s.error().code(), ErrorCode::InvalidBundle);
  EXPECT_NE(s.error().message().find(needle), std::string::npos)
      << s.error().message();
}

/// `b`'s manifest with `from` replaced by `to`, parsed.
Expected<Bundle> parseText(const std::string &from, const std::string &to,
                           const Bundle &b = makeBundle()) {
  std::string manifest = printManifest(b);
  size_t at = manifest.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  manifest.replace(at, from.size(), to);
  Bundle parsed;
  if (Status s = parseManifest(manifest, parsed); !s)
    return s.error();
  return parsed;
}

TEST(KernelVariants, ManifestRoundTrip) {
  Bundle b = makeBundle();
  ASSERT_TRUE(verifyBundle(b)) << verifyBundle(b).error().message();
  std::string text = printManifest(b);
  EXPECT_NE(text.find("  variant_of mm\n"), std::string::npos) << text;
  EXPECT_NE(text.find("param buffer a dtype=f16 shape=?,64 range=1..128,64..64 "
                      "align=16"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("range=129..,64..64"), std::string::npos) << text;
  // Parameters without ranges print none.
  EXPECT_NE(text.find("param buffer c dtype=f16 shape=?,32 align=16\n"),
            std::string::npos)
      << text;
  std::vector<uint8_t> bytes = serializeBundle(b);
  Expected<Bundle> parsed = parseBundle(bytes.data(), bytes.size());
  ASSERT_TRUE(parsed) << parsed.error().message();
  ASSERT_EQ(parsed->kernels.size(), 2u);
  EXPECT_EQ(parsed->kernels[1].variantOf, "mm");
  EXPECT_EQ(parsed->kernels[1].params[0].ranges[0].lo, 129);
  EXPECT_EQ(parsed->kernels[1].params[0].ranges[0].hi, DimRange::kUnbounded);
  EXPECT_EQ(serializeBundle(*parsed), bytes);
}

TEST(KernelVariants, FoundByGroupNameInManifestOrder) {
  Bundle b = makeBundle();
  EXPECT_EQ(findKernel(b, "mm"), nullptr);
  std::vector<const KernelInfo *> variants = findVariants(b, "mm");
  ASSERT_EQ(variants.size(), 2u);
  EXPECT_EQ(variants[0]->name, "mm__m1_128");
  EXPECT_EQ(variants[1]->name, "mm__m129_up");
  EXPECT_TRUE(findVariants(b, "mm__m1_128").empty());
}

TEST(KernelVariants, RangesMustFitTheShape) {
  Bundle b = makeBundle();
  b.kernels[0].params[0].ranges[1] = {1, 64};
  expectRejected(b, "dimension 1 has range 1..64, expected 64..64");
  b = makeBundle();
  b.kernels[0].params[0].ranges[0] = {200, 100};
  expectRejected(b, "dimension 0 has range 200..100, expected 1 <= lo <= hi");
  b = makeBundle();
  b.kernels[0].params[0].ranges[0] = {0, 100};
  expectRejected(b, "expected 1 <= lo <= hi");
  b = makeBundle();
  b.kernels[0].params[0].ranges.pop_back();
  expectRejected(b, "has 1 dimension ranges for a shape of 2 dimensions");
}

TEST(KernelVariants, VariantsTakeTheSameArguments) {
  Bundle b = makeBundle();
  b.kernels[1].params[1].dtype = "bf16";
  expectRejected(b, "parameter 1 ('b') differs from variant 'mm__m1_128'");
  b = makeBundle();
  b.kernels[1].teamSize = 2;
  expectRejected(b, "team size differs");
  // Ranged alike: chooseVariant reads the first variant's ranged sizes.
  b = makeBundle();
  b.kernels[1].params[1].ranges = {{64, 64}, {32, 32}};
  expectRejected(b, "parameter 1 ('b')'s having ranges differs");
  b = makeBundle();
  b.kernels[1].name = "mm";
  b.cubin = makeFakeCubin({"mm__m1_128", "mm"});
  expectRejected(b, "kernel 'mm' is also the name of a variant group");
}

TEST(KernelVariants, MalformedManifestLines) {
  for (const char *bad : {"range=1..128,64", "range=1-128,64..64",
                          "range=x..5,64..64", "range=1..,64..64,1..2x"}) {
    Expected<Bundle> parsed = parseText("range=1..128,64..64", bad);
    // A malformed list is a parse error; a well-formed one of the wrong
    // length is verifyBundle's.
    if (parsed)
      EXPECT_FALSE(verifyBundle(*parsed)) << bad;
    else
      EXPECT_NE(parsed.error().message().find("range"), std::string::npos)
          << parsed.error().message();
  }
  Expected<Bundle> noName = parseText("  variant_of mm\n", "  variant_of\n");
  ASSERT_FALSE(noName);
  EXPECT_NE(noName.error().message().find("expected 'variant_of NAME'"),
            std::string::npos)
      << noName.error().message();
  Expected<Bundle> twice =
      parseText("  variant_of mm\n", "  variant_of mm\n  variant_of mm\n");
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().message().find("duplicate 'variant_of'"),
            std::string::npos)
      << twice.error().message();
}

std::vector<KernelArg> mmArgs(int64_t m) {
  return {DeviceBuffers{{0x7000000000}, "f16", {m, 64}, uint64_t(m * 64 * 2)},
          DeviceBuffers{{0x7100000000}, "f16", {64, 32}, 64 * 32 * 2},
          DeviceBuffers{{0x7200000000}, "f16", {m, 32}, uint64_t(m * 32 * 2)}};
}

TEST(KernelVariants, TheFirstVariantWhoseRangeHoldsTheSizeIsChosen) {
  Bundle b = makeBundle();
  b.kernels.push_back(makeVariant("mm__m200_300", 200, 300));
  std::vector<const KernelInfo *> variants = findVariants(b, "mm");
  for (auto [m, want] : {std::pair<int64_t, size_t>{1, 0}, {128, 0},
                         {129, 1}, {250, 1}, {int64_t(1) << 40, 1}}) {
    Expected<size_t> chosen = chooseVariant("mm", variants, mmArgs(m));
    ASSERT_TRUE(chosen) << chosen.error().message();
    EXPECT_EQ(*chosen, want) << m << " rows";
  }
  // None holds it: the sizes and every variant's ranges are named.
  std::vector<const KernelInfo *> small = {variants[0], variants[2]};
  Expected<size_t> none = chooseVariant("mm", small, mmArgs(150));
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(none.error().message(),
            "kernel 'mm': no variant takes these sizes (a dimension 0 is "
            "150); 'mm__m1_128' takes a dimension 0 in 1..128; "
            "'mm__m200_300' takes a dimension 0 in 200..300");
}

TEST(KernelVariants, BindingRefusesSizesOutsideTheRange) {
  const KernelInfo k = makeVariant("mm__m1_128", 1, 128);
  auto args = [](int64_t m) {
    return std::vector<KernelArg>{
        DeviceBuffers{{0x7000000000}, "f16", {m, 64}, uint64_t(m * 64 * 2)},
        DeviceBuffers{{0x7100000000}, "f16", {64, 32}, 64 * 32 * 2},
        DeviceBuffers{{0x7200000000}, "f16", {m, 32}, uint64_t(m * 32 * 2)}};
  };
  BindingTarget target{/*heapId=*/7, /*localCount=*/1, /*teamSize=*/1};
  EXPECT_TRUE(checkKernelArgs(k, args(1), target));
  EXPECT_TRUE(checkKernelArgs(k, args(128), target));
  Status s = checkKernelArgs(k, args(129), target);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), ErrorCode::InvalidArgument);
  EXPECT_NE(s.error().message().find(
                "argument 0 ('a'): expected shape f16[?x64], got f16[129x64] "
                "(dimension 0 is 129, outside 1..128, the sizes the kernel "
                "was compiled for)"),
            std::string::npos)
      << s.error().message();
}

//===----------------------------------------------------------------------===//
// Entries sharing a function (KernelInfo::function)
//===----------------------------------------------------------------------===//

/// makeBundle's two variants, the second launching the first's function;
/// the cubin has only that one.
Bundle makeSharingBundle() {
  Bundle b = makeBundle();
  b.kernels[1].function = "mm__m1_128";
  b.cubin = makeFakeCubin({"mm__m1_128"});
  return b;
}

TEST(SharedFunctions, ManifestRoundTrip) {
  Bundle b = makeSharingBundle();
  ASSERT_TRUE(verifyBundle(b)) << verifyBundle(b).error().message();
  std::string text = printManifest(b);
  // Right after variant_of, and only for the entry that sets it.
  EXPECT_NE(text.find("  variant_of mm\n  function mm__m1_128\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("function"), text.rfind("function")) << text;
  std::vector<uint8_t> bytes = serializeBundle(b);
  Expected<Bundle> parsed = parseBundle(bytes.data(), bytes.size());
  ASSERT_TRUE(parsed) << parsed.error().message();
  ASSERT_EQ(parsed->kernels.size(), 2u);
  EXPECT_EQ(parsed->kernels[0].function, "");
  EXPECT_EQ(parsed->kernels[0].functionName(), "mm__m1_128");
  EXPECT_EQ(parsed->kernels[1].function, "mm__m1_128");
  EXPECT_EQ(parsed->kernels[1].functionName(), "mm__m1_128");
  EXPECT_EQ(serializeBundle(*parsed), bytes);
}

TEST(SharedFunctions, MalformedManifestLines) {
  auto parseSharing = [](const std::string &to) {
    return parseText("  function mm__m1_128\n", to, makeSharingBundle());
  };
  for (const char *bad :
       {"  function\n", "  function a-b\n", "  function mm__m1_128 extra\n"}) {
    Expected<Bundle> parsed = parseSharing(bad);
    ASSERT_FALSE(parsed) << bad;
    EXPECT_NE(parsed.error().message().find(
                  "expected 'function NAME' with a function name"),
              std::string::npos)
        << parsed.error().message();
  }
  Expected<Bundle> twice =
      parseSharing("  function mm__m1_128\n  function mm__m1_128\n");
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().message().find(
                "duplicate 'function' in kernel 'mm__m129_up'"),
            std::string::npos)
      << twice.error().message();
}

TEST(SharedFunctions, TheCubinNeedsOnlyTheFunction) {
  Bundle b = makeSharingBundle();
  EXPECT_TRUE(verifyBundle(b)) << verifyBundle(b).error().message();
  // Without `function`, the second entry needs a function of its own name.
  b.kernels[1].function.clear();
  expectRejected(b, "kernel 'mm__m129_up' is not in the cubin's symbol "
                    "table (1 symbols)");
  b = makeSharingBundle();
  b.kernels[1].function = "mm__m9_9";
  expectRejected(b, "kernel 'mm__m129_up' (function 'mm__m9_9') is not in "
                    "the cubin's symbol table (1 symbols)");
  b = makeSharingBundle();
  b.kernels[1].function = "mm m1";
  expectRejected(b, "kernel 'mm__m129_up': invalid function name 'mm m1'");
}

TEST(SharedFunctions, EntriesSharingAFunctionLaunchAlike) {
  Bundle b = makeSharingBundle();
  b.kernels[1].block = {256, 1, 1};
  expectRejected(b, "kernel 'mm__m129_up' shares function 'mm__m1_128' with "
                    "kernel 'mm__m1_128' but its block 256 1 1 differs from "
                    "1 1 1");
  b = makeSharingBundle();
  b.kernels[1].dynamicSmemBytes = 1024;
  expectRejected(b, "but its dynamic shared memory (smem) 1024 differs from 0");
  b = makeSharingBundle();
  b.kernels[1].grid = {0, 1, 1};
  expectRejected(b, "but its grid 0 1 1 differs from 1 1 1");
  // Variants may differ in a generated parameter; entries sharing code not.
  b = makeSharingBundle();
  ASSERT_EQ(b.kernels[1].params[7].kind, ParamKind::Dim);
  b.kernels[1].params[7].dim.equals = 6;
  expectRejected(b, "but its parameter 7 ('" + b.kernels[1].params[7].name +
                        "') dim differs");
  // Outside a variant group only the shared function compares them.
  b = makeSharingBundle();
  b.kernels[0].variantOf.clear();
  b.kernels[1].variantOf.clear();
  b.kernels[1].params[1].dtype = "bf16";
  expectRejected(b, "kernel 'mm__m129_up' shares function 'mm__m1_128' with "
                    "kernel 'mm__m1_128' but its parameter 1 ('b') dtype "
                    "differs");
  b.kernels[1].params[1].dtype = "f16";
  EXPECT_TRUE(verifyBundle(b)) << verifyBundle(b).error().message();
  // Two entries naming a third function are compared with each other.
  b = makeSharingBundle();
  b.kernels[0].function = "mm_code";
  b.kernels[1].function = "mm_code";
  b.cubin = makeFakeCubin({"mm_code"});
  EXPECT_TRUE(verifyBundle(b)) << verifyBundle(b).error().message();
  b.kernels[1].computeCapability = 100;
  expectRejected(b, "kernel 'mm__m129_up' shares function 'mm_code' with "
                    "kernel 'mm__m1_128' but its compute capability 100 "
                    "differs from 90");
}

TEST(SharedFunctions, AnEntrySharingAFunctionIsChosenAndBoundByItsRanges) {
  Bundle b = makeSharingBundle();
  std::vector<const KernelInfo *> variants = findVariants(b, "mm");
  ASSERT_EQ(variants.size(), 2u);
  for (auto [m, want] : {std::pair<int64_t, size_t>{128, 0}, {129, 1}}) {
    Expected<size_t> chosen = chooseVariant("mm", variants, mmArgs(m));
    ASSERT_TRUE(chosen) << chosen.error().message();
    EXPECT_EQ(*chosen, want) << m << " rows";
    EXPECT_EQ(variants[*chosen]->functionName(), "mm__m1_128");
  }
  // Its own range, not the function's first entry's, bounds the binding.
  BindingTarget target{/*heapId=*/7, /*localCount=*/1, /*teamSize=*/1};
  EXPECT_TRUE(checkKernelArgs(*variants[1], mmArgs(4096), target));
  Status s = checkKernelArgs(*variants[1], mmArgs(64), target);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("dimension 0 is 64, outside 129.."),
            std::string::npos)
      << s.error().message();
}

} // namespace
