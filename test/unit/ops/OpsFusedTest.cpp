//===- OpsFusedTest.cpp - The fused matmul ops and how ops bind -----------===//
//
// CPU: the all-gather matmul's and the GEMM + reduce-scatter's kernel
// instances (which template, which values, one instance for every m_shard
// where the template allows it), their errors, and how an op binds its
// kernel's parameters (roles, workspace, dynamic shapes) on hand-made
// manifests. With the compiler: the same binding plan against the manifest
// of every op's compiled template.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"
#include "CopyEngineGather.h"
#include "GatherMatmul.h"
#include "InputGather.h"
#include "weave/ops/Collectives.h"
#include "weave/ops/FusedMatmul.h"
#ifdef WEAVE_OPS_TEST_JIT
#include "weave/ops/JitSource.h"
#endif

#include <gtest/gtest.h>

#include <set>
#include <tuple>

using namespace weave;
using namespace weave::ops;
using namespace weave::ops::detail;

namespace {

std::string value(const TemplateValues &values, const std::string &name) {
  for (const auto &[k, v] : values)
    if (k == name)
      return v;
  return "<none>";
}

bool mentions(const Error &error, const std::string &text) {
  return error.message().find(text) != std::string::npos;
}

TEST(OpsFused, AllGatherMatmulInstanceServesEveryShard) {
  Expected<KernelInstance> i = AllGatherMatmul::instanceFor(4, "bf16", 4096, 1000);
  ASSERT_TRUE(i) << i.error().toString();
  EXPECT_EQ(i->templateName, "collective_matmul/all_gather_matmul");
  EXPECT_EQ(i->key(), "all_gather_matmul_bf16_d4_mdyn_k4096_n1000");
  TemplateValues all = i->values();
  EXPECT_EQ(value(all, "ROWS"), "?");
  EXPECT_EQ(value(all, "D"), "4");
  EXPECT_EQ(value(all, "LAST"), "3");
  EXPECT_EQ(value(all, "DTYPE"), "bf16");
  EXPECT_EQ(value(all, "LAST_K"), "63");    // 4096 / 64 k steps
  EXPECT_EQ(value(all, "COL_TILES"), "4");  // ceil(1000 / 256)
  // The 256-column default past every variant: the ring, no k rotation.
  EXPECT_EQ(value(all, "K_ROTATION"), "0");
  EXPECT_EQ(value(all, "PUSH"), "0");
  // The static instances' schedule: groups of 8 kept inside a shard by
  // grid_tile_segments, 16 ready chunks per shard.
  EXPECT_EQ(value(all, "GROUP_ROWS"), "8");
  EXPECT_EQ(value(all, "READY"), "64");
  Expected<std::string> source = i->source();
  ASSERT_TRUE(source) << source.error().toString();
  EXPECT_NE(source->find("memref<?x4096xbf16, #weave.symmetric>"),
            std::string::npos);
  EXPECT_NE(source->find("memref<?x1000xbf16>"), std::string::npos);
  // The push where a shard's tiles fill at most half the SMs (66 of 132),
  // the ring past that.
  EXPECT_TRUE(AllGatherMatmul::pushes(384, 22));    // 66 tiles
  EXPECT_FALSE(AllGatherMatmul::pushes(512, 22));   // 88 tiles
  EXPECT_FALSE(AllGatherMatmul::pushes(640, 16));   // 80 tiles
  EXPECT_TRUE(AllGatherMatmul::pushes(1024, 8));    // 64 tiles
  EXPECT_FALSE(AllGatherMatmul::pushes(384, 22, 100));
  // In the op's instance the variants up to m_shard 512 push (K = N =
  // 4096, D = 2: 128 columns to 256, 192 at 384, 256 at 512: 64-66 tiles a
  // shard), the larger ones do not; none rotates its k loop.
  Expected<KernelInstance> k4 = AllGatherMatmul::instanceFor(2, "bf16", 4096, 4096);
  ASSERT_TRUE(k4) << k4.error().toString();
  int pushing = 0, ring = 0;
  for (const TemplateValues &v : k4->variants) {
    std::string attr = value(v, "VARIANT");
    size_t hi = attr.find("hi = ");
    bool small = hi != std::string::npos &&
                 std::stoll(attr.substr(hi + 5)) <= 2 * 512;
    EXPECT_EQ(value(v, "PUSH"), small ? "1" : "0") << attr;
    EXPECT_EQ(value(v, "K_ROTATION"), "0") << attr;
    (small ? pushing : ring) += 1;
  }
  EXPECT_EQ(pushing, 3);
  EXPECT_GE(ring, 2);
  // Every m_shard has the same ring instance: only create() sees it.
  for (std::string op : {"all_gather_matmul"})
    for (int64_t m : {128, 1152, 8192})
      EXPECT_EQ(matmulOpInstance(op, 4, "bf16", {m, 4096, 1000}, "ring")->key(),
                i->key());
}

// The column tile: a narrower one only where it is estimated 3% faster
// with the measured efficiencies (0.75 per column at 128, 0.88 at 192).
// D = 2, n = 4096 on 132 SMs: m_shard 256 is 64 tiles of 256 columns, one
// round with half the SMs idle, against one round of 128 half tiles (128);
// 1024 is two whole rounds (256); 1152 is 288 tiles in 3 rounds for 2.18
// waves against 3 whole rounds of 396 tiles of 192 columns (192: measured
// 1.17x faster; 128 x 128 measured 1.13x slower); 640 is 2 rounds either
// way, of narrower tiles at 192 (measured 1.05x faster); 2176 and 3200
// take one round more at 192 (256: measured 1.06x and 1.04x faster);
// large m_shards have many rounds (256).
TEST(OpsFused, AllGatherMatmulTileN) {
  EXPECT_EQ(AllGatherMatmul::tileN(2, 256, 4096), 128);
  EXPECT_EQ(AllGatherMatmul::tileN(2, 640, 4096), 192);
  EXPECT_EQ(AllGatherMatmul::tileN(2, 1024, 4096), 256);
  EXPECT_EQ(AllGatherMatmul::tileN(2, 1152, 4096), 192);
  EXPECT_EQ(AllGatherMatmul::tileN(2, 2176, 4096), 256);
  EXPECT_EQ(AllGatherMatmul::tileN(2, 3200, 4096), 256);
  EXPECT_EQ(AllGatherMatmul::tileN(2, 8192, 4096), 256);
  EXPECT_EQ(AllGatherMatmul::tileN(4, 4096, 28672), 256);
  // The SM count moves the rounds: on 64 SMs the 64 tiles of m_shard 256
  // fill a round, and 128 half tiles take two.
  EXPECT_EQ(AllGatherMatmul::tileN(2, 256, 4096, 64), 256);
}

// The dynamic instance: one kernel per run of m_shards with one column
// tile, as weave.variant ranges of a's rows (D x m_shard) that cover every
// row count, the last one unbounded; each copy with its tile's values.
TEST(OpsFused, AllGatherMatmulVariantsCoverEveryShard) {
  Expected<KernelInstance> i =
      AllGatherMatmul::instanceFor(2, "bf16", 4096, 4096);
  ASSERT_TRUE(i) << i.error().toString();
  ASSERT_GT(i->variants.size(), 1u);
  EXPECT_LE(i->variants.size(), 16u);
  int64_t next = 1;
  for (size_t v = 0; v < i->variants.size(); ++v) {
    const TemplateValues &values = i->variants[v];
    std::string attr = value(values, "VARIANT");
    size_t lo = attr.find("lo = "), hi = attr.find("hi = ");
    ASSERT_NE(lo, std::string::npos) << attr;
    EXPECT_EQ(std::stoll(attr.substr(lo + 5)), next) << attr;
    if (v + 1 == i->variants.size()) {
      EXPECT_EQ(hi, std::string::npos) << attr;
    } else {
      ASSERT_NE(hi, std::string::npos) << attr;
      int64_t last = std::stoll(attr.substr(hi + 5));
      // The range's tile is tileN's at its last m_shard.
      EXPECT_EQ(value(values, "TILE_N"),
                std::to_string(AllGatherMatmul::tileN(2, last / 2, 4096)));
      next = last + 1;
    }
    std::string tile = value(values, "TILE_N");
    EXPECT_EQ(value(values, "STAGES"), tile == "128" ? "6" : "4");
    EXPECT_EQ(value(values, "COL_TILES"),
              tile == "256" ? "16" : tile == "192" ? "22" : "32");
    EXPECT_NE(value(values, "KERNEL").find("all_gather_matmul__m"),
              std::string::npos);
  }
  Expected<std::string> source = i->source();
  ASSERT_TRUE(source) << source.error().toString();
  size_t kernels = 0;
  for (size_t at = source->find("gpu.func @"); at != std::string::npos;
       at = source->find("gpu.func @", at + 1))
    ++kernels;
  EXPECT_EQ(kernels, i->variants.size());
  EXPECT_NE(source->find("tile(128, 128, 64) stages(6)"), std::string::npos);
  EXPECT_NE(source->find("tile(128, 256, 64) stages(4)"), std::string::npos);
  EXPECT_NE(source->find("tile(128, 192, 64) stages(4)"), std::string::npos);
  EXPECT_NE(source->find("weave.variant = {of = \"all_gather_matmul\""),
            std::string::npos);
  // Few columns (n = 320: the tiles alternate with the rounds'
  // quantization): merged down to kMaxVariants, still covering every row
  // count.
  for (uint32_t d : {2u, 4u, 8u}) {
    Expected<KernelInstance> narrow =
        AllGatherMatmul::instanceFor(d, "bf16", 4096, 320);
    ASSERT_TRUE(narrow) << narrow.error().toString();
    EXPECT_LE(narrow->variants.size(), AllGatherMatmul::kMaxVariants);
    int64_t from = 1;
    for (size_t v = 0; v < narrow->variants.size(); ++v) {
      std::string attr = value(narrow->variants[v], "VARIANT");
      EXPECT_EQ(std::stoll(attr.substr(attr.find("lo = ") + 5)), from) << attr;
      size_t hi = attr.find("hi = ");
      if (v + 1 == narrow->variants.size()) {
        EXPECT_EQ(hi, std::string::npos) << attr;
      } else {
        ASSERT_NE(hi, std::string::npos) << attr;
        from = std::stoll(attr.substr(hi + 5)) + 1;
        // Neighbours differ in their tile or in pushing (else they would
        // be one range).
        EXPECT_TRUE(value(narrow->variants[v], "TILE_N") !=
                        value(narrow->variants[v + 1], "TILE_N") ||
                    value(narrow->variants[v], "PUSH") !=
                        value(narrow->variants[v + 1], "PUSH"))
            << attr;
      }
    }
  }
  // One tile for every m_shard (D = 8, n = 28672: 128 columns never gain
  // 3%) and no push (112 column tiles: a shard's tiles fill more than
  // half the SMs at every m_shard): no variants, the template's one
  // kernel under the op's name.
  Expected<KernelInstance> wide =
      AllGatherMatmul::instanceFor(8, "bf16", 4096, 28672);
  ASSERT_TRUE(wide) << wide.error().toString();
  EXPECT_TRUE(wide->variants.empty());
  EXPECT_NE(wide->source()->find("gpu.func @all_gather_matmul("),
            std::string::npos);
}

// A template without the kernel's marker lines cannot take variants.
TEST(OpsFused, VariantsNeedTheKernelMarkers) {
  Expected<KernelInstance> i = AllGather::instanceFor(2, "f32", 1024);
  ASSERT_TRUE(i) << i.error().toString();
  i->variants.push_back({});
  Expected<std::string> source = i->source();
  ASSERT_FALSE(source);
  EXPECT_TRUE(mentions(source.error(), "kernel begin")) << source.error().toString();
}

TEST(OpsFused, AllGatherMatmulShapes) {
  EXPECT_TRUE(AllGatherMatmul::checkShape(2, "f16", 1024, 4096, 4096));
  Expected<KernelInstance> ragged =
      matmulOpInstance("all_gather_matmul", 2, "f16", {200, 4096, 4096});
  ASSERT_FALSE(ragged);
  EXPECT_TRUE(mentions(ragged.error(),
                       "m_shard must be a multiple of 128 (the row tile), got 200"));
  Status f32 = AllGatherMatmul::checkShape(2, "f32", 128, 64, 64);
  ASSERT_FALSE(f32);
  EXPECT_TRUE(mentions(f32.error(), "dtype 'f32' is not supported (f16 or bf16"));
  Status k = AllGatherMatmul::checkShape(2, "bf16", 128, 100, 64);
  ASSERT_FALSE(k);
  EXPECT_TRUE(mentions(k.error(), "k must be a positive multiple of 8"));
  EXPECT_TRUE(mentions(k.error(), "got 100"));
  Status solo = AllGatherMatmul::checkShape(1, "bf16", 128, 64, 64);
  ASSERT_FALSE(solo);
  EXPECT_TRUE(mentions(solo.error(), "the team size must be at least 2 (a ring), got 1"));
  EXPECT_FALSE(AllGatherMatmul::checkShape(2, "bf16", 0, 64, 64));
  EXPECT_FALSE(AllGatherMatmul::checkShape(2, "bf16", 128, 64, 0));
}

TEST(OpsFused, MatmulReduceScatterInstances) {
  Expected<KernelInstance> i =
      MatmulReduceScatter::instanceFor(8, "f16", 256, 320, "owner_slots");
  ASSERT_TRUE(i) << i.error().toString();
  EXPECT_EQ(i->templateName, "matmul_reduce_scatter/matmul_reduce_scatter");
  EXPECT_EQ(i->key(), "matmul_reduce_scatter_f16_d8_mdyn_k256_n320");
  TemplateValues all = i->values();
  EXPECT_EQ(value(all, "N"), "?");
  EXPECT_EQ(value(all, "ROWS"), "?");
  EXPECT_EQ(value(all, "K"), "256");
  EXPECT_EQ(value(all, "COLS"), "320");
  EXPECT_EQ(value(all, "NARROW"), "arith.truncf");
  Expected<std::string> source = i->source();
  ASSERT_TRUE(source) << source.error().toString();
  EXPECT_NE(source->find("memref<?x256xf16>"), std::string::npos);
  EXPECT_NE(source->find("memref<?x320xf16, #weave.symmetric>"), std::string::npos);
  // One instance for every m_shard; another k or n is another kernel.
  for (int64_t m : {128, 256, 8192})
    EXPECT_EQ(matmulOpInstance("matmul_reduce_scatter", 8, "f16", {m, 256, 320},
                               "owner_slots")
                  ->key(),
              i->key());
  EXPECT_NE(
      MatmulReduceScatter::instanceFor(8, "f16", 512, 320, "owner_slots")->key(),
      i->key());
  EXPECT_NE(
      MatmulReduceScatter::instanceFor(8, "f16", 256, 640, "owner_slots")->key(),
      i->key());
  // Past 8 members: the per-member tensor-map table has no team limit.
  Expected<KernelInstance> big =
      MatmulReduceScatter::instanceFor(16, "bf16", 256, 256, "owner_slots");
  ASSERT_TRUE(big) << big.error().toString();
  EXPECT_EQ(big->teamSize, 16u);
  EXPECT_FALSE(MatmulReduceScatter::instanceFor(2, "f32", 256, 256));
  EXPECT_FALSE(MatmulReduceScatter::instanceFor(2, "bf16", 256, 12));
  // m_shard: whole row tiles (a box never straddles two owners' slots).
  Status ragged = MatmulReduceScatter::checkShape(2, "bf16", 200, 256, 256);
  ASSERT_FALSE(ragged);
  EXPECT_TRUE(mentions(ragged.error(), "multiple of 128 (the row tile), got 200"));
  EXPECT_FALSE(matmulOpInstance("matmul_reduce_scatter", 2, "bf16", {200, 256, 256}));
  EXPECT_FALSE(MatmulReduceScatter::checkShape(2, "bf16", 0, 256, 256));
  EXPECT_TRUE(MatmulReduceScatter::checkShape(1, "bf16", 128, 256, 256));
  Expected<KernelInstance> unknown =
      matmulOpInstance("matmul_all_reduce", 2, "bf16", {128, 64, 64});
  ASSERT_FALSE(unknown);
  EXPECT_TRUE(mentions(unknown.error(), "unknown fused matmul op 'matmul_all_reduce'"));
}

// The copy-engine algorithm (issue #31): the default from 2 members (the
// rule's measurement is in MatmulReduceScatter::choose), the fused kernel
// for a team of one and by name; its instance is one bundle of the chunk
// matmul (`?` rows, the compiler's configuration per range of rows) and
// the owner's sum (D source slots), for every m_shard.
TEST(OpsFused, MatmulReduceScatterCopyEngine) {
  EXPECT_EQ(MatmulReduceScatter::choose(1, "bf16", 1024, 4096, 4096), "owner_slots");
  for (uint32_t d : {2u, 3u, 4u, 8u, 16u})
    EXPECT_EQ(MatmulReduceScatter::choose(d, "bf16", 1024, 4096, 4096), "copy_engine")
        << d;
  Expected<KernelInstance> ce =
      MatmulReduceScatter::instanceFor(4, "bf16", 14336, 8192);
  ASSERT_TRUE(ce) << ce.error().toString();
  EXPECT_EQ(ce->templateName, "matmul_reduce_scatter/ce_matmul");
  EXPECT_EQ(ce->kernelName, "ce_matmul");
  EXPECT_EQ(ce->key(), "ce_matmul_bf16_d4_mdyn_k14336_n8192");
  EXPECT_EQ(MatmulReduceScatter::instanceFor(4, "bf16", 14336, 8192,
                                             "copy_engine")
                ->key(),
            ce->key());
  TemplateValues all = ce->values();
  EXPECT_EQ(value(all, "D"), "4");
  EXPECT_EQ(value(all, "T"), "bf16");
  EXPECT_EQ(value(all, "K"), "14336");
  EXPECT_EQ(value(all, "COLS"), "8192");
  Expected<std::string> source = ce->source();
  ASSERT_TRUE(source) << source.error().toString();
  EXPECT_NE(source->find("gpu.func @ce_matmul("), std::string::npos);
  EXPECT_NE(source->find("gpu.func @ce_matmul_sum("), std::string::npos);
  EXPECT_NE(source->find("gpu.func @ce_sum("), std::string::npos);
  EXPECT_NE(source->find("memref<?x14336xbf16>"), std::string::npos);
  EXPECT_NE(source->find("tile(auto)"), std::string::npos);
  EXPECT_NE(source->find("%team = arith.constant 4 : index"), std::string::npos);
  EXPECT_EQ(source->find("#weave.symmetric"), std::string::npos);
  // Every m_shard the copy engines run, one instance; the team size is
  // the sum's. (At 128 rows "auto" runs the fused kernel: 4 x 128 rows of
  // 8192 columns fill a round of its tiles, MatmulReduceScatterScatter.)
  for (int64_t m : {1024, 4096})
    EXPECT_EQ(matmulOpInstance("matmul_reduce_scatter", 4, "bf16",
                               {m, 14336, 8192})
                  ->key(),
              ce->key());
  EXPECT_EQ(matmulOpInstance("matmul_reduce_scatter", 4, "bf16",
                             {128, 14336, 8192})
                ->key(),
            "matmul_reduce_scatter_bf16_d4_mdyn_k14336_n8192");
  EXPECT_NE(MatmulReduceScatter::instanceFor(2, "bf16", 14336, 8192)->key(),
            ce->key());
  // The bundle holds the three kernels the op launches (the chunks, the
  // own chunk with the sum in its epilogue, or the sum as a pass: the
  // all-gather matmul's gather launches its ce_matmul too), nothing else.
  size_t kernels = 0;
  for (size_t at = source->find("gpu.func @"); at != std::string::npos;
       at = source->find("gpu.func @", at + 1))
    ++kernels;
  EXPECT_EQ(kernels, 3u);
  // The sum in the own chunk's epilogue where the own chunk is one round
  // of 128 x 256 tiles (132 SMs) or, at D = 2, its copy is short against a
  // round (m_shard x n / k at most kSumInEpilogueMaxPerK), else the pass.
  // 1536 x 4096 x 4096 (128 x 128 tiles, three rounds) took the pass at
  // every team size measured, 1024 x 7168 x 8192 (1170) the epilogue at D =
  // 2; from 3 members past one round the pass
  // (kSumInEpilogueMaxTeamPastRound), one round the epilogue at any size.
  struct SumPoint {
    uint32_t d;
    int64_t m, k, n;
    bool epilogue;
  };
  for (SumPoint p :
       {SumPoint{2, 1024, 4096, 4096, true}, SumPoint{2, 768, 3584, 4096, true},
        SumPoint{2, 1024, 7168, 8192, true}, SumPoint{2, 1152, 6912, 5120, true},
        SumPoint{2, 2048, 4096, 4096, false},
        SumPoint{2, 1536, 4096, 4096, false},
        SumPoint{2, 4096, 7168, 8192, false},
        SumPoint{3, 1024, 7168, 8192, false},
        SumPoint{4, 640, 7168, 8192, false},
        SumPoint{4, 1152, 4096, 4096, false},
        SumPoint{4, 1024, 4096, 4096, true}, SumPoint{8, 768, 3584, 4096, true}}) {
    SCOPED_TRACE("D = " + std::to_string(p.d) + ", " + std::to_string(p.m) +
                 " x " + std::to_string(p.k) + " x " + std::to_string(p.n));
    EXPECT_EQ(MatmulReduceScatter::sumsInEpilogue(p.d, p.m, p.k, p.n),
              p.epilogue);
  }
  // One round decides alone: 1024 x 4096 is 128 tiles, whatever k.
  EXPECT_TRUE(MatmulReduceScatter::sumsInEpilogue(2, 1024, 256, 4096));
  EXPECT_FALSE(MatmulReduceScatter::sumsInEpilogue(2, 1024, 256, 4096, 64));
  // A team of one: the fused kernel; by name either at any size.
  EXPECT_EQ(MatmulReduceScatter::instanceFor(1, "bf16", 256, 256)->kernelName,
            "matmul_reduce_scatter");
  EXPECT_EQ(MatmulReduceScatter::instanceFor(1, "bf16", 256, 256, "copy_engine")
                ->kernelName,
            "ce_matmul");
  EXPECT_EQ(MatmulReduceScatter::instanceFor(4, "bf16", 256, 256, "owner_slots")
                ->kernelName,
            "matmul_reduce_scatter");
  // "input_gather": its own bundle of both kernels, the peers' product over
  // (D - 1) k (k for a team of one, which never launches it).
  for (uint32_t d : {1u, 2u, 3u, 8u}) {
    Expected<KernelInstance> ig =
        MatmulReduceScatter::instanceFor(d, "f16", 512, 320, "input_gather");
    ASSERT_TRUE(ig) << ig.error().toString();
    EXPECT_EQ(ig->templateName, "matmul_reduce_scatter/ig_matmul");
    EXPECT_EQ(ig->kernelName, "ig_matmul");
    EXPECT_EQ(ig->key(), "ig_matmul_f16_d" + std::to_string(d) +
                             "_mdyn_k512_n320_p" +
                             std::to_string(
                                 MatmulReduceScatter::kInputGatherRowParts));
    auto value = [&](const std::string &key) {
      for (const auto &[name, v] : ig->values())
        if (name == key)
          return v;
      return std::string("(none)");
    };
    EXPECT_EQ(value("KP"), std::to_string(512 * std::max(d - 1, 1u)));
    EXPECT_EQ(value("K"), "512");
    EXPECT_EQ(value("PARTS"),
              std::to_string(MatmulReduceScatter::kInputGatherRowParts));
    // m_shard not known: b in one block, the plain walk.
    EXPECT_EQ(value("CBLOCK"), "320");
    EXPECT_EQ(value("CPARTS"), "1");
    EXPECT_EQ(value("CWALK"), "0");
  }
  // b in column blocks where n is at least kInputGatherColumnMinShare x
  // m_shard and m_shard x n / (m_shard + n) at most
  // kInputGatherColumnMaxOwnPerCopy: 2 blocks of whole 256-column quanta
  // (the last narrower), the add's walk in runs of them, its own bundle;
  // one block elsewhere.
  using MRS = MatmulReduceScatter;
  static_assert(MRS::kInputGatherColumnParts == 2 &&
                MRS::kInputGatherColumnMinShare == 4 &&
                MRS::kInputGatherColumnMaxOwnPerCopy == 1900 &&
                MRS::kInputGatherColumnQuantum == 256);
  EXPECT_EQ(MRS::inputGatherColumnBlock(2048, 1024, 8192), 4096);
  EXPECT_EQ(MRS::inputGatherColumnBlock(1792, 1024, 7168), 3584);
  EXPECT_EQ(MRS::inputGatherColumnBlock(1792, 1024, 7167), 7167);
  EXPECT_EQ(MRS::inputGatherColumnBlock(2048, 1024, 6144), 6144);
  EXPECT_EQ(MRS::inputGatherColumnBlock(128, 520, 1000), 512);
  EXPECT_EQ(MRS::inputGatherColumnBlock(128, 520, 500), 500);
  EXPECT_EQ(MRS::inputGatherColumnBlock(128, 256, 320), 320);
  EXPECT_EQ(MRS::inputGatherColumnBlock(0, 1024, 8192), 8192);
  // Where the own product nearly hides the copies: one block.
  EXPECT_EQ(MRS::inputGatherColumnBlock(2560, 1024, 10240), 10240);
  EXPECT_EQ(MRS::inputGatherColumnBlock(2304, 1024, 9216), 5632);
  EXPECT_EQ(MRS::inputGatherColumnBlock(2432, 1024, 9728), 9728);
  EXPECT_EQ(MRS::inputGatherColumnBlock(2048, 1024, 14336), 7168);
  EXPECT_EQ(MRS::inputGatherColumnBlock(2048, 1024, 28672), 28672);
  // Blocks whose rows would be more than 8 and less than 11 KB wide (the
  // copy engines' slow pitched copies) move to the nearest width that
  // gives none and as many blocks (block 0 the wider): n 9216 (9 + 9 KB)
  // as 11 + 7 KB, n 10240 (10 + 10 KB) as 12 + 8 KB, n 8704 (8.5 + 8.5
  // KB) as 11 + 6 KB; 11 KB halves stay, and 4-byte elements (18 KB).
  static_assert(MRS::kCopyEngineSlowRowMinBytes == 8192 &&
                MRS::kCopyEngineSlowRowMaxBytes == 11264);
  EXPECT_EQ(MRS::inputGatherColumnBlock(2048, 1024, 9216), 5632);
  EXPECT_EQ(MRS::inputGatherColumnBlock(2048, 1024, 10240), 6144);
  EXPECT_EQ(MRS::inputGatherColumnBlock(2048, 1024, 8704), 5632);
  EXPECT_EQ(MRS::inputGatherColumnBlock(2048, 1024, 11264), 5632);
  EXPECT_EQ(MRS::inputGatherColumnBlock(2048, 1024, 9216, 4), 4608);
  {
    Expected<KernelInstance> blocks =
        MRS::instanceFor(2, "bf16", 1024, 14336, "input_gather", 2048);
    ASSERT_TRUE(blocks) << blocks.error().toString();
    EXPECT_EQ(blocks->key(), "ig_matmul_bf16_d2_mdyn_k1024_n14336_p2_cw7168");
    Expected<KernelInstance> one =
        MRS::instanceFor(2, "bf16", 1024, 14336, "input_gather", 8192);
    ASSERT_TRUE(one) << one.error().toString();
    EXPECT_EQ(one->key(), "ig_matmul_bf16_d2_mdyn_k1024_n14336_p2");
  }
  // a's rows land in parts of R rows (whole 128-row tiles, the last part
  // short), at most `parts` of them, every row in one: ig_matmul_add's
  // tiles wait for the part of their last row (the template's arithmetic).
  using IG = ops::detail::InputGatherKernel;
  EXPECT_EQ(IG::partRows(2048, 4), 512);
  EXPECT_EQ(IG::partCount(2048, 4), 4);
  EXPECT_EQ(IG::partRows(640, 4), 256);
  EXPECT_EQ(IG::partCount(640, 4), 3);
  EXPECT_EQ(IG::partRows(128, 4), 128);
  EXPECT_EQ(IG::partCount(128, 4), 1);
  EXPECT_EQ(IG::partRows(4224, 4), 1152);
  EXPECT_EQ(IG::partCount(4224, 4), 4);
  for (int64_t parts : {1, 2, 3, 4, 7})
    for (int64_t m = 128; m <= 8192; m += 128) {
      int64_t rows = IG::partRows(m, parts), count = IG::partCount(m, parts);
      EXPECT_EQ(rows % IG::kPartRowQuantum, 0);
      EXPECT_LE(count, parts) << m;
      EXPECT_GE(count * rows, m) << m;
      EXPECT_LT((count - 1) * rows, m) << m;
    }
  // Member src's inputs on dst: peer j of dst is (dst + 1 + j) mod D, so
  // the D - 1 peers fill places 0 .. D - 2 once each.
  for (int64_t d : {2, 3, 4, 8})
    for (int64_t dst = 0; dst < d; ++dst) {
      std::set<int64_t> places;
      for (int64_t j = 0; j + 1 < d; ++j) {
        int64_t src = (dst + 1 + j) % d;
        EXPECT_EQ(ops::detail::InputGatherKernel::stageIndex(d, src, dst), j);
        places.insert(ops::detail::InputGatherKernel::stageIndex(d, src, dst));
      }
      EXPECT_EQ(int64_t(places.size()), d - 1);
    }
  // Not offered, or unknown: refused with the offered names.
  for (std::string bad : {"owner_combine", "ring", "nccl"}) {
    Expected<KernelInstance> refused =
        matmulOpInstance("matmul_reduce_scatter", 2, "bf16", {128, 256, 256}, bad);
    ASSERT_FALSE(refused) << bad;
    EXPECT_TRUE(mentions(refused.error(), "'owner_slots', 'copy_engine'"))
        << refused.error().toString();
  }
  // The shape is checked first, as for the fused kernel.
  EXPECT_FALSE(matmulOpInstance("matmul_reduce_scatter", 2, "bf16",
                                {200, 256, 256}, "copy_engine"));
  EXPECT_FALSE(MatmulReduceScatter::instanceFor(2, "f32", 256, 256, "copy_engine"));
  // The all-gather matmul's algorithms are its own: MRS's names are not.
  EXPECT_TRUE(matmulOpInstance("all_gather_matmul", 2, "bf16", {128, 256, 256},
                               "ring"));
  EXPECT_FALSE(matmulOpInstance("all_gather_matmul", 2, "bf16", {128, 256, 256},
                                "owner_slots"));
}

// The all-gather matmul's "gather" (ops/lib/GatherMatmul.h): offered by
// name, chosen by "auto" where one shard's plain matmul is one nearly full
// round of tiles, its matmul the GEMM + reduce-scatter's copy-engine
// instance (one bundle, one owner: the registry's kernelOf), the shape
// checked first.
TEST(OpsFused, AllGatherMatmulGather) {
  const OpSpec *agmm = findOp("all_gather_matmul");
  ASSERT_NE(agmm, nullptr);
  const AlgorithmSpec *ce = agmm->algorithm("gather");
  ASSERT_NE(ce, nullptr);
  EXPECT_TRUE(ce->offered);
  EXPECT_EQ(ce->kernelOf, "matmul_reduce_scatter");
  EXPECT_EQ(agmm->offeredNames(), "'ring', 'gather', 'copy_engine'");
  // The opt-in copy engines launch a kernel of their own (one launch over
  // every row, the ring's tile per range of m_shard); never "auto"'s
  // choice (choose() below).
  const AlgorithmSpec *pushed = agmm->algorithm("copy_engine");
  ASSERT_NE(pushed, nullptr);
  EXPECT_EQ(pushed->kernelOf, "");
  Expected<KernelInstance> pushedInstance =
      AllGatherMatmul::instanceFor(4, "bf16", 8192, 7168, "copy_engine");
  ASSERT_TRUE(pushedInstance) << pushedInstance.error().toString();
  EXPECT_EQ(pushedInstance->key(),
            "ce_all_gather_matmul_bf16_d4_mdyn_k8192_n7168");
  // Its variants split on the tile alone (the ring's also on the push),
  // so it has no more of them than the ring, and each is named for it.
  Expected<KernelInstance> ringInstance =
      AllGatherMatmul::instanceFor(4, "bf16", 4096, 4096, "ring");
  Expected<KernelInstance> ceVariants =
      AllGatherMatmul::instanceFor(4, "bf16", 4096, 4096, "copy_engine");
  ASSERT_TRUE(ringInstance && ceVariants);
  EXPECT_LE(ceVariants->variants.size(), ringInstance->variants.size());
  for (const TemplateValues &variant : ceVariants->variants)
    for (const auto &[key, value] : variant) {
      if (key == "KERNEL") {
        EXPECT_EQ(value.rfind("ce_all_gather_matmul__m", 0), 0u) << value;
      } else if (key == "PUSH") {
        EXPECT_EQ(value, "0");
      }
    }
  // "auto" takes it where it measured faster than the ring and the
  // gather (4 x H100, sixteenth and seventeenth sessions): from 3
  // members, b of 96 MiB or more, the ring's groups narrowed to one row
  // or its steps' last rounds mostly idle; and nowhere else of the
  // measured points (where it lost, it lost to the ring: at 512 x 8192 x
  // 8192 by 3%, where the gather lost by 15%).
  struct Point {
    uint32_t d;
    int64_t m, k, n;
    const char *chosen;
  };
  for (Point p : {Point{4, 640, 8192, 7168, "copy_engine"},
                  Point{3, 640, 8192, 7168, "copy_engine"},
                  Point{4, 512, 8192, 14336, "copy_engine"},
                  Point{4, 640, 8192, 14336, "copy_engine"},
                  Point{3, 640, 8192, 14336, "copy_engine"},
                  Point{4, 640, 8192, 8192, "copy_engine"},
                  Point{3, 640, 8192, 8192, "copy_engine"},
                  Point{4, 512, 8192, 8192, "copy_engine"},
                  Point{4, 768, 8192, 14336, "ring"},
                  Point{3, 768, 8192, 14336, "ring"},
                  Point{4, 768, 5120, 13824, "ring"},
                  Point{3, 768, 5120, 13824, "ring"},
                  Point{4, 1024, 8192, 8192, "ring"},
                  Point{3, 512, 8192, 14336, "gather"},
                  Point{4, 896, 8192, 7168, "ring"},
                  Point{4, 1024, 8192, 7168, "ring"},
                  Point{4, 1152, 5120, 13824, "ring"},
                  Point{4, 768, 5120, 6912, "ring"},
                  Point{4, 256, 8192, 14336, "gather"},
                  Point{4, 2048, 4096, 4096, "ring"},
                  Point{3, 384, 6144, 9216, "gather"},
                  Point{2, 640, 8192, 14336, "ring"},
                  Point{2, 768, 5120, 13824, "ring"}}) {
    SCOPED_TRACE("D = " + std::to_string(p.d) + ", " + std::to_string(p.m) +
                 " x " + std::to_string(p.k) + " x " + std::to_string(p.n));
    EXPECT_EQ(AllGatherMatmul::choose(p.d, p.m, p.k, p.n), p.chosen);
  }
  // The idle share of a ring step's last round: 5 x 56 tiles of 128 x 256
  // on 132 SMs are 2.12 rounds (0.88 idle), 4 x 32 are 0.97 (0.03).
  EXPECT_NEAR(AllGatherMatmul::ringStepIdle(4, 640, 14336), 116.0 / 132, 1e-9);
  EXPECT_NEAR(AllGatherMatmul::ringStepIdle(4, 512, 8192), 4.0 / 132, 1e-9);
  EXPECT_EQ(AllGatherMatmul::ringStepIdle(4, 33 * 128, 1024), 0.0); // 33 x 4
  for (int64_t m : {128, 256, 640, 1152, 4096})
    for (int64_t n : {4096, 7168, 14336})
      EXPECT_NE(AllGatherMatmul::choose(2, m, 8192, n), "copy_engine");
  // The kernel's owner is the GEMM + reduce-scatter's entry.
  RegisteredKernel owner = findRegisteredKernel("ce_matmul");
  ASSERT_NE(owner.op, nullptr);
  EXPECT_EQ(owner.op->name, "matmul_reduce_scatter");
  EXPECT_EQ(owner.algorithm->name, "copy_engine");
  for (uint32_t d : {2u, 4u})
    for (int64_t m : {int64_t(128), int64_t(384), int64_t(640), int64_t(1024)}) {
      SCOPED_TRACE("D = " + std::to_string(d) + ", m_shard " +
                   std::to_string(m));
      // "auto": gather at m_shard 128 (1 x 32 tiles, 0.24 of 132 SMs), 384
      // (3 x 32, 0.73) and 640 (5 x 22 tiles of 192 columns, 0.83; 1.21 of
      // 128: past one round), the ring at 1024 (1.94); at D = 2 the ring
      // at 384 too (3 row tiles: ringKeepsShortShard).
      bool gather = m != 1024 && !(d == 2 && m == 384);
      EXPECT_EQ(AllGatherMatmul::choose(d, m, 4096, 4096),
                gather ? "gather" : "ring");
      Expected<KernelInstance> automatic =
          matmulOpInstance("all_gather_matmul", d, "bf16", {m, 4096, 4096});
      ASSERT_TRUE(automatic) << automatic.error().toString();
      EXPECT_EQ(automatic->kernelName,
                gather ? "ce_matmul" : "all_gather_matmul");
      // By name: the same instance (key) as the GEMM + RS's copy engines.
      Expected<KernelInstance> byName = matmulOpInstance(
          "all_gather_matmul", d, "bf16", {m, 4096, 4096}, "gather");
      ASSERT_TRUE(byName) << byName.error().toString();
      Expected<KernelInstance> mrs =
          MatmulReduceScatter::instanceFor(d, "bf16", 4096, 4096, "copy_engine");
      ASSERT_TRUE(mrs);
      EXPECT_EQ(byName->key(), mrs->key());
      EXPECT_EQ(byName->kernelName, "ce_matmul");
      EXPECT_EQ(byName->templateName, "matmul_reduce_scatter/ce_matmul");
      EXPECT_EQ(
          AllGatherMatmul::instanceFor(d, "bf16", 4096, 4096, "gather")->key(),
          mrs->key());
    }
  // The fill, and the rule's edges: the least fill, one whole round, one
  // tile past it; other n (8192: 256 and 512 rows, 2048: 1024 rows).
  EXPECT_DOUBLE_EQ(AllGatherMatmul::gatherFill(512, 4096), 128.0 / 132);
  EXPECT_DOUBLE_EQ(AllGatherMatmul::gatherFill(128, 4000), 32.0 / 132);
  // 128 x 192 tiles where they make the one round: 768 rows, 6 x 22.
  EXPECT_DOUBLE_EQ(AllGatherMatmul::gatherFill(768, 4096), 132.0 / 132);
  EXPECT_DOUBLE_EQ(AllGatherMatmul::gatherFill(896, 4096), 224.0 / 132);
  EXPECT_EQ(AllGatherMatmul::choose(2, 768, 4096, 4096), "gather");
  EXPECT_EQ(AllGatherMatmul::choose(2, 896, 4096, 4096), "ring"); // 154 / 224
  EXPECT_EQ(AllGatherMatmul::choose(4, 512, 4096, 4096), "gather");
  EXPECT_EQ(AllGatherMatmul::choose(4, 256, 4096, 4096), "gather"); // 0.48
  EXPECT_EQ(AllGatherMatmul::choose(4, 512, 4096, 4224), "gather"); // 132
  // 4 x 34 = 136 tiles of 128 columns, past one round; 4 x 23 = 92 of 192.
  EXPECT_EQ(AllGatherMatmul::choose(4, 512, 4096, 4352), "gather");
  EXPECT_EQ(AllGatherMatmul::choose(4, 1024, 4096, 4352), "ring"); // 272, 184
  EXPECT_EQ(AllGatherMatmul::choose(1, 128, 4096, 4096), "ring");
  EXPECT_EQ(AllGatherMatmul::choose(4, 256, 4096, 8192), "gather"); // 0.97
  EXPECT_EQ(AllGatherMatmul::choose(2, 512, 4096, 8192), "ring");   // 1.94
  // At D = 2 a shard of 2-4 row tiles takes the ring where it is one round
  // (and b stays in the L2, or streams: 8192 x 7168 is 112 MiB), the gather
  // where b streams past one round; one row tile and 5 or more as before.
  EXPECT_TRUE(AllGatherMatmul::ringKeepsShortShard(2, 256));
  EXPECT_TRUE(AllGatherMatmul::ringKeepsShortShard(2, 512));
  EXPECT_FALSE(AllGatherMatmul::ringKeepsShortShard(2, 128));
  EXPECT_FALSE(AllGatherMatmul::ringKeepsShortShard(2, 640));
  EXPECT_FALSE(AllGatherMatmul::ringKeepsShortShard(3, 256));
  EXPECT_FALSE(AllGatherMatmul::ringKeepsShortShard(4, 384));
  EXPECT_EQ(AllGatherMatmul::choose(2, 256, 4096, 8192), "ring"); // 0.97
  EXPECT_EQ(AllGatherMatmul::choose(2, 256, 4096, 7168), "ring");
  EXPECT_EQ(AllGatherMatmul::choose(2, 384, 5120, 6912), "ring");
  EXPECT_EQ(AllGatherMatmul::choose(2, 256, 8192, 7168), "ring");
  EXPECT_EQ(AllGatherMatmul::choose(2, 384, 8192, 7168), "ring");
  EXPECT_EQ(AllGatherMatmul::choose(2, 384, 4096, 14336), "gather");
  EXPECT_EQ(AllGatherMatmul::choose(2, 512, 5120, 13824), "gather");
  // Past one round where b barely streams (at most 128 MiB) the ring,
  // unless its steps leave most of a round idle (3 row tiles of 14336:
  // 0.73); from 135 MiB the gather.
  EXPECT_TRUE(AllGatherMatmul::ringStreamsShortShard(2, 512, 7168, 7168));
  EXPECT_EQ(AllGatherMatmul::choose(2, 512, 7168, 7168), "ring");
  EXPECT_EQ(AllGatherMatmul::choose(2, 512, 8192, 7168), "ring");
  EXPECT_EQ(AllGatherMatmul::choose(2, 512, 4096, 14336), "ring");
  EXPECT_EQ(AllGatherMatmul::choose(2, 256, 4096, 14336), "ring");
  EXPECT_FALSE(AllGatherMatmul::ringStreamsShortShard(2, 384, 4096, 14336));
  EXPECT_FALSE(AllGatherMatmul::ringStreamsShortShard(2, 256, 5120, 13824));
  EXPECT_FALSE(AllGatherMatmul::ringStreamsShortShard(4, 512, 7168, 7168));
  EXPECT_EQ(AllGatherMatmul::choose(2, 256, 5120, 13824), "gather");
  EXPECT_EQ(AllGatherMatmul::choose(2, 128, 4096, 7168), "gather");
  // ... and where both shards together are one round of 128 x 128 tiles:
  // 2 x 2 x 32 = 128 of 132 at 256 x 4096 x 4096, 2 x 3 x 32 at 384 not.
  EXPECT_EQ(AllGatherMatmul::choose(2, 256, 4096, 4096), "gather");
  EXPECT_EQ(AllGatherMatmul::choose(2, 256, 4096, 4224), "gather"); // 132
  EXPECT_EQ(AllGatherMatmul::choose(2, 256, 4096, 4352), "ring");   // 136
  EXPECT_EQ(AllGatherMatmul::choose(2, 384, 4096, 4096), "ring");
  EXPECT_EQ(AllGatherMatmul::choose(4, 384, 4096, 7168), "gather");
  EXPECT_EQ(AllGatherMatmul::choose(4, 1024, 8192, 2048), "gather"); // 0.97
  // 128 x 192 tiles count up to kGatherWideTileMaxRows rows: 384 rows of
  // 8192 columns (3 x 43) take gather, 1152 and 1536 rows of 2048 (9 and
  // 12 x 11) the ring, though their 192-column round would be 0.75 and 1.
  EXPECT_EQ(AllGatherMatmul::choose(4, 384, 4096, 8192), "gather");
  EXPECT_DOUBLE_EQ(AllGatherMatmul::gatherFill(1152, 2048), 144.0 / 132);
  EXPECT_EQ(AllGatherMatmul::choose(2, 1152, 4096, 2048), "ring");
  EXPECT_EQ(AllGatherMatmul::choose(4, 1536, 4096, 2048), "ring");
  EXPECT_EQ(AllGatherMatmul::choose(4, 2304, 4096, 1024), "ring");
  EXPECT_EQ(AllGatherMatmul::instanceFor(2, "f16", 256, 320, "gather")->key(),
            "ce_matmul_f16_d2_mdyn_k256_n320");
  // Its source defines the chunk matmul it launches: (? x K) @ (K x N).
  Expected<KernelInstance> instance =
      AllGatherMatmul::instanceFor(4, "bf16", 256, 320, "gather");
  ASSERT_TRUE(instance);
  Expected<std::string> source = instance->source();
  ASSERT_TRUE(source) << source.error().toString();
  EXPECT_NE(source->find("gpu.func @ce_matmul("), std::string::npos);
  EXPECT_NE(source->find("memref<?x256xbf16>"), std::string::npos);
  EXPECT_NE(source->find("memref<256x320xbf16>"), std::string::npos);
  // Refused with a located message naming the offered algorithms.
  for (std::string bad :
       {"owner_slots", "owner_combine", "scatter", "nccl", ""}) {
    Expected<KernelInstance> refused =
        matmulOpInstance("all_gather_matmul", 2, "bf16", {128, 256, 256}, bad);
    ASSERT_FALSE(refused) << bad;
    EXPECT_TRUE(mentions(refused.error(), "all-gather matmul: algorithm must "
                                          "be 'auto' or one of 'ring', "
                                          "'gather', 'copy_engine', got '" +
                                              bad + "'"))
        << refused.error().toString();
  }
  // The shape first, as for the ring: whole row tiles, 16-byte rows, a
  // team of 2 or more, f16 or bf16.
  for (auto [d, dtype, shape] :
       {std::tuple<uint32_t, const char *, MatmulShape>{2, "bf16", {200, 256, 256}},
        {2, "bf16", {128, 250, 256}},
        {1, "bf16", {128, 256, 256}},
        {2, "f32", {128, 256, 256}}}) {
    Expected<KernelInstance> refused =
        matmulOpInstance("all_gather_matmul", d, dtype, shape, "gather");
    ASSERT_FALSE(refused);
    EXPECT_TRUE(mentions(refused.error(), "all-gather matmul"))
        << refused.error().toString();
  }
}

ParamInfo param(weave::abi::ParamKind kind, std::string name, std::string dtype = "",
                std::vector<int64_t> shape = {}) {
  ParamInfo p{kind, std::move(name), std::move(dtype), std::move(shape)};
  if (kind == weave::abi::ParamKind::Semaphore)
    p.semaphoreCount = 2;
  return p;
}

KernelInfo handMade() {
  KernelInfo k;
  k.name = "fused";
  k.params = {param(weave::abi::ParamKind::Symmetric, "a", "bf16", {-1, 64}),
              param(weave::abi::ParamKind::Buffer, "b", "bf16", {64, 32}),
              param(weave::abi::ParamKind::Buffer, "count", "i32", {1}),
              param(weave::abi::ParamKind::Symmetric, "acc", "f32", {16, 32}),
              param(weave::abi::ParamKind::Semaphore, "sems"),
              param(weave::abi::ParamKind::Rank, "rank")};
  return k;
}

TEST(OpsBindings, RolesAndWorkspace) {
  KernelInfo k = handMade();
  Expected<std::vector<ParamBinding>> plan =
      planBindings(k, "t/fused", {{"b", false}, {"a", false, true}});
  ASSERT_TRUE(plan) << plan.error().toString();
  ASSERT_EQ(plan->size(), 5u); // the rank is not a user parameter
  EXPECT_EQ((*plan)[0].kind, ParamBinding::Role);
  EXPECT_EQ((*plan)[0].role, 1u);
  EXPECT_EQ((*plan)[1].kind, ParamBinding::Role);
  EXPECT_EQ((*plan)[1].role, 0u);
  EXPECT_EQ((*plan)[2].kind, ParamBinding::LocalWorkspace);
  EXPECT_EQ((*plan)[3].kind, ParamBinding::SymmetricWorkspace);
  EXPECT_EQ((*plan)[4].kind, ParamBinding::Semaphores);
}

TEST(OpsBindings, BadRolesAreErrors) {
  KernelInfo k = handMade();
  Expected<std::vector<ParamBinding>> missing =
      planBindings(k, "t/fused", {{"x", false}});
  ASSERT_FALSE(missing);
  EXPECT_TRUE(mentions(missing.error(),
                       "kernel 'fused' of template 't/fused': no parameter 'x'"));
  Expected<std::vector<ParamBinding>> block =
      planBindings(k, "t/fused", {{"b", false, true}});
  ASSERT_FALSE(block);
  EXPECT_TRUE(mentions(block.error(), "parameter 'b' takes the member's block"));
  Expected<std::vector<ParamBinding>> sems =
      planBindings(k, "t/fused", {{"sems", false}});
  ASSERT_FALSE(sems);
  EXPECT_TRUE(mentions(sems.error(), "parameter 'sems' is a semaphore"));
  // A by-value scalar can be neither a role nor workspace.
  k.params.insert(k.params.begin() + 2, param(weave::abi::ParamKind::Scalar, "epoch", "i32"));
  Expected<std::vector<ParamBinding>> scalar = planBindings(k, "t/fused", {});
  ASSERT_FALSE(scalar);
  EXPECT_TRUE(mentions(scalar.error(), "parameter 'epoch' (a scalar) is bound by no role"));
}

// The all-gather matmul's host-driven algorithms ("gather", "copy_engine")
// check a call with one function: a (m x k per member, D = 2), b, c, and a
// placed `a` of the op's heap.
TEST(OpsBindings, AllGatherMatmulCallMismatch) {
  using weave::ops::TensorRef;
  TensorRef a{256, "bf16", {128, 64}}, b{4096, "bf16", {64, 32}},
      c{8192, "bf16", {256, 32}};
  std::vector<std::vector<TensorRef>> call{{a}, {b}, {c}};
  std::vector<std::optional<SymmetricBuffer>> none(3);
  auto check = [&](const std::vector<std::vector<TensorRef>> &tensors,
                   const std::vector<std::optional<SymmetricBuffer>> &placed) {
    return allGatherMatmulCallMismatch(tensors, 1, placed, 1, 7, "bf16", 2, 128,
                                       64, 32);
  };
  EXPECT_EQ(check(call, none), "");
  EXPECT_NE(check({{a}, {b}}, {{}, {}}), "");
  std::vector<std::vector<TensorRef>> narrowC{{a}, {b}, {{8192, "bf16", {128, 32}}}};
  EXPECT_TRUE(check(narrowC, none).find("'c'") != std::string::npos)
      << check(narrowC, none);
  SymmetricBuffer gathered{7, 0, 256 * 64 * 2, "bf16", {256, 64}};
  std::vector<std::optional<SymmetricBuffer>> placedA{gathered, {}, {}};
  // A placed `a` replaces the tensor's check (its TensorRef is unused).
  EXPECT_EQ(check({{TensorRef{}}, {b}, {c}}, placedA), "");
  SymmetricBuffer otherHeap = gathered;
  otherHeap.heapId = 8;
  EXPECT_EQ(check(call, {otherHeap, {}, {}}),
            "'a': the symmetric buffer is not in this op's symmetric memory");
  EXPECT_EQ(check(call, {{}, gathered, {}}),
            "'b' cannot be passed as a symmetric buffer (only 'a')");
}

TEST(OpsBindings, RoleTensorsMismatch) {
  using weave::ops::TensorRef;
  RoleExpectation a{"a", "bf16", 8, "2x4"}, b{"b", "bf16", 4, "4x1"};
  TensorRef ta{256, "bf16", {2, 4}}, tb{512, "bf16", {4}};
  EXPECT_EQ(roleTensorsMismatch({ta, ta}, a, 2, 16), "");
  EXPECT_EQ(roleTensorsMismatch({ta}, a, 2, 16),
            "'a': expected one tensor per local member (2), got 1");
  TensorRef wide{256, "bf16", {3, 4}};
  EXPECT_EQ(roleTensorsMismatch({ta, wide}, a, 2, 16),
            "'a' of local member 1: expected 8 elements (the op was created "
            "for 2x4), got 3x4");
  TensorRef odd{520, "bf16", {4}};
  EXPECT_EQ(roleTensorsMismatch({tb, odd}, b, 2, 16),
            "'b' of local member 1: the address must be 16-byte aligned");
  EXPECT_EQ(roleTensorsMismatch({tb, odd}, b, 2, 8), "");
  // Without an alignment, any address.
  EXPECT_EQ(roleTensorsMismatch({tb, {522, "bf16", {4}}}, b, 2), "");
  RoleExpectation f16{"a", "f16", 8, "2x4"};
  EXPECT_EQ(roleTensorsMismatch({ta, ta}, f16, 2, 16),
            "'a' of local member 0: expected dtype f16, got 'bf16'");
  // A matrix role, whole or a member's row block of it.
  RoleExpectation whole = RoleExpectation::matrix("c", "f16", 6, 5);
  EXPECT_EQ(whole.elements, 30);
  EXPECT_EQ(whole.createdFor, "6x5");
  RoleExpectation shard = RoleExpectation::matrix("a", "bf16", 4, 2, 2);
  EXPECT_EQ(shard.elements, 4);
  EXPECT_EQ(roleTensorsMismatch({ta}, shard, 1),
            "'a' of local member 0: expected 4 elements (the op was created "
            "for 1/2 of 4x2), got 2x4");
}

TEST(OpsBindings, OverlappingTensors) {
  using weave::ops::RoleSpec;
  using weave::ops::TensorRef;
  // The all-to-all-v's roles: input and counts disjoint, output not.
  std::vector<RoleSpec> roles = weave::ops::detail::opRoles("all_to_all_v");
  ASSERT_EQ(roles.size(), 3u);
  EXPECT_TRUE(roles[0].disjoint);
  EXPECT_TRUE(roles[1].disjoint);
  EXPECT_FALSE(roles[2].disjoint);
  std::vector<uint64_t> bytes{64, 16, 64};
  std::vector<bool> caller{true, true, true};
  auto at = [](uint64_t in, uint64_t counts, uint64_t out) {
    return std::vector<std::vector<TensorRef>>{
        {{in, "bf16", {32}}}, {{counts, "i32", {4}}}, {{out, "bf16", {32}}}};
  };
  EXPECT_EQ(overlappingTensors(roles, at(0, 64, 80), bytes, caller, 1), "");
  // Adjacent is not overlapping; one byte in is.
  EXPECT_EQ(overlappingTensors(roles, at(0, 64, 144), bytes, caller, 1), "");
  EXPECT_EQ(overlappingTensors(roles, at(0, 64, 63), bytes, caller, 1),
            "'input' overlaps 'output' (local member 0): this op does not run "
            "in place; pass tensors that do not share memory");
  EXPECT_EQ(overlappingTensors(roles, at(512, 64, 60), bytes, caller, 1),
            "'counts' overlaps 'output' (local member 0): this op does not "
            "run in place; pass tensors that do not share memory");
  // A role bound in place (the op's symmetric buffer) takes no part.
  EXPECT_EQ(
      overlappingTensors(roles, at(0, 64, 0), bytes, {false, true, true}, 1),
      "");
  // Roles that are not disjoint may share memory (all-reduce in place).
  std::vector<RoleSpec> plain = weave::ops::detail::opRoles("all_reduce");
  std::vector<std::vector<TensorRef>> same{{{0, "f32", {8}}},
                                           {{0, "f32", {8}}}};
  EXPECT_EQ(overlappingTensors(plain, same, {32, 32}, {true, true}, 1), "");
  // Every local member is checked.
  std::vector<std::vector<TensorRef>> two{
      {{0, "bf16", {32}}, {1024, "bf16", {32}}},
      {{64, "i32", {4}}, {2048, "i32", {4}}},
      {{80, "bf16", {32}}, {1040, "bf16", {32}}}};
  EXPECT_EQ(overlappingTensors(roles, two, bytes, caller, 2),
            "'input' overlaps 'output' (local member 1): this op does not run "
            "in place; pass tensors that do not share memory");
}

TEST(OpsBindings, CallCountsMismatch) {
  EXPECT_EQ(callCountsMismatch(2, 3, 0, 2, {"a", "b", "c"}), "");
  EXPECT_EQ(callCountsMismatch(2, 3, 3, 2, {"a", "b", "c"}), "");
  EXPECT_EQ(callCountsMismatch(1, 3, 0, 2, {"a", "b", "c"}),
            "expected one stream per local member (2), got 1");
  EXPECT_EQ(callCountsMismatch(2, 2, 0, 2, {"a", "b", "c"}),
            "expected 3 tensor arguments (a, b, c), got 2");
  EXPECT_EQ(callCountsMismatch(2, 3, 1, 2, {"a", "b", "c"}),
            "expected 3 in-place entries, got 1");
}

TEST(OpsBindings, InPlaceMismatch) {
  RoleExpectation a{"a", "bf16", 8, "2x4"};
  SymmetricBuffer buffer;
  buffer.heapId = 7;
  buffer.dtype = "bf16";
  buffer.shape = {2, 4};
  EXPECT_EQ(inPlaceMismatch(buffer, 7, a), "");
  EXPECT_EQ(inPlaceMismatch(buffer, 8, a),
            "'a': the symmetric buffer is not in this op's symmetric memory");
  buffer.shape = {4, 4};
  EXPECT_EQ(inPlaceMismatch(buffer, 7, a),
            "'a': expected a symmetric buffer of 2x4, got 4x4");
  buffer.dtype = "f16";
  EXPECT_EQ(inPlaceMismatch(buffer, 7, a),
            "'a': expected dtype bf16, got 'f16'");
}

TEST(OpsBindings, DynamicShapes) {
  KernelInfo k = handMade();
  Expected<std::vector<ParamInfo>> resolved =
      resolveParamShapes(k, {{"a", {256, 64}}});
  ASSERT_TRUE(resolved) << resolved.error().toString();
  ASSERT_EQ(resolved->size(), 5u);
  EXPECT_EQ((*resolved)[0].shape, (std::vector<int64_t>{256, 64}));
  EXPECT_EQ((*resolved)[1].shape, (std::vector<int64_t>{64, 32}));
  Expected<std::vector<ParamInfo>> none = resolveParamShapes(k, {});
  ASSERT_FALSE(none);
  EXPECT_TRUE(mentions(none.error(), "parameter 'a' has dynamic dimensions (?x64) "
                                     "and the op gives no shape"));
  Expected<std::vector<ParamInfo>> wrong =
      resolveParamShapes(k, {{"a", {256, 32}}});
  ASSERT_FALSE(wrong);
  EXPECT_TRUE(mentions(wrong.error(), "parameter 'a' is ?x64, the op gives 256x32"));
  EXPECT_FALSE(resolveParamShapes(k, {{"a", {0, 64}}}));
  EXPECT_FALSE(resolveParamShapes(k, {{"a", {256}}}));
  Expected<std::vector<ParamInfo>> extra =
      resolveParamShapes(k, {{"a", {256, 64}}, {"b", {64, 32}}});
  ASSERT_FALSE(extra);
  EXPECT_TRUE(mentions(extra.error(), "shape for 'b', which is not a parameter "
                                      "with dynamic dimensions"));
}

TEST(OpsBindings, FusedShapes) {
  ParamShapes agmm = matmulParamShapes("all_gather_matmul", 4, {256, 512, 320});
  EXPECT_EQ(agmm["a"], (std::vector<int64_t>{1024, 512}));
  EXPECT_EQ(agmm["own"], (std::vector<int64_t>{256, 512}));
  EXPECT_EQ(agmm["c"], (std::vector<int64_t>{1024, 320}));
  ParamShapes mrs = matmulParamShapes("matmul_reduce_scatter", 4, {256, 512, 320});
  EXPECT_EQ(mrs["a"], (std::vector<int64_t>{1024, 512}));
  EXPECT_EQ(mrs["partial"], (std::vector<int64_t>{128, 320}));
  EXPECT_EQ(mrs["slots"], (std::vector<int64_t>{2048, 320}));
  EXPECT_EQ(mrs["c"], (std::vector<int64_t>{256, 320}));
  EXPECT_TRUE(opRoles("broadcast").empty());
  EXPECT_TRUE(opRoles("all_gather_matmul")[0].memberBlock);
}

#ifdef WEAVE_OPS_TEST_JIT
/// Every op's roles and workspace against its compiled template's manifest.
TEST(OpsBindings, EveryOpBindsItsTemplate) {
  JitOptions options;
  options.useCache = false;
  JitSource jit(options);
  struct Case {
    std::string op;
    Expected<KernelInstance> instance;
    ParamShapes shapes;
    std::vector<ParamBinding::Kind> kinds;
  };
  using K = ParamBinding;
  std::vector<Case> cases;
  cases.push_back({"all_gather_matmul",
                   matmulOpInstance("all_gather_matmul", 2, "bf16",
                                    {256, 512, 320}, "ring"),
                   matmulParamShapes("all_gather_matmul", 2, {256, 512, 320}),
                   // `own`: a plain buffer no role names (RingGatherKernel
                   // binds the caller's shard there).
                   {K::Role, K::LocalWorkspace, K::Role, K::Role,
                    K::Semaphores, K::LocalWorkspace, K::Semaphores}});
  cases.push_back(
      {"matmul_reduce_scatter",
       matmulOpInstance("matmul_reduce_scatter", 4, "f16", {256, 256, 320},
                        "owner_slots"),
       matmulParamShapes("matmul_reduce_scatter", 4, {256, 256, 320}),
       {K::Role, K::Role, K::LocalWorkspace, K::SymmetricWorkspace, K::Role,
        K::LocalWorkspace, K::Semaphores}});
  // The copy-engine chunk matmul: a, b and c are the roles, `ws` its tail
  // split's workspace (the op's other workspace is not a kernel
  // parameter); `?` rows bound per chunk.
  cases.push_back(
      {"matmul_reduce_scatter",
       matmulOpInstance("matmul_reduce_scatter", 4, "f16", {256, 256, 320},
                        "copy_engine"),
       {{"a", {256, 256}}, {"c", {256, 320}}},
       {K::Role, K::Role, K::Role, K::LocalWorkspace}});
  for (std::string op : {"all_reduce", "all_gather", "reduce_scatter",
                         "all_to_all", "all_to_all_v"})
    cases.push_back({op, opInstance(op, 4, "bf16", 1001), {}, {}});
  // The push two-shot all-reduce: the caller's input and output, an op-owned
  // symmetric scratch, per-member epochs and one flag array.
  cases.push_back({"all_reduce",
                   opInstance("all_reduce", 4, "bf16", 1001, "push_two_shot"),
                   {},
                   {K::Role, K::Role, K::SymmetricWorkspace, K::LocalWorkspace,
                    K::Semaphores}});
  for (Case &c : cases) {
    SCOPED_TRACE(c.op);
    ASSERT_TRUE(c.instance) << c.instance.error().toString();
    Expected<Bundle> bundle = jit.bundleFor(*c.instance);
    ASSERT_TRUE(bundle) << bundle.error().toString();
    // The kernel, or its first variant (they take the same arguments).
    const KernelInfo *kernel = findKernel(*bundle, c.instance->kernelName);
    if (!kernel && !findVariants(*bundle, c.instance->kernelName).empty())
      kernel = findVariants(*bundle, c.instance->kernelName).front();
    ASSERT_NE(kernel, nullptr);
    Expected<std::vector<ParamBinding>> plan =
        planBindings(*kernel, c.instance->templateName, opRoles(c.op));
    ASSERT_TRUE(plan) << plan.error().toString();
    if (!c.kinds.empty()) {
      ASSERT_EQ(plan->size(), c.kinds.size());
      for (size_t p = 0; p < plan->size(); ++p)
        EXPECT_EQ((*plan)[p].kind, c.kinds[p]) << kernel->params[p].name;
    }
    Expected<std::vector<ParamInfo>> resolved =
        resolveParamShapes(*kernel, c.shapes);
    ASSERT_TRUE(resolved) << resolved.error().toString();
    for (const ParamInfo &p : *resolved)
      EXPECT_FALSE(p.hasDynamicDims()) << p.name;
  }
}
#endif

// The ops whose bundles a fused op loads beside its own: the gather's
// all-gather of m_shard x k elements, wherever "gather" runs (by name or
// as "auto"'s choice); nothing for the ring or the GEMM + RS; the shape
// checked as matmulOpInstance checks it.
// "scatter" (one matmul, then the reduce-scatter): "auto"'s choice for
// bf16 where one owner's chunk is at most one round of tiles; f16, which
// the reduce-scatter does not sum, keeps the copy engines, and asking for
// "scatter" in f16 is an error that says why. Its instance is the copy
// engines' (one bundle).
TEST(OpsFused, MatmulReduceScatterScatter) {
  EXPECT_EQ(MatmulReduceScatter::choose(4, "bf16", 128, 7168, 4096), "scatter");
  EXPECT_EQ(MatmulReduceScatter::choose(2, "bf16", 256, 4096, 4096), "scatter");
  EXPECT_EQ(MatmulReduceScatter::choose(4, "f16", 128, 7168, 4096),
            "copy_engine");
  EXPECT_EQ(MatmulReduceScatter::choose(1, "bf16", 128, 7168, 8192),
            "owner_slots");
  // Past a round, or past kScatterMaxRows at D = 2: the copy engines.
  EXPECT_EQ(MatmulReduceScatter::choose(2, "bf16", 512, 4096, 4096),
            "copy_engine");
  EXPECT_EQ(MatmulReduceScatter::choose(4, "bf16", 384, 4096, 4096), "scatter");
  EXPECT_EQ(MatmulReduceScatter::choose(4, "bf16", 1024, 4096, 4096),
            "copy_engine");
  // From 3 members past kScatterMaxRowsFrom3, though a chunk of 128 x 192
  // tiles is one round (gatherFill 0.83 at 640, 1.0 at 768): measured,
  // the copy engines won there (the rule's definition).
  EXPECT_LE(AllGatherMatmul::gatherFill(768, 4096), 1.0);
  for (uint32_t d : {3u, 4u})
    for (int64_t m : {640, 768})
      EXPECT_EQ(MatmulReduceScatter::choose(d, "bf16", m, 4096, 2048),
                "copy_engine")
          << d << " " << m;
  // Past kScatterMaxRows rows (from 3 members) only up to
  // kScatterMaxElementsPastMaxRows elements (m_shard x n, what the
  // reduce-scatter moves after the matmul), though within a round: past
  // it the copy engines; at 256 rows no such bound.
  const int64_t most = MatmulReduceScatter::kScatterMaxElementsPastMaxRows;
  for (uint32_t d : {3u, 4u}) {
    EXPECT_LE(AllGatherMatmul::gatherFill(512, 4096), 1.0);
    EXPECT_EQ(MatmulReduceScatter::choose(d, "bf16", 512, 3584, 4096),
              "copy_engine")
        << d;
    EXPECT_EQ(MatmulReduceScatter::choose(d, "bf16", 512, 3584, most / 512),
              "scatter")
        << d;
    EXPECT_EQ(MatmulReduceScatter::choose(d, "bf16", 384, 14336, most / 384),
              "scatter")
        << d;
    EXPECT_LE(AllGatherMatmul::gatherFill(384, most / 384 + 64), 1.0);
    EXPECT_EQ(MatmulReduceScatter::choose(d, "bf16", 384, 14336,
                                          most / 384 + 64),
              "copy_engine")
        << d;
  }
  EXPECT_GT(256 * 8192, most);
  EXPECT_EQ(MatmulReduceScatter::choose(3, "bf16", 256, 7168, 8192), "scatter");
  // Where "scatter" would run, the fused kernel when its one launch over
  // every member's chunk (128 x 256 tiles) fills its rounds
  // (ownerSlotsFillsRounds): 2 x 256 and 4 x 128 rows of 8192 columns are
  // 128 tiles (0.97 of a round of 132 SMs), 4 x 256 rows 256 (two rounds,
  // 0.97); 3 x 256 rows are 192 tiles (0.73 of two rounds), 2 x 256 rows
  // of 4096 columns 64 (0.48).
  using MRS = MatmulReduceScatter;
  EXPECT_TRUE(MRS::ownerSlotsFillsRounds(2, 256, 8192));
  EXPECT_TRUE(MRS::ownerSlotsFillsRounds(4, 128, 8192));
  EXPECT_TRUE(MRS::ownerSlotsFillsRounds(4, 256, 8192));
  EXPECT_FALSE(MRS::ownerSlotsFillsRounds(3, 256, 8192));
  EXPECT_FALSE(MRS::ownerSlotsFillsRounds(2, 256, 4096));
  EXPECT_FALSE(MRS::ownerSlotsFillsRounds(4, 384, 4096));
  EXPECT_TRUE(MRS::ownerSlotsFillsRounds(4, 128, 8192, 128));
  EXPECT_FALSE(MRS::ownerSlotsFillsRounds(4, 128, 8192, 200));
  EXPECT_FALSE(MRS::ownerSlotsFillsRounds(4, 0, 8192));
  EXPECT_FALSE(MRS::ownerSlotsFillsRounds(4, 128, 8192, 0));
  for (uint32_t d : {2u, 4u}) {
    EXPECT_EQ(MRS::choose(d, "bf16", 256, 7168, 8192), "owner_slots") << d;
    EXPECT_EQ(MRS::choose(d, "f16", 256, 7168, 8192), "owner_slots") << d;
  }
  EXPECT_EQ(MRS::choose(4, "bf16", 128, 7168, 8192), "owner_slots");
  EXPECT_EQ(MRS::choose(4, "bf16", 256, 3584, 4096), "owner_slots");
  EXPECT_EQ(MRS::choose(4, "bf16", 384, 14336, 4096), "scatter");
  // Not where the copy engines run (past a round or the rows), however
  // the fused kernel's launch fills: 4 x 1024 rows of 4096 are 512 tiles.
  EXPECT_TRUE(MRS::ownerSlotsFillsRounds(4, 1024, 4096));
  EXPECT_EQ(MRS::choose(4, "bf16", 1024, 4096, 4096), "copy_engine");
  EXPECT_EQ(MatmulReduceScatter::choose(2, "bf16", 256, 4096, 28672),
            "copy_engine");
  EXPECT_EQ(matmulOpAlgorithm("matmul_reduce_scatter", 4, "bf16",
                              {128, 7168, 4096}),
            "scatter");
  EXPECT_EQ(matmulOpAlgorithm("matmul_reduce_scatter", 4, "bf16",
                              {128, 7168, 8192}, "copy_engine"),
            "copy_engine");
  Expected<KernelInstance> scatter =
      MatmulReduceScatter::instanceFor(4, "bf16", 7168, 8192, "scatter");
  ASSERT_TRUE(scatter) << scatter.error().toString();
  EXPECT_EQ(scatter->key(), "ce_matmul_bf16_d4_mdyn_k7168_n8192");
  Expected<KernelInstance> f16 =
      MatmulReduceScatter::instanceFor(4, "f16", 7168, 8192, "scatter");
  ASSERT_FALSE(f16);
  EXPECT_TRUE(mentions(f16.error(), "does not take dtype 'f16'"));
  // Where the copy engines would run (rows past "scatter"'s), the fused
  // kernel up to kOwnerSlotsAnyRoundsMaxK at any size, and past it up to
  // kOwnerSlotsMaxK where its launch is at most kOwnerSlotsShortKMaxRounds
  // rounds; any team size and dtype. "scatter" keeps its rows.
  const int64_t shortK = MRS::kOwnerSlotsMaxK;
  const int64_t anyK = MRS::kOwnerSlotsAnyRoundsMaxK;
  EXPECT_LT(anyK, shortK);
  EXPECT_EQ(MRS::choose(2, "bf16", 512, shortK, 4096), "owner_slots");
  EXPECT_EQ(MRS::choose(2, "bf16", 512, shortK + 512, 4096), "copy_engine");
  for (uint32_t d : {2u, 3u, 4u})
    for (const char *dtype : {"bf16", "f16"}) {
      for (int64_t m : {768, 1024, 2048, 4096})
        for (int64_t n : {3000, 4096, 8192}) {
          int64_t tiles = (d * m / 128) * ((n + 255) / 256);
          bool few = tiles <= MRS::kOwnerSlotsShortKMaxRounds * 132;
          EXPECT_EQ(MRS::ownerSlotsBeatsCopyEngines(d, m, shortK, n), few)
              << d << " " << m << " " << n;
          // (Where the inputs are few against the partials, D = 2 gathers
          // them: inputGatherWins, tested below.)
          auto or_gather = [&](int64_t k, const char *otherwise) {
            return MRS::inputGatherWins(d, m, k, n) ? "input_gather"
                                                   : otherwise;
          };
          EXPECT_EQ(MRS::choose(d, dtype, m, shortK + 512, n),
                    or_gather(shortK + 512, "copy_engine"))
              << d << dtype << m << " " << n;
          EXPECT_EQ(MRS::choose(d, dtype, m, shortK, n),
                    or_gather(shortK, few ? "owner_slots" : "copy_engine"))
              << d << dtype << m << " " << n;
          EXPECT_EQ(MRS::choose(d, dtype, m, anyK, n),
                    or_gather(anyK, "owner_slots"))
              << d << dtype << m << " " << n;
          EXPECT_EQ(MRS::choose(d, dtype, m, 24, n),
                    or_gather(24, "owner_slots"));
        }
      // One round of a chunk's tiles within the scatter rows: "scatter"
      // for bf16, for f16 the fused kernel where k is short.
      EXPECT_FALSE(MRS::ownerSlotsFillsRounds(d, 128, 320));
      EXPECT_EQ(MRS::choose(d, dtype, 128, shortK, 320),
                std::string(dtype) == "bf16" ? "scatter" : "owner_slots");
      EXPECT_EQ(MRS::choose(d, dtype, 128, 4096, 320),
                std::string(dtype) == "bf16" ? "scatter" : "copy_engine");
    }
  // The inputs gathered (D = 2 only) where k x (m + n) is at most 2 m x n:
  // the measured wins (4096 x 1024 x 8192 and x 4096, 2048 x 1024 x 8192,
  // x 14336 and x 4096, 3072 x 1024 x 6144, 4096 x 1536 x 5120, 4096 x
  // 2048 x 8192 and x 4096, 8192 x 2048 x 4096; with a's rows in parts
  // 2048 x 2048 x 8192, 4096 x 3072 x 4096, 8192 and 6144 x 4096 x 4096,
  // 4096 x 4096 x 8192 and 4096 x 4096 x 4096) and the level point (2048
  // x 1536 x 8192); not the losses (1024 x 1024 x 8192 and x 4096, 2048
  // and 1024 x 4096 x 4096), nor 3072 x 4096 x 4096 (2.33, past the
  // bound: 1% ahead sustained), nor any other team size.
  for (auto [m, k, n] : {std::tuple{4096, 1024, 8192}, {4096, 1024, 4096},
                         {2048, 1024, 8192}, {4096, 1536, 5120},
                         {4096, 2048, 8192}, {8192, 2048, 4096},
                         {3072, 1024, 6144}, {2048, 1024, 14336},
                         {2048, 1024, 4096}, {4096, 2048, 4096},
                         {2048, 1536, 8192}, {2048, 2048, 8192},
                         {4096, 3072, 4096}, {8192, 4096, 4096},
                         {6144, 4096, 4096}, {4096, 4096, 8192},
                         {4096, 4096, 4096}}) {
    EXPECT_TRUE(MRS::inputGatherWins(2, m, k, n)) << m << " " << k << " " << n;
    EXPECT_EQ(MRS::choose(2, "f16", m, k, n), "input_gather");
    for (uint32_t d : {1u, 3u, 4u, 8u})
      EXPECT_FALSE(MRS::inputGatherWins(d, m, k, n)) << d;
  }
  // (4096 x 4104 x 4096: just past 2.0.)
  for (auto [m, k, n] : {std::tuple{1024, 1024, 4096}, {1024, 1024, 8192},
                         {2048, 4096, 4096}, {3072, 4096, 4096},
                         {1024, 4096, 4096}, {4096, 4104, 4096}})
    EXPECT_FALSE(MRS::inputGatherWins(2, m, k, n)) << m << " " << k << " " << n;
  EXPECT_FALSE(MRS::inputGatherWins(2, 0, 1024, 4096));
  // Below the smallest measured m_shard (2048) or m_shard x n (2048 x
  // 4096) the fixed costs (two launches, the copies' latency) and the
  // short own product were not measured: not taken, however short k.
  EXPECT_TRUE(MRS::inputGatherWins(2, 2048, 24, 4096));
  EXPECT_FALSE(MRS::inputGatherWins(2, 2048, 24, 4088));
  EXPECT_FALSE(MRS::inputGatherWins(2, 1920, 24, 16384));
  EXPECT_FALSE(MRS::inputGatherWins(2, 1024, 24, 65536));
  EXPECT_FALSE(MRS::inputGatherWins(2, 0, 1024, 4096));
  // The measured bound at k 2048, D = 2: 3.9 rounds (2048 x 4096) the
  // fused kernel, 7.8 (4096 x 4096) the copy engines; no SMs, none.
  EXPECT_TRUE(MRS::ownerSlotsBeatsCopyEngines(2, 2048, 2048, 4096));
  EXPECT_FALSE(MRS::ownerSlotsBeatsCopyEngines(2, 4096, 2048, 4096));
  EXPECT_TRUE(MRS::ownerSlotsBeatsCopyEngines(2, 2048, 1024, 8192));
  // k 1536 at 5.8 rounds (3072 x 1536 x 4096: 11-16% faster) and k 1024 at
  // 15.5 (8192 x 1024 x 4096: 27%): the fused kernel; k 2048 at 4.85
  // rounds (2560 x 2048 x 4096, level): the copy engines.
  EXPECT_TRUE(MRS::ownerSlotsBeatsCopyEngines(2, 3072, 1536, 4096));
  // k 1792 past 4 rounds (thirty-eighth session): the fused kernel ahead or
  // level at 5.8-15.5 rounds, burst and sustained.
  EXPECT_TRUE(MRS::ownerSlotsBeatsCopyEngines(2, 3072, 1792, 4096));
  EXPECT_TRUE(MRS::ownerSlotsBeatsCopyEngines(2, 4096, 1792, 8192));
  EXPECT_FALSE(MRS::ownerSlotsBeatsCopyEngines(2, 4096, 1793, 8192));
  EXPECT_TRUE(MRS::ownerSlotsBeatsCopyEngines(2, 8192, 1024, 4096));
  EXPECT_FALSE(MRS::ownerSlotsBeatsCopyEngines(2, 2560, 2048, 4096));
  EXPECT_FALSE(MRS::ownerSlotsBeatsCopyEngines(2, 512, 1024, 4096, 0));
}

TEST(OpsFused, MatmulOpCompanions) {
  auto companions = [](const std::string &op, uint32_t d, int64_t m,
                       const std::string &algorithm = "auto") {
    return matmulOpCompanions(op, d, "bf16", {m, 4096, 4096}, algorithm);
  };
  Expected<std::vector<CompanionOp>> gather =
      companions("all_gather_matmul", 4, 384);
  ASSERT_TRUE(gather) << gather.error().toString();
  ASSERT_EQ(gather->size(), 1u);
  EXPECT_EQ((*gather)[0].op, "all_gather");
  EXPECT_EQ((*gather)[0].count, 384 * 4096);
  EXPECT_EQ(opInstance("all_gather", 4, "bf16", (*gather)[0].count)->key(),
            "direct_all_gather_bf16_d4_n1572864");
  EXPECT_TRUE(companions("all_gather_matmul", 4, 1024)->empty()); // the ring
  EXPECT_EQ(companions("all_gather_matmul", 4, 1024, "gather")->size(), 1u);
  EXPECT_TRUE(companions("all_gather_matmul", 4, 384, "ring")->empty());
  // The GEMM + RS's "scatter" (a chunk of at most 256 rows and a round,
  // where the fused kernel's launch would not fill its round): its
  // reduce-scatter of m_shard x n; the copy engines and the fused kernel
  // none.
  Expected<std::vector<CompanionOp>> scatter =
      companions("matmul_reduce_scatter", 4, 128);
  ASSERT_TRUE(scatter) << scatter.error().toString();
  ASSERT_EQ(scatter->size(), 1u);
  EXPECT_EQ((*scatter)[0].op, "reduce_scatter");
  EXPECT_EQ((*scatter)[0].count, 128 * 4096);
  EXPECT_TRUE(
      companions("matmul_reduce_scatter", 4, 128, "copy_engine")->empty());
  EXPECT_TRUE(companions("matmul_reduce_scatter", 4, 256)->empty());
  EXPECT_TRUE(companions("matmul_reduce_scatter", 2, 384)->empty());
  EXPECT_TRUE(companions("matmul_reduce_scatter", 4, 1024)->empty());
  EXPECT_EQ(companions("matmul_reduce_scatter", 4, 1024, "scatter")->size(),
            1u);
  EXPECT_FALSE(companions("all_gather_matmul", 4, 100));
  EXPECT_FALSE(companions("all_reduce", 4, 128));
  EXPECT_EQ((*gather)[0].algorithm, "auto");
  EXPECT_EQ((*scatter)[0].algorithm, "auto");
}

// Where the gather runs BesideNarrow (b streamed, from 3 members), its
// all-gather is "narrow": the direct kernel on kNarrowAllGatherBlocks
// blocks, a bundle of its own beside the direct one of the same count.
TEST(OpsFused, NarrowAllGatherCompanion) {
  MatmulShape shape{256, 8192, 14336};
  for (uint32_t d : {2u, 3u, 4u}) {
    SCOPED_TRACE("D = " + std::to_string(d));
    Expected<std::vector<CompanionOp>> companions =
        matmulOpCompanions("all_gather_matmul", d, "bf16", shape, "auto");
    ASSERT_TRUE(companions) << companions.error().toString();
    ASSERT_EQ(companions->size(), 1u);
    EXPECT_EQ((*companions)[0].algorithm, d >= 3 ? "narrow" : "auto");
  }
  Expected<KernelInstance> narrow =
      opInstance("all_gather", 4, "bf16", 256 * 8192, "narrow");
  Expected<KernelInstance> direct =
      opInstance("all_gather", 4, "bf16", 256 * 8192, "direct");
  ASSERT_TRUE(narrow) << narrow.error().toString();
  ASSERT_TRUE(direct) << direct.error().toString();
  EXPECT_EQ(narrow->key(), "direct_all_gather_bf16_d4_n2097152_narrow");
  EXPECT_EQ(direct->key(), "direct_all_gather_bf16_d4_n2097152");
  EXPECT_EQ(narrow->kernelName, direct->kernelName);
  Expected<std::string> narrowSource = narrow->source();
  Expected<std::string> directSource = direct->source();
  ASSERT_TRUE(narrowSource && directSource);
  std::string blocks =
      "persistent(" + std::to_string(kNarrowAllGatherBlocks) + ")";
  EXPECT_NE(narrowSource->find(blocks), std::string::npos);
  EXPECT_EQ(directSource->find(blocks), std::string::npos);
  EXPECT_NE(directSource->find("persistent(64)"), std::string::npos);
  // Never the choice table's.
  EXPECT_EQ(opInstance("all_gather", 4, "bf16", 256 * 8192)->key(),
            direct->key());
}

// The gather's schedule: After (the all-gather, then one launch over every
// row) where the shard is small against the own shard's idle part of a
// round, Beside elsewhere; the line's points of the measurement
// (AllGatherMatmul::gatherSchedule) on each side of it.
// Where b does not stay in the L2 (streamsB: 96 MiB or more, m_shard up
// to 512), "auto" takes gather past one round too, and gather runs After
// there at D = 2, Beside with the narrow all-gather from 3 members; where
// it is smaller (K = N = 4096, or 64 MiB at 4096 x 8192) or
// the shard is larger, the ring and Beside as before.
TEST(OpsFused, StreamedB) {
  using S = AllGatherMatmul::GatherSchedule;
  EXPECT_TRUE(AllGatherMatmul::streamsB(256, 8192, 28672));
  EXPECT_TRUE(AllGatherMatmul::streamsB(512, 4096, 14336));
  EXPECT_FALSE(AllGatherMatmul::streamsB(512, 4096, 8192));
  EXPECT_FALSE(AllGatherMatmul::streamsB(1024, 8192, 28672));
  EXPECT_FALSE(AllGatherMatmul::streamsB(256, 4096, 4096)); // 32 MiB of b
  EXPECT_EQ(AllGatherMatmul::choose(2, 256, 8192, 28672), "gather");
  EXPECT_EQ(AllGatherMatmul::gatherSchedule(2, 256, 8192, 28672), S::After);
  // (At D = 4, 512 x 8192 x 14336 the copy engines beat gather's After:
  // copyEngineWins.)
  EXPECT_EQ(AllGatherMatmul::choose(4, 512, 8192, 14336), "copy_engine");
  EXPECT_EQ(AllGatherMatmul::choose(2, 512, 8192, 14336), "gather");
  // From 3 members, where splitting the launch costs no round of 128 x
  // 256 tiles, Beside with its all-gather on few blocks ("narrow") hides
  // the all-gather of D - 1 shards; the measured points (rounds own +
  // peers against all; gatherSchedule's definition).
  struct Point {
    uint32_t d;
    int64_t m, k, n;
    S schedule;
  };
  for (const Point &p : std::vector<Point>{
           {2, 512, 8192, 14336, S::After},
           {2, 256, 8192, 28672, S::After},
           {4, 256, 8192, 14336, S::BesideNarrow}, // 1 + 3, 4
           {4, 512, 8192, 14336, S::After},        // 2 + 6, 7
           {4, 384, 5120, 13824, S::After},        // 2 + 4, 5
           {3, 256, 8192, 18944, S::After},        // 2 + 3, 4
           {3, 512, 8192, 18944, S::After},        // 3 + 5, 7
           {3, 384, 6144, 9216, S::BesideNarrow},  // 1 + 2, 3
       })
    EXPECT_EQ(AllGatherMatmul::gatherSchedule(p.d, p.m, p.k, p.n), p.schedule)
        << "D = " << p.d << ", " << p.m << " x " << p.k << " x " << p.n;
  EXPECT_TRUE(AllGatherMatmul::narrowPaysNoRound(4, 256, 14336));
  EXPECT_FALSE(AllGatherMatmul::narrowPaysNoRound(4, 384, 13824));
  // Fewer SMs move the rounds: 256 x 14336 at D = 4 on 100 SMs is 2 + 4
  // rounds against 5.
  EXPECT_FALSE(AllGatherMatmul::narrowPaysNoRound(4, 256, 14336, 100));
  // Within one round (m_shard 128 of n 14336: 112 tiles of 128 x 128) the
  // bytes line decides, as without streamed b.
  EXPECT_EQ(AllGatherMatmul::gatherSchedule(4, 128, 8192, 14336), S::After);
  EXPECT_EQ(AllGatherMatmul::choose(2, 1024, 8192, 28672), "ring");
  EXPECT_EQ(AllGatherMatmul::choose(4, 1024, 4096, 4096), "ring");
  EXPECT_EQ(AllGatherMatmul::choose(1, 256, 8192, 28672), "ring");
  // Past a round with b in the L2: Beside, as measured before.
  EXPECT_EQ(AllGatherMatmul::gatherSchedule(4, 1024, 4096, 4096), S::Beside);
}

TEST(OpsFused, GatherSchedule) {
  using S = AllGatherMatmul::GatherSchedule;
  // b is not streamed at any of these: every team size runs alike.
  for (uint32_t d : {2u, 3u, 4u, 8u}) {
    SCOPED_TRACE("D = " + std::to_string(d));
    // N = 4096, K = 4096: 128-384 rows (1-3 MiB) After, 512 (4 MiB, fill
    // 0.97) and 640 (5 MiB, 0.83) Beside.
    for (int64_t m : {128, 256, 384})
      EXPECT_EQ(AllGatherMatmul::gatherSchedule(d, m, 4096, 4096), S::After)
          << m;
    EXPECT_EQ(AllGatherMatmul::gatherSchedule(d, 512, 4096, 4096), S::Beside);
    EXPECT_EQ(AllGatherMatmul::gatherSchedule(d, 640, 4096, 4096), S::Beside);
    EXPECT_EQ(AllGatherMatmul::gatherSchedule(d, 768, 4096, 4096), S::Beside);
    // N = 8192: 256 rows (2 MiB, fill 0.97) After; N = 2048: 512 rows (4
    // MiB, fill 0.48) After, 1024 (8 MiB, 0.97) Beside.
    EXPECT_EQ(AllGatherMatmul::gatherSchedule(d, 256, 4096, 8192), S::After);
    EXPECT_EQ(AllGatherMatmul::gatherSchedule(d, 512, 4096, 2048), S::After);
    EXPECT_EQ(AllGatherMatmul::gatherSchedule(d, 1024, 4096, 2048), S::Beside);
    // The shard's bytes count k: 512 rows of K = 2048 (2 MiB) run After.
    EXPECT_EQ(AllGatherMatmul::gatherSchedule(d, 512, 2048, 4096), S::After);
    // A large shard runs Beside however little of a round it fills: the
    // all-gather it would wait for is long (2048 x 4096, N = 512: 16 MiB,
    // fill 0.48).
    EXPECT_EQ(AllGatherMatmul::gatherSchedule(d, 2048, 4096, 512), S::Beside);
  }
}

// The gather's launches after the all-gather cover every shard once with
// the own shard's (Beside) or alone (After); without runs every member
// makes launches of the same shapes (a process driving several binds one
// shape per launch).
TEST(OpsFused, GatherLaunchesCoverEveryShard) {
  using weave::ops::detail::GatherMatmulKernel;
  using S = AllGatherMatmul::GatherSchedule;
  for (uint32_t d = 2; d <= 8; ++d)
    for (S schedule : {S::After, S::Beside, S::BesideNarrow})
      for (bool runs : {false, true}) {
        std::vector<std::vector<GatherMatmulKernel::RowRun>> plans;
        for (uint32_t r = 0; r < d; ++r) {
          SCOPED_TRACE("D = " + std::to_string(d) + ", member " +
                       std::to_string(r) + (runs ? ", runs" : ""));
          auto plan = GatherMatmulKernel::launchesAfter(schedule, r, d, runs);
          std::vector<int> times(d, 0);
          if (schedule != S::After)
            ++times[r];
          for (const auto &run : plan) {
            ASSERT_GT(run.shards, 0u);
            ASSERT_LE(run.first + run.shards, d);
            for (uint32_t s = run.first; s < run.first + run.shards; ++s)
              ++times[s];
          }
          EXPECT_EQ(times, std::vector<int>(d, 1));
          if (schedule == S::After)
            EXPECT_EQ(plan.size(), 1u);
          else if (runs)
            EXPECT_EQ(plan.size(), r == 0 || r + 1 == d ? 1u : 2u);
          else
            EXPECT_EQ(plan.front().first, (r + 1) % d); // the next first
          plans.push_back(plan);
        }
        if (!runs)
          for (uint32_t r = 1; r < d; ++r) {
            ASSERT_EQ(plans[r].size(), plans[0].size());
            for (size_t j = 0; j < plans[0].size(); ++j)
              EXPECT_EQ(plans[r][j].shards, plans[0][j].shards);
          }
      }
}

// The all-gather matmul's "gather" multiplies its own shard first, then
// every peer's once (GatherMatmul.cpp).
TEST(OpsFused, GatherMatmulOrder) {
  using weave::ops::detail::GatherMatmulKernel;
  for (uint32_t d = 2; d <= 8; ++d)
    for (uint32_t r = 0; r < d; ++r) {
      SCOPED_TRACE("D = " + std::to_string(d) + ", member " + std::to_string(r));
      EXPECT_EQ(GatherMatmulKernel::shardAt(r, d, 0), r);
      EXPECT_EQ(GatherMatmulKernel::shardAt(r, d, 1), (r + 1) % d);
      std::set<uint32_t> shards;
      for (uint32_t t = 0; t < d; ++t)
        shards.insert(GatherMatmulKernel::shardAt(r, d, t));
      EXPECT_EQ(shards.size(), d);
    }
}

// The all-gather matmul's copy engines: member r's j-th copy goes to r -
// j, so member r receives shard r + t at the others' t-th copies, the order
// its launches wait in (shardAt): every member gets every peer's shard
// once, and each copy stream sends to every peer once.
TEST(OpsFused, CopyEngineGatherOrder) {
  using weave::ops::detail::CopyEngineGatherKernel;
  for (uint32_t d = 2; d <= 8; ++d) {
    SCOPED_TRACE("D = " + std::to_string(d));
    for (uint32_t r = 0; r < d; ++r) {
      EXPECT_EQ(CopyEngineGatherKernel::shardAt(r, d, 0), r);
      std::set<uint32_t> targets, shards;
      for (uint32_t j = 1; j < d; ++j) {
        uint32_t p = CopyEngineGatherKernel::copyTarget(r, d, j);
        EXPECT_NE(p, r);
        targets.insert(p);
        // Member p's step j waits for shard r: the one r sent it at its
        // j-th copy.
        EXPECT_EQ(CopyEngineGatherKernel::shardAt(p, d, j), r);
        shards.insert(CopyEngineGatherKernel::shardAt(r, d, j));
      }
      EXPECT_EQ(targets.size(), d - 1);
      EXPECT_EQ(shards.size(), d - 1);
      EXPECT_EQ(shards.count(r), 0u);
    }
  }
}

} // namespace

