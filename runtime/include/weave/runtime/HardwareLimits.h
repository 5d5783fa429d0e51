//===- HardwareLimits.h - limits of the GPUs Weave targets --*- C++ -*-===//
//
// The one place that names the limits of the hardware Weave targets
// (compute capability 9.0: H100, H200), so that the compiler's verifiers,
// the configuration chooser, the bundle reader and the runtime's launch
// checks agree on them. Plain C++17 (no CUDA, MLIR or LLVM header): the
// compiler and the MLIR-free runtime both include it. Sources: the CUDA C
// Programming Guide ("Technical Specifications per Compute Capability"),
// the PTX ISA (wgmma, cp.async.bulk.tensor) and cuTensorMapEncodeTiled.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_RUNTIME_HARDWARELIMITS_H
#define WEAVE_RUNTIME_HARDWARELIMITS_H

#include <cstdint>

namespace weave {
namespace hw {

//===----------------------------------------------------------------------===//
// Launch shape (every device of compute capability 9.0; the runtime asks the
// device for its own values again before launching)
//===----------------------------------------------------------------------===//

inline constexpr uint32_t kMaxGridDimX = 0x7fffffff; ///< 2^31 - 1
inline constexpr uint32_t kMaxGridDimYZ = 65535;
inline constexpr uint32_t kMaxBlockDim[3] = {1024, 1024, 64};
inline constexpr uint32_t kMaxThreadsPerBlock = 1024;
/// Blocks per cluster that every device accepts.
inline constexpr uint32_t kMaxPortableClusterBlocks = 8;
/// Blocks per cluster with CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED
/// on an H100; whether a given device and kernel fit it is asked at launch.
inline constexpr uint32_t kMaxClusterBlocks = 16;

/// Shared memory one block can have, static and dynamic together (the
/// opt-in maximum, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN):
/// 227 KB, the SM's 228 KB less the 1 KB the system reserves per block.
inline constexpr uint32_t kMaxSharedMemoryPerBlock = 227 * 1024;

//===----------------------------------------------------------------------===//
// Warpgroups and wgmma (sm_90a)
//===----------------------------------------------------------------------===//

/// Threads of a warpgroup: four warps, the unit wgmma and setmaxnreg act on.
inline constexpr uint32_t kWarpgroupThreads = 128;
/// Rows of one wgmma: every wgmma.mma_async is m64nNk*.
inline constexpr uint32_t kWgmmaM = 64;
/// Columns of one wgmma: N is a multiple of kWgmmaNStep up to kWgmmaMaxN.
inline constexpr uint32_t kWgmmaMaxN = 256;
inline constexpr uint32_t kWgmmaNStep = 8;

//===----------------------------------------------------------------------===//
// TMA (cp.async.bulk.tensor, cuTensorMapEncodeTiled)
//===----------------------------------------------------------------------===//

/// Elements of a box (the tile one TMA copy moves) along any dimension.
inline constexpr uint32_t kTmaMaxBoxDim = 256;
/// Global strides (the bytes of a row) and the innermost box dimension are
/// multiples of this many bytes.
inline constexpr uint32_t kTmaAlignBytes = 16;

} // namespace hw
} // namespace weave

#endif // WEAVE_RUNTIME_HARDWARELIMITS_H
