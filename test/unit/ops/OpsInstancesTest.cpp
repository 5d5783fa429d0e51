//===- OpsInstancesTest.cpp - The ready-made ops' kernel instances --------===//
//
// CPU: every op fills every placeholder of its template, for several team
// sizes, dtypes and counts; bad requests are errors; a bundle folder names
// a missing bundle. With the compiler: every op's instance compiles, and
// its kernel has the parameters the op binds.
//
//===----------------------------------------------------------------------===//

#include "weave/ops/Collectives.h"
#include "weave/ops/FusedMatmul.h"
#ifdef WEAVE_OPS_TEST_JIT
#include "weave/ops/JitSource.h"
#endif

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

using namespace weave;
using namespace weave::ops;

namespace {

using InstanceFn = std::function<Expected<KernelInstance>(
    uint32_t, const std::string &, int64_t)>;

struct OpCase {
  const char *name;
  InstanceFn instance;
  std::vector<std::string> params; ///< the parameters the op binds
  bool reduces;
  const char *op, *algorithm; ///< opInstance's spelling of the case
};

std::vector<OpCase> opCases() {
  auto allReduce = [](AllReduceAlgorithm a) {
    return [a](uint32_t d, const std::string &t, int64_t n) {
      return AllReduce::instanceFor(d, t, n, a);
    };
  };
  // An op run by one named algorithm (not the table's choice).
  auto forced = [](auto instanceFor, std::string algorithm) {
    return [instanceFor, algorithm](uint32_t d, const std::string &t,
                                    int64_t n) {
      return instanceFor(d, t, n, algorithm);
    };
  };
  return {
      {"one_shot_all_reduce", allReduce(AllReduceAlgorithm::OneShot),
       {"input", "output"}, true, "all_reduce", "one_shot"},
      {"two_shot_all_reduce", allReduce(AllReduceAlgorithm::TwoShot),
       {"input", "output"}, true, "all_reduce", "two_shot"},
      {"push_all_reduce", allReduce(AllReduceAlgorithm::Push),
       {"input", "output"}, true, "all_reduce", "push"},
      {"push_two_shot_all_reduce", allReduce(AllReduceAlgorithm::PushTwoShot),
       {"input", "output"}, true, "all_reduce", "push_two_shot"},
      {"all_gather", forced(&AllGather::instanceFor, "put"),
       {"input", "output"}, false, "all_gather", "put"},
      {"push_all_gather", forced(&AllGather::instanceFor, "push"),
       {"input", "output"}, false, "all_gather", "push"},
      {"direct_all_gather", forced(&AllGather::instanceFor, "direct"),
       {"input", "output"}, false, "all_gather", "direct"},
      {"reduce_scatter", forced(&ReduceScatter::instanceFor, "pull"),
       {"input", "output"}, true, "reduce_scatter", "pull"},
      {"push_reduce_scatter", forced(&ReduceScatter::instanceFor, "push"),
       {"input", "output"}, true, "reduce_scatter", "push"},
      {"all_to_all", forced(&AllToAll::instanceFor, "put"),
       {"input", "output"}, false, "all_to_all", "put"},
      {"push_all_to_all", forced(&AllToAll::instanceFor, "push"),
       {"input", "output"}, false, "all_to_all", "push"},
      {"direct_all_to_all", forced(&AllToAll::instanceFor, "direct"),
       {"input", "output"}, false, "all_to_all", "direct"},
      {"all_to_all_v",
       [](uint32_t d, const std::string &t, int64_t n) {
         return AllToAllV::instanceFor(d, t, n, "put");
       },
       {"input", "counts", "output"}, false, "all_to_all_v", "put"},
  };
}

TEST(OpsInstances, EveryPlaceholderIsFilled) {
  for (const OpCase &op : opCases())
    for (uint32_t d : {2u, 4u, 8u})
      for (std::string dtype : {"f32", "bf16"})
        for (int64_t n : {int64_t(1), int64_t(1001), int64_t(262147)}) {
          SCOPED_TRACE(std::string(op.name) + " D=" + std::to_string(d) + " " +
                       dtype + " n=" + std::to_string(n));
          Expected<KernelInstance> instance = op.instance(d, dtype, n);
          ASSERT_TRUE(instance) << instance.error().toString();
          EXPECT_EQ(instance->kernelName, op.name);
          Expected<std::string> source = instance->source();
          ASSERT_TRUE(source) << source.error().toString();
          EXPECT_NE(source->find("@" + instance->kernelName),
                    std::string::npos);
          EXPECT_NE(source->find(std::to_string(n)), std::string::npos);
        }
}

TEST(OpsInstances, KeysTellInstancesApart) {
  auto key = [](Expected<KernelInstance> i) { return i->key(); };
  std::string a = key(AllGather::instanceFor(2, "bf16", 1001, "put"));
  // The names examples/CMakeLists.txt gives the examples' bundles.
  EXPECT_EQ(a, "all_gather_bf16_d2_n1001");
  EXPECT_EQ(key(AllReduce::instanceFor(4, "f32", 7, AllReduceAlgorithm::Push)),
            "push_all_reduce_f32_d4_n7");
  EXPECT_EQ(key(AllReduce::instanceFor(4, "f32", 7, AllReduceAlgorithm::OneShot)),
            "one_shot_all_reduce_f32_dany_n7");
  EXPECT_NE(a, key(AllGather::instanceFor(4, "bf16", 1001)));
  EXPECT_NE(a, key(AllGather::instanceFor(2, "f32", 1001)));
  EXPECT_NE(a, key(AllGather::instanceFor(2, "bf16", 1000)));
}

TEST(OpsInstances, AllToAllVTokens) {
  // The element form is rows of one element: the same instance and key.
  Expected<KernelInstance> elements =
      AllToAllV::instanceFor(4, "bf16", 64, "put");
  ASSERT_TRUE(elements);
  EXPECT_EQ(elements->key(), "all_to_all_v_bf16_d4_n64");
  EXPECT_EQ(AllToAllV::instanceFor(4, "bf16", 64, "put", 1)->key(),
            elements->key());
  // Auto: the direct kernel at D = 4, packets for 128 bytes at D = 2.
  EXPECT_EQ(AllToAllV::instanceFor(4, "bf16", 64, "auto", 4096)->key(),
            "direct_all_to_all_v_bf16_d4_r64x4096");
  EXPECT_EQ(AllToAllV::instanceFor(2, "bf16", 64)->key(),
            "ll_all_to_all_v_bf16_d2_n64");
  // From 3 members, packets up to 256 KB of capacity per pair (the largest
  // timed at D = 4), the direct kernel above.
  EXPECT_EQ(AllToAllV::instanceFor(3, "bf16", 131072)->key(),
            "ll_all_to_all_v_bf16_d3_n131072");
  EXPECT_EQ(AllToAllV::instanceFor(4, "f32", 65536)->key(),
            "ll_all_to_all_v_f32_d4_n65536");
  EXPECT_EQ(AllToAllV::instanceFor(4, "bf16", 131080)->key(),
            "direct_all_to_all_v_bf16_d4_n131080");
  // Tokens: 64 rows of 4096 per pair, counts in rows.
  Expected<KernelInstance> tokens =
      AllToAllV::instanceFor(4, "bf16", 64, "put", 4096);
  ASSERT_TRUE(tokens) << tokens.error().toString();
  EXPECT_EQ(tokens->key(), "all_to_all_v_bf16_d4_r64x4096");
  EXPECT_EQ(tokens->count, 64 * 4096);
  Expected<std::string> source = tokens->source();
  ASSERT_TRUE(source) << source.error().toString();
  EXPECT_NE(source->find("%hidden = arith.constant 4096 : index"),
            std::string::npos);
  // In and out hold D x capacity rows.
  EXPECT_NE(source->find("memref<" + std::to_string(4 * 64 * 4096) + "xbf16>"),
            std::string::npos);
  Expected<std::string> plain = elements->source();
  ASSERT_TRUE(plain);
  EXPECT_NE(plain->find("%hidden = arith.constant 1 : index"),
            std::string::npos);
  // Bad shapes are located errors.
  Expected<KernelInstance> zero = AllToAllV::instanceFor(4, "bf16", 64, "auto", 0);
  ASSERT_FALSE(zero);
  EXPECT_NE(zero.error().message().find("elements per row"), std::string::npos);
  Expected<KernelInstance> huge =
      AllToAllV::instanceFor(4, "bf16", int64_t(1) << 30, "auto", 1 << 20);
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.error().message().find("capacity x elements per row"),
            std::string::npos);
}

