//===- ErrorTest.cpp - Error, Expected and the propagation macros ---------===//

#include "weave/runtime/Error.h"

#include <gtest/gtest.h>

#include <memory>

using namespace weave;

namespace {

Expected<int> half(int v) {
  if (v % 2)
    return Error(ErrorCode::InvalidArgument, std::to_string(v) + " is odd");
  return v / 2;
}

Expected<int> quarter(int v) {
  WEAVE_ASSIGN_OR_RETURN(int h, half(v));
  WEAVE_ASSIGN_OR_RETURN(int q, half(h));
  return q;
}

Status checkPositive(int v) {
  if (v <= 0)
    return Error(ErrorCode::InvalidArgument, "not positive");
  return ok();
}

Status both(int a, int b) {
  WEAVE_TRY(checkPositive(a));
  WEAVE_TRY(checkPositive(b));
  return ok();
}

TEST(Error, ExpectedHoldsValueOrError) {
  auto q = quarter(12);
  ASSERT_TRUE(q);
  EXPECT_EQ(*q, 3);
  auto bad = quarter(6); // 6 -> 3 -> odd
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(bad.error().message(), "3 is odd");
}

TEST(Error, MoveOnlyValues) {
  Expected<std::unique_ptr<int>> p = std::make_unique<int>(5);
  ASSERT_TRUE(p);
  std::unique_ptr<int> taken = std::move(p).value();
  EXPECT_EQ(*taken, 5);
}

TEST(Error, StatusPropagates) {
  EXPECT_TRUE(both(1, 2));
  Status s = both(1, -2);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message(), "not positive");
}

TEST(Error, DriverErrorCarriesEverything) {
  Error e = Error::driver(1, "CUDA_ERROR_INVALID_VALUE", "cuMemMap(a, b)",
                          "mapping rank 1's heap on device 0", "Heap.cpp:42");
  EXPECT_EQ(e.code(), ErrorCode::DriverError);
  EXPECT_EQ(e.driverResult(), 1);
  EXPECT_EQ(e.driverResultName(), "CUDA_ERROR_INVALID_VALUE");
  EXPECT_EQ(e.call(), "cuMemMap(a, b)");
  EXPECT_EQ(e.context(), "mapping rank 1's heap on device 0");
  EXPECT_EQ(e.toString(),
            "DriverError: mapping rank 1's heap on device 0: cuMemMap(a, b) "
            "failed with CUDA_ERROR_INVALID_VALUE (1) [Heap.cpp:42]");
  Error outer = std::move(e).addContext("creating the heap");
  EXPECT_EQ(outer.context(),
            "creating the heap: mapping rank 1's heap on device 0");
  EXPECT_NE(outer.message().find("creating the heap: mapping"),
            std::string::npos);
}

TEST(Error, CodeNames) {
  EXPECT_STREQ(errorCodeName(ErrorCode::Timeout), "Timeout");
  EXPECT_STREQ(errorCodeName(ErrorCode::InvalidBundle), "InvalidBundle");
  EXPECT_STREQ(errorCodeName(ErrorCode::CompileError), "CompileError");
  EXPECT_STREQ(errorCodeName(ErrorCode::Exhausted), "Exhausted");
}

TEST(ErrorDeathTest, ReadingTheWrongAlternativeAborts) {
  EXPECT_DEATH(
      {
        auto bad = half(3);
        (void)bad.value();
      },
      "3 is odd");
}

} // namespace
