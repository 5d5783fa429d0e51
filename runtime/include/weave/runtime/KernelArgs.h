//===- KernelArgs.h - User arguments of a kernel launch ---------*- C++ -*-===//
//
// The values a caller binds to a kernel's user parameters, and the checks
// that match them against the manifest before anything launches. No CUDA
// here (device pointers are uint64_t), so the checks are unit-tested on CPU.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_RUNTIME_KERNELARGS_H
#define WEAVE_RUNTIME_KERNELARGS_H

#include "weave/runtime/Bundle.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace weave {

/// A buffer at the same offset of every team member's symmetric heap.
/// Returned by SymmetricHeap::allocate; dtype/shape are optional (empty =
/// untyped, only the byte size is checked).
struct SymmetricBuffer {
  uint64_t heapId = 0; ///< 0 = not allocated
  uint64_t offset = 0; ///< from the heap base
  uint64_t bytes = 0;
  std::string dtype;
  std::vector<int64_t> shape;
};

/// `count` u32 counters in the signal pad of every member's heap.
struct SemaphoreArray {
  uint64_t heapId = 0;
  uint64_t offset = 0;
  uint32_t count = 0;
};

/// Plain (non-symmetric) device buffers: one pointer per local team member,
/// in local member order.
struct DeviceBuffers {
  std::vector<uint64_t> pointers;
  std::string dtype;
  std::vector<int64_t> shape;
  uint64_t bytes = 0;
};

/// A by-value scalar: its dtype and its bits (low 4 bytes for 4-byte types).
struct ScalarValue {
  std::string dtype;
  uint64_t bits = 0;

  static ScalarValue u32(uint32_t v) { return {dtypeName(DType::U32), v}; }
  static ScalarValue i32(int32_t v) {
    return {dtypeName(DType::I32), static_cast<uint32_t>(v)};
  }
  static ScalarValue i64(int64_t v) {
    return {dtypeName(DType::I64), static_cast<uint64_t>(v)};
  }
  static ScalarValue f32(float v) {
    uint32_t b;
    std::memcpy(&b, &v, 4);
    return {dtypeName(DType::F32), b};
  }
  static ScalarValue f64(double v) {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    return {dtypeName(DType::F64), b};
  }
};

using KernelArg =
    std::variant<SymmetricBuffer, SemaphoreArray, DeviceBuffers, ScalarValue>;

/// What the arguments are bound for.
struct BindingTarget {
  uint64_t heapId = 0;   ///< the team's symmetric heap
  size_t localCount = 1; ///< team members driven by this process
  uint32_t teamSize = 1;
};

/// Checks count, kind, dtype, shape/byte size, alignment and heap identity of
/// every argument; InvalidArgument naming the parameter on the first mismatch.
/// A dynamic dimension (`?`) takes the argument's size, which must be at
/// least 1, keep the byte size within 63 bits, and give every tensor map
/// over the argument a layout TMA takes (rows a multiple of 16 bytes,
/// dims up to 2^31: the copies use signed 32-bit coordinates).
/// A symmetric buffer binds to a parameter with dynamic dimensions only
/// with its shape (SymmetricHeap::allocateTensor).
Status checkKernelArgs(const KernelInfo &kernel,
                       const std::vector<KernelArg> &args,
                       const BindingTarget &target);

/// The shape `param` has at this launch: the argument's where the parameter
/// has dynamic dimensions (after checkKernelArgs accepted it), else the
/// manifest's.
std::vector<int64_t> launchShape(const ParamInfo &param, const KernelArg &arg);
/// The size the Dim parameter `dim` of `kernel` carries at this launch: its
/// dimension of its source argument's launchShape().
int64_t dimLaunchSize(const KernelInfo &kernel, const ParamInfo &dim,
                      const std::vector<KernelArg> &args);
/// Of `variants` (a group's kernels, KernelInfo::variantOf == `group`, in
/// manifest order), the index of the first whose parameter ranges admit
/// the launch sizes of `args`; else InvalidArgument naming the sizes and
/// what each variant takes. Only the ranges are checked: checkKernelArgs
/// checks the rest.
Expected<size_t> chooseVariant(const std::string &group,
                               const std::vector<const KernelInfo *> &variants,
                               const std::vector<KernelArg> &args);
/// `param` with launchShape() as its shape.
ParamInfo withLaunchShape(const ParamInfo &param, const KernelArg &arg);

/// Byte offset of each parameter in a packed launch parameter buffer (each
/// at its natural alignment: 4, 8, or 64 for TMA descriptors) and the total.
struct ParamLayout {
  std::vector<uint32_t> offsets;
  uint32_t totalBytes = 0;
};
ParamLayout computeParamLayout(const KernelInfo &kernel);

/// What one device and one loaded function allow a launch. Kernel::get
/// fills it from the driver; the defaults are an H100's, so that tests can
/// change one field at a time.
struct LaunchLimits {
  int device = 0; ///< ordinal, for messages
  /// CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_{X,Y,Z}, MAX_BLOCK_DIM_{X,Y,Z}.
  std::array<uint64_t, 3> maxGrid{hw::kMaxGridDimX, hw::kMaxGridDimYZ,
                                  hw::kMaxGridDimYZ};
  std::array<uint64_t, 3> maxBlock{hw::kMaxBlockDim[0], hw::kMaxBlockDim[1],
                                   hw::kMaxBlockDim[2]};
  /// CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: the device's 1024, or fewer
  /// when the function's register use does not fit that many.
  uint64_t maxThreadsPerBlock = hw::kMaxThreadsPerBlock;
  /// CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN.
  uint64_t maxSharedBytesOptin = hw::kMaxSharedMemoryPerBlock;
  /// CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: the function's static shared
  /// memory, which adds to the manifest's dynamic size.
  uint64_t staticSharedBytes = 0;
  /// CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH.
  bool clusterLaunch = true;
  /// Whether CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED could be
  /// set on the function (asked only when the cluster has more than 8
  /// blocks).
  bool nonPortableClusterAllowed = false;
  /// The most blocks per cluster the device can co-schedule for this
  /// function and launch configuration (cuOccupancyMaxPotentialClusterSize);
  /// empty when it was not asked or the driver could not say.
  std::optional<uint64_t> maxClusterBlocks;
};

/// Checks `kernel`'s grid, block, cluster and shared memory against
/// `limits`; InvalidArgument naming the kernel, the device and the limit
/// on the first violation. No driver call, so it is unit-tested on CPU;
/// Kernel::prepare runs it for every local device before binding.
Status checkLaunchLimits(const KernelInfo &kernel, const LaunchLimits &limits);

} // namespace weave

#endif // WEAVE_RUNTIME_KERNELARGS_H
