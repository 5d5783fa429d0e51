//===- Kernel.h - Loading bundles and launching kernels on a team -*- C++ -*-//

#ifndef WEAVE_RUNTIME_KERNEL_H
#define WEAVE_RUNTIME_KERNEL_H

#include "weave/runtime/Bundle.h"
#include "weave/runtime/KernelArgs.h"
#include "weave/runtime/Device.h"
#include "weave/runtime/SymmetricHeap.h"
#include "weave/runtime/Team.h"

#include <cuda.h>
#include <array>
#include <map>
#include <optional>
#include <memory>
#include <tuple>
#include <vector>

namespace weave {

class Module; // a cubin loaded on one device (internal)
class Kernel;

/// A bundle's cubin loaded on every local device of a team. Move-only.
class Program {
public:
  /// Verifies the bundle and loads its cubin on each local device.
  static Expected<Program> load(Team &team, Bundle bundle);
  const Bundle &bundle() const { return *bundle_; }
  const std::shared_ptr<const Bundle> &bundlePtr() const { return bundle_; }
  const std::shared_ptr<std::vector<Module>> &modules() const {
    return modules_;
  }
  const std::shared_ptr<detail::TeamState> &team() const { return team_; }

private:
  std::shared_ptr<detail::TeamState> team_;
  std::shared_ptr<const Bundle> bundle_;
  std::shared_ptr<std::vector<Module>> modules_; ///< one per local device
};

/// A kernel's arguments checked and bound for every local member
/// (Kernel::bind): the packed parameter blocks, TMA descriptors included,
/// ready to launch any number of times. Valid while its kernel lives.
class BoundArgs {
public:
  /// The kernel these arguments were bound for.
  const Kernel *kernel() const { return kernel_; }

private:
  friend class Kernel;
  const Kernel *kernel_ = nullptr;
  /// One parameter block per local member, 64-byte aligned at bases_[i].
  std::vector<std::vector<uint8_t>> storage_;
  std::vector<size_t> bases_;
};

/// One kernel of a loaded Program, ready to launch on the team.
class Kernel {
public:
  /// Looks the kernel up on every local device, checks the device's compute
  /// capability and the cubin's parameter sizes against the manifest, and
  /// reads the device's launch limits (checked by prepare). Raises the
  /// function's dynamic shared memory limit and allows a non-portable
  /// cluster size where the manifest needs it and the device permits it.
  /// A name with variants in the bundle (KernelInfo::variantOf) loads them
  /// all: bind() then takes the first variant whose dimension ranges admit
  /// the arguments' sizes, and info(), launchGrid() and
  /// maxResidentClusters() describe the first variant.
  static Expected<Kernel> get(const Program &program, const std::string &name);

  /// Checks the launch limits of every local device (checkLaunchLimits:
  /// grid, block, cluster, static + dynamic shared memory) and `args`
  /// (InvalidArgument naming the kernel or the parameter, nothing launched),
  /// and builds the TMA descriptors they need (cached per parameter and
  /// address) and the per-member TMA tables (written once to device memory
  /// per parameter, addresses and shape, with a copy that finishes before
  /// bind returns, also while the caller's stream is being captured), and packs
  /// every local member's parameter block once. Nothing is enqueued: a
  /// caller that must not start work that cannot finish binds first, then
  /// launches the result.
  Expected<BoundArgs> bind(const SymmetricHeap &heap,
                           const std::vector<KernelArg> &args);
  /// bind(), keeping nothing: call it before graph capture when
  /// descriptors or tables are new.
  Status prepare(const SymmetricHeap &heap, const std::vector<KernelArg> &args);
  /// The variants of a kernel loaded by its group name, in manifest order;
  /// empty for a kernel loaded by its own name.
  std::vector<const Kernel *> variants() const;
  /// Launches arguments bound by this kernel's bind() on every local
  /// device, member i on streams[i]. No synchronization or device
  /// allocation, so it can be captured in a CUDA graph.
  Status launch(const BoundArgs &args, const std::vector<CUstream> &streams);
  /// bind(), then launch().
  Status launch(const SymmetricHeap &heap, const std::vector<KernelArg> &args,
                const std::vector<CUstream> &streams);

  /// How many clusters of this kernel (blocks, for a kernel without a
  /// cluster) can be resident at once on local device `local`: a persistent
  /// grid larger than this runs in more than one wave.
  Expected<int> maxResidentClusters(size_t local = 0) const;

