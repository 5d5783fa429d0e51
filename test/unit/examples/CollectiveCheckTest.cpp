//===- CollectiveCheckTest.cpp - What the collective kernels compute ------===//
//
// The check that every collective run of the loopback suite and of
// bench/collectives relies on must fail on wrong outputs: a sum in another
// order, a rounding off by one unit, a NaN, a copied -0.0 turned +0.0, an
// all-to-all-v element missing or written past what was received.
//
//===----------------------------------------------------------------------===//

#include "weave/examples/CollectiveCheck.h"
#include "weave/test/BundleBuilder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace weave;
using namespace weave::examples;
using weave::abi::ParamKind;
using weave::test::param;

namespace {

Bundle bundleOf(std::string name, uint32_t teamSize, std::string dtype,
                int64_t inputElements, int64_t outputElements) {
  return test::wrapCubin(
      {}, {test::kernelInfo(name, {1, 1, 1}, {256, 1, 1}, teamSize,
                            {param(ParamKind::Symmetric, "input", dtype,
                                   {inputElements}),
                             param(ParamKind::Symmetric, "output", dtype,
                                   {outputElements}),
                             test::semaphoreParam("barrier", 2)})},
      "test");
}

CollectiveKernel find(const Bundle &bundle) {
  Expected<CollectiveKernel> kernel = findCollective(bundle);
  EXPECT_TRUE(kernel) << (kernel ? "" : kernel.error().toString());
  return kernel ? *kernel : CollectiveKernel{};
}

size_t check(const CollectiveKernel &kernel, const CollectiveData &data,
             uint32_t rank, const std::vector<float> &output,
             bool rankOrder = true) {
  return checkCollectiveOutput(kernel, data, data.inputs.size(), rank,
                               encodeValues(kernel.dtype, output), rankOrder,
                               "test", "output");
}

float bits(uint32_t value) {
  float f;
  std::memcpy(&f, &value, 4);
  return f;
}

TEST(FindCollective, KindSizeAndDtypeFromTheManifest) {
  Bundle reduce = bundleOf("one_shot_all_reduce", 0, "f32", 5, 5);
  CollectiveKernel k = find(reduce);
  EXPECT_EQ(k.kind, Collective::AllReduce);
  EXPECT_EQ(k.n, 5);
  EXPECT_EQ(k.dtype, "f32");
  EXPECT_TRUE(k.rankOrder);
  // A D x n input gives n per member.
  Bundle a2a = bundleOf("all_to_all", 4, "bf16", 12, 12);
  k = find(a2a);
  EXPECT_EQ(k.kind, Collective::AllToAll);
  EXPECT_EQ(k.n, 3);
  EXPECT_EQ(k.inputElements(4), 12);
  EXPECT_EQ(k.outputElements(4), 12);
  Bundle atomic = bundleOf("atomic_all_reduce", 0, "f32", 4, 4);
  EXPECT_FALSE(find(atomic).rankOrder);
  // Issue #30's kernels: each named collective, n per member from its
  // input (the push reduce-scatter and both all-to-alls take D x n).
  struct Named {
    const char *name;
    Collective kind;
    int64_t input, n;
  };
  for (const Named &named :
       {Named{"push_all_reduce", Collective::AllReduce, 7, 7},
        Named{"push_all_gather", Collective::AllGather, 7, 7},
        Named{"direct_all_gather", Collective::AllGather, 7, 7},
        Named{"push_reduce_scatter", Collective::ReduceScatter, 21, 7},
        Named{"push_all_to_all", Collective::AllToAll, 21, 7},
        Named{"direct_all_to_all", Collective::AllToAll, 21, 7}}) {
    SCOPED_TRACE(named.name);
    CollectiveKernel pushed =
        find(bundleOf(named.name, 3, "bf16", named.input, 21));
    EXPECT_EQ(pushed.kind, named.kind);
    EXPECT_EQ(pushed.n, named.n);
    EXPECT_TRUE(pushed.rankOrder);
  }
}

// The checker has a case for every collective of the op registry, and
// finds each registered kernel (the ops' algorithms and the examples' own
// variants) as its op: a collective added to the registry with no case
// here fails this test.
TEST(FindCollective, EveryRegisteredCollectiveKernel) {
  for (const ops::RegisteredKernel &k : ops::registeredKernels()) {
    if (k.op->family != ops::OpFamily::Collective)
      continue;
    SCOPED_TRACE(k.algorithm->kernel);
    Expected<Collective> kind = collectiveOf(k.op->name);
    ASSERT_TRUE(kind) << kind.error().toString();
    // A team of 2, n = 3 per member: the input holds the op's extent.
    int64_t input = 3;
    for (const ops::RoleSpec &role : k.op->roles)
      if (role.param == "input" &&
          role.extent == ops::RoleExtent::TeamTimesCount)
        input = 6;
    CollectiveKernel found =
        find(bundleOf(k.algorithm->kernel, 2, "f32", input, 6));
    EXPECT_EQ(found.op, k.op);
    // An algorithm that runs another's kernel with other template values
    // (kernelOf: the all-gather's "narrow") is found as that kernel's
    // owner: a bundle names its kernel, not the values it was made with.
    EXPECT_EQ(found.algorithm,
              k.algorithm->kernelOf.empty()
                  ? k.algorithm
                  : ops::findRegisteredKernel(k.algorithm->kernel).algorithm);
    EXPECT_EQ(found.kind, *kind);
    EXPECT_EQ(found.n, 3);
    EXPECT_EQ(found.rankOrder, k.algorithm->rankOrder);
  }
  EXPECT_FALSE(collectiveOf("all_gather_matmul"));
}

TEST(FindCollective, RejectsWhatItCannotCheck) {
  Expected<CollectiveKernel> anyTeam =
      findCollective(bundleOf("reduce_scatter", 0, "f32", 8, 4));
  ASSERT_FALSE(anyTeam);
  EXPECT_NE(anyTeam.error().message().find("one team size"),
            std::string::npos);
  EXPECT_FALSE(findCollective(bundleOf("matmul", 0, "f32", 4, 4)));
  EXPECT_FALSE(findCollective(bundleOf("all_gather", 2, "i32", 4, 8)));
}

TEST(CheckCollectiveOutput, AllReduceIsTheRankOrderSumBitForBit) {
  Bundle bundle = bundleOf("one_shot_all_reduce", 0, "f32", 2, 2);
  CollectiveKernel k = find(bundle);
  CollectiveData data;
  // 1 + 2^-24 rounds to 1 in f32 (a tie, to even); float64 keeps it.
  data.inputs = {{1.0f, 0.5f}, {std::ldexp(1.0f, -24), 0.25f}};
  EXPECT_EQ(check(k, data, 0, {1.0f, 0.75f}), 0u);
  EXPECT_EQ(check(k, data, 1, {1.0f, 0.75f}), 0u);
  // The next float up is within the rounding bound of float64, but not the
  // rank-order sum: wrong for a rank-order kernel, right in any order.
  float up = std::nextafter(1.0f, 2.0f);
  EXPECT_EQ(check(k, data, 0, {up, 0.75f}), 1u);
  EXPECT_EQ(check(k, data, 0, {up, 0.75f}, /*rankOrder=*/false), 0u);
  // Outside the bound in any order; NaN (the poison) never passes.
  EXPECT_EQ(check(k, data, 0, {1.001f, 0.75f}, false), 1u);
  EXPECT_EQ(check(k, data, 0, {1.0f, bits(kPoisonF32)}), 1u);
}

TEST(CheckCollectiveOutput, LargeOutputsAreCheckedInChunks) {
  // 3 x 2^20 elements: split over threads where the machine has cores; the
  // wrong elements of every chunk are counted.
  int64_t n = int64_t(3) << 20;
  Bundle bundle = bundleOf("one_shot_all_reduce", 0, "f32", n, n);
  CollectiveKernel k = find(bundle);
  CollectiveData data;
  data.inputs = {std::vector<float>(n, 0.5f), std::vector<float>(n, 0.25f)};
  std::vector<float> output(n, 0.75f);
  EXPECT_EQ(check(k, data, 0, output), 0u);
  for (int64_t e : {int64_t(0), n / 2, n - 1, n / 3 + 7})
    output[e] = 0.5f;
  EXPECT_EQ(check(k, data, 1, output), 4u);
}

TEST(CheckCollectiveOutput, Bf16SumsRoundOnceToNearestEven) {
  Bundle bundle = bundleOf("reduce_scatter", 2, "bf16", 2, 1);
  CollectiveKernel k = find(bundle);
  CollectiveData data;
  // Member 0's part is element 0 of every input: 1 + 2^-8 is a tie between
  // two bf16 values, rounded to even (1); member 1's is element 1.
  data.inputs = {{1.0f, 2.0f}, {std::ldexp(1.0f, -8), 0.5f}};
  EXPECT_EQ(check(k, data, 0, {1.0f}), 0u);
  EXPECT_EQ(check(k, data, 0, {1.0078125f}), 1u);
  EXPECT_EQ(check(k, data, 1, {2.5f}), 0u);
  EXPECT_EQ(check(k, data, 1, {1.0f}), 1u);
}

TEST(CheckCollectiveOutput, CopiesAreBitForBit) {
  Bundle bundle = bundleOf("all_gather", 2, "f32", 1, 2);
  CollectiveKernel k = find(bundle);
  CollectiveData data;
  data.inputs = {{-0.0f}, {3.0f}};
  EXPECT_EQ(check(k, data, 0, {-0.0f, 3.0f}), 0u);
  EXPECT_EQ(check(k, data, 1, {0.0f, 3.0f}), 1u);
  EXPECT_EQ(check(k, data, 1, {3.0f, -0.0f}), 2u);
}

TEST(CheckCollectiveOutput, AllToAllVPacksBySourceAndLeavesTheRest) {
  Bundle bundle = bundleOf("all_to_all_v", 2, "f32", 4, 4);
  CollectiveKernel k = find(bundle);
  ASSERT_EQ(k.kind, Collective::AllToAllV);
  ASSERT_EQ(k.n, 2);
  CollectiveData data;
  // Rank 0 sends 1 element to itself and none to rank 1; rank 1 sends 2 to
  // rank 0 and 1 to itself, packed by destination.
  data.inputs = {{10, 11, 12, 13}, {20, 21, 22, 23}};
  data.counts = {{1, 0}, {2, 1}};
  float p = bits(kPoisonF32);
  EXPECT_EQ(check(k, data, 0, {10, 20, 21, p}), 0u);
  EXPECT_EQ(check(k, data, 1, {22, p, p, p}), 0u);
  // A received element missing, one written past the end, one misplaced.
  EXPECT_EQ(check(k, data, 0, {10, 20, p, p}), 1u);
  EXPECT_EQ(check(k, data, 1, {22, 0, p, p}), 1u);
  EXPECT_EQ(check(k, data, 0, {20, 10, 21, p}), 2u);
}

TEST(RandomCollectiveData, ValuesOfTheDtypeAndCountsUpToN) {
  Bundle bundle = bundleOf("all_to_all_v", 4, "bf16", 400, 400);
  CollectiveKernel k = find(bundle);
  std::mt19937 rng(7);
  int zeros = 0;
  for (int round = 0; round < 20; ++round) {
    CollectiveData data = randomCollectiveData(k, 4, rng);
    ASSERT_EQ(data.inputs.size(), 4u);
    ASSERT_EQ(data.counts.size(), 4u);
    for (const auto &member : data.inputs) {
      ASSERT_EQ(member.size(), 400u);
      for (float x : member) {
        uint32_t b;
        std::memcpy(&b, &x, 4);
        EXPECT_EQ(b & 0xffffu, 0u) << x << " is not a bf16 value";
        EXPECT_LE(std::fabs(x), 1.0f); // rounding may reach 1
      }
    }
    for (const auto &counts : data.counts)
      for (int32_t c : counts) {
        EXPECT_GE(c, 0);
        EXPECT_LE(c, 100);
        zeros += c == 0;
      }
  }
  EXPECT_GT(zeros, 0); // a count of 0 is drawn
}

} // namespace
