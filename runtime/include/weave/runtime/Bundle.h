//===- Bundle.h - The compiler/runtime bundle format ------------*- C++ -*-===//
//
// A bundle is one file holding a cubin and a manifest describing each kernel
// in it (launch dims, parameters in ABI order, TMA descriptors). The compiler
// writes it, the runtime reads it. docs/BUNDLE.md describes the byte layout.
// Library `WeaveBundle`: plain C++17, no CUDA, no MLIR/LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_RUNTIME_BUNDLE_H
#define WEAVE_RUNTIME_BUNDLE_H

#include "weave/runtime/Abi.h"
#include "weave/runtime/Error.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace weave {

/// A TMA descriptor parameter (Tma) or per-member table (TmaTable): what
/// tensor it views and how. A table has one entry per member with the same
/// box and swizzle, entry r at member r's copy of the source; it is never a
/// peer view itself.
struct TmaInfo {
  /// Index (in KernelInfo::params) of the Buffer/Symmetric param it views.
  uint32_t sourceParam = 0;
  /// Box (tile) dims, innermost first; its rank equals the source's rank.
  std::vector<uint64_t> box;
  /// 0 (none), 32, 64 or 128.
  uint32_t swizzleBytes = 0;
  /// For peer views: the viewed device is (rank + peerOffset) mod team size.
  int32_t peerOffset = 0;
  bool isPeerView = false;

  /// The member whose copy a peer view of `peerOffset` on member `rank` of
  /// a team of `teamSize` (> 0) views: the floored (rank + peerOffset) mod
  /// teamSize, what the kernel computes as (device_id + c) mod D
  /// (matchPeerOffset) and, for the distance k of a store to a run-time
  /// device, (device_id + k) mod D (weave-peer-view-stores).
  static uint32_t peerMember(uint32_t rank, int32_t peerOffset,
                             uint32_t teamSize) {
    int64_t m = (int64_t(rank) + peerOffset) % int64_t(teamSize);
    return static_cast<uint32_t>(m < 0 ? m + teamSize : m);
  }
};

/// A Dim parameter: which dimension of which buffer it carries.
struct DimInfo {
  /// Index (in KernelInfo::params) of the Buffer/Symmetric param.
  uint32_t sourceParam = 0;
  /// The dimension, outermost first (an index into the source's shape).
  uint32_t axis = 0;
  /// No other dimension: the `equals` of a Dim that stands alone.
  static constexpr uint32_t kNone = UINT32_MAX;
  /// Index (in KernelInfo::params) of another Dim parameter whose size
  /// this one must equal at launch (the manifest's `equals=N`), or kNone.
  /// The compiler records what a kernel assumes, e.g. a matmul pipeline's
  /// lhs and out rows, so a launch that breaks it is refused with a
  /// message instead of trapping on the device.
  uint32_t equals = kNone;
};

/// The sizes a dimension may have at launch: lo <= size <= hi.
struct DimRange {
  /// No upper bound.
  static constexpr int64_t kUnbounded = INT64_MAX;
  int64_t lo = 1, hi = kUnbounded;
  bool contains(int64_t size) const { return size >= lo && size <= hi; }
  bool operator==(const DimRange &o) const { return lo == o.lo && hi == o.hi; }
};

/// One kernel parameter, in ABI order.
struct ParamInfo {
  abi::ParamKind kind;
  std::string name;
  /// A dtype's name (DType.h: "f16", "bf16", ...); "" when not applicable.
  std::string dtype;
  /// Row-major, outermost first; empty for scalars. abi::kDynamicDim (`?`)
  /// for a dimension whose size comes from the argument at launch.
  std::vector<int64_t> shape;
  uint32_t alignment = 16;
  /// Sizes a launch may give each dimension, [lo, hi] per dimension
  /// (outermost first); empty: any size of at least 1 for a dynamic one.
  /// A kernel variant (KernelInfo::variantOf) bounds the dimension it was
  /// chosen for; a static dimension's range is its size.
  std::vector<DimRange> ranges;
  /// Number of u32 counters (Semaphore params).
  uint32_t semaphoreCount = 0;
  TmaInfo tma;
  DimInfo dim;

  /// Whether some dimension of the shape is dynamic.
  bool hasDynamicDims() const {
    for (int64_t d : shape)
      if (d == abi::kDynamicDim)
        return true;
    return false;
  }
};

struct KernelInfo {
  /// grid[0] of a persistent grid: sized at launch (Kernel::gridFor).
  static constexpr uint32_t kPersistentGrid = 0;