// The dispatch by name (weave-ops, Python, RegisteredOp) takes the token
// form for the all-to-all-v alone.
TEST(OpsInstances, OpInstanceTakesRowsForTheAllToAllVOnly) {
  Expected<KernelInstance> tokens =
      opInstance("all_to_all_v", 4, "bf16", 64, "put", 4096);
  ASSERT_TRUE(tokens) << tokens.error().toString();
  EXPECT_EQ(tokens->key(), "all_to_all_v_bf16_d4_r64x4096");
  EXPECT_EQ(opInstance("all_to_all_v", 4, "bf16", 64, "put", 1)->key(),
            "all_to_all_v_bf16_d4_n64");
  Expected<KernelInstance> gather =
      opInstance("all_gather", 4, "bf16", 64, "auto", 8);
  ASSERT_FALSE(gather);
  EXPECT_EQ(gather.error().code(), ErrorCode::InvalidArgument);
  EXPECT_NE(gather.error().message().find(
                "is for all_to_all_v (the token form), got 8 for all_gather"),
            std::string::npos);
}

TEST(OpsInstances, AutoPicksFromTheTable) {
  // Every op has a row for every size and team size it takes.
  for (const char *op : {"all_reduce", "all_gather", "reduce_scatter",
                         "all_to_all", "all_to_all_v"})
    for (uint32_t d : {1u, 2u, 3u, 4u, 8u})
      for (int64_t n : {int64_t(1), int64_t(4097), int64_t(1) << 27}) {
        SCOPED_TRACE(std::string(op) + " D=" + std::to_string(d));
        std::string algorithm = chooseAlgorithm(op, d, "bf16", n);
        ASSERT_FALSE(algorithm.empty());
        Expected<KernelInstance> chosen = opInstance(op, d, "bf16", n);
        ASSERT_TRUE(chosen) << chosen.error().toString();
        EXPECT_EQ(chosen->key(),
                  opInstance(op, d, "bf16", n, algorithm)->key());
      }
  // The table's rows, in order: the first that holds the size wins.
  for (const CollectiveChoice &row : collectiveChoices()) {
    if (row.maxBytes > (int64_t(1) << 40))
      continue;
    int64_t count = row.maxBytes / 4;
    EXPECT_EQ(chooseAlgorithm(row.op, row.minTeam, "f32", count),
              row.algorithm)
        << row.op;
    EXPECT_NE(chooseAlgorithm(row.op, row.minTeam, "f32", count + 1),
              row.algorithm)
        << row.op;
  }
  EXPECT_EQ(chooseAlgorithm("broadcast", 2, "f32", 8), "");
  // An instance for any team size: the all-reduce's two-shot serves it.
  EXPECT_EQ(AllReduce::instanceFor(0, "bf16", 8, AllReduceAlgorithm::Auto)->key(),
            "two_shot_all_reduce_bf16_dany_n8");
  EXPECT_EQ(AllReduce::choose(0, "bf16", 8), AllReduceAlgorithm::TwoShot);
  // The latency path at D = 2: packets to 256 KB, push to 1 MB.
  EXPECT_EQ(AllReduce::choose(2, "bf16", 1024), AllReduceAlgorithm::Ll);
  EXPECT_EQ(AllReduce::choose(2, "bf16", 256 << 10), AllReduceAlgorithm::Push);
  EXPECT_EQ(AllReduce::instanceFor(2, "f32", 1 << 24, AllReduceAlgorithm::Auto)
                ->kernelName,
            "two_shot_all_reduce");
  // The bandwidth path's push two-shot: D = 2 from 1 MB to 16 MB, D >= 3
  // from 256 KB on (docs/PERF.md, issue #30).
  EXPECT_EQ(AllReduce::choose(2, "bf16", 2 << 20), AllReduceAlgorithm::PushTwoShot);
  EXPECT_EQ(AllReduce::choose(4, "f32", 1 << 26), AllReduceAlgorithm::PushTwoShot);
  EXPECT_EQ(AllReduce::choose(3, "bf16", 1 << 20), AllReduceAlgorithm::PushTwoShot);
  EXPECT_EQ(AllReduce::choose(4, "bf16", 64 << 10), AllReduceAlgorithm::Push);
  Expected<AllReduceAlgorithm> parsed = parseAllReduceAlgorithm("push_two_shot");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(*parsed, AllReduceAlgorithm::PushTwoShot);
  EXPECT_EQ(allReduceAlgorithmName(AllReduceAlgorithm::PushTwoShot),
            "push_two_shot");
  // One table spells both directions: every value round-trips, and an
  // unknown name lists them all.
  for (AllReduceAlgorithm a :
       {AllReduceAlgorithm::Auto, AllReduceAlgorithm::OneShot,
        AllReduceAlgorithm::TwoShot, AllReduceAlgorithm::Push,
        AllReduceAlgorithm::PushTwoShot, AllReduceAlgorithm::Ll})
    EXPECT_EQ(*parseAllReduceAlgorithm(allReduceAlgorithmName(a)), a);
  Expected<AllReduceAlgorithm> ring = parseAllReduceAlgorithm("ring");
  ASSERT_FALSE(ring);
  EXPECT_EQ(ring.error().message(),
            "algorithm must be 'auto', 'one_shot', 'two_shot', 'push', "
            "'push_two_shot' or 'll', got 'ring'");
  Expected<KernelInstance> bad = AllGather::instanceFor(2, "f32", 8, "ring");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find(
                "'put', 'push', 'direct', 'narrow', 'll', got 'ring'"),
            std::string::npos);
}

