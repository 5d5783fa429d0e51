//===- Kernel.cpp - Loading bundles and launching kernels on a team -------===//

#include "weave/runtime/Kernel.h"
#include "weave/runtime/detail/BundleDetail.h"
#include "weave/runtime/detail/Module.h"
#include "weave/runtime/detail/TeamState.h"
#include "weave/runtime/detail/TmaLayout.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace weave {

namespace {

// TmaDataType (DType.h, no CUDA header) spells CUtensorMapDataType's values.
#define WEAVE_SAME_TMA_TYPE(ours, cuda)                                        \
  static_assert(static_cast<int>(TmaDataType::ours) ==                         \
                    static_cast<int>(CU_TENSOR_MAP_DATA_TYPE_##cuda),          \
                "TmaDataType::" #ours " is not CU_TENSOR_MAP_DATA_TYPE_" #cuda)
WEAVE_SAME_TMA_TYPE(UInt8, UINT8);
WEAVE_SAME_TMA_TYPE(UInt16, UINT16);
WEAVE_SAME_TMA_TYPE(UInt32, UINT32);
WEAVE_SAME_TMA_TYPE(Int32, INT32);
WEAVE_SAME_TMA_TYPE(UInt64, UINT64);
WEAVE_SAME_TMA_TYPE(Int64, INT64);
WEAVE_SAME_TMA_TYPE(F16, FLOAT16);
WEAVE_SAME_TMA_TYPE(F32, FLOAT32);
WEAVE_SAME_TMA_TYPE(F64, FLOAT64);
WEAVE_SAME_TMA_TYPE(BF16, BFLOAT16);
#undef WEAVE_SAME_TMA_TYPE

/// A layout's dataType comes from a dtype whose tma is not None
/// (computeTmaLayout rejects the others).
CUtensorMapDataType toCuda(TmaDataType type) {
  return static_cast<CUtensorMapDataType>(type);
}

CUtensorMapSwizzle swizzleOf(uint32_t bytes) {
  switch (bytes) {
  case 32:
    return CU_TENSOR_MAP_SWIZZLE_32B;
  case 64:
    return CU_TENSOR_MAP_SWIZZLE_64B;
  case 128:
    return CU_TENSOR_MAP_SWIZZLE_128B;
  default:
    return CU_TENSOR_MAP_SWIZZLE_NONE;
  }
}

/// Destructors never fail: a failed driver call is reported and skipped.
void report(CUresult result, const char *what) {
  if (result == CUDA_SUCCESS)
    return;
  const char *name = "?";
  cuGetErrorName(result, &name);
  std::fprintf(stderr, "weave: warning: %s failed with %s\n", what, name);
}

/// Encodes `layout` at `address` into `map` (no interleave, no
/// out-of-bounds fill: loads past an edge read zeros, stores are clipped).
Status encodeTensorMap(const TmaLayout &layout, uint64_t address,
                       CUtensorMap *map, const std::string &what) {
  WEAVE_CU_TRY(cuTensorMapEncodeTiled(
                   map, toCuda(layout.dataType), layout.rank,
                   reinterpret_cast<void *>(address), layout.globalDim.data(),
                   layout.globalStride.data(), layout.boxDim.data(),
                   layout.elementStride.data(), CU_TENSOR_MAP_INTERLEAVE_NONE,
                   swizzleOf(layout.swizzleBytes),
                   layout.l2PromotionBytes == 256
                       ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B
                       : CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
               "encoding " + what);
  return ok();
}

bool isArchSpecific(const std::string &arch) {
  return !arch.empty() && arch.back() == 'a';
}

/// The launch configuration of `info` (grid, block, dynamic shared memory)
/// with its cluster shape in `attribute`, which must outlive the config.
/// The occupancy query needs the cluster attribute even for 1x1x1.
CUlaunchConfig launchConfig(const KernelInfo &info,
                            const std::array<uint32_t, 3> &grid,
                            CUlaunchAttribute &attribute,
                            bool alwaysCluster) {
  CUlaunchConfig config = {};
  config.gridDimX = grid[0];
  config.gridDimY = grid[1];
  config.gridDimZ = grid[2];
  config.blockDimX = info.block[0];
  config.blockDimY = info.block[1];
  config.blockDimZ = info.block[2];
  config.sharedMemBytes = info.dynamicSmemBytes;
  attribute = {};
  if (alwaysCluster || info.clusterBlocks() != 1) {
    attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attribute.value.clusterDim.x = info.cluster[0];
    attribute.value.clusterDim.y = info.cluster[1];
    attribute.value.clusterDim.z = info.cluster[2];
    config.attrs = &attribute;
    config.numAttrs = 1;
  }
  return config;
}

/// The grid the occupancy queries are asked about: they count clusters of
/// this shape, and any grid that holds one will do (a persistent grid is
/// not sized yet when they run).
std::array<uint32_t, 3> occupancyGrid(const KernelInfo &info) {
  std::array<uint32_t, 3> grid = info.grid;
  if (info.persistentGrid())
    grid[0] = info.cluster[0];
  return grid;
}

Expected<int> deviceAttribute(const Device &device,
                              CUdevice_attribute attribute, const char *name) {
  int value = 0;
  WEAVE_CU_TRY(cuDeviceGetAttribute(&value, attribute, device.handle()),
               std::string("reading ") + name + " of device " +
                   std::to_string(device.ordinal()));
  return value;
}

Expected<int> functionAttribute(CUfunction function,
                                CUfunction_attribute attribute,
                                const char *name, const KernelInfo &kernel) {
  int value = 0;
  WEAVE_CU_TRY(cuFuncGetAttribute(&value, attribute, function),
               std::string("reading ") + name + " of " +
                   describeKernel(kernel));
  return value;
}

/// Dynamic shared memory a function may use without raising
/// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: 48 KiB less its static
/// shared memory.
constexpr uint64_t kDefaultSharedBytes = 48 * 1024;

/// Reads `device`'s and `function`'s launch limits for `info` and sets the
/// function attributes the launch needs when the limits allow them (a
/// larger dynamic shared memory, a non-portable cluster size). Violations
/// are left to checkLaunchLimits, which prepare() runs: this only fails
/// when the driver cannot be asked.
Expected<LaunchLimits> readLaunchLimits(const Device &device,
                                        CUfunction function,
                                        const KernelInfo &info) {
  LaunchLimits limits;
  limits.device = device.ordinal();
  const CUdevice_attribute grid[3] = {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
                                      CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                                      CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
  const CUdevice_attribute block[3] = {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
                                       CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
                                       CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z};
  for (int i = 0; i < 3; ++i) {
    WEAVE_ASSIGN_OR_RETURN(
        int g, deviceAttribute(device, grid[i], "the maximum grid size"));
    WEAVE_ASSIGN_OR_RETURN(
        int b, deviceAttribute(device, block[i], "the maximum block size"));
    limits.maxGrid[i] = static_cast<uint64_t>(g);
    limits.maxBlock[i] = static_cast<uint64_t>(b);
  }
  WEAVE_ASSIGN_OR_RETURN(
      int optin,
      deviceAttribute(device,
                      CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                      "the opt-in shared memory per block"));
  WEAVE_ASSIGN_OR_RETURN(int clusterLaunch,
                         deviceAttribute(device,
                                         CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH,
                                         "cluster launch support"));
  WEAVE_ASSIGN_OR_RETURN(int staticShared,
                         functionAttribute(function,
                                           CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                                           "the static shared memory", info));
  WEAVE_ASSIGN_OR_RETURN(
      int maxThreads,
      functionAttribute(function, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                        "the maximum threads per block", info));
  limits.maxSharedBytesOptin = static_cast<uint64_t>(optin);
  limits.clusterLaunch = clusterLaunch != 0;
  limits.staticSharedBytes = static_cast<uint64_t>(staticShared);
  limits.maxThreadsPerBlock = static_cast<uint64_t>(maxThreads);

  uint64_t shared = limits.staticSharedBytes + info.dynamicSmemBytes;
  bool sharedFits = shared <= limits.maxSharedBytesOptin;
  if (sharedFits && shared > kDefaultSharedBytes)
    WEAVE_CU_TRY(
        cuFuncSetAttribute(function,
                           CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                           static_cast<int>(info.dynamicSmemBytes)),
        "allowing " + std::to_string(info.dynamicSmemBytes) +
            " bytes of dynamic shared memory for " + describeKernel(info) +
            " on device " + std::to_string(device.ordinal()));
  uint64_t cluster = info.clusterBlocks();
  if (cluster <= 1 || !limits.clusterLaunch)
    return limits;
  if (cluster > hw::kMaxPortableClusterBlocks) {
    // A device without non-portable cluster sizes refuses the attribute;
    // that is a limit (reported by checkLaunchLimits), not a failure here.
    limits.nonPortableClusterAllowed =
        cuFuncSetAttribute(function,
                           CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                           1) == CUDA_SUCCESS;
    if (!limits.nonPortableClusterAllowed)
      return limits;
  }
  // How many of these blocks (threads, registers, shared memory) one GPC
  // can hold at once; a larger cluster fails at launch. Only asked when the
  // configuration is otherwise valid, and a driver that cannot say leaves
  // the launch to report.
  if (sharedFits && info.blockThreads() <= limits.maxThreadsPerBlock) {
    CUlaunchAttribute attribute;
    CUlaunchConfig config = launchConfig(info, occupancyGrid(info), attribute,
                                         /*alwaysCluster=*/true);
    int maxCluster = 0;
    if (cuOccupancyMaxPotentialClusterSize(&maxCluster, function, &config) ==
        CUDA_SUCCESS)
      limits.maxClusterBlocks = static_cast<uint64_t>(maxCluster);
  }
  return limits;
}

} // namespace

namespace {

/// Restores this thread's stream-capture mode when it goes out of scope.
class RelaxedCaptureMode {
public:
  RelaxedCaptureMode() { cuThreadExchangeStreamCaptureMode(&mode_); }
  ~RelaxedCaptureMode() { cuThreadExchangeStreamCaptureMode(&mode_); }
  RelaxedCaptureMode(const RelaxedCaptureMode &) = delete;
  RelaxedCaptureMode &operator=(const RelaxedCaptureMode &) = delete;

private:
  CUstreamCaptureMode mode_ = CU_STREAM_CAPTURE_MODE_RELAXED;
};

} // namespace

/// Allocates `table` and writes `bytes` from `data` into it before
/// returning. The first binding may come while a stream of this thread is
/// being captured into a CUDA graph (a PyTorch op's first call inside
/// torch.cuda.graph): capture in global mode refuses allocations and copies
/// that synchronize, and the table must exist before the graph, not be a
/// node of it. So the allocation and the copy run in relaxed capture mode,
/// on a stream of their own that no capture involves.
Status Kernel::writeDeviceTable(DeviceTable &table, const void *data,
                                size_t bytes, const std::string &what) {
  RelaxedCaptureMode relaxed;
  WEAVE_CU_TRY(cuMemAlloc(&table.address, bytes), "allocating " + what);
  CUstream stream = nullptr;
  WEAVE_CU_TRY(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
               "creating a stream to write " + what);
  CUresult copied = cuMemcpyHtoDAsync(table.address, data, bytes, stream);
  CUresult synced =
      copied == CUDA_SUCCESS ? cuStreamSynchronize(stream) : copied;
  CUresult destroyed = cuStreamDestroy(stream);
  WEAVE_CU_TRY(copied, "writing " + what);
  WEAVE_CU_TRY(synced, "writing " + what);
  WEAVE_CU_TRY(destroyed, "destroying the stream that wrote " + what);
  return ok();
}

Kernel::DeviceTable::~DeviceTable() {
  if (!address)
    return;
  // A launch may still read the table: the context's work ends first.
  report(cuCtxSetCurrent(context), "making a device current to free a TMA "
                                   "table");
  report(cuCtxSynchronize(), "synchronizing before freeing a TMA table");
  report(cuMemFree(address), "freeing a TMA table");
}

Expected<Program> Program::load(Team &team, Bundle bundle) {
  WEAVE_TRY(verifyBundle(bundle));
  Program program;
  program.team_ = team.state();
  program.bundle_ = std::make_shared<const Bundle>(std::move(bundle));
  program.modules_ = std::make_shared<std::vector<Module>>();
  for (size_t i = 0; i < team.localCount(); ++i) {
    WEAVE_ASSIGN_OR_RETURN(Module module,
                           Module::load(team.device(i), program.bundle_->cubin));
    program.modules_->push_back(std::move(module));
  }
  return program;
}

Expected<Kernel> Kernel::get(const Program &program, const std::string &name) {
  const KernelInfo *info = findKernel(program.bundle(), name);
  if (!info) {
    std::vector<const KernelInfo *> variants =
        findVariants(program.bundle(), name);
    if (variants.empty())
      return Error(ErrorCode::NotFound,
                   "kernel '" + name + "' is not in the bundle");
    Kernel group;
    group.name_ = name;
    // Entries that share a function (KernelInfo::function) load it once:
    // its lookup, parameter check, launch limits and grid plan (collective
    // for a persistent grid in a multi-process team) are the first entry's.
    std::map<std::string, const Kernel *> loaded;
    for (const KernelInfo *variant : variants) {
      auto at = loaded.find(variant->functionName());
      if (at != loaded.end()) {
        group.variants_.push_back(
            std::make_unique<Kernel>(at->second->sharedBy(*variant)));
        continue;
      }
      WEAVE_ASSIGN_OR_RETURN(Kernel kernel, get(program, variant->name));
      group.variants_.push_back(std::make_unique<Kernel>(std::move(kernel)));
      loaded.emplace(variant->functionName(), group.variants_.back().get());
    }
    const Kernel &first = *group.variants_.front();
    group.team_ = first.team_;
    group.bundle_ = first.bundle_;
    group.modules_ = first.modules_;
    group.info_ = first.info_;
    group.launchGrid_ = first.launchGrid_;
    return group;
  }
  Kernel kernel = forEntry(*info, program.team(), program.bundlePtr(),
                           program.modules());
  for (size_t i = 0; i < kernel.modules_->size(); ++i) {
    const Device &device = kernel.team_->devices[i];
    int cc = device.computeCapability();
    int want = static_cast<int>(info->computeCapability);
    if (isArchSpecific(program.bundle().arch) ? cc != want : cc < want)
      return Error(ErrorCode::InvalidArgument,
                   "kernel '" + name + "' needs compute capability " +
                       std::to_string(want) + " (" + program.bundle().arch +
                       "), device " + std::to_string(device.ordinal()) +
                       " has " + std::to_string(cc));
    WEAVE_TRY(device.makeCurrent());
    // Entries may share a function (KernelInfo::function): look up its name.
    Expected<CUfunction> found =
        (*kernel.modules_)[i].getFunction(info->functionName());
    if (!found)
      return info->functionName() == name
                 ? std::move(found).takeError()
                 : std::move(found).takeError().addContext(
                       "loading " + describeKernel(*info));
    CUfunction function = *found;
    WEAVE_TRY(checkFunctionParams(function, *info));
    WEAVE_ASSIGN_OR_RETURN(LaunchLimits limits,
                           readLaunchLimits(device, function, *info));
    kernel.functions_.push_back(function);
    kernel.limits_.push_back(limits);
  }
  WEAVE_TRY(kernel.planGrid());
  return kernel;
}

Kernel Kernel::forEntry(const KernelInfo &info,
                        std::shared_ptr<detail::TeamState> team,
                        std::shared_ptr<const Bundle> bundle,
                        std::shared_ptr<std::vector<Module>> modules) {
  Kernel kernel;
  kernel.name_ = info.name;
  kernel.team_ = std::move(team);
  kernel.bundle_ = std::move(bundle);
  kernel.modules_ = std::move(modules);
  kernel.info_ = &info;
  kernel.layout_ = computeParamLayout(info);
  return kernel;
}

Kernel Kernel::sharedBy(const KernelInfo &info) const {
  // verifyBundle checked that entries sharing a function launch alike
  // (grid, block, cluster, shared memory, parameters but their ranges), so
  // the function's limits and planned grid hold for `info` too.
  Kernel kernel = forEntry(info, team_, bundle_, modules_);
  kernel.functions_ = functions_;
  kernel.limits_ = limits_;
  kernel.launchGrid_ = launchGrid_;
  kernel.residency_ = residency_;
  return kernel;
}

static std::string dimsText(const std::array<uint32_t, 3> &d) {
  return "[" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " +
         std::to_string(d[2]) + "]";
}

Status Kernel::planGrid() {
  const KernelInfo &info = *info_;
  launchGrid_ = info.grid;
  size_t localCount = functions_.size();
  bool persistent = info.persistentGrid();
  // Only kernels whose blocks may wait on each other or on a peer need to be
  // resident all at once: persistent grids, and any kernel of a team.
  if (!persistent && team_->size <= 1)
    return ok();
  uint64_t share = UINT64_MAX;
  for (size_t local = 0; local < localCount; ++local) {
    WEAVE_ASSIGN_OR_RETURN(int resident, maxResidentClusters(local));
    uint32_t sharing = team_->membersOnDevice(local);
    uint64_t mine = uint64_t(std::max(resident, 0)) / sharing;
    if (persistent) {
      share = std::min(share, mine);
      continue;
    }
    uint64_t clusters = uint64_t(info.grid[0]) * info.grid[1] * info.grid[2] /
                        info.clusterBlocks();
    if (clusters * sharing > uint64_t(std::max(resident, 0)) && !residency_) {
      std::string unit = info.clusterBlocks() > 1 ? " clusters" : " blocks";
      residency_ =
          "grid " + dimsText(info.grid) + " (" + std::to_string(clusters) +
          unit + ") on each of " + std::to_string(sharing) +
          " member(s) sharing device " +
          std::to_string(team_->devices[local].ordinal()) +
          " cannot be resident at once: " + std::to_string(resident) + unit +
          " of this kernel fit on that device" +
          (sharing > 1 ? " (" + std::to_string(mine) + " per member)" : "") +
          "; the blocks would wait on blocks that never start. Use "
          "grid = [persistent, 1, 1] or a grid that fits";
    }
  }
  if (!persistent)
    return ok();
  if (Bootstrap *boot = team_->bootstrap.get()) {
    // Every member must launch the same grid: take the least share.
    WEAVE_ASSIGN_OR_RETURN(std::vector<uint64_t> shares,
                           boot->allGatherU64(share));
    for (uint64_t v : shares)
      share = std::min(share, v);
  }
  if (share == 0)
    return Error(ErrorCode::InvalidArgument,
                 "kernel '" + info.name +
                     "': its persistent grid gets no " +
                     (info.clusterBlocks() > 1 ? "cluster" : "block") +
                     " per member: fewer fit on a device at once than the " +
                     std::to_string(team_->membersOnDevice(0)) +
                     " member(s) sharing it");
  // Grid x stays within what a launch takes (2^31 - 1), and within the
  // kernel's cap (grid_max, whole clusters).
  uint64_t blocks = std::min<uint64_t>(share * info.cluster[0], 0x7fffffffu);
  if (info.gridMax != 0)
    blocks = std::min<uint64_t>(blocks, info.gridMax);
  launchGrid_[0] = static_cast<uint32_t>(blocks / info.cluster[0] *
                                         info.cluster[0]);
  return ok();
}

std::vector<const Kernel *> Kernel::variants() const {
  std::vector<const Kernel *> list;
  for (const std::unique_ptr<Kernel> &variant : variants_)
    list.push_back(variant.get());
  return list;
}

size_t Kernel::cachedDescriptorCount() const {
  size_t count = tmaCache_.size();
  for (const std::unique_ptr<Kernel> &variant : variants_)
    count += variant->cachedDescriptorCount();
  return count;
}

size_t Kernel::cachedTableCount() const {
  size_t count = tableCache_.size();
  for (const std::unique_ptr<Kernel> &variant : variants_)
    count += variant->cachedTableCount();
  return count;
}

Expected<Kernel *> Kernel::selectVariant(const std::vector<KernelArg> &args) {
  std::vector<const KernelInfo *> infos;
  for (const std::unique_ptr<Kernel> &variant : variants_)
    infos.push_back(&variant->info());
  WEAVE_ASSIGN_OR_RETURN(size_t index, chooseVariant(name_, infos, args));
  return variants_[index].get();
}

Expected<int> Kernel::maxResidentClusters(size_t local) const {
  if (!variants_.empty())
    return variants_.front()->maxResidentClusters(local);
  if (local >= functions_.size())
    return Error(ErrorCode::InvalidArgument,
                 "kernel '" + info_->name + "': no local device " +
                     std::to_string(local));
  const KernelInfo &info = *info_;
  WEAVE_TRY(checkLaunchLimits(info, limits_[local]));
  WEAVE_TRY(team_->devices[local].makeCurrent());
  CUlaunchAttribute attribute;
  CUlaunchConfig config = launchConfig(info, occupancyGrid(info), attribute,
                                       /*alwaysCluster=*/true);
  int clusters = 0;
  WEAVE_CU_TRY(cuOccupancyMaxActiveClusters(&clusters, functions_[local],
                                            &config),
               "querying the resident clusters of '" + info.name + "'");
  return clusters;
}

Status Kernel::bindMember(const SymmetricHeap &heap,
                          const std::vector<KernelArg> &args, size_t local,
                          std::vector<uint8_t> &storage, size_t &base) {
  const KernelInfo &info = *info_;
  // Align the parameter block to 64 bytes inside `storage`.
  storage.assign(layout_.totalBytes + 64, 0);
  base = (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64;
  uint8_t *block = storage.data() + base;
  uint32_t rank = team_->ranks[local];
  uint32_t teamSize = team_->size;
  auto put = [&](size_t p, const void *value, size_t bytes) {
    std::memcpy(block + layout_.offsets[p], value, bytes);
  };
  auto addressOf = [&](size_t p, uint32_t member) -> uint64_t {
    const KernelArg &arg = args[p];
    if (auto *buf = std::get_if<SymmetricBuffer>(&arg))
      return heap.peerPointer(*buf, local, member);
    if (auto *sems = std::get_if<SemaphoreArray>(&arg))
      return heap.peerPointer(*sems, local, member);
    return std::get<DeviceBuffers>(arg).pointers[local];
  };
  for (size_t p = 0; p < info.params.size(); ++p) {
    const ParamInfo &param = info.params[p];
    switch (param.kind) {
    case abi::ParamKind::Buffer:
    case abi::ParamKind::Symmetric:
    case abi::ParamKind::Semaphore: {
      uint64_t address = addressOf(p, rank);
      put(p, &address, 8);
      break;
    }
    case abi::ParamKind::Scalar: {
      uint64_t bits = std::get<ScalarValue>(args[p]).bits;
      if (paramBytes(param) == 4) {
        uint32_t low = static_cast<uint32_t>(bits);
        put(p, &low, 4);
      } else {
        put(p, &bits, 8);
      }
      break;
    }
    case abi::ParamKind::Rank:
      put(p, &rank, 4);
      break;
    case abi::ParamKind::TeamSize:
      put(p, &teamSize, 4);
      break;
    case abi::ParamKind::PeerBases: {
      uint64_t table = heap.peerBasesTable(local);
      put(p, &table, 8);
      break;
    }
    case abi::ParamKind::Dim: {
      // The size of a `?` dimension, from the argument (checkKernelArgs
      // has matched its rank and bounds).
      int64_t size = dimLaunchSize(info, param, args);
      put(p, &size, 8);
      break;
    }
    case abi::ParamKind::Tma: {
      size_t src = param.tma.sourceParam;
      uint32_t member = rank;
      if (param.tma.isPeerView)
        member = TmaInfo::peerMember(rank, param.tma.peerOffset, teamSize);
      uint64_t address = addressOf(src, member);
      // A buffer with dynamic dimensions may come back at the same address
      // with other sizes: the shape is part of the key.
      ParamInfo source = withLaunchShape(info.params[src], args[src]);
      auto key = std::make_tuple(local, p, address, source.shape);
      auto it = tmaCache_.find(key);
      if (it == tmaCache_.end()) {
        WEAVE_TRY(checkTmaAddress(param, address));
        auto layout = computeTmaLayout(param, source);
        if (!layout)
          return Error(ErrorCode::InvalidArgument, layout.error().message());
        auto descriptor = std::make_unique<Descriptor>();
        WEAVE_TRY(encodeTensorMap(*layout, address, &descriptor->map,
                                  "TMA descriptor '" + param.name +
                                      "' of kernel '" + info.name + "'"));
        it = tmaCache_.emplace(key, std::move(descriptor)).first;
      }
      put(p, &it->second->map, sizeof(CUtensorMap));
      break;
    }
    case abi::ParamKind::TmaTable: {
      // One tensor map per member, in device memory, written once per
      // distinct set of addresses and shape and never rewritten: a launch
      // in flight or a captured graph may still read an older table.
      size_t src = param.tma.sourceParam;
      std::vector<uint64_t> addresses(teamSize);
      for (uint32_t member = 0; member < teamSize; ++member)
        addresses[member] = addressOf(src, member);
      ParamInfo source = withLaunchShape(info.params[src], args[src]);
      auto key = std::make_tuple(local, p, addresses, source.shape);
      auto it = tableCache_.find(key);
      if (it == tableCache_.end()) {
        auto plan = planTmaTable(param, source, addresses);
        if (!plan)
          return Error(ErrorCode::InvalidArgument, plan.error().message());
        std::vector<Descriptor> entries(teamSize);
        static_assert(sizeof(Descriptor) == abi::kTmaTableEntryBytes,
                      "a table entry is one CUtensorMap");
        for (uint32_t member = 0; member < teamSize; ++member)
          WEAVE_TRY(encodeTensorMap(
              plan->layout, plan->addresses[member], &entries[member].map,
              "entry " + std::to_string(member) + " of TMA table '" +
                  param.name + "' of kernel '" + info.name + "'"));
        const Device &device = team_->devices[local];
        WEAVE_TRY(device.makeCurrent());
        auto table = std::make_unique<DeviceTable>();
        table->context = device.context();
        std::string on = " of kernel '" + info.name + "' on device " +
                         std::to_string(device.ordinal());
        WEAVE_TRY(writeDeviceTable(*table, entries.data(), plan->bytes,
                                   "TMA table '" + param.name + "'" + on));
        it = tableCache_.emplace(key, std::move(table)).first;
      }
      uint64_t address = it->second->address;
      put(p, &address, 8);
      break;
    }
    }
  }
  return ok();
}

Expected<BoundArgs> Kernel::bind(const SymmetricHeap &heap,
                                 const std::vector<KernelArg> &args) {
  if (!variants_.empty()) {
    Expected<Kernel *> variant = selectVariant(args);
    if (variant)
      return (*variant)->bind(heap, args); // checks the arguments in full
    // Wrong counts, kinds, dtypes or static sizes are the same error for
    // every variant (they take the same arguments): reported as such, not
    // as "no variant takes these sizes". Only on this error path does the
    // unranged copy cost anything.
    if (heap.team() == team_) {
      KernelInfo unranged = *info_;
      for (ParamInfo &param : unranged.params)
        param.ranges.clear();
      WEAVE_TRY(checkKernelArgs(unranged, args,
                                BindingTarget{heap.id(), team_->devices.size(),
                                              team_->size}));
    }
    return std::move(variant).takeError();
  }
  if (heap.team() != team_)
    return Error(ErrorCode::InvalidArgument,
                 "kernel '" + info_->name +
                     "': the symmetric heap belongs to another team");
  for (const LaunchLimits &limits : limits_)
    WEAVE_TRY(checkLaunchLimits(*info_, limits));
  if (residency_)
    return Error(ErrorCode::InvalidArgument,
                 "kernel '" + info_->name + "': " + *residency_);
  WEAVE_TRY(checkKernelArgs(
      *info_, args, BindingTarget{heap.id(), team_->devices.size(), team_->size}));
  // Every member's block before any launch, so that nothing launches
  // unless all devices can.
  BoundArgs bound;
  bound.kernel_ = this;
  size_t localCount = team_->devices.size();
  bound.storage_.resize(localCount);
  bound.bases_.resize(localCount);
  for (size_t local = 0; local < localCount; ++local)
    WEAVE_TRY(bindMember(heap, args, local, bound.storage_[local],
                         bound.bases_[local]));
  return bound;
}

Status Kernel::prepare(const SymmetricHeap &heap,
                       const std::vector<KernelArg> &args) {
  Expected<BoundArgs> bound = bind(heap, args);
  if (!bound)
    return std::move(bound).takeError();
  return ok();
}

Status Kernel::launch(const SymmetricHeap &heap,
                      const std::vector<KernelArg> &args,
                      const std::vector<CUstream> &streams) {
  WEAVE_ASSIGN_OR_RETURN(BoundArgs bound, bind(heap, args));
  return launch(bound, streams);
}

Status Kernel::launch(const BoundArgs &args,
                      const std::vector<CUstream> &streams) {
  if (streams.size() != team_->devices.size())
    return Error(ErrorCode::InvalidArgument,
                 "kernel '" + info_->name + "': expected one stream per local "
                 "device (" + std::to_string(team_->devices.size()) +
                     "), got " + std::to_string(streams.size()));
  for (const std::unique_ptr<Kernel> &variant : variants_)
    if (args.kernel_ == variant.get())
      return variant->launch(args, streams);
  if (args.kernel_ != this)
    return Error(ErrorCode::InvalidArgument,
                 "kernel '" + info_->name +
                     "': the arguments were bound for another kernel");
  const KernelInfo &info = *info_;
  for (size_t local = 0; local < team_->devices.size(); ++local) {
    const uint8_t *block = args.storage_[local].data() + args.bases_[local];
    std::vector<void *> pointers(info.params.size());
    for (size_t p = 0; p < info.params.size(); ++p)
      pointers[p] = const_cast<uint8_t *>(block) + layout_.offsets[p];
    CUlaunchAttribute attribute;
    CUlaunchConfig config =
        launchConfig(info, launchGrid_, attribute, /*alwaysCluster=*/false);
    config.hStream = streams[local];
    const Device &device = team_->devices[local];
    WEAVE_TRY(device.makeCurrent());
    WEAVE_CU_TRY(cuLaunchKernelEx(&config, functions_[local], pointers.data(),
                                  nullptr),
                 "launching '" + info.name + "' on device " +
                     std::to_string(device.ordinal()));
  }
  return ok();
}

} // namespace weave
