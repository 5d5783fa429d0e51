//===- Binding.cpp - Checking kernel arguments against the manifest -------===//

#include "weave/runtime/KernelArgs.h"
#include "weave/runtime/detail/BundleDetail.h"
#include "weave/runtime/detail/TmaLayout.h"

namespace weave {

namespace {

const char *argKindName(const KernelArg &arg) {
  switch (arg.index()) {
  case 0:
    return "a symmetric buffer";
  case 1:
    return "a semaphore array";
  case 2:
    return "device buffers";
  default:
    return "a scalar";
  }
}

const char *expectedArgKind(abi::ParamKind kind) {
  switch (kind) {
  case abi::ParamKind::Symmetric:
    return "a symmetric buffer";
  case abi::ParamKind::Semaphore:
    return "a semaphore array";
  case abi::ParamKind::Buffer:
    return "device buffers";
  default:
    return "a scalar";
  }
}

std::string shapeText(const std::string &dtype,
                      const std::vector<int64_t> &shape) {
  std::string text = dtype + "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "x" : "") + (shape[i] == abi::kDynamicDim
                                  ? std::string("?")
                                  : std::to_string(shape[i]));
  return text + "]";
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

/// The shape an argument carries, if any.
const std::vector<int64_t> *argShape(const KernelArg &arg) {
  if (auto *buf = std::get_if<SymmetricBuffer>(&arg))
    return &buf->shape;
  if (auto *bufs = std::get_if<DeviceBuffers>(&arg))
    return &bufs->shape;
  return nullptr;
}

/// Checks the shape `got` of an argument against `param`'s: same rank,
/// equal static dimensions, and dynamic ones of at least 1 whose byte size
/// (with the static ones) fits in 63 bits, which the generated code indexes
/// with. Returns the message, or "" when it matches.
std::string shapeMismatch(const ParamInfo &param, const std::string &dtype,
                          const std::vector<int64_t> &got) {
  std::string expected = "expected shape " + shapeText(param.dtype, param.shape) +
                         ", got " + shapeText(dtype, got);
  if (got.size() != param.shape.size())
    return expected;
  for (size_t i = 0; i < got.size(); ++i) {
    if (param.shape[i] == abi::kDynamicDim) {
      if (got[i] < 1)
        return expected + " (dynamic dimension " + std::to_string(i) +
               " must be at least 1)";
      if (!param.ranges.empty() && !param.ranges[i].contains(got[i]))
        return expected + " (dimension " + std::to_string(i) + " is " +
               std::to_string(got[i]) + ", outside " +
               formatRange(param.ranges[i]) +
               ", the sizes the kernel was compiled for)";
      continue;
    }
    if (got[i] != param.shape[i])
      return expected;
  }
  // (A static shape's size is verifyBundle's to check.)
  ParamInfo bound = param;
  bound.shape = got;
  if (param.hasDynamicDims() && tensorBytes(bound) > uint64_t(INT64_MAX))
    return expected + " (its byte size overflows 63 bits; the kernel indexes "
                      "with signed 64-bit offsets)";
  return "";
}

} // namespace

std::vector<int64_t> launchShape(const ParamInfo &param, const KernelArg &arg) {
  const std::vector<int64_t> *shape = argShape(arg);
  if (param.hasDynamicDims() && shape && shape->size() == param.shape.size())
    return *shape;
  return param.shape;
}

int64_t dimLaunchSize(const KernelInfo &kernel, const ParamInfo &dim,
                      const std::vector<KernelArg> &args) {
  size_t src = dim.dim.sourceParam;
  return launchShape(kernel.params[src], args[src]).at(dim.dim.axis);
}

ParamInfo withLaunchShape(const ParamInfo &param, const KernelArg &arg) {
  ParamInfo bound = param;
  bound.shape = launchShape(param, arg);
  return bound;
}

Status checkKernelArgs(const KernelInfo &kernel,
                       const std::vector<KernelArg> &args,
                       const BindingTarget &target) {
  auto fail = [&](const std::string &message) {
    return Error(ErrorCode::InvalidArgument,
                 "kernel '" + kernel.name + "': " + message);
  };
  size_t expected = userParamCount(kernel);
  if (args.size() != expected) {
    std::string names;
    for (size_t i = 0; i < expected; ++i)
      names += (i ? ", " : "") + kernel.params[i].name;
    return fail("expected " + std::to_string(expected) + " argument(s) (" +
                names + "), got " + std::to_string(args.size()));
  }
  if (kernel.teamSize != 0 && kernel.teamSize != target.teamSize)
    return fail("compiled for a team of " + std::to_string(kernel.teamSize) +
                " devices, launched on a team of " +
                std::to_string(target.teamSize));
  for (size_t i = 0; i < args.size(); ++i) {
    const ParamInfo &param = kernel.params[i];
    const KernelArg &arg = args[i];
    std::string what =
        "argument " + std::to_string(i) + " ('" + param.name + "')";
    size_t wanted = param.kind == abi::ParamKind::Symmetric   ? 0
                    : param.kind == abi::ParamKind::Semaphore ? 1
                    : param.kind == abi::ParamKind::Buffer    ? 2
                                                              : 3;
    if (arg.index() != wanted)
      return fail(what + ": expected " + expectedArgKind(param.kind) +
                  ", got " + argKindName(arg));
    uint64_t needBytes = tensorBytes(param);
    switch (param.kind) {
    case abi::ParamKind::Symmetric: {
      const auto &buf = std::get<SymmetricBuffer>(arg);
      if (buf.heapId == 0)
        return fail(what + ": symmetric buffer was never allocated");
      if (buf.heapId != target.heapId)
        return fail(what + ": symmetric buffer comes from another heap (" +
                    std::to_string(buf.heapId) + "), not this team's heap (" +
                    std::to_string(target.heapId) + ")");
      if (!buf.dtype.empty() && buf.dtype != param.dtype)
        return fail(what + ": expected dtype " + param.dtype + ", got " +
                    buf.dtype);
      // An untyped buffer (no shape) binds to a static parameter by its
      // size; a dynamic one takes its sizes from the shape.
      if (buf.shape.empty() && param.hasDynamicDims())
        return fail(what + ": expected a buffer of shape " +
                    shapeText(param.dtype, param.shape) +
                    ", got an untyped symmetric buffer: dynamic dimensions "
                    "take their sizes from the buffer's shape "
                    "(SymmetricHeap::allocateTensor)");
      if (!buf.shape.empty()) {
        std::string mismatch = shapeMismatch(
            param, buf.dtype.empty() ? param.dtype : buf.dtype, buf.shape);
        if (!mismatch.empty())
          return fail(what + ": " + mismatch);
        needBytes = tensorBytes(withLaunchShape(param, arg));
      }
      if (buf.bytes < needBytes)
        return fail(what + ": expected at least " + std::to_string(needBytes) +
                    " bytes (" +
                    shapeText(param.dtype, launchShape(param, arg)) +
                    "), got " + std::to_string(buf.bytes));
      if (buf.offset % param.alignment != 0)
        return fail(what + ": heap offset " + hex(buf.offset) +
                    " is not aligned to " + std::to_string(param.alignment) +
                    " bytes");
      break;
    }
    case abi::ParamKind::Semaphore: {
      const auto &sem = std::get<SemaphoreArray>(arg);
      if (sem.heapId == 0)
        return fail(what + ": semaphore array was never allocated");
      if (sem.heapId != target.heapId)
        return fail(what + ": semaphore array comes from another heap (" +
                    std::to_string(sem.heapId) + "), not this team's heap (" +
                    std::to_string(target.heapId) + ")");
      if (sem.count < param.semaphoreCount)
        return fail(what + ": expected at least " +
                    std::to_string(param.semaphoreCount) +
                    " semaphores, got " + std::to_string(sem.count));
      if (sem.offset % param.alignment != 0)
        return fail(what + ": heap offset " + hex(sem.offset) +
                    " is not aligned to " + std::to_string(param.alignment) +
                    " bytes");
      break;
    }
    case abi::ParamKind::Buffer: {
      const auto &bufs = std::get<DeviceBuffers>(arg);
      if (bufs.pointers.size() != target.localCount)
        return fail(what + ": expected one pointer per local device (" +
                    std::to_string(target.localCount) + "), got " +
                    std::to_string(bufs.pointers.size()));
      if (bufs.dtype != param.dtype)
        return fail(what + ": expected dtype " + param.dtype + ", got '" +
                    bufs.dtype + "'");
      if (std::string mismatch =
              shapeMismatch(param, bufs.dtype, bufs.shape);
          !mismatch.empty())
        return fail(what + ": " + mismatch);
      needBytes = tensorBytes(withLaunchShape(param, arg));
      if (bufs.bytes < needBytes)
        return fail(what + ": expected at least " + std::to_string(needBytes) +
                    " bytes (" + shapeText(param.dtype, bufs.shape) +
                    "), got " + std::to_string(bufs.bytes));
      for (size_t d = 0; d < bufs.pointers.size(); ++d) {
        if (bufs.pointers[d] == 0)
          return fail(what + ": pointer for local device " +
                      std::to_string(d) + " is null");
        if (bufs.pointers[d] % param.alignment != 0)
          return fail(what + ": pointer " + hex(bufs.pointers[d]) +
                      " for local device " + std::to_string(d) +
                      " is not aligned to " + std::to_string(param.alignment) +
                      " bytes");
      }
      break;
    }
    default: {
      const auto &scalar = std::get<ScalarValue>(arg);
      if (scalar.dtype != param.dtype)
        return fail(what + ": expected a " + param.dtype + " scalar, got '" +
                    scalar.dtype + "'");
      break;
    }
    }
  }
  // Dimensions the kernel needs equal (DimInfo::equals).
  auto dimText = [&](const ParamInfo &dim) {
    return "dimension " + std::to_string(dim.dim.axis) + " of argument " +
           std::to_string(dim.dim.sourceParam) + " ('" +
           kernel.params[dim.dim.sourceParam].name + "')";
  };
  for (const ParamInfo &dim : kernel.params) {
    if (dim.kind != abi::ParamKind::Dim || dim.dim.equals == DimInfo::kNone ||
        dim.dim.sourceParam >= args.size() ||
        dim.dim.equals >= kernel.params.size())
      continue;
    const ParamInfo &other = kernel.params[dim.dim.equals];
    if (other.dim.sourceParam >= args.size())
      continue;
    int64_t mine = dimLaunchSize(kernel, dim, args),
            theirs = dimLaunchSize(kernel, other, args);
    if (mine != theirs)
      return fail(dimText(dim) + " is " + std::to_string(mine) +
                  ", but the kernel needs it equal to " + dimText(other) +
                  ", which is " + std::to_string(theirs));
  }
  // The tensor maps over buffers with dynamic dimensions: the bundle's
  // checks could not see the sizes (row pitch a multiple of 16 bytes, dims
  // up to 2^31), so they are made here, before anything launches.
  for (const ParamInfo &tma : kernel.params) {
    if ((tma.kind != abi::ParamKind::Tma &&
         tma.kind != abi::ParamKind::TmaTable) ||
        tma.tma.sourceParam >= args.size())
      continue;
    size_t src = tma.tma.sourceParam;
    const ParamInfo &source = kernel.params[src];
    if (!source.hasDynamicDims())
      continue;
    auto layout = computeTmaLayout(tma, withLaunchShape(source, args[src]));
    if (!layout)
      return fail("argument " + std::to_string(src) + " ('" + source.name +
                  "') of shape " +
                  shapeText(source.dtype, launchShape(source, args[src])) +
                  " cannot be viewed by " + layout.error().message());
  }
  return ok();
}

ParamLayout computeParamLayout(const KernelInfo &kernel) {
  ParamLayout layout;
  uint32_t offset = 0;
  for (const ParamInfo &param : kernel.params) {
    uint32_t size = paramBytes(param);
    uint32_t align = param.kind == abi::ParamKind::Tma ? abi::kTmaParamAlign
                                                       : size;
    offset = (offset + align - 1) / align * align;
    layout.offsets.push_back(offset);
    offset += size;
  }
  layout.totalBytes = offset;
  return layout;
}

Status checkLaunchLimits(const KernelInfo &kernel, const LaunchLimits &limits) {
  auto fail = [&](const std::string &message) {
    return Error(ErrorCode::InvalidArgument,
                 "kernel '" + kernel.name + "' cannot launch on device " +
                     std::to_string(limits.device) + ": " + message);
  };
  const char *axis[3] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    // A persistent grid x is sized at launch to what is resident at once,
    // far below any grid limit.
    bool sizedAtLaunch = i == 0 && kernel.persistentGrid();
    if (!sizedAtLaunch &&
        (kernel.grid[i] == 0 || kernel.grid[i] > limits.maxGrid[i]))
      return fail(std::string("grid ") + axis[i] + " is " +
                  std::to_string(kernel.grid[i]) + ", expected 1 to " +
                  std::to_string(limits.maxGrid[i]));
    if (kernel.block[i] == 0 || kernel.block[i] > limits.maxBlock[i])
      return fail(std::string("block ") + axis[i] + " is " +
                  std::to_string(kernel.block[i]) + ", expected 1 to " +
                  std::to_string(limits.maxBlock[i]));
    if (kernel.cluster[i] == 0)
      return fail(std::string("cluster ") + axis[i] +
                  " is 0, expected at least 1");
  }
  uint64_t threads = kernel.blockThreads();
  if (threads > limits.maxThreadsPerBlock)
    return fail(std::to_string(threads) +
                " threads per block, the function "
                "allows at most " +
                std::to_string(limits.maxThreadsPerBlock) +
                " (its register use included)");
  uint64_t cluster = kernel.clusterBlocks();
  if (cluster > 1 && !limits.clusterLaunch)
    return fail("a cluster of " + std::to_string(cluster) +
                " blocks, but the device does not support cluster launch");
  if (cluster > hw::kMaxPortableClusterBlocks &&
      !limits.nonPortableClusterAllowed)
    return fail("a cluster of " + std::to_string(cluster) +
                " blocks, expected at most " +
                std::to_string(hw::kMaxPortableClusterBlocks) +
                " (the device does not allow non-portable cluster sizes)");
  if (cluster > 1 && limits.maxClusterBlocks &&
      cluster > *limits.maxClusterBlocks)
    return fail("a cluster of " + std::to_string(cluster) +
                " blocks, the device can co-schedule at most " +
                std::to_string(*limits.maxClusterBlocks) +
                " of this kernel's blocks (threads and shared memory "
                "included)");
  uint64_t shared = limits.staticSharedBytes + kernel.dynamicSmemBytes;
  if (shared > limits.maxSharedBytesOptin)
    return fail(std::to_string(limits.staticSharedBytes) + " static + " +
                std::to_string(kernel.dynamicSmemBytes) +
                " dynamic bytes of shared memory per block, expected at most " +
                std::to_string(limits.maxSharedBytesOptin));
  return ok();
}

