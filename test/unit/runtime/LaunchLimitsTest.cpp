//===- LaunchLimitsTest.cpp - Launch limits checked before launching ------===//
//
// checkLaunchLimits is what Kernel::prepare runs against the limits
// Kernel::get reads from the driver; here the limits are written by hand,
// so every rule is tested without a GPU.
//
//===----------------------------------------------------------------------===//

#include "weave/runtime/KernelArgs.h"
#include "weave/test/BundleBuilder.h"

#include <gtest/gtest.h>

using namespace weave;

namespace {

/// A clustered matmul-like kernel that fits an H100.
KernelInfo makeKernel() {
  KernelInfo k = test::kernelInfo("mm", {132, 2, 1}, {384, 1, 1},
                                  /*teamSize=*/0, {});
  k.cluster = {2, 1, 1};
  k.dynamicSmemBytes = 200 * 1024;
  return k;
}

/// An H100's limits, as Kernel::get reads them for `makeKernel()`.
LaunchLimits h100() {
  LaunchLimits limits;
  limits.device = 3;
  limits.maxClusterBlocks = 8;
  return limits;
}

void expectRejected(const KernelInfo &kernel, const LaunchLimits &limits,
                    const std::string &needle) {
  Status s = checkLaunchLimits(kernel, limits);
  ASSERT_FALSE(s) << "expected failure containing '" << needle << "'";
  EXPECT_EQ(s.error().code(), ErrorCode::InvalidArgument);
  EXPECT_NE(s.error().message().find(needle), std::string::npos)
      << s.error().message();
}

TEST(LaunchLimits, AcceptsAKernelThatFits) {
  Status s = checkLaunchLimits(makeKernel(), h100());
  EXPECT_TRUE(s) << s.error().toString();
}

TEST(LaunchLimits, GridYAndZ) {
  KernelInfo k = makeKernel();
  k.grid = {2, 65536, 1};
  expectRejected(k, h100(),
                 "kernel 'mm' cannot launch on device 3: grid y is 65536, "
                 "expected 1 to 65535");
  k.grid = {2, 1, 65536};
  expectRejected(k, h100(), "grid z is 65536, expected 1 to 65535");
  k.grid = {2, 65535, 65535};
  EXPECT_TRUE(checkLaunchLimits(k, h100()));
}

TEST(LaunchLimits, GridFromTheDevice) {
  // A device reporting smaller grids than the sm_90 table is believed.
  LaunchLimits limits = h100();
  limits.maxGrid[0] = 1000;
  KernelInfo k = makeKernel();
  k.grid = {1002, 1, 1};
  expectRejected(k, limits, "grid x is 1002, expected 1 to 1000");
}

TEST(LaunchLimits, BlockAgainstTheFunction) {
  // A function whose registers fit only 256 threads cannot take 384.
  LaunchLimits limits = h100();
  limits.maxThreadsPerBlock = 256;
  expectRejected(makeKernel(), limits,
                 "384 threads per block, the function allows at most 256 "
                 "(its register use included)");
  KernelInfo k = makeKernel();
  k.block = {1, 1, 65};
  expectRejected(k, h100(), "block z is 65, expected 1 to 64");
}

TEST(LaunchLimits, SharedMemoryStaticPlusDynamic) {
  LaunchLimits limits = h100();
  KernelInfo k = makeKernel();
  k.dynamicSmemBytes = 227 * 1024;
  EXPECT_TRUE(checkLaunchLimits(k, limits));
  // The function's static shared memory counts too.
  limits.staticSharedBytes = 16;
  expectRejected(k, limits,
                 "kernel 'mm' cannot launch on device 3: 16 static + 232448 "
                 "dynamic bytes of shared memory per block, expected at most "
                 "232448");
  k.dynamicSmemBytes = 227 * 1024 - 16;
  EXPECT_TRUE(checkLaunchLimits(k, limits));
  // A 32-bit dynamic size near 2^32 plus static memory does not wrap.
  k.dynamicSmemBytes = UINT32_MAX;
  expectRejected(k, limits, "4294967295 dynamic bytes");
}

TEST(LaunchLimits, NonPortableClusterNeedsTheOptIn) {
  KernelInfo k = makeKernel();
  k.cluster = {12, 1, 1};
  k.grid = {132, 1, 1};
  LaunchLimits limits = h100();
  limits.maxClusterBlocks.reset();
  expectRejected(k, limits,
                 "a cluster of 12 blocks, expected at most 8 (the device does "
                 "not allow non-portable cluster sizes)");
  limits.nonPortableClusterAllowed = true;
  limits.maxClusterBlocks = 16;
  Status s = checkLaunchLimits(k, limits);
  EXPECT_TRUE(s) << s.error().toString();
}

TEST(LaunchLimits, ClusterThatTheDeviceCannotCoSchedule) {
  KernelInfo k = makeKernel();
  k.cluster = {4, 1, 1};
  LaunchLimits limits = h100();
  limits.maxClusterBlocks = 2;
  expectRejected(k, limits,
                 "a cluster of 4 blocks, the device can co-schedule at most 2 "
                 "of this kernel's blocks");
  // Unknown (the driver could not say): left to the launch.
  limits.maxClusterBlocks.reset();
  EXPECT_TRUE(checkLaunchLimits(k, limits));
}

TEST(LaunchLimits, ClusterWithoutClusterLaunch) {
  LaunchLimits limits = h100();
  limits.clusterLaunch = false;
  expectRejected(makeKernel(), limits,
                 "a cluster of 2 blocks, but the device does not support "
                 "cluster launch");
  KernelInfo k = makeKernel();
  k.cluster = {1, 1, 1};
  EXPECT_TRUE(checkLaunchLimits(k, limits));
}

TEST(LaunchLimits, ZeroDims) {
  KernelInfo k = makeKernel();
  k.cluster = {2, 0, 1};
  expectRejected(k, h100(), "cluster y is 0, expected at least 1");
  k = makeKernel();
  k.grid = {2, 0, 1};
  expectRejected(k, h100(), "grid y is 0, expected 1 to 65535");
}

TEST(LaunchLimits, PersistentGridXIsSizedAtLaunch) {
  // grid x 0 is a persistent grid: the launch sizes it to what is resident.
  KernelInfo k = makeKernel();
  k.grid = {KernelInfo::kPersistentGrid, 1, 1};
  EXPECT_TRUE(checkLaunchLimits(k, h100()));
  k.grid = {KernelInfo::kPersistentGrid, 70000, 1};
  expectRejected(k, h100(), "grid y is 70000, expected 1 to 65535");
}

} // namespace
