//===- DTypeTest.cpp - The dtype table: consistent, named, one error ------===//

#include "weave/runtime/Bundle.h"
#include "weave/runtime/DType.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace weave;

namespace {

std::string nameOf(const DTypeTraits &t) { return t.name; }

uint32_t tmaBytes(TmaDataType type) {
  switch (type) {
  case TmaDataType::UInt8:
    return 1;
  case TmaDataType::UInt16:
  case TmaDataType::F16:
  case TmaDataType::BF16:
    return 2;
  case TmaDataType::UInt32:
  case TmaDataType::Int32:
  case TmaDataType::F32:
    return 4;
  case TmaDataType::UInt64:
  case TmaDataType::Int64:
  case TmaDataType::F64:
    return 8;
  case TmaDataType::None:
    break;
  }
  return 0;
}

bool isFloatTma(TmaDataType type) {
  return type == TmaDataType::F16 || type == TmaDataType::BF16 ||
         type == TmaDataType::F32 || type == TmaDataType::F64;
}

TEST(DTypeTest, EveryRowIsConsistent) {
  std::set<std::string> names, torchNames;
  for (size_t i = 0; i < kNumDTypes; ++i) {
    const DTypeTraits &t = kDTypeTable[i];
    SCOPED_TRACE(nameOf(t));
    EXPECT_EQ(static_cast<size_t>(t.dtype), i) << "rows follow the enum";
    EXPECT_EQ(&traitsOf(t.dtype), &t);
    EXPECT_TRUE(names.insert(t.name).second) << "duplicate name";
    if (t.torchName) {
      EXPECT_TRUE(torchNames.insert(t.torchName).second) << "duplicate torch";
    }
    EXPECT_TRUE(t.bytes == 1 || t.bytes == 2 || t.bytes == 4 || t.bytes == 8);
    bool isFloat = t.kind == DTypeKind::Float;
    // The name starts with the kind and width: f16/bf16/f32/..., i8/i32,
    // u32 (an fp8 could be f8e4m3).
    std::string bits = std::to_string(8 * t.bytes);
    std::string prefix = isFloat ? (t.dlpack == DLPackCode::Bfloat ? "bf" : "f")
                         : t.kind == DTypeKind::SignedInt ? "i"
                                                          : "u";
    EXPECT_EQ(nameOf(t).rfind(prefix + bits, 0), 0u);
    // DLPack's code agrees with the kind.
    if (isFloat) {
      EXPECT_TRUE(t.dlpack != DLPackCode::Int && t.dlpack != DLPackCode::UInt);
    } else {
      EXPECT_EQ(t.dlpack, t.kind == DTypeKind::SignedInt ? DLPackCode::Int
                                                         : DLPackCode::UInt);
    }
    // A tensor map of a dtype has its width; a float tensor map type is for
    // a float (an 8-bit float takes UInt8: there is no fp8 tensor map type).
    if (t.tma != TmaDataType::None) {
      EXPECT_EQ(tmaBytes(t.tma), t.bytes);
      if (isFloatTma(t.tma)) {
        EXPECT_TRUE(isFloat);
      }
    }
    // The pipeline loads its operands with TMA and multiplies them with
    // k16 wgmmas (16-bit operands); it stores its output with TMA.
    if (t.matmulOperand) {
      EXPECT_NE(t.wgmma, WgmmaKind::None);
      EXPECT_NE(t.tma, TmaDataType::None);
      EXPECT_EQ(t.bytes, 2u);
      EXPECT_TRUE(t.matmulOutput);
    }
    if (t.matmulOutput) {
      EXPECT_NE(t.tma, TmaDataType::None);
    }
    // atomic_add: f32 one at a time, 16-bit floats in 32-bit pairs.
    if (t.atomicAdd == AtomicAddForm::PackedPair) {
      EXPECT_EQ(t.bytes, 2u);
    }
    if (t.atomicAdd != AtomicAddForm::None) {
      EXPECT_TRUE(isFloat);
    } else {
      EXPECT_EQ(t.atomicAddMinCc, 0u);
    }
    if (t.tmaMinMax) {
      EXPECT_NE(t.tma, TmaDataType::None);
    }
    // The reducing templates widen floats to f32 (arith.extf).
    if (t.collectives == CollectiveUse::MoveAndReduce) {
      EXPECT_TRUE(isFloat && t.bytes <= 4);
    }
    // Only u32 is no MLIR element type of its own (MLIR's i32 is i32).
    EXPECT_EQ(t.kernelArgument, t.kind != DTypeKind::UnsignedInt);
  }
  EXPECT_EQ(names.size(), kNumDTypes);
}

TEST(DTypeTest, NamesRoundTrip) {
  for (const DTypeTraits &t : kDTypeTable) {
    std::optional<DType> found = findDType(t.name);
    ASSERT_TRUE(found) << t.name;
    EXPECT_EQ(*found, t.dtype);
    EXPECT_STREQ(dtypeName(*found), t.name);
    Expected<DType> parsed = parseDType(t.name);
    ASSERT_TRUE(parsed) << t.name;
    EXPECT_EQ(*parsed, t.dtype);
    EXPECT_EQ(dtypeBytes(t.name), t.bytes);
  }
  // Usable at compile time.
  static_assert(findDType("bf16") == DType::BF16);
  static_assert(traitsOf(DType::F32).bytes == 4);
  static_assert(!findDType("x16"));
}

TEST(DTypeTest, UnknownNameIsOneError) {
  std::string all = dtypeNames([](const DTypeTraits &) { return true; });
  EXPECT_EQ(all.rfind("f16, bf16, f32, f64, i8, i32, i64", 0), 0u);
  for (const char *bad : {"", "x16", "F16", "float16", "bf16 ", "u7"}) {
    EXPECT_FALSE(findDType(bad)) << bad;
    EXPECT_EQ(dtypeBytes(bad), 0u) << bad;
    Expected<DType> parsed = parseDType(bad);
    ASSERT_FALSE(parsed) << bad;
    EXPECT_EQ(parsed.error().code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(parsed.error().message(),
              "unknown dtype '" + std::string(bad) + "' (expected " + all + ")");
  }
}

TEST(DTypeTest, NamesAsProse) {
  auto three = [](const DTypeTraits &t) {
    return t.dtype == DType::F16 || t.dtype == DType::BF16 ||
           t.dtype == DType::F32;
  };
  EXPECT_EQ(dtypeNames(three), "f16, bf16 or f32");
  EXPECT_EQ(dtypeNames(three, " and "), "f16, bf16 and f32");
  EXPECT_EQ(dtypeNames([](const DTypeTraits &t) {
              return t.dtype == DType::F16 || t.dtype == DType::BF16;
            }),
            "f16 or bf16");
  EXPECT_EQ(dtypeNames([](const DTypeTraits &t) { return t.dtype == DType::I8; }),
            "i8");
  EXPECT_EQ(dtypeNames([](const DTypeTraits &) { return false; }), "");
}

// What the shipped kernels and templates rely on today (a new row may add
// to these lists; changing them is a behaviour change).
TEST(DTypeTest, TodaysTraits) {
  auto has = [](DType d, auto pred) { return pred(traitsOf(d)); };
  for (DType d : {DType::F16, DType::BF16, DType::F32}) {
    EXPECT_NE(traitsOf(d).tma, TmaDataType::None) << dtypeName(d);
    EXPECT_TRUE(traitsOf(d).matmulOutput) << dtypeName(d);
    EXPECT_NE(traitsOf(d).atomicAdd, AtomicAddForm::None) << dtypeName(d);
    EXPECT_NE(traitsOf(d).collectives, CollectiveUse::None) << dtypeName(d);
  }
  EXPECT_TRUE(has(DType::F16, [](auto &t) { return t.matmulOperand; }));
  EXPECT_TRUE(has(DType::BF16, [](auto &t) { return t.matmulOperand; }));
  EXPECT_FALSE(has(DType::F32, [](auto &t) { return t.matmulOperand; }));
  EXPECT_EQ(traitsOf(DType::BF16).atomicAddMinCc, 90u);
  EXPECT_EQ(traitsOf(DType::F16).collectives, CollectiveUse::Move);
  EXPECT_EQ(traitsOf(DType::F32).collectives, CollectiveUse::MoveAndReduce);
  EXPECT_FALSE(traitsOf(DType::F32).tmaMinMax);
  EXPECT_TRUE(traitsOf(DType::BF16).tmaMinMax);
  for (DType d : {DType::F64, DType::I8, DType::I32, DType::I64, DType::U32})
    EXPECT_EQ(traitsOf(d).tma, TmaDataType::None) << dtypeName(d);
}

} // namespace