TEST(OpsInstances, OpsByName) {
  for (const OpCase &op : opCases()) {
    SCOPED_TRACE(op.name);
    Expected<KernelInstance> byName =
        opInstance(op.op, 4, "bf16", 77, op.algorithm);
    ASSERT_TRUE(byName) << byName.error().toString();
    EXPECT_EQ(byName->key(), op.instance(4, "bf16", 77)->key());
  }
  Expected<KernelInstance> unknown = opInstance("broadcast", 2, "f32", 8);
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message().find("unknown op 'broadcast'"),
            std::string::npos);
  Expected<KernelInstance> badAlgorithm =
      opInstance("all_reduce", 2, "f32", 8, "three_shot");
  ASSERT_FALSE(badAlgorithm);
  EXPECT_NE(badAlgorithm.error().message().find("got 'three_shot'"),
            std::string::npos);
}

TEST(OpsInstances, BadRequestsAreErrors) {
  for (const OpCase &op : opCases()) {
    SCOPED_TRACE(op.name);
    Expected<KernelInstance> zero = op.instance(2, "f32", 0);
    ASSERT_FALSE(zero);
    EXPECT_EQ(zero.error().code(), ErrorCode::InvalidArgument);
    Expected<KernelInstance> f64 = op.instance(2, "f64", 16);
    ASSERT_FALSE(f64);
    EXPECT_NE(f64.error().message().find("'f64' is not supported"),
              std::string::npos);
    // f16 sums would round in f16 on the way: only the moving ops take it.
    EXPECT_EQ(bool(op.instance(2, "f16", 16)), !op.reduces);
  }
}

