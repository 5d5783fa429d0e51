//===- BundleVerify.cpp - The consistency checks of a bundle --------------===//
//
// verifyBundle: everything docs/BUNDLE.md requires of a bundle, whether it
// was parsed from a file or built in memory by the compiler; and the
// model's size helpers (dtypeBytes, paramBytes, tensorBytes,
// paramBlockBytes) that the checks, the binding and the compiler share.
//
//===----------------------------------------------------------------------===//

#include "weave/runtime/Bundle.h"
#include "weave/runtime/detail/BundleDetail.h"
#include "weave/runtime/detail/TmaLayout.h"

#include <cctype>
#include <map>
#include <set>

namespace weave {

Error bundleError(const std::string &message) {
  return Error(ErrorCode::InvalidBundle, message);
}

bool isUserKind(abi::ParamKind kind) {
  return kind == abi::ParamKind::Buffer || kind == abi::ParamKind::Symmetric ||
         kind == abi::ParamKind::Semaphore || kind == abi::ParamKind::Scalar;
}

bool isValidName(const std::string &name) {
  if (name.empty())
    return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
          c == '$'))
      return false;
  return true;
}

std::string describeKernel(const KernelInfo &kernel) {
  std::string text = "kernel '" + kernel.name + "'";
  if (kernel.functionName() != kernel.name)
    text += " (function '" + kernel.functionName() + "')";
  return text;
}

