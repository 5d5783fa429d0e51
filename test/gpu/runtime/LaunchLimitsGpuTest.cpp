//===- LaunchLimitsGpuTest.cpp - Launch limits read from a real device ----===//
//
// Kernel::get reads the device's and the function's limits; Kernel::prepare
// refuses a launch outside them with a message naming the kernel, before
// anything launches. Needs one sm_90 GPU and the nvcc-built test cubin
// (ring_exchange has static shared memory: `__shared__ int timedOut`);
// skips with the reason otherwise. The rules themselves are unit-tested on CPU
// (test/unit/runtime/LaunchLimitsTest.cpp).
//
//===----------------------------------------------------------------------===//

#include "weave/runtime/Kernel.h"
#include "weave/runtime/SymmetricHeap.h"
#include "weave/runtime/Team.h"
#include "weave/test/AbiTestKernels.h"
#include "weave/test/BundleBuilder.h"

#include <gtest/gtest.h>

#include <optional>

using namespace weave;

namespace {

#define EXPECT_OK(expr)                                                        \
  do {                                                                         \
    const auto &weaveStatus_ = (expr);                                         \
    EXPECT_TRUE(weaveStatus_) << weaveStatus_.error().toString();              \
  } while (false)
#define ASSERT_OK(expr)                                                        \
  do {                                                                         \
    const auto &weaveStatus_ = (expr);                                         \
    ASSERT_TRUE(weaveStatus_) << weaveStatus_.error().toString();              \
  } while (false)

/// Why this test cannot run here, or "" when it can.
std::string skipReason() {
  if (cuInit(0) != CUDA_SUCCESS)
    return "cuInit failed (no usable GPU)";
  int count = 0;
  cuDeviceGetCount(&count);
  if (count < 1)
    return "no GPU";
  CUdevice dev;
  int major = 0;
  cuDeviceGet(&dev, 0);
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                       dev);
  if (major != 9)
    return "the test cubin is sm_90a";
  if (test::readFileBytes(test::abiTestCubinPath()).empty())
    return "the test cubin was not built (no nvcc)";
  return "";
}

