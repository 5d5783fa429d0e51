//===- BindingTest.cpp - Kernel argument checks and parameter layout ------===//

#include "weave/runtime/KernelArgs.h"
#include "weave/test/BundleBuilder.h"

#include <gtest/gtest.h>

using namespace weave;
using weave::test::param;

namespace {

KernelInfo makeKernel() {
  KernelInfo k;
  k.name = "ring";
  k.params.push_back(param(weave::abi::ParamKind::Symmetric, "buf", "f32", {4, 256}));
  ParamInfo sem = param(weave::abi::ParamKind::Semaphore, "sems");
  sem.semaphoreCount = 2;
  k.params.push_back(sem);
  k.params.push_back(param(weave::abi::ParamKind::Buffer, "errors", "i32", {1}));
  k.params.push_back(param(weave::abi::ParamKind::Scalar, "iter", "u32"));
  k.params.push_back(param(weave::abi::ParamKind::Rank, "rank"));
  k.params.push_back(param(weave::abi::ParamKind::TeamSize, "team_size"));
  k.params.push_back(param(weave::abi::ParamKind::PeerBases, "peer_bases"));
  ParamInfo tma = param(weave::abi::ParamKind::Tma, "buf_desc");
  tma.tma.box = {64, 2};
  k.params.push_back(tma);
  return k;
}

const BindingTarget kTarget{/*heapId=*/7, /*localCount=*/2, /*teamSize=*/2};

std::vector<KernelArg> goodArgs() {
  SymmetricBuffer buf{7, 4096, 4096, "f32", {4, 256}};
  SemaphoreArray sems{7, 128, 2};
  DeviceBuffers errors{{0x7000000000, 0x7000100000}, "i32", {1}, 4};
  return {buf, sems, errors, ScalarValue::u32(3)};
}

void expectRejected(const std::vector<KernelArg> &args,
                    const std::string &needle,
                    const KernelInfo &kernel = makeKernel(),
                    BindingTarget target = kTarget) {
  Status s = checkKernelArgs(kernel, args, target);
  ASSERT_FALSE(s) << "expected failure containing '" << needle << "'";
  EXPECT_EQ(s.error().code(), ErrorCode::InvalidArgument);
  EXPECT_NE(s.error().message().find(needle), std::string::npos)
      << s.error().message();
}

TEST(Binding, AcceptsMatchingArguments) {
  Status s = checkKernelArgs(makeKernel(), goodArgs(), kTarget);
  EXPECT_TRUE(s) << s.error().toString();
  // Untyped symmetric buffers are checked by size only.
  auto args = goodArgs();
  std::get<SymmetricBuffer>(args[0]).dtype.clear();
  std::get<SymmetricBuffer>(args[0]).shape.clear();
  EXPECT_TRUE(checkKernelArgs(makeKernel(), args, kTarget));
}

TEST(Binding, WrongCount) {
  auto args = goodArgs();
  args.pop_back();
  expectRejected(args, "expected 4 argument(s) (buf, sems, errors, iter), got 3");
}

TEST(Binding, WrongKind) {
  auto args = goodArgs();
  args[0] = DeviceBuffers{{0x1000, 0x2000}, "f32", {4, 256}, 4096};
  expectRejected(args, "argument 0 ('buf'): expected a symmetric buffer, got "
                       "device buffers");
  args = goodArgs();
  args[3] = SemaphoreArray{7, 0, 1};
  expectRejected(args, "argument 3 ('iter'): expected a scalar, got a "
                       "semaphore array");
}

TEST(Binding, SymmetricChecks) {
  auto args = goodArgs();
  std::get<SymmetricBuffer>(args[0]).heapId = 8;
  expectRejected(args, "'buf'): symmetric buffer comes from another heap");
  args = goodArgs();
  std::get<SymmetricBuffer>(args[0]).heapId = 0;
  expectRejected(args, "never allocated");
  args = goodArgs();
  std::get<SymmetricBuffer>(args[0]).dtype = "f16";
  expectRejected(args, "'buf'): expected dtype f32, got f16");
  args = goodArgs();
  std::get<SymmetricBuffer>(args[0]).shape = {256, 4};
  expectRejected(args, "expected shape f32[4x256], got f32[256x4]");
  args = goodArgs();
  std::get<SymmetricBuffer>(args[0]).bytes = 4095;
  expectRejected(args, "expected at least 4096 bytes (f32[4x256]), got 4095");
  args = goodArgs();
  std::get<SymmetricBuffer>(args[0]).offset = 4104;
  expectRejected(args, "heap offset 0x1008 is not aligned to 16 bytes");
}

TEST(Binding, SemaphoreChecks) {
  auto args = goodArgs();
  std::get<SemaphoreArray>(args[1]).count = 1;
  expectRejected(args, "'sems'): expected at least 2 semaphores, got 1");
  args = goodArgs();
  std::get<SemaphoreArray>(args[1]).heapId = 3;
  expectRejected(args, "'sems'): semaphore array comes from another heap");
}

TEST(Binding, DeviceBufferChecks) {
  auto args = goodArgs();
  std::get<DeviceBuffers>(args[2]).pointers.pop_back();
  expectRejected(args, "'errors'): expected one pointer per local device (2), "
                       "got 1");
  args = goodArgs();
  std::get<DeviceBuffers>(args[2]).pointers[1] = 0x7000100004;
  expectRejected(args, "pointer 0x7000100004 for local device 1 is not "
                       "aligned to 16 bytes");
  args = goodArgs();
  std::get<DeviceBuffers>(args[2]).pointers[0] = 0;
  expectRejected(args, "pointer for local device 0 is null");
  args = goodArgs();
  std::get<DeviceBuffers>(args[2]).dtype = "u32";
  expectRejected(args, "'errors'): expected dtype i32, got 'u32'");
  args = goodArgs();
  std::get<DeviceBuffers>(args[2]).shape = {2};
  expectRejected(args, "expected shape i32[1], got i32[2]");
  args = goodArgs();
  std::get<DeviceBuffers>(args[2]).bytes = 2;
  expectRejected(args, "expected at least 4 bytes");
}

TEST(Binding, OverflowingShapeNeedsMoreThanAnyBuffer) {
  // An unverified manifest whose byte size wraps to 0 must not make any
  // buffer big enough (verifyBundle rejects such a shape outright).
  KernelInfo k = makeKernel();
  k.params[2].shape = {int64_t(1) << 32, int64_t(1) << 31};
  auto args = goodArgs();
  std::get<DeviceBuffers>(args[2]).shape = k.params[2].shape;
  expectRejected(args,
                 "'errors'): expected at least 18446744073709551615 "
                 "bytes",
                 k);
}

TEST(Binding, ParamLayoutAgreesWithParamBlockBytes) {
  EXPECT_EQ(paramBlockBytes(makeKernel()),
            computeParamLayout(makeKernel()).totalBytes);
}

TEST(Binding, ScalarDtype) {
  auto args = goodArgs();
  args[3] = ScalarValue::f32(1.0f);
  expectRejected(args, "'iter'): expected a u32 scalar, got 'f32'");
}

TEST(Binding, TeamSizeMismatch) {
  KernelInfo k = makeKernel();
  k.teamSize = 4;
  expectRejected(goodArgs(), "compiled for a team of 4 devices, launched on a "
                             "team of 2",
                 k);
}

TEST(Binding, ParamLayoutAlignsEachKind) {
  ParamLayout layout = computeParamLayout(makeKernel());
  // buf 0, sems 8, errors 16, iter 24 (4 bytes), rank 28, team_size 32,
  // peer_bases 40 (8-aligned), tma 64 (64-aligned), end 192.
  std::vector<uint32_t> want = {0, 8, 16, 24, 28, 32, 40, 64};
  EXPECT_EQ(layout.offsets, want);
  EXPECT_EQ(layout.totalBytes, 192u);
  EXPECT_EQ(userParamCount(makeKernel()), 4u);
}

TEST(Binding, ScalarBits) {
  EXPECT_EQ(ScalarValue::f32(1.0f).bits, 0x3f800000u);
  EXPECT_EQ(ScalarValue::i32(-1).bits, 0xffffffffu);
  EXPECT_EQ(ScalarValue::f64(2.0).bits, 0x4000000000000000ull);
}

} // namespace
