//===- BundleBuilder.cpp - Manifests written by hand for tests ------------===//

#include "weave/test/BundleBuilder.h"

#include <fstream>
#include <iterator>

namespace weave {
namespace test {

ParamInfo param(abi::ParamKind kind, std::string name, std::string dtype,
                std::vector<int64_t> shape) {
  ParamInfo p;
  p.kind = kind;
  p.name = std::move(name);
  p.dtype = std::move(dtype);
  p.shape = std::move(shape);
  return p;
}

ParamInfo semaphoreParam(std::string name, uint32_t count) {
  ParamInfo p = param(abi::ParamKind::Semaphore, std::move(name));
  p.semaphoreCount = count;
  return p;
}

void addTeamParams(KernelInfo &kernel) {
  kernel.params.push_back(param(abi::ParamKind::Rank, "rank"));
  kernel.params.push_back(param(abi::ParamKind::TeamSize, "team_size"));
  kernel.params.push_back(param(abi::ParamKind::PeerBases, "peer_bases"));
}

void addDimParams(KernelInfo &kernel) {
  size_t count = kernel.params.size();
  for (size_t p = 0; p < count; ++p) {
    // A copy: push_back below may move the vector's elements, and a
    // reference into it then dangles (the runtime-only build's seed corpus
    // lost the dim parameter of a second '?' that way).
    const ParamInfo source = kernel.params[p];
    if (source.kind != abi::ParamKind::Buffer &&
        source.kind != abi::ParamKind::Symmetric)
      continue;
    for (size_t axis = 0; axis < source.shape.size(); ++axis) {
      if (source.shape[axis] != abi::kDynamicDim)
        continue;
      ParamInfo dim = param(abi::ParamKind::Dim,
                            source.name + ".dim" + std::to_string(axis));
      dim.dim.sourceParam = static_cast<uint32_t>(p);
      dim.dim.axis = static_cast<uint32_t>(axis);
      kernel.params.push_back(std::move(dim));
    }
  }
}

KernelInfo kernelInfo(std::string name, std::array<uint32_t, 3> grid,
                      std::array<uint32_t, 3> block, uint32_t teamSize,
                      std::vector<ParamInfo> userParams) {
  KernelInfo k;
  k.name = std::move(name);
  k.grid = grid;
  k.block = block;
  k.teamSize = teamSize;
  k.params = std::move(userParams);
  addTeamParams(k);
  return k;
}

Bundle wrapCubin(std::vector<uint8_t> cubin, std::vector<KernelInfo> kernels,
                 std::string producer) {
  Bundle b;
  b.arch = "sm_90a";
  b.producer = std::move(producer);
  b.kernels = std::move(kernels);
  b.cubin = std::move(cubin);
  return b;
}

std::vector<uint8_t> readFileBytes(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return {};
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(file)),
                              std::istreambuf_iterator<char>());
}

} // namespace test
} // namespace weave