namespace {

Error kernelError(const KernelInfo &kernel, const std::string &message) {
  return bundleError("kernel '" + kernel.name + "': " + message);
}

/// The launch dimensions: what every sm_90 device accepts (hw::kMax*, HardwareLimits.h).
/// The device's own limits are checked again at launch (checkLaunchLimits).
Status verifyLaunchDims(const KernelInfo &kernel) {
  const char *axis[3] = {"x", "y", "z"};
  // A persistent grid (grid x 0, sized at launch) is [persistent, 1, 1].
  bool persistent = kernel.persistentGrid();
  if (persistent && (kernel.grid[1] != 1 || kernel.grid[2] != 1))
    return kernelError(kernel, "persistent grid " + formatDims(kernel.grid) +
                                   " has y or z other than 1");
  for (int i = 0; i < 3; ++i) {
    uint32_t maxGrid = i == 0 ? hw::kMaxGridDimX : hw::kMaxGridDimYZ;
    bool sizedAtLaunch = i == 0 && persistent;
    if (!sizedAtLaunch && (kernel.grid[i] == 0 || kernel.grid[i] > maxGrid))
      return kernelError(kernel, std::string("grid ") + axis[i] + " is " +
                                     std::to_string(kernel.grid[i]) +
                                     ", expected 1 to " +
                                     std::to_string(maxGrid));
    if (kernel.block[i] == 0 || kernel.block[i] > hw::kMaxBlockDim[i])
      return kernelError(kernel, std::string("block ") + axis[i] + " is " +
                                     std::to_string(kernel.block[i]) +
                                     ", expected 1 to " +
                                     std::to_string(hw::kMaxBlockDim[i]));
    if (kernel.cluster[i] == 0)
      return kernelError(kernel, std::string("cluster ") + axis[i] +
                                     " is 0, expected at least 1");
  }
  uint64_t threads = kernel.blockThreads();
  if (threads > hw::kMaxThreadsPerBlock)
    return kernelError(kernel, "block " + formatDims(kernel.block) + " has " +
                                   std::to_string(threads) +
                                   " threads, expected 1 to " +
                                   std::to_string(hw::kMaxThreadsPerBlock));
  uint64_t clusterBlocks = kernel.clusterBlocks();
  if (clusterBlocks > hw::kMaxClusterBlocks)
    return kernelError(
        kernel, "cluster " + formatDims(kernel.cluster) + " has " +
                    std::to_string(clusterBlocks) + " blocks, expected 1 to " +
                    std::to_string(hw::kMaxPortableClusterBlocks) + " (or " +
                    std::to_string(hw::kMaxClusterBlocks) +
                    " where the device allows non-portable cluster sizes)");
  for (int i = 0; i < 3; ++i)
    if (!(i == 0 && persistent) && kernel.grid[i] % kernel.cluster[i] != 0)
      return kernelError(kernel, "grid " + formatDims(kernel.grid) +
                                     " is not a multiple of cluster " +
                                     formatDims(kernel.cluster));
  // A cap on grid x: only of a persistent grid, whole clusters, a grid x
  // a launch takes.
  if (kernel.gridMax != 0) {
    if (!persistent)
      return kernelError(kernel, "grid_max " + std::to_string(kernel.gridMax) +
                                     " with the fixed grid " +
                                     formatDims(kernel.grid) +
                                     ": only a persistent grid has a cap");
    if (kernel.gridMax > hw::kMaxGridDimX ||
        kernel.gridMax % kernel.cluster[0] != 0)
      return kernelError(kernel,
                         "grid_max is " + std::to_string(kernel.gridMax) +
                             ", expected a multiple of cluster x (" +
                             std::to_string(kernel.cluster[0]) + ") up to " +
                             std::to_string(hw::kMaxGridDimX));
  }
  return ok();
}

Status verifyKernel(const KernelInfo &kernel) {
  WEAVE_TRY(verifyLaunchDims(kernel));
  if (kernel.computeCapability == 0)
    return kernelError(kernel, "compute capability is 0");

  // ABI order: user params, then exactly Rank, TeamSize, PeerBases, then
  // one Dim per '?', then Tma and TmaTable.
  const auto &params = kernel.params;
  std::set<std::string> names;
  for (const ParamInfo &param : params)
    if (!names.insert(param.name).second)
      return kernelError(kernel, "duplicate parameter name '" + param.name +
                                     "'");
  size_t userCount = userParamCount(kernel);
  size_t i = userCount;
  const abi::ParamKind team[3] = {abi::ParamKind::Rank,
                                  abi::ParamKind::TeamSize,
                                  abi::ParamKind::PeerBases};
  for (int t = 0; t < 3; ++t, ++i) {
    if (i >= params.size())
      return kernelError(kernel, "expected parameter " + std::to_string(i) +
                                     " to be " + paramKindName(team[t]) +
                                     " (team parameters rank, team_size, "
                                     "peer_bases follow the user parameters), "
                                     "found end of list");
    if (params[i].kind != team[t])
      return kernelError(kernel, "expected parameter " + std::to_string(i) +
                                     " ('" + params[i].name + "') to be " +
                                     paramKindName(team[t]) + ", found " +
                                     paramKindName(params[i].kind) +
                                     " (order: user parameters, then rank, "
                                     "team_size, peer_bases, then tma)");
  }
  // One dim parameter per dynamic dimension of the user buffers, in
  // parameter order, then outermost dimension first: the runtime fills
  // them and the kernel reads them in this order.
  for (size_t p = 0; p < userCount; ++p) {
    const ParamInfo &source = params[p];
    if (source.kind != abi::ParamKind::Buffer &&
        source.kind != abi::ParamKind::Symmetric)
      continue;
    for (size_t axis = 0; axis < source.shape.size(); ++axis) {
      if (source.shape[axis] != abi::kDynamicDim)
        continue;
      std::string wanted = "dim source=" + std::to_string(p) +
                           " axis=" + std::to_string(axis) + " (dimension " +
                           std::to_string(axis) + " of '" + source.name +
                           "' is '?')";
      if (i >= params.size())
        return kernelError(kernel, "expected parameter " + std::to_string(i) +
                                       " to be " + wanted +
                                       ", found end of list");
      const ParamInfo &dim = params[i];
      if (dim.kind != abi::ParamKind::Dim || dim.dim.sourceParam != p ||
          dim.dim.axis != axis)
        return kernelError(
            kernel, "expected parameter " + std::to_string(i) + " ('" +
                        dim.name + "') to be " + wanted + ", found " +
                        paramKindName(dim.kind) +
                        (dim.kind == abi::ParamKind::Dim
                             ? " source=" + std::to_string(dim.dim.sourceParam) +
                                   " axis=" + std::to_string(dim.dim.axis)
                             : std::string()) +
                        " (order: user parameters, rank, team_size, "
                        "peer_bases, one dim per '?' in parameter order, "
                        "then tma)");
      ++i;
    }
  }
  for (; i < params.size(); ++i)
    if (params[i].kind != abi::ParamKind::Tma &&
        params[i].kind != abi::ParamKind::TmaTable)
      return kernelError(kernel, "expected parameter " + std::to_string(i) +
                                     " ('" + params[i].name +
                                     "') to be tma or tma_table, found " +
                                     paramKindName(params[i].kind) +
                                     " (only tma and tma_table parameters may "
                                     "follow the team and dim parameters, and "
                                     "a dim parameter only for a '?' "
                                     "dimension)");

  for (size_t p = 0; p < params.size(); ++p) {
    const ParamInfo &param = params[p];
    std::string what = "parameter '" + param.name + "'";
    switch (param.kind) {
    case abi::ParamKind::Buffer:
    case abi::ParamKind::Symmetric:
      if (Expected<DType> dtype = parseDType(param.dtype); !dtype)
        return kernelError(kernel, what + ": " + dtype.error().message());
      if (param.shape.empty())
        return kernelError(kernel, what + " needs a shape");
      for (int64_t d : param.shape)
        if (d <= 0 && d != abi::kDynamicDim)
          return kernelError(kernel, what + " has a non-positive dimension " +
                                         std::to_string(d));
      // Generated code indexes with signed 64-bit offsets; a size that does
      // not fit would wrap (shape 2^32,2^32,2^32 used to size to 0 bytes).
      if (tensorBytes(param) > uint64_t(INT64_MAX))
        return kernelError(kernel, what + " of shape " + formatList(param.shape) +
                                       " x " + param.dtype +
                                       " has a byte size " +
                                       "that overflows 63 bits");
      if (!param.ranges.empty()) {
        if (param.ranges.size() != param.shape.size())
          return kernelError(kernel, what + " has " +
                                         std::to_string(param.ranges.size()) +
                                         " dimension ranges for a shape of " +
                                         std::to_string(param.shape.size()) +
                                         " dimensions");
        for (size_t axis = 0; axis < param.shape.size(); ++axis) {
          const DimRange &r = param.ranges[axis];
          int64_t d = param.shape[axis];
          bool good = d == abi::kDynamicDim ? r.lo >= 1 && r.lo <= r.hi
                                            : r.lo == d && r.hi == d;
          if (!good)
            return kernelError(
                kernel, what + " dimension " + std::to_string(axis) +
                            " has range " + formatRange(r) + ", expected " +
                            (d == abi::kDynamicDim
                                 ? std::string("1 <= lo <= hi")
                                 : std::to_string(d) + ".." +
                                       std::to_string(d) +
                                       " (the static size)"));
        }
      }
      [[fallthrough]];
    case abi::ParamKind::Semaphore:
      if (param.alignment < 16 || (param.alignment & (param.alignment - 1)))
        return kernelError(kernel, what + " alignment " +
                                       std::to_string(param.alignment) +
                                       " is not a power of two >= 16");
      if (param.kind == abi::ParamKind::Semaphore && param.semaphoreCount == 0)
        return kernelError(kernel, what + " needs count >= 1");
      break;
    case abi::ParamKind::Scalar: {
      uint32_t bytes = dtypeBytes(param.dtype);
      if (bytes != 4 && bytes != 8)
        return kernelError(kernel, what + " needs a 4- or 8-byte dtype, "
                                          "found '" + param.dtype + "'");
      if (!param.shape.empty())
        return kernelError(kernel, what + " is a scalar but has a shape");
      break;
    }
    case abi::ParamKind::Rank:
    case abi::ParamKind::TeamSize:
    case abi::ParamKind::PeerBases:
      break;
    case abi::ParamKind::Dim:
      // Placed and matched to its dimension by the order check above; an
      // equality names another Dim parameter.
      if (param.dim.equals != DimInfo::kNone &&
          (param.dim.equals >= params.size() || param.dim.equals == p ||
           params[param.dim.equals].kind != abi::ParamKind::Dim))
        return kernelError(kernel, what + " equals=" +
                                       std::to_string(param.dim.equals) +
                                       " must name another dim parameter");
      break;
    case abi::ParamKind::Tma:
    case abi::ParamKind::TmaTable: {
      uint32_t src = param.tma.sourceParam;
      if (src >= userCount ||
          (params[src].kind != abi::ParamKind::Buffer &&
           params[src].kind != abi::ParamKind::Symmetric))
        return kernelError(
            kernel, what + " source=" + std::to_string(src) +
                        " must name a buffer or symmetric parameter, found " +
                        (src < params.size()
                             ? std::string(paramKindName(params[src].kind)) +
                                   " '" + params[src].name + "'"
                             : std::string("no such parameter")));
      if (param.tma.isPeerView && params[src].kind != abi::ParamKind::Symmetric)
        return kernelError(kernel, what + " is a peer view of '" +
                                       params[src].name +
                                       "', which is not symmetric");
      // A table views every member's copy: only symmetric buffers have one.
      if (param.kind == abi::ParamKind::TmaTable &&
          params[src].kind != abi::ParamKind::Symmetric)
        return kernelError(kernel, what + " is a per-member table over '" +
                                       params[src].name +
                                       "', which is not symmetric");
      if (!param.dtype.empty() && param.dtype != params[src].dtype)
        return kernelError(kernel, what + " dtype '" + param.dtype +
                                       "' differs from its source's '" +
                                       params[src].dtype + "'");
      if (!param.shape.empty() && param.shape != params[src].shape)
        return kernelError(kernel, what + " shape differs from its source's");
      auto layout = computeTmaLayout(param, params[src]);
      if (!layout)
        return kernelError(kernel, layout.error().message());
      break;
    }
    }
  }
  uint64_t paramBytesTotal = paramBlockBytes(kernel);
  if (paramBytesTotal > abi::kMaxParamBlockBytes)
    return kernelError(kernel, "parameters take " +
                                   std::to_string(paramBytesTotal) +
                                   " bytes, expected at most " +
                                   std::to_string(abi::kMaxParamBlockBytes) +
                                   " (the launch parameter space)");
  return ok();
}

} // namespace