// AllGatherMatmul::ringGroupRows: TileOrder::groupRows on the ring's
// launch (D segments of m_shard / 128 rows, tileN's column tiles, groups
// of 8, 132 SMs), at points "auto"'s copy-engine rule was measured on.
// E.g. D = 4, 640 x 14336: 4 segments of 5 x 56 tiles take 9 rounds of
// 125, waves of 3 rows, so groups of 5 - 3 = 2 rows. Shards of at most
// kUnnarrowedSegmentRows row tiles (512 rows) keep the width 8 in the
// schedule (ringGroupRows), where the wave rule alone (ringWaveRows, which
// copyEngineWins reads) gives 1 and 2.
TEST(OpsFused, RingGroupRowsAreTheRingsSchedule) {
  struct Point {
    uint32_t d;
    int64_t m, n, rows, waveRows;
  };
  for (Point p : {Point{4, 640, 14336, 2, 2}, Point{4, 768, 14336, 3, 3},
                  Point{4, 512, 8192, 8, 1}, Point{4, 640, 8192, 1, 1},
                  Point{4, 1024, 8192, 4, 4}, Point{4, 640, 7168, 1, 1},
                  Point{4, 896, 7168, 2, 2}, Point{4, 1024, 7168, 3, 3},
                  Point{4, 1152, 13824, 6, 6}, Point{3, 512, 14336, 8, 2},
                  Point{4, 256, 14336, 8, 1}, Point{2, 384, 7168, 8, 1}}) {
    SCOPED_TRACE("D = " + std::to_string(p.d) + ", m_shard " +
                 std::to_string(p.m) + ", n " + std::to_string(p.n));
    EXPECT_EQ(AllGatherMatmul::ringGroupRows(p.d, p.m, p.n), p.rows);
    EXPECT_EQ(AllGatherMatmul::ringWaveRows(p.d, p.m, p.n), p.waveRows);
  }
}