// A name that is no dtype is the dtype table's one error (parseDType), with
// the op in front; a known dtype the op does not take names those it does,
// from the table.
TEST(OpsInstances, UnknownDTypeIsTheTablesError) {
  for (const OpCase &op : opCases()) {
    SCOPED_TRACE(op.name);
    Expected<KernelInstance> x16 = op.instance(2, "x16", 16);
    ASSERT_FALSE(x16);
    EXPECT_EQ(x16.error().code(), ErrorCode::InvalidArgument);
    EXPECT_NE(x16.error().message().find(
                  ": unknown dtype 'x16' (expected f16, bf16, f32, f64, i8, "),
              std::string::npos)
        << x16.error().message();
    Expected<KernelInstance> i8 = op.instance(2, "i8", 16);
    ASSERT_FALSE(i8);
    EXPECT_NE(i8.error().message().find(
                  op.reduces ? "'i8' is not supported (bf16 or f32: sums"
                             : "'i8' is not supported (f16, bf16 or f32)"),
              std::string::npos)
        << i8.error().message();
  }
  Expected<KernelInstance> matmul =
      matmulOpInstance("all_gather_matmul", 2, "x16", {128, 64, 64});
  ASSERT_FALSE(matmul);
  EXPECT_NE(matmul.error().message().find("unknown dtype 'x16'"),
            std::string::npos)
      << matmul.error().message();
}