uint32_t dtypeBytes(const std::string &dtype) {
  std::optional<DType> known = findDType(dtype);
  return known ? traitsOf(*known).bytes : 0;
}

uint32_t paramBytes(const ParamInfo &param) {
  switch (param.kind) {
  case abi::ParamKind::Buffer:
  case abi::ParamKind::Symmetric:
  case abi::ParamKind::Semaphore:
  case abi::ParamKind::PeerBases:
    return abi::kPointerParamBytes;
  case abi::ParamKind::Scalar:
    return dtypeBytes(param.dtype);
  case abi::ParamKind::Rank:
  case abi::ParamKind::TeamSize:
    return abi::kTeamScalarParamBytes;
  case abi::ParamKind::Tma:
    return abi::kTmaParamBytes;
  case abi::ParamKind::Dim:
    return abi::kDimParamBytes;
  case abi::ParamKind::TmaTable:
    return abi::kPointerParamBytes;
  }
  return 0;
}

uint64_t tensorBytes(const ParamInfo &param) {
  if (param.shape.empty())
    return 0;
  uint64_t bytes = dtypeBytes(param.dtype);
  for (int64_t d : param.shape) {
    // A dynamic dimension is at least 1 at launch; any other negative
    // (malformed) dimension sizes to 0, which verifyBundle rejects.
    uint64_t extent = d == abi::kDynamicDim ? 1 : d < 0 ? 0 : uint64_t(d);
    if (!checkedMul(bytes, extent, bytes))
      return UINT64_MAX;
  }
  return bytes;
}

