//===- AbiTestKernelsTest.cpp - The shared test cubin and its manifest ----===//
//
// The GPU tests and the runtime benchmark load the nvcc-built cubin of
// test/support/kernels/AbiTestKernels.cu with a manifest written by hand;
// check on CPU that every kernel it names is in the cubin.
//
//===----------------------------------------------------------------------===//

#include "weave/test/AbiTestKernels.h"

#include <gtest/gtest.h>

using namespace weave;

namespace {

TEST(AbiTestKernels, ManifestMatchesTheCubin) {
  if (std::string(test::abiTestCubinPath()).empty())
    GTEST_SKIP() << "built without nvcc: no test cubin";
  Expected<Bundle> bundle = test::loadAbiTestBundle();
  ASSERT_TRUE(bundle) << bundle.error().toString();
  EXPECT_EQ(bundle->kernels.front().name, "ring_exchange");
  Status verified = verifyBundle(*bundle);
  EXPECT_TRUE(verified) << verified.error().toString();
  std::vector<uint8_t> bytes = serializeBundle(*bundle);
  Expected<Bundle> parsed = parseBundle(bytes.data(), bytes.size());
  ASSERT_TRUE(parsed) << parsed.error().toString();
  EXPECT_EQ(parsed->kernels.size(), 6u);
}

TEST(AbiTestKernels, MissingCubinIsNotFound) {
  Expected<Bundle> bundle = test::loadAbiTestBundle("/nonexistent/x.cubin");
  ASSERT_FALSE(bundle);
  EXPECT_EQ(bundle.error().code(), ErrorCode::NotFound);
}

} // namespace