/// Device 0 as a team of one, its heap, and ring_exchange's arguments.
class OneGpu : public ::testing::Test {
protected:
  void SetUp() override {
    std::string reason = skipReason();
    if (!reason.empty())
      GTEST_SKIP() << reason;
    auto created = Team::createInProcess({0});
    ASSERT_OK(created);
    team.emplace(std::move(*created));
    auto createdHeap = SymmetricHeap::create(*team, 1 << 20);
    ASSERT_OK(createdHeap);
    heap.emplace(std::move(*createdHeap));
    auto buf = heap->allocateTensor("i32", {4096});
    ASSERT_OK(buf);
    auto sems = heap->allocateSemaphores(1);
    ASSERT_OK(sems);
    ASSERT_OK(team->device(0).makeCurrent());
    ASSERT_EQ(cuMemAlloc(&errors, 8), CUDA_SUCCESS);
    ASSERT_EQ(cuMemsetD32(errors, 0, 2), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    DeviceBuffers errorBuffers{{errors}, "i32", {2}, 8};
    args = {*buf, *sems, errorBuffers, ScalarValue::u32(0)};
    CUdevice dev = team->device(0).handle();
    ASSERT_EQ(
        cuDeviceGetAttribute(
            &optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev),
        CUDA_SUCCESS);
    auto plain = ring([](KernelInfo &) {});
    ASSERT_OK(plain);
    staticBytes = static_cast<int>(plain->launchLimits(0).staticSharedBytes);
  }
  void TearDown() override {
    if (stream) {
      cuStreamSynchronize(stream);
      cuStreamDestroy(stream);
    }
    if (errors)
      cuMemFree(errors);
  }

  /// ring_exchange with `edit` applied to its manifest entry.
  template <typename Edit> Expected<Kernel> ring(Edit edit) {
    Bundle bundle =
        test::abiTestBundle(test::readFileBytes(test::abiTestCubinPath()));
    edit(bundle.kernels[0]);
    WEAVE_ASSIGN_OR_RETURN(Program program,
                           Program::load(*team, std::move(bundle)));
    return Kernel::get(program, "ring_exchange");
  }

  std::optional<Team> team;
  std::optional<SymmetricHeap> heap;
  CUdeviceptr errors = 0;
  CUstream stream = nullptr;
  std::vector<KernelArg> args;
  int optin = 0;
  int staticBytes = 0; ///< ring_exchange's static shared memory
};

TEST_F(OneGpu, ReadsTheFunctionsStaticSharedMemory) {
  auto kernel = ring([](KernelInfo &) {});
  ASSERT_OK(kernel);
  const LaunchLimits &limits = kernel->launchLimits(0);
  EXPECT_GE(limits.staticSharedBytes, 4u); // `__shared__ int timedOut`
  EXPECT_EQ(limits.maxSharedBytesOptin, uint64_t(optin));
  EXPECT_EQ(limits.maxGrid[1], 65535u);
  EXPECT_TRUE(limits.clusterLaunch);
}

TEST_F(OneGpu, StaticPlusDynamicOverTheLimitFailsInPrepare) {
  // Dynamic alone fits; with the static bytes it does not. Kernel::get
  // used to fail here with CUDA_ERROR_INVALID_VALUE from cuFuncSetAttribute.
  uint32_t dynamic = optin - staticBytes + 1;
  auto kernel = ring([&](KernelInfo &k) { k.dynamicSmemBytes = dynamic; });
  ASSERT_OK(kernel);
  Status status = kernel->prepare(*heap, args);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().code(), ErrorCode::InvalidArgument);
  EXPECT_NE(status.error().message().find(
                "kernel 'ring_exchange' cannot launch on device 0: " +
                std::to_string(staticBytes) + " static + " +
                std::to_string(dynamic) +
                " dynamic bytes of shared memory per block, expected at most " +
                std::to_string(optin)),
            std::string::npos)
      << status.error().message();
  Status launched = kernel->launch(*heap, args, {stream});
  EXPECT_FALSE(launched);
}

TEST_F(OneGpu, StaticPlusDynamicAtTheLimitLaunches) {
  auto kernel =
      ring([&](KernelInfo &k) { k.dynamicSmemBytes = optin - staticBytes; });
  ASSERT_OK(kernel);
  EXPECT_OK(kernel->launch(*heap, args, {stream}));
  EXPECT_EQ(cuStreamSynchronize(stream), CUDA_SUCCESS);
}

TEST_F(OneGpu, StaticPlusDynamicJustOver48KiBLaunches) {
  // 48 KiB of dynamic memory plus the static bytes needs the raised
  // attribute, which used to be set only for dynamic sizes over 48 KiB.
  auto kernel = ring([](KernelInfo &k) { k.dynamicSmemBytes = 48 * 1024; });
  ASSERT_OK(kernel);
  EXPECT_OK(kernel->launch(*heap, args, {stream}));
  EXPECT_EQ(cuStreamSynchronize(stream), CUDA_SUCCESS);
}

TEST_F(OneGpu, NonPortableClusterIsAllowedOrRefusedClearly) {
  // 16 blocks per cluster: an H100 takes it once the non-portable
  // attribute is set; a device that does not is refused in prepare.
  auto kernel = ring([](KernelInfo &k) {
    k.grid = {16, 1, 1};
    k.cluster = {16, 1, 1};
  });
  ASSERT_OK(kernel);
  const LaunchLimits &limits = kernel->launchLimits(0);
  Status status = kernel->prepare(*heap, args);
  if (limits.nonPortableClusterAllowed && limits.maxClusterBlocks &&
      *limits.maxClusterBlocks >= 16) {
    EXPECT_OK(status);
  } else {
    ASSERT_FALSE(status);
    EXPECT_NE(status.error().message().find("a cluster of 16 blocks"),
              std::string::npos)
        << status.error().message();
  }
}

} // namespace