size_t userParamCount(const KernelInfo &kernel) {
  size_t n = 0;
  while (n < kernel.params.size() && isUserKind(kernel.params[n].kind))
    ++n;
  return n;
}

uint64_t paramBlockBytes(const KernelInfo &kernel) {
  uint64_t offset = 0;
  for (const ParamInfo &param : kernel.params) {
    uint64_t size = paramBytes(param);
    uint64_t align =
        param.kind == abi::ParamKind::Tma ? abi::kTmaParamAlign : size;
    if (align > 1)
      offset = (offset + align - 1) / align * align;
    offset += size;
  }
  return offset;
}

const KernelInfo *findKernel(const Bundle &bundle, const std::string &name) {
  for (const KernelInfo &kernel : bundle.kernels)
    if (kernel.name == name)
      return &kernel;
  return nullptr;
}

std::vector<const KernelInfo *> findVariants(const Bundle &bundle,
                                             const std::string &name) {
  std::vector<const KernelInfo *> variants;
  for (const KernelInfo &kernel : bundle.kernels)
    if (!kernel.variantOf.empty() && kernel.variantOf == name)
      variants.push_back(&kernel);
  return variants;
}

namespace {

/// The first thing the code or the launch reads of a parameter in which `a`
/// and `b` differ: "kind", "name", "dtype", "shape", "alignment", "count",
/// "tma" (a tma or tma_table's source, box, swizzle and view) or "dim" (a
/// dim's source, axis and equals); null when they agree. Their ranges may
/// differ: variants and entries sharing a function each take their own.
const char *paramDifference(const ParamInfo &a, const ParamInfo &b) {
  if (a.kind != b.kind)
    return "kind";
  if (a.name != b.name)
    return "name";
  if (a.dtype != b.dtype)
    return "dtype";
  if (a.shape != b.shape)
    return "shape";
  if (a.alignment != b.alignment)
    return "alignment";
  if (a.semaphoreCount != b.semaphoreCount)
    return "count";
  if ((a.kind == abi::ParamKind::Tma || a.kind == abi::ParamKind::TmaTable) &&
      (a.tma.sourceParam != b.tma.sourceParam || a.tma.box != b.tma.box ||
       a.tma.swizzleBytes != b.tma.swizzleBytes ||
       a.tma.isPeerView != b.tma.isPeerView ||
       a.tma.peerOffset != b.tma.peerOffset))
    return "tma";
  if (a.kind == abi::ParamKind::Dim &&
      (a.dim.sourceParam != b.dim.sourceParam || a.dim.axis != b.dim.axis ||
       a.dim.equals != b.dim.equals))
    return "dim";
  return nullptr;
}

/// The variants of one name launch with the same arguments: the same user
/// parameters (kind, name, dtype, shape, alignment, count), ranged or not
/// alike, and team size; only their ranges, launch shape and generated
/// parameters differ.
Status verifyVariants(const Bundle &bundle) {
  std::set<std::string> groups;
  for (const KernelInfo &kernel : bundle.kernels)
    if (!kernel.variantOf.empty())
      groups.insert(kernel.variantOf);
  for (const std::string &group : groups) {
    if (!isValidName(group))
      return bundleError("invalid variant_of name '" + group + "'");
    if (findKernel(bundle, group))
      return bundleError("kernel '" + group +
                         "' is also the name of a variant group (variant_of " +
                         group + "): Kernel::get could not tell them apart");
    std::vector<const KernelInfo *> variants = findVariants(bundle, group);
    const KernelInfo &first = *variants.front();
    size_t users = userParamCount(first);
    for (const KernelInfo *other : variants) {
      auto differ = [&](const std::string &what) {
        return kernelError(*other, "variant of '" + group + "' " + what +
                                       " differs from variant '" + first.name +
                                       "''s (variants take the same arguments)");
      };
      if (other->teamSize != first.teamSize)
        return differ("team size");
      if (userParamCount(*other) != users)
        return differ("user parameter count");
      for (size_t p = 0; p < users; ++p) {
        if (paramDifference(first.params[p], other->params[p]))
          return differ("parameter " + std::to_string(p) + " ('" +
                        other->params[p].name + "')");
        // chooseVariant reads the sizes of the first's ranged parameters.
        if (first.params[p].ranges.empty() != other->params[p].ranges.empty())
          return differ("parameter " + std::to_string(p) + " ('" +
                        other->params[p].name + "')'s having ranges");
      }
    }
  }
  return ok();
}

/// Entries that launch one cubin function (the same functionName()) run
/// the same code the same way: they agree on the launch shape, the team
/// size, the compute capability and every parameter but its ranges. Only
/// their names, variant_of, config and ranges differ. Each is compared
/// with the first entry, in manifest order, that launches the function.
Status verifySharedFunctions(const Bundle &bundle) {
  std::map<std::string, const KernelInfo *> firstOf;
  for (const KernelInfo &kernel : bundle.kernels) {
    auto [at, inserted] = firstOf.emplace(kernel.functionName(), &kernel);
    if (inserted)
      continue;
    const KernelInfo &first = *at->second;
    auto differ = [&](const std::string &what, const std::string &mine,
                      const std::string &theirs) {
      return bundleError(
          "kernel '" + kernel.name + "' shares function '" +
          kernel.functionName() + "' with kernel '" + first.name +
          "' but its " + what +
          (mine.empty() ? " differs" : " " + mine + " differs from " + theirs) +
          " (entries sharing a function launch alike)");
    };
    auto differDims = [&](const char *what,
                          std::array<uint32_t, 3> KernelInfo::*dims) {
      return differ(what, formatDims(kernel.*dims), formatDims(first.*dims));
    };
    auto differValue = [&](const char *what, uint32_t KernelInfo::*value) {
      return differ(what, std::to_string(kernel.*value),
                    std::to_string(first.*value));
    };
    if (kernel.grid != first.grid)
      return differDims("grid", &KernelInfo::grid);
    if (kernel.gridMax != first.gridMax)
      return differValue("grid_max", &KernelInfo::gridMax);
    if (kernel.block != first.block)
      return differDims("block", &KernelInfo::block);
    if (kernel.cluster != first.cluster)
      return differDims("cluster", &KernelInfo::cluster);
    if (kernel.dynamicSmemBytes != first.dynamicSmemBytes)
      return differValue("dynamic shared memory (smem)",
                         &KernelInfo::dynamicSmemBytes);
    if (kernel.teamSize != first.teamSize)
      return differValue("team size", &KernelInfo::teamSize);
    if (kernel.computeCapability != first.computeCapability)
      return differValue("compute capability", &KernelInfo::computeCapability);
    if (kernel.params.size() != first.params.size())
      return differ("parameter count", std::to_string(kernel.params.size()),
                    std::to_string(first.params.size()));
    for (size_t p = 0; p < kernel.params.size(); ++p)
      if (const char *what = paramDifference(kernel.params[p], first.params[p]))
        return differ("parameter " + std::to_string(p) + " ('" +
                          kernel.params[p].name + "') " + what,
                      "", "");
  }
  return ok();
}

} // namespace

