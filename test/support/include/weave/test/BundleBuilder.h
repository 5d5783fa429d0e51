//===- BundleBuilder.h - Manifests written by hand for tests ----*- C++ -*-===//
//
// Tests and benchmarks that load hand-written cubins (nvcc output standing
// in for weavec) describe the kernels themselves. These helpers build those
// manifest entries. No CUDA here: the CPU unit tests use them too.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_TEST_BUNDLEBUILDER_H
#define WEAVE_TEST_BUNDLEBUILDER_H

#include "weave/runtime/Bundle.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace weave {
namespace test {

/// A parameter of `kind`; dtype and shape where the kind has them.
ParamInfo param(abi::ParamKind kind, std::string name, std::string dtype = "",
                std::vector<int64_t> shape = {});

/// A Semaphore parameter of `count` u32 counters.
ParamInfo semaphoreParam(std::string name, uint32_t count);

/// Appends the rank, team_size and peer_bases parameters that follow the
/// user parameters in the ABI.
void addTeamParams(KernelInfo &kernel);

/// Appends one Dim parameter per `?` dimension of the kernel's user
/// buffers (named `<buffer>.dim<axis>`), as the ABI orders them after the
/// team parameters.
void addDimParams(KernelInfo &kernel);

/// A kernel entry: `userParams`, then the team parameters.
KernelInfo kernelInfo(std::string name, std::array<uint32_t, 3> grid,
                      std::array<uint32_t, 3> block, uint32_t teamSize,
                      std::vector<ParamInfo> userParams);

/// A bundle of `kernels` over `cubin` for sm_90a.
Bundle wrapCubin(std::vector<uint8_t> cubin, std::vector<KernelInfo> kernels,
                 std::string producer);

/// The bytes of the file at `path`; empty when it cannot be read.
std::vector<uint8_t> readFileBytes(const std::string &path);

} // namespace test
} // namespace weave

#endif // WEAVE_TEST_BUNDLEBUILDER_H