  std::string name;
  /// grid[0] == kPersistentGrid: persistent (then grid[1] == grid[2] == 1).
  std::array<uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1}, cluster{1, 1, 1};
  /// With a persistent grid: the most blocks of grid x the launch takes
  /// (a multiple of cluster[0]; `persistent(N)` in the dialect, the
  /// manifest's `grid_max`, written only when set); 0 = every block that
  /// is resident. Fewer are launched where fewer are resident.
  uint32_t gridMax = 0;
  uint32_t dynamicSmemBytes = 0;
  /// Team size the kernel was compiled for; 0 = any.
  uint32_t teamSize = 0;
  uint32_t computeCapability = abi::kHopperComputeCapability;
  /// Non-empty: this kernel is one variant of the kernel named so, which
  /// has no entry of its own. Kernel::get(variantOf) loads every variant
  /// and launches the first (in manifest order) whose parameter ranges
  /// admit the launch sizes: the compiler's way of choosing a
  /// configuration per dynamic size (docs/BUNDLE.md, "Variants").
  std::string variantOf;
  /// The cubin function this entry launches; empty: the one named `name`.
  /// Entries whose code would be identical share one function: weavec
  /// gives a configuration the chooser picks for several ranges of rows
  /// one function, and an entry per range (its own name and range) that
  /// names it here (the manifest's `function`; docs/BUNDLE.md,
  /// "Variants"). Entries sharing a function launch alike: verifyBundle
  /// checks that they differ only in name, range, variant_of and config.
  std::string function;
  std::vector<ParamInfo> params;
  /// What the compiler chose for the kernel (its matmul pipeline's tile,
  /// stages, consumers, split, cluster_m and split_k), for people: one line
  /// in the manifest as a `# config: ...` comment, which readers before it
  /// skip as any comment. Empty when there is nothing to say.
  std::string config;

  /// The cubin function to load: `function`, else `name`.
  const std::string &functionName() const {
    return function.empty() ? name : function;
  }

  /// Blocks per cluster (1 without clusters). 64-bit so that an unverified
  /// manifest's product cannot wrap; verifyBundle bounds it by 16.
  uint64_t clusterBlocks() const {
    return uint64_t(cluster[0]) * cluster[1] * cluster[2];
  }
  /// Threads per block (verifyBundle bounds it by 1024).
  uint64_t blockThreads() const {
    return uint64_t(block[0]) * block[1] * block[2];
  }
  /// True when the runtime sizes grid x at launch.
  bool persistentGrid() const { return grid[0] == kPersistentGrid; }
};

struct Bundle {
  std::string arch;     ///< e.g. "sm_90a"
  std::string producer; ///< e.g. "weavec 0.1 (LLVM 22)"
  std::vector<KernelInfo> kernels;
  std::vector<uint8_t> cubin;
};

/// Size of the fixed header that precedes the manifest.
inline constexpr size_t kBundleHeaderBytes = 32;
/// The 8 magic bytes at offset 0.
inline constexpr char kBundleMagic[8] = {'W', 'E', 'A', 'V', 'E', 'B', 'N', 'D'};

/// The largest file readBundleFile reads. Real bundles are a few MB (the
/// largest cubins weavec writes are well under 100 MB); the bound keeps a
/// damaged or hostile path (a sparse file, a link to a huge log) from making
/// the reader allocate without limit.
inline constexpr uint64_t kMaxBundleFileBytes = uint64_t(1) << 30;

/// Serializes a bundle (does not verify it; writeBundleFile does).
std::vector<uint8_t> serializeBundle(const Bundle &bundle);
/// Parses and verifies a bundle image. Never throws, never reads outside
/// `[data, data + size)`; every malformed image is an InvalidBundle error.
/// (The fuzz target's entry point: keep this signature stable.)
Expected<Bundle> parseBundle(const uint8_t *data, size_t size);
/// Reads, parses and verifies a bundle file. Only a regular file (after
/// following links) of at most kMaxBundleFileBytes is read: a directory,
/// FIFO, socket or device is InvalidArgument without blocking, a larger file
/// InvalidBundle, a missing one NotFound, another failed POSIX call System.
Expected<Bundle> readBundleFile(const std::string &path);
/// Verifies, serializes and writes a bundle file.
Status writeBundleFile(const std::string &path, const Bundle &bundle);
/// The consistency checks docs/BUNDLE.md lists (also run by parseBundle).
Status verifyBundle(const Bundle &bundle);

/// The manifest text of a bundle (the human-readable part of the file).
std::string printManifest(const Bundle &bundle);

/// Finds a kernel by name, or null.
const KernelInfo *findKernel(const Bundle &bundle, const std::string &name);
/// The variants of `name` (kernels whose variantOf is `name`), in manifest
/// order; empty when it has none.
std::vector<const KernelInfo *> findVariants(const Bundle &bundle,
                                             const std::string &name);

/// Size in bytes of one element of `dtype` (traitsOf(...).bytes), or 0 if
/// it names no dtype.
uint32_t dtypeBytes(const std::string &dtype);
/// Manifest spelling of a parameter kind, e.g. "peer_bases".
const char *paramKindName(abi::ParamKind kind);
/// Bytes the kernel parameter occupies in the launch parameter buffer.
uint32_t paramBytes(const ParamInfo &param);
/// Product of the shape times the element size (0 for scalars/unknown;
/// UINT64_MAX when it overflows 64 bits, which verifyBundle rejects, so that
/// an unverified manifest can never make a size check pass by wrapping).
/// A dynamic dimension counts as 1, the least a launch may give it.
uint64_t tensorBytes(const ParamInfo &param);
/// Number of leading user parameters (Buffer/Symmetric/Semaphore/Scalar).
size_t userParamCount(const KernelInfo &kernel);
/// Bytes of the packed launch parameter block: each parameter at its natural
/// alignment (4, 8, or 64 for TMA descriptors), as computeParamLayout places
/// them. 64-bit, so that no parameter list can wrap it.
uint64_t paramBlockBytes(const KernelInfo &kernel);

} // namespace weave

#endif // WEAVE_RUNTIME_BUNDLE_H