Status verifyBundle(const Bundle &bundle) {
  if (bundle.arch.rfind("sm_", 0) != 0)
    return bundleError("arch must look like 'sm_90a', found '" + bundle.arch +
                       "'");
  if (bundle.producer.find('\n') != std::string::npos)
    return bundleError("producer must be a single line");
  if (bundle.kernels.empty())
    return bundleError("bundle has no kernels");
  std::set<std::string> names;
  for (const KernelInfo &kernel : bundle.kernels) {
    if (!isValidName(kernel.name))
      return bundleError("invalid kernel name '" + kernel.name + "'");
    if (!names.insert(kernel.name).second)
      return bundleError("duplicate kernel name '" + kernel.name + "'");
    if (!kernel.function.empty() && !isValidName(kernel.function))
      return kernelError(kernel,
                         "invalid function name '" + kernel.function + "'");
    for (const ParamInfo &param : kernel.params)
      if (!isValidName(param.name))
        return kernelError(kernel, "invalid parameter name '" + param.name +
                                       "'");
    WEAVE_TRY(verifyKernel(kernel));
  }
  WEAVE_TRY(verifyVariants(bundle));
  WEAVE_TRY(verifySharedFunctions(bundle));
  if (bundle.cubin.empty())
    return bundleError("bundle has no cubin");
  auto symbols = readCubinSymbols(bundle.cubin.data(), bundle.cubin.size());
  if (!symbols)
    return std::move(symbols).takeError();
  std::set<std::string> symbolSet(symbols->begin(), symbols->end());
  for (const KernelInfo &kernel : bundle.kernels)
    if (!symbolSet.count(kernel.functionName()))
      return bundleError(describeKernel(kernel) +
                         " is not in the cubin's symbol table (" +
                         std::to_string(symbols->size()) + " symbols)");
  return ok();
}

} // namespace weave
