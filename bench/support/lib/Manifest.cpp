//===- Manifest.cpp - Checking a benchmark kernel's contract --------------===//

#include "weave/bench/Manifest.h"

#include "weave/runtime/KernelArgs.h"

#include <algorithm>
#include <filesystem>

namespace weave {
namespace bench {

namespace {
template <typename T, size_t N> std::string dims(const std::array<T, N> &d) {
  std::string out;
  for (size_t i = 0; i < N; ++i)
    out += (i ? "x" : "") + std::to_string(d[i]);
  return out;
}
} // namespace

Expected<const KernelInfo *> contractKernel(const Bundle &bundle,
                                            const std::string &name) {
  if (const KernelInfo *k = findKernel(bundle, name))
    return k;
  // A name with variants: they take the same arguments (verifyBundle), so
  // the first stands for all.
  if (std::vector<const KernelInfo *> v = findVariants(bundle, name);
      !v.empty())
    return v.front();
  std::string names;
  for (const KernelInfo &k : bundle.kernels)
    names += (names.empty() ? "" : ", ") + k.name;
  return Error(ErrorCode::NotFound, "the bundle has no kernel '" + name +
                                        "' (it has: " + names + ")");
}

Status expectUserParamCount(const KernelInfo &kernel, size_t count) {
  size_t have = userParamCount(kernel);
  if (have != count)
    return Error(ErrorCode::InvalidBundle,
                 "kernel '" + kernel.name + "' has " + std::to_string(have) +
                     " user parameters, the benchmark expects " +
                     std::to_string(count));
  return ok();
}

Expected<const ParamInfo *> contractParam(const KernelInfo &kernel,
                                          size_t index, const std::string &name,
                                          abi::ParamKind kind,
                                          const std::string &dtype, int rank) {
  std::string where =
      "kernel '" + kernel.name + "' parameter " + std::to_string(index);
  if (index >= kernel.params.size())
    return Error(ErrorCode::InvalidBundle, where + " does not exist");
  const ParamInfo &p = kernel.params[index];
  if (p.name != name || p.kind != kind)
    return Error(ErrorCode::InvalidBundle, where + " is '" + p.name + "' (" +
                                               paramKindName(p.kind) +
                                               "), expected '" + name + "' (" +
                                               paramKindName(kind) + ")");
  if (!dtype.empty() && p.dtype != dtype)
    return Error(ErrorCode::InvalidBundle, where + " ('" + name +
                                               "') has dtype " + p.dtype +
                                               ", expected " + dtype);
  if (rank >= 0 && p.shape.size() != static_cast<size_t>(rank))
    return Error(ErrorCode::InvalidBundle,
                 where + " ('" + name + "') has shape " + shapeText(p.shape) +
                     ", expected rank " + std::to_string(rank));
  return &p;
}

Expected<MatmulParams> matmulParams(const KernelInfo &kernel,
                                    const std::string &dtype,
                                    abi::ParamKind aKind) {
  MatmulParams p;
  WEAVE_ASSIGN_OR_RETURN(p.a, contractParam(kernel, 0, "a", aKind, dtype, 2));
  WEAVE_ASSIGN_OR_RETURN(
      p.b, contractParam(kernel, 1, "b", abi::ParamKind::Buffer, dtype, 2));
  WEAVE_ASSIGN_OR_RETURN(
      p.c, contractParam(kernel, 2, "c", abi::ParamKind::Buffer, dtype, 2));
  return p;
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    out += (i ? "," : "") + std::to_string(shape[i]);
  return out + "]";
}

std::string launchSummary(const KernelInfo &kernel) {
  std::string grid = kernel.persistentGrid() ? "persistentx1x1" : dims(kernel.grid);
  std::string out = kernel.name + ": grid " + grid + ", block " +
                    dims(kernel.block) + ", cluster " + dims(kernel.cluster) +
                    ", dynamic smem " +
                    std::to_string(kernel.dynamicSmemBytes) + " B";
  for (const ParamInfo &p : kernel.params) {
    if (p.kind != abi::ParamKind::Tma && p.kind != abi::ParamKind::TmaTable)
      continue;
    std::string box;
    for (size_t i = 0; i < p.tma.box.size(); ++i)
      box += (i ? "x" : "") + std::to_string(p.tma.box[i]);
    out += ", tma " + p.name + " box " + box + " (innermost first)";
    if (p.tma.swizzleBytes)
      out += " swizzle " + std::to_string(p.tma.swizzleBytes);
    if (p.tma.isPeerView)
      out += " peer " + std::to_string(p.tma.peerOffset);
    if (p.kind == abi::ParamKind::TmaTable)
      out += " per member";
  }
  return out;
}

std::vector<BundleFile> findBundleFiles(const std::string &dir,
                                        const std::regex &pattern) {
  namespace fs = std::filesystem;
  std::vector<BundleFile> files;
  std::error_code ec;
  for (const auto &entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    std::smatch m;
    if (!std::regex_match(name, m, pattern))
      continue;
    BundleFile file{entry.path().string(), {}};
    for (const auto &group : m)
      file.groups.push_back(group.str());
    files.push_back(std::move(file));
  }
  std::sort(files.begin(), files.end(),
            [](const BundleFile &a, const BundleFile &b) {
              return a.groups[0] < b.groups[0];
            });
  return files;
}

} // namespace bench
} // namespace weave
