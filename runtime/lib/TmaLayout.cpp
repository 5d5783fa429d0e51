//===- TmaLayout.cpp - TMA descriptor parameters --------------------------===//

#include "weave/runtime/detail/BundleDetail.h"
#include "weave/runtime/detail/TmaLayout.h"

#include <cstdio>

namespace weave {

namespace {
Error tmaError(const ParamInfo &tma, const std::string &message) {
  return Error(ErrorCode::InvalidBundle,
               "tma parameter '" + tma.name + "': " + message);
}
} // namespace

Expected<TmaLayout> computeTmaLayout(const ParamInfo &tma,
                                     const ParamInfo &source) {
  TmaLayout layout;
  std::optional<DType> dtype = findDType(source.dtype);
  if (!dtype || traitsOf(*dtype).tma == TmaDataType::None)
    return tmaError(tma, "source '" + source.name + "' has dtype '" +
                             source.dtype + "', expected " +
                             dtypeNames([](const DTypeTraits &t) {
                               return t.tma != TmaDataType::None;
                             }));
  layout.dataType = traitsOf(*dtype).tma;
  layout.elementBytes = traitsOf(*dtype).bytes;
  size_t rank = source.shape.size();
  if (rank < 1 || rank > 5)
    return tmaError(tma, "source '" + source.name + "' has rank " +
                             std::to_string(rank) + ", expected 1 to 5");
  if (tma.tma.box.size() != rank)
    return tmaError(tma, "box has rank " + std::to_string(tma.tma.box.size()) +
                             " but source '" + source.name + "' has rank " +
                             std::to_string(rank));
  uint32_t swizzle = tma.tma.swizzleBytes;
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return tmaError(tma, "swizzle must be 0, 32, 64 or 128, found " +
                             std::to_string(swizzle));
  layout.swizzleBytes = swizzle;
  layout.rank = static_cast<uint32_t>(rank);
  // The manifest shape is row-major, outermost first; TMA wants innermost
  // first, with byte strides for dims 1..rank-1.
  // The stride is a product of the inner extents: multiplied with overflow
  // checks, since a wrapped product (shape 2^32,2^32,2^32 of f16) used to
  // come out as a stride of 0 and pass the "multiple of 16" rule.
  // A dynamic dimension (`?`) is unknown until launch: its global dim, and
  // every stride that multiplies it, stay 0 and unchecked here; the runtime
  // checks them again with the launch shape (checkKernelArgs).
  uint64_t stride = layout.elementBytes;
  bool strideKnown = true;
  for (size_t i = 0; i < rank; ++i) {
    int64_t extent = source.shape[rank - 1 - i];
    bool dynamic = extent == abi::kDynamicDim;
    // cuTensorMapEncodeTiled takes dims up to 2^32, but the copies address
    // elements with signed 32-bit coordinates (cp.async.bulk.tensor; the
    // lowering clamps its indices to [INT32_MIN, INT32_MAX]): a dim of at
    // most 2^31 - 1 keeps a clamped coordinate outside it, so the box is
    // clipped instead of reaching element 2^31 - 1.
    if (!dynamic && (extent <= 0 || extent > INT32_MAX))
      return tmaError(tma, "global dimension " + std::to_string(i) + " is " +
                               std::to_string(extent) +
                               ", expected 1 to 2^31 - 1 (TMA coordinates are "
                               "signed 32-bit)");
    layout.globalDim[i] = dynamic ? 0 : static_cast<uint64_t>(extent);
    if (i > 0 && strideKnown) {
      if (stride % hw::kTmaAlignBytes != 0)
        return tmaError(tma, "global stride of dimension " + std::to_string(i) +
                                 " is " + std::to_string(stride) +
                                 " bytes, expected a multiple of " +
                                 std::to_string(hw::kTmaAlignBytes));
      if (stride >= (uint64_t(1) << 40))
        return tmaError(tma, "global stride of dimension " + std::to_string(i) +
                                 " is " + std::to_string(stride) +
                                 " bytes, expected less than 2^40");
      layout.globalStride[i - 1] = stride;
      if (stride % 256 != 0)
        layout.l2PromotionBytes = 128;
    }
    if (dynamic)
      strideKnown = false;
    // Only the strides of dims 1..rank-1 are used; the last product (the
    // tensor's byte size) is bounded by the source's own check.
    if (strideKnown && i + 1 < rank &&
        !checkedMul(stride, static_cast<uint64_t>(extent), stride))
      return tmaError(tma, "global stride of dimension " +
                               std::to_string(i + 1) +
                               " overflows 64 bits, expected less than 2^40");
  }
  layout.complete = strideKnown; // false once a dimension was dynamic
  for (size_t i = 0; i < rank; ++i) {
    uint64_t box = tma.tma.box[i];
    if (box == 0 || box > hw::kTmaMaxBoxDim)
      return tmaError(tma, "box dimension " + std::to_string(i) + " is " +
                               std::to_string(box) + ", expected 1 to " +
                               std::to_string(hw::kTmaMaxBoxDim));
    layout.boxDim[i] = static_cast<uint32_t>(box);
  }
  uint64_t innerBytes = uint64_t(layout.boxDim[0]) * layout.elementBytes;
  if (innerBytes % hw::kTmaAlignBytes != 0)
    return tmaError(tma, "innermost box dimension is " +
                             std::to_string(innerBytes) +
                             " bytes, expected a multiple of " +
                             std::to_string(hw::kTmaAlignBytes));
  if (swizzle != 0 && innerBytes > swizzle)
    return tmaError(tma, "innermost box dimension is " +
                             std::to_string(innerBytes) +
                             " bytes, more than the " +
                             std::to_string(swizzle) + "-byte swizzle span");
  return layout;
}

Status checkTmaAddress(const ParamInfo &tma, uint64_t address) {
  if (address % 16 != 0)
    return Error(ErrorCode::InvalidArgument,
                 "tma parameter '" + tma.name + "': global address 0x" +
                     [&] {
                       char buf[32];
                       std::snprintf(buf, sizeof(buf), "%llx",
                                     static_cast<unsigned long long>(address));
                       return std::string(buf);
                     }() +
                     " is not 16-byte aligned");
  return ok();
}

Expected<TmaTablePlan> planTmaTable(const ParamInfo &tma,
                                    const ParamInfo &source,
                                    const std::vector<uint64_t> &addresses) {
  if (tma.kind != abi::ParamKind::TmaTable)
    return tmaError(tma, "expected a tma_table parameter, found " +
                             std::string(paramKindName(tma.kind)));
  if (addresses.empty())
    return tmaError(tma, "a per-member table needs at least one member");
  TmaTablePlan plan;
  WEAVE_ASSIGN_OR_RETURN(plan.layout, computeTmaLayout(tma, source));
  for (size_t r = 0; r < addresses.size(); ++r)
    if (addresses[r] % 16 != 0) {
      char text[32];
      std::snprintf(text, sizeof(text), "%llx",
                    static_cast<unsigned long long>(addresses[r]));
      return Error(ErrorCode::InvalidArgument,
                   "tma_table parameter '" + tma.name + "': member " +
                       std::to_string(r) + "'s copy of '" + source.name +
                       "' at 0x" + text + " is not 16-byte aligned");
    }
  plan.addresses = addresses;
  plan.bytes = uint64_t(addresses.size()) * abi::kTmaTableEntryBytes;
  return plan;
}

} // namespace weave