TEST(OpsInstances, TemplatesAreEmbedded) {
  std::vector<std::string> names = templateNames();
  for (const char *name :
       {"all_reduce/one_shot_all_reduce", "all_reduce/two_shot_all_reduce",
        "all_gather/all_gather", "reduce_scatter/reduce_scatter",
        "all_to_all/all_to_all", "all_to_all/all_to_all_v",
        "all_reduce/push_all_reduce", "all_gather/push_all_gather",
        "all_gather/direct_all_gather", "reduce_scatter/push_reduce_scatter",
        "all_to_all/push_all_to_all", "all_to_all/direct_all_to_all",
        "collective_matmul/all_gather_matmul"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  Expected<std::string> missing = templateText("nope/nope");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), ErrorCode::NotFound);
  // all_gather needs a team size: without one @D@ is left.
  KernelInstance partial{"all_gather/all_gather", "all_gather", "f32", 0, 8, {}};
  Expected<std::string> source = partial.source();
  ASSERT_FALSE(source);
  EXPECT_NE(source.error().message().find("has no value"), std::string::npos);
}

TEST(OpsInstances, CollectiveValues) {
  auto value = [](const TemplateValues &values, const std::string &name) {
    for (const auto &[k, v] : values)
      if (k == name)
        return v;
    return std::string("<none>");
  };
  TemplateValues odd = collectiveValues(2, "f32", 1001);
  EXPECT_EQ(value(odd, "VW"), "1");
  EXPECT_EQ(value(odd, "NV"), "1001");
  EXPECT_EQ(value(odd, "ROWS"), "2002");
  EXPECT_EQ(value(odd, "LINES"), "4004");
  EXPECT_EQ(value(odd, "SLOTS"), "4004");
  // 4004 bytes: one block of the push kernels; flags per parity, block, peer.
  EXPECT_EQ(value(odd, "BLOCKS"), "1");
  EXPECT_EQ(value(odd, "FLAGS"), "4");
  TemplateValues big = collectiveValues(4, "bf16", 1 << 20);
  EXPECT_EQ(value(big, "BLOCKS"), std::to_string(kCollectiveMaxBlocks));
  EXPECT_EQ(value(big, "FLAGS"), std::to_string(2 * 4 * kCollectiveMaxBlocks));
  EXPECT_EQ(value(collectiveValues(2, "f32", 4096), "BLOCKS"), "2");
  // Past 128 MB, one block per 2 MB, at most 128 (the 256 MB all-reduce).
  EXPECT_EQ(value(collectiveValues(4, "f32", 32 << 20), "BLOCKS"), "64");
  EXPECT_EQ(value(collectiveValues(4, "f32", (48 << 20) + 1), "BLOCKS"), "96");
  TemplateValues huge = collectiveValues(4, "bf16", 128 << 20);
  EXPECT_EQ(value(huge, "BLOCKS"), std::to_string(kCollectiveWideMaxBlocks));
  EXPECT_EQ(value(huge, "FLAGS"),
            std::to_string(2 * 4 * kCollectiveWideMaxBlocks));
  EXPECT_EQ(value(collectiveValues(4, "f32", int64_t(1) << 30), "BLOCKS"),
            std::to_string(kCollectiveWideMaxBlocks));
  // A team of 3: one block per 1 MB past 128 MB, at most 256 (the 256 MB
  // all-reduce); the same as any team up to 128 MB.
  EXPECT_EQ(value(collectiveValues(3, "f32", 32 << 20), "BLOCKS"), "64");
  EXPECT_EQ(value(collectiveValues(3, "f32", (32 << 20) + 4), "BLOCKS"), "128");
  EXPECT_EQ(value(collectiveValues(3, "bf16", 128 << 20), "BLOCKS"),
            std::to_string(kCollectiveWideMaxBlocksTeamOf3));
  EXPECT_EQ(value(collectiveValues(3, "bf16", 128 << 20), "FLAGS"),
            std::to_string(2 * 3 * kCollectiveWideMaxBlocksTeamOf3));
  EXPECT_EQ(collectiveBlocks("bf16", 128 << 20), kCollectiveWideMaxBlocks);
  // An explicit BLOCKS sizes FLAGS too.
  EXPECT_EQ(value(collectiveValues(2, "f32", 8, {{"BLOCKS", "5"}}), "FLAGS"),
            "20");
  // The pull reduce-scatter's shared memory (one block a SM) does not
  // depend on the size.
  EXPECT_EQ(value(odd, "PULL_SMEM"),
            std::to_string(kPullReduceScatterSmemBytes));
  EXPECT_EQ(value(huge, "PULL_SMEM"),
            std::to_string(kPullReduceScatterSmemBytes));
  EXPECT_EQ(value(odd, "WIDEN"), "arith.bitcast");
  TemplateValues wide = collectiveValues(0, "bf16", 262144);
  EXPECT_EQ(value(wide, "VW"), "8");
  EXPECT_EQ(value(wide, "VB"), "16");
  EXPECT_EQ(value(wide, "NV"), "32768");
  EXPECT_EQ(value(wide, "WIDEN"), "arith.extf");
  EXPECT_EQ(value(wide, "D"), "<none>");
  EXPECT_EQ(value(wide, "PULL_SMEM"), "<none>");
  EXPECT_EQ(value(collectiveValues(0, "f32", 6), "VW"), "2");
  // FW (16 bytes of elements) does not depend on N, unlike VW: the pull
  // reduce-scatter loads 16-byte vectors at an odd N (a team of 3) too.
  EXPECT_EQ(value(odd, "FW"), "4");
  EXPECT_EQ(value(odd, "EB"), "4");
  EXPECT_EQ(value(collectiveValues(3, "bf16", 2796202), "FW"), "8");
  EXPECT_EQ(value(collectiveValues(3, "bf16", 2796202), "VB"), "4");
  EXPECT_EQ(value(collectiveValues(3, "bf16", 2796202), "EB"), "2");
  EXPECT_EQ(value(collectiveValues(0, "bf16", 1002, {{"WIDTH", "2"}}), "PIECES"),
            "501");
  // A template-specific value overrides a derived one of the same key.
  KernelInstance custom{"", "", "f32", 2, 8, {{"ROWS", "99"}, {"K", "4"}}};
  TemplateValues all = custom.values();
  EXPECT_EQ(value(all, "ROWS"), "99");
  EXPECT_EQ(value(all, "K"), "4");
  EXPECT_EQ(std::count_if(all.begin(), all.end(),
                          [](const auto &e) { return e.first == "ROWS"; }),
            1);
}

