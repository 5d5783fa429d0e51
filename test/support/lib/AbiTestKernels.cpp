//===- AbiTestKernels.cpp - The manifest of kernels/AbiTestKernels.cu -----===//
//
// Keep each entry in step with the kernel's comment in AbiTestKernels.cu.
//
//===----------------------------------------------------------------------===//

#include "weave/test/AbiTestKernels.h"
#include "weave/test/BundleBuilder.h"

#include <cstdlib>

namespace weave {
namespace test {

using abi::ParamKind;

const char *abiTestCubinPath() {
  // A test binary carried to a GPU machine finds the cubin it was built
  // with at WEAVE_ABI_TEST_CUBIN there; the build path need not exist.
  if (const char *path = std::getenv("WEAVE_ABI_TEST_CUBIN"))
    return path;
  return WEAVE_ABI_TEST_CUBIN;
}

Bundle abiTestBundle(std::vector<uint8_t> cubin) {
  std::vector<KernelInfo> kernels;
  kernels.push_back(
      kernelInfo("ring_exchange", {1, 1, 1}, {256, 1, 1}, /*teamSize=*/0,
                 {param(ParamKind::Symmetric, "buf", "i32", {4096}),
                  semaphoreParam("sems", 1),
                  param(ParamKind::Buffer, "errors", "i32", {2}),
                  param(ParamKind::Scalar, "iter", "u32")}));
  kernels.push_back(
      kernelInfo("ping_pong", {1, 1, 1}, {32, 1, 1}, /*teamSize=*/2,
                 {semaphoreParam("sems", 2),
                  param(ParamKind::Symmetric, "mailbox", "u32", {2}),
                  param(ParamKind::Buffer, "errors", "i32", {4}),
                  param(ParamKind::Scalar, "rounds", "u32")}));

  KernelInfo peek =
      kernelInfo("tma_peek", {1, 1, 1}, {128, 1, 1}, /*teamSize=*/0,
                 {param(ParamKind::Symmetric, "src", "f32", {8, 32}),
                  param(ParamKind::Buffer, "out", "f32", {8, 32})});
  ParamInfo view = param(ParamKind::Tma, "src_peer");
  view.tma.sourceParam = 0;
  view.tma.box = {32, 8};
  view.tma.isPeerView = true;
  view.tma.peerOffset = 1;
  peek.params.push_back(view);
  kernels.push_back(peek);

  for (const char *name : {"bench_ping_pong_sem", "bench_ping_pong_flag"})
    kernels.push_back(kernelInfo(name, {1, 1, 1}, {32, 1, 1}, /*teamSize=*/2,
                                 {semaphoreParam("sems", 2),
                                  param(ParamKind::Scalar, "rounds", "u32")}));
  // Two blocks of 512 threads an SM of an H100: a team's kernel must be
  // resident at once (Kernel::planGrid), and 132 x 4 = 528 was refused
  // where 396 fit (3 an SM by registers); the loop strides over the grid.
  kernels.push_back(kernelInfo(
      "bench_put", {132 * 2, 1, 1}, {512, 1, 1}, /*teamSize=*/2,
      {param(ParamKind::Symmetric, "src", "i32", {int64_t(kPutWords)}),
       param(ParamKind::Symmetric, "dst", "i32", {int64_t(kPutWords)}),
       param(ParamKind::Scalar, "active", "u32")}));
  return wrapCubin(std::move(cubin), std::move(kernels),
                   "nvcc (AbiTestKernels.cu)");
}

Expected<Bundle> loadAbiTestBundle(const std::string &path) {
  std::string file = path.empty() ? abiTestCubinPath() : path;
  std::vector<uint8_t> cubin = readFileBytes(file);
  if (cubin.empty())
    return Error(ErrorCode::NotFound,
                 file.empty()
                     ? "the ABI test cubin was not built (no nvcc)"
                     : "cannot read the ABI test cubin '" + file + "'");
  return abiTestBundle(std::move(cubin));
}

} // namespace test
} // namespace weave