  /// The grid launched on every member. The manifest's, or for a persistent
  /// grid (`grid = [persistent, 1, 1]`) the clusters resident at once on a
  /// member's GPU divided among the members sharing that GPU, times the
  /// cluster width: the least such value over the team, so that every
  /// member launches the same grid (protocols count blocks).
  const std::array<uint32_t, 3> &launchGrid() const { return launchGrid_; }

  const KernelInfo &info() const { return *info_; }
  /// What local device `local` allows this kernel (read by get()).
  const LaunchLimits &launchLimits(size_t local) const {
    return limits_[local];
  }
  /// Number of TMA descriptors encoded so far (tests).
  size_t cachedDescriptorCount() const;
  /// Number of per-member TMA tables written so far (tests).
  size_t cachedTableCount() const;

private:
  struct alignas(64) Descriptor {
    CUtensorMap map;
  };
  /// Device memory holding one per-member tensor-map table (TmaTable).
  struct DeviceTable {
    CUcontext context = nullptr;
    CUdeviceptr address = 0;
    DeviceTable() = default;
    DeviceTable(const DeviceTable &) = delete;
    DeviceTable &operator=(const DeviceTable &) = delete;
    ~DeviceTable(); ///< frees after the context's work; reports failures
  };
  /// Allocates `table` and writes `bytes` of `data` into it, also while a
  /// stream of this thread is being captured (Kernel.cpp says how).
  static Status writeDeviceTable(DeviceTable &table, const void *data,
                                 size_t bytes, const std::string &what);
  Status bindMember(const SymmetricHeap &heap,
                    const std::vector<KernelArg> &args, size_t local,
                    std::vector<uint8_t> &storage, size_t &base);
  /// The variant whose dimension ranges admit `args`' sizes, or an
  /// InvalidArgument naming the sizes and every variant's ranges.
  Expected<Kernel *> selectVariant(const std::vector<KernelArg> &args);
  /// Sizes launchGrid_ (collective in a multi-process team when the grid is
  /// persistent) and records in residency_ why a team launch would hang.
  Status planGrid();
  /// A kernel of entry `info` with its program's state and parameter layout,
  /// nothing loaded yet: what get() and sharedBy() both start from.
  static Kernel forEntry(const KernelInfo &info,
                         std::shared_ptr<detail::TeamState> team,
                         std::shared_ptr<const Bundle> bundle,
                         std::shared_ptr<std::vector<Module>> modules);
  /// A kernel of entry `info`, which launches this kernel's function: the
  /// function, its launch limits and planned grid copied, nothing queried.
  Kernel sharedBy(const KernelInfo &info) const;

  std::array<uint32_t, 3> launchGrid_{1, 1, 1};
  /// A kernel loaded by its group name: the variants, each a whole kernel
  /// (their addresses stay put when this kernel moves: BoundArgs point to
  /// them); the fields below are then the first variant's.
  std::vector<std::unique_ptr<Kernel>> variants_;
  /// The name it was loaded by.
  std::string name_;
  /// Set when the blocks of a team launch cannot all be resident at once:
  /// why, without the kernel's name (entries sharing a function copy it;
  /// prepare() names the entry launched), so nothing launches that would
  /// deadlock.
  std::optional<std::string> residency_;

  std::shared_ptr<detail::TeamState> team_;
  std::shared_ptr<const Bundle> bundle_;
  std::shared_ptr<std::vector<Module>> modules_;
  const KernelInfo *info_ = nullptr;
  std::vector<CUfunction> functions_;
  std::vector<LaunchLimits> limits_; ///< one per local device
  ParamLayout layout_;
  /// (local member, parameter index, global address, launch shape of the
  /// source) -> descriptor.
  std::map<std::tuple<size_t, size_t, uint64_t, std::vector<int64_t>>,
           std::unique_ptr<Descriptor>>
      tmaCache_;
  /// (local member, parameter index, every member's address of the source,
  /// launch shape) -> table in that member's device memory.
  std::map<std::tuple<size_t, size_t, std::vector<uint64_t>,
                      std::vector<int64_t>>,
           std::unique_ptr<DeviceTable>>
      tableCache_;
};

} // namespace weave

#endif // WEAVE_RUNTIME_KERNEL_H