TEST(OpsInstances, BundleFolderNamesTheMissingBundle) {
  auto folder = bundleFolder("/nonexistent-weave-bundles");
  Expected<Bundle> bundle =
      folder->bundleFor(*AllGather::instanceFor(2, "f32", 8, "put"));
  ASSERT_FALSE(bundle);
  EXPECT_EQ(bundle.error().code(), ErrorCode::NotFound);
  EXPECT_NE(bundle.error().message().find(
                "/nonexistent-weave-bundles/all_gather_f32_d2_n8.wbundle"),
            std::string::npos);
}

#ifdef WEAVE_OPS_TEST_JIT
TEST(OpsInstances, EveryInstanceCompiles) {
  JitOptions options;
  options.useCache = false;
  JitSource jit(options);
  for (const OpCase &op : opCases())
    for (std::string dtype : {"f32", "bf16"}) {
      SCOPED_TRACE(std::string(op.name) + " " + dtype);
      Expected<KernelInstance> instance = op.instance(4, dtype, 1001);
      ASSERT_TRUE(instance);
      Expected<Bundle> bundle = jit.bundleFor(*instance);
      ASSERT_TRUE(bundle) << bundle.error().toString();
      const KernelInfo *kernel = findKernel(*bundle, op.name);
      ASSERT_NE(kernel, nullptr);
      for (const std::string &param : op.params)
        EXPECT_TRUE(std::any_of(kernel->params.begin(), kernel->params.end(),
                                [&](const ParamInfo &p) {
                                  return p.name == param;
                                }))
            << "no parameter " << param;
    }
}
#endif

} // namespace
