//===- DType.h - The element types of the kernel ABI, one table -*- C++ -*-===//
//
// Every element type Weave knows, with what each layer needs to know about
// it, in one constexpr table: the compiler (verifiers, the kernel ABI, the
// lowering; MLIR types through DTypeMlir.h), the runtime (manifests, tensor
// maps), the ops (which templates take it) and Python (torch and DLPack
// names, read from the table through weave._core.dtypes()) all ask here
// instead of comparing names. Plain C++17 like Abi.h: no CUDA, MLIR or LLVM
// header.
//
// Adding a dtype (e.g. fp8 e4m3): an enumerator and a row below; the MLIR
// element type in getElementType (dialects/lib/Weave/IR/DTypeMlir.cpp); the
// compiler warns (-Wswitch) at every switch that must name it.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_RUNTIME_DTYPE_H
#define WEAVE_RUNTIME_DTYPE_H

#include "weave/runtime/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace weave {

/// An element type, in the order of kDTypeTable.
enum class DType : uint8_t { F16, BF16, F32, F64, I8, I32, I64, U32 };

/// What the bits of an element are.
enum class DTypeKind : uint8_t { Float, SignedInt, UnsignedInt };

/// The element type of a TMA tensor map: CUtensorMapDataType's values
/// (cuda.h; runtime/lib/Kernel.cpp checks that they agree), or None where
/// Weave encodes no tensor map of the dtype.
enum class TmaDataType : uint8_t {
  UInt8 = 0,
  UInt16 = 1,
  UInt32 = 2,
  Int32 = 3,
  UInt64 = 4,
  Int64 = 5,
  F16 = 6,
  F32 = 7,
  F64 = 8,
  BF16 = 9,
  None = 0xff,
};

/// The operand type (PTX .atype/.btype) of wgmma.mma_async, or None.
enum class WgmmaKind : uint8_t { None, F16, BF16, TF32, E4M3, E5M2, S8, U8 };

/// How `weave.atomic_add` adds into an element (one PTX `red` per value):
/// not at all, one element (red.add.f32), or a packed pair of elements in
/// one 32-bit register (red.add.noftz.f16x2 / bf16x2).
enum class AtomicAddForm : uint8_t { None, Scalar, PackedPair };

/// Which collective op templates (ops/, examples/*/*.mlir.in) take a dtype.
enum class CollectiveUse : uint8_t {
  None,
  /// The moving ones only (all-gather, all-to-all, ...).
  Move,
  /// The reducing ones too: they widen to f32, sum, and round to T (WIDEN /
  /// NARROW in the templates). Not f16, whose sums would round in f16 on
  /// the way (not offered; ops/lib/Instances.cpp).
  MoveAndReduce,
};

/// DLPack's type codes (dlpack.h, DLDataTypeCode).
enum class DLPackCode : uint8_t { Int = 0, UInt = 1, Float = 2, Bfloat = 4 };

/// Everything Weave knows about one dtype.
struct DTypeTraits {
  DType dtype;
  /// The spelling in manifests, templates (@T@), weave.ops and Python; also
  /// the MLIR type's for all but u32 (MLIR integers are signless: i32).
  const char *name;
  uint32_t bytes;
  DTypeKind kind;
  /// Whether an MLIR element type maps to this dtype (a kernel's buffers and
  /// scalars). u32 does not: only the team parameters (rank, team size,
  /// semaphore words) use it.
  bool kernelArgument;
  TmaDataType tma;
  WgmmaKind wgmma;
  /// `weave.matmul_pipeline` takes it as an lhs/rhs operand (its mainloop
  /// issues k16 wgmmas: 16-bit operands) / as its output (stored from the
  /// f32 accumulators, rounded once).
  bool matmulOperand;
  bool matmulOutput;
  AtomicAddForm atomicAdd;
  /// The compute capability (major * 10 + minor) the atomic add needs
  /// (PTX ISA: red.add.noftz.bf16x2 needs sm_90, f16x2 sm_60).
  uint32_t atomicAddMinCc;
  /// cp.reduce.async.bulk.tensor takes .min and .max on it (all TMA types
  /// take .add).
  bool tmaMinMax;
  CollectiveUse collectives;
  /// The torch dtype's name (torch.<name>), or null where torch has none.
  const char *torchName;
  DLPackCode dlpack;
};

