//===- AbiTestKernels.h - Hand-written ABI kernels and their manifest -*- C++
//-*-//
//
// kernels/AbiTestKernels.cu holds CUDA kernels written by hand to follow the
// kernel ABI (user parameters, then rank, team_size, peer_bases, then TMA
// descriptors), standing in for weavec output in the runtime's GPU tests and
// benchmarks. The build compiles it once with nvcc (-arch=sm_90a); this
// header gives the cubin's path and the manifest describing its kernels.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_TEST_ABITESTKERNELS_H
#define WEAVE_TEST_ABITESTKERNELS_H

#include "weave/runtime/Bundle.h"

#include <cstdint>
#include <string>
#include <vector>

namespace weave {
namespace test {

/// i32 words that bench_put moves (128 MiB); fixed in the kernel too.
inline constexpr uint64_t kPutWords = uint64_t(32) << 20;

/// Path of the nvcc-built cubin: $WEAVE_ABI_TEST_CUBIN if set, else where
/// the build put it; "" when the build had no nvcc.
const char *abiTestCubinPath();

/// The manifest of every kernel in AbiTestKernels.cu over `cubin`:
/// ring_exchange (first), ping_pong, tma_peek, bench_ping_pong_sem,
/// bench_ping_pong_flag, bench_put.
Bundle abiTestBundle(std::vector<uint8_t> cubin);

/// abiTestBundle over the cubin at `path` (abiTestCubinPath() when empty);
/// NotFound when the file cannot be read.
Expected<Bundle> loadAbiTestBundle(const std::string &path = "");

} // namespace test
} // namespace weave

#endif // WEAVE_TEST_ABITESTKERNELS_H