Expected<size_t> chooseVariant(const std::string &group,
                               const std::vector<const KernelInfo *> &variants,
                               const std::vector<KernelArg> &args) {
  // The variants take the same parameters, ranged alike, but for the
  // ranges themselves (verifyBundle), so the sizes to check are read once
  // from the first: each ranged parameter's launch size on each ranged
  // axis. A variant is then a few compares (76 variants: 1.2 us at the
  // last one when every variant re-read every parameter's shape, on every
  // bind).
  struct Ranged {
    size_t param, axis;
    int64_t size;
  };
  std::vector<Ranged> ranged;
  if (!variants.empty()) {
    const KernelInfo &first = *variants.front();
    for (size_t i = 0; i < args.size() && i < first.params.size(); ++i) {
      const ParamInfo &param = first.params[i];
      if (param.ranges.empty())
        continue;
      std::vector<int64_t> shape = launchShape(param, args[i]);
      for (size_t axis = 0; axis < shape.size() && axis < param.ranges.size();
           ++axis)
        ranged.push_back({i, axis, shape[axis]});
    }
  }
  for (size_t v = 0; v < variants.size(); ++v) {
    const KernelInfo &info = *variants[v];
    bool admits = true;
    for (const Ranged &r : ranged) {
      const std::vector<DimRange> &ranges = info.params[r.param].ranges;
      if (r.axis < ranges.size() && !ranges[r.axis].contains(r.size)) {
        admits = false;
        break;
      }
    }
    if (admits)
      return v;
  }
  // Name the sizes and what each variant takes.
  std::string sizes, taken;
  for (size_t v = 0; v < variants.size(); ++v) {
    const KernelInfo &info = *variants[v];
    std::string ranges;
    for (size_t i = 0; i < args.size() && i < info.params.size(); ++i) {
      const ParamInfo &param = info.params[i];
      for (size_t axis = 0; axis < param.ranges.size(); ++axis) {
        if (axis >= param.shape.size() ||
            param.shape[axis] != abi::kDynamicDim)
          continue;
        ranges += (ranges.empty() ? "" : ", ") + param.name + " dimension " +
                  std::to_string(axis) + " in " +
                  formatRange(param.ranges[axis]);
        if (v == 0) {
          std::vector<int64_t> shape = launchShape(param, args[i]);
          if (axis < shape.size())
            sizes += (sizes.empty() ? "" : ", ") + param.name + " dimension " +
                     std::to_string(axis) + " is " +
                     std::to_string(shape[axis]);
        }
      }
    }
    taken += "; '" + info.name + "' takes " +
             (ranges.empty() ? std::string("any size") : ranges);
  }
  return Error(ErrorCode::InvalidArgument,
               "kernel '" + group + "': no variant takes these sizes (" +
                   sizes + ")" + taken);
}

} // namespace weave
