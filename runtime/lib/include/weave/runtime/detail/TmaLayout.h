//===- TmaLayout.h - TMA descriptor parameters, computed on the CPU -*- C++ -*-//
//
// Everything cuTensorMapEncodeTiled needs except the address, derived from a
// manifest Tma parameter and its source tensor, with the hardware limits
// checked. Pure C++ (part of WeaveBundle) so it is unit-testable without a
// GPU and usable by verifyBundle.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_RUNTIME_DETAIL_TMALAYOUT_H
#define WEAVE_RUNTIME_DETAIL_TMALAYOUT_H

#include "weave/runtime/Bundle.h"

#include <array>
#include <cstdint>
#include <vector>

namespace weave {

/// Arguments of cuTensorMapEncodeTiled, innermost dimension first.
struct TmaLayout {
  /// The source dtype's (weave/runtime/DType.h).
  TmaDataType dataType = TmaDataType::F32;
  uint32_t elementBytes = 0;
  uint32_t rank = 0;                     ///< 1..5
  std::array<uint64_t, 5> globalDim{};   ///< elements, innermost first
  std::array<uint64_t, 4> globalStride{};///< bytes of dims 1..rank-1
  std::array<uint32_t, 5> boxDim{};      ///< elements, innermost first
  std::array<uint32_t, 5> elementStride{1, 1, 1, 1, 1};
  uint32_t swizzleBytes = 0;
  /// L2 promotion (bytes fetched into L2 per miss): 256 when every row
  /// pitch is a multiple of 256 bytes, else 128. On a pitch that is not
  /// (rows of 8080 bytes), 256-byte promotion made the 1000x4000x4040 f16
  /// matmul run at 0.83x cuBLAS instead of 0.98x (H100, docs/PERF.md).
  uint32_t l2PromotionBytes = 256;
  /// False when the source has a dynamic dimension: its global dim and the
  /// strides that depend on it are 0 and were not checked. A launch
  /// computes the layout again from the argument's shape.
  bool complete = true;
};

/// Computes and checks the layout of `tma` (kind Tma) viewing `source`
/// (kind Buffer or Symmetric). Errors are InvalidBundle and name `tma`.
/// Dynamic dimensions of `source` leave the layout incomplete (what depends
/// on them is checked when a launch gives their sizes).
Expected<TmaLayout> computeTmaLayout(const ParamInfo &tma,
                                     const ParamInfo &source);

/// Checks a global address against the TMA alignment rule (16 bytes).
Status checkTmaAddress(const ParamInfo &tma, uint64_t address);

/// What the runtime writes for a per-member table (kind TmaTable): one
/// tensor map per member, all with `layout`, entry r at byte
/// r * abi::kTmaTableEntryBytes encoding member r's copy of the source.
struct TmaTablePlan {
  TmaLayout layout;
  /// Entry r's global address: member r's copy of the source.
  std::vector<uint64_t> addresses;
  /// Bytes of the table: one entry per member.
  uint64_t bytes = 0;
};

/// Plans the table of `tma` (kind TmaTable) over `source` (its launch
/// shape) from the address of every member's copy, in member order: the
/// layout is checked once (computeTmaLayout) and every address against the
/// TMA alignment, the message naming the member.
Expected<TmaTablePlan> planTmaTable(const ParamInfo &tma,
                                    const ParamInfo &source,
                                    const std::vector<uint64_t> &addresses);

} // namespace weave

#endif // WEAVE_RUNTIME_DETAIL_TMALAYOUT_H