/// The table, indexed by DType. Only f16, bf16 and f32 have TMA types:
/// the copies, the pipeline and the runtime's encoding are tested with
/// those; another dtype gets one here once it is.
inline constexpr DTypeTraits kDTypeTable[] = {
    // dtype      name    bytes kind                   kernelArgument
    //   tma                wgmma             operand output
    //   atomicAdd                   minCc tmaMinMax collectives
    //   torch       dlpack
    {DType::F16, "f16", 2, DTypeKind::Float, true,
     TmaDataType::F16, WgmmaKind::F16, true, true,
     AtomicAddForm::PackedPair, 60, true, CollectiveUse::Move,
     "float16", DLPackCode::Float},
    {DType::BF16, "bf16", 2, DTypeKind::Float, true,
     TmaDataType::BF16, WgmmaKind::BF16, true, true,
     AtomicAddForm::PackedPair, 90, true, CollectiveUse::MoveAndReduce,
     "bfloat16", DLPackCode::Bfloat},
    {DType::F32, "f32", 4, DTypeKind::Float, true,
     TmaDataType::F32, WgmmaKind::TF32, false, true,
     AtomicAddForm::Scalar, 0, false, CollectiveUse::MoveAndReduce,
     "float32", DLPackCode::Float},
    {DType::F64, "f64", 8, DTypeKind::Float, true,
     TmaDataType::None, WgmmaKind::None, false, false,
     AtomicAddForm::None, 0, false, CollectiveUse::None,
     "float64", DLPackCode::Float},
    {DType::I8, "i8", 1, DTypeKind::SignedInt, true,
     TmaDataType::None, WgmmaKind::S8, false, false,
     AtomicAddForm::None, 0, false, CollectiveUse::None,
     "int8", DLPackCode::Int},
    {DType::I32, "i32", 4, DTypeKind::SignedInt, true,
     TmaDataType::None, WgmmaKind::None, false, false,
     AtomicAddForm::None, 0, false, CollectiveUse::None,
     "int32", DLPackCode::Int},
    {DType::I64, "i64", 8, DTypeKind::SignedInt, true,
     TmaDataType::None, WgmmaKind::None, false, false,
     AtomicAddForm::None, 0, false, CollectiveUse::None,
     "int64", DLPackCode::Int},
    {DType::U32, "u32", 4, DTypeKind::UnsignedInt, false,
     TmaDataType::None, WgmmaKind::None, false, false,
     AtomicAddForm::None, 0, false, CollectiveUse::None,
     nullptr, DLPackCode::UInt},
};

inline constexpr size_t kNumDTypes = sizeof(kDTypeTable) / sizeof(kDTypeTable[0]);

namespace detail {
constexpr bool dtypeTableInOrder() {
  for (size_t i = 0; i < kNumDTypes; ++i)
    if (static_cast<size_t>(kDTypeTable[i].dtype) != i)
      return false;
  return true;
}
} // namespace detail
static_assert(detail::dtypeTableInOrder(),
              "kDTypeTable has one row per DType, in the enum's order");

/// The traits of `dtype`.
constexpr const DTypeTraits &traitsOf(DType dtype) {
  return kDTypeTable[static_cast<size_t>(dtype)];
}

/// The name of `dtype` ("bf16").
constexpr const char *dtypeName(DType dtype) { return traitsOf(dtype).name; }

/// The dtype named `name`, or nullopt. Callers that report the failure use
/// parseDType, whose message is the one for an unknown dtype.
constexpr std::optional<DType> findDType(std::string_view name) {
  for (const DTypeTraits &t : kDTypeTable)
    if (name == t.name)
      return t.dtype;
  return std::nullopt;
}

/// The dtype named `name`, or an InvalidArgument error "unknown dtype
/// '<name>' (expected one of f16, bf16, ...)": the one message for a name
/// that is no dtype, wherever it comes from (a manifest, an op's request,
/// Python). Callers add what they were reading.
Expected<DType> parseDType(std::string_view name);

/// The names of the dtypes for which `pred(traits)` holds, in table order,
/// as prose: "f16, bf16 or f32" (`last` joins the last two).
template <typename Pred>
std::string dtypeNames(Pred pred, const char *last = " or ") {
  std::string names;
  size_t count = 0, total = 0;
  for (const DTypeTraits &t : kDTypeTable)
    total += pred(t) ? 1 : 0;
  for (const DTypeTraits &t : kDTypeTable) {
    if (!pred(t))
      continue;
    if (count > 0)
      names += count + 1 == total ? last : ", ";
    names += t.name;
    ++count;
  }
  return names;
}

} // namespace weave

#endif // WEAVE_RUNTIME_DTYPE_H
