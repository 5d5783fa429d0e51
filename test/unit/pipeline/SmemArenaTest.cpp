//===- SmemArenaTest.cpp - the shared memory layout of a pipeline ---------===//
//
// The arena aligns what it hands out; the matmul layout's regions do not
// overlap, keep tiles on 1024-byte boundaries and fit in what
// getSharedMemoryBytes reports (which the kernel reserves); SmemBase views
// and pointers land at base + offset.
//
//===----------------------------------------------------------------------===//

#include "PipelineTestSupport.h"

#include "weave/Dialect/Weave/Transforms/Pipeline/SmemArena.h"

using namespace mlir;
using namespace mlir::weave::pipeline;
using namespace weave_test;

namespace {

TEST(SmemArena, AlignsEachRegionAndCountsTheBaseSlack) {
  SmemArena arena;
  EXPECT_EQ(arena.allocate(100, 8), 0);
  EXPECT_EQ(arena.allocate(10, 1024), 1024);
  EXPECT_EQ(arena.allocate(3, 8), 1040);
  EXPECT_EQ(arena.allocate(8, 16), 1056);
  EXPECT_EQ(arena.usedBytes(), 1064);
  EXPECT_EQ(arena.requiredBytes(), 1064 + SmemArena::kBaseAlignment);
}

struct Config {
  const char *in, *out, *attrs;
};

class MatmulLayout : public ::testing::TestWithParam<Config> {};

TEST_P(MatmulLayout, RegionsAreDisjointAlignedAndSized) {
  auto ctx = makeContext();
  Config c = GetParam();
  PipelineModule pm = PipelineModule::parse(
      *ctx, pipelineKernel(512, 512, 512, c.in, c.out, c.attrs));
  ASSERT_TRUE(pm.op);
  ASSERT_TRUE(succeeded(pm.op.verify()));
  MatmulTiling t = MatmulTiling::get(pm.op);
  MatmulSmemLayout l(t);
  // [begin, end) of every region, tiles first.
  struct Region {
    int64_t begin, end, align;
  };
  std::vector<Region> regions;
  for (int64_t s = 0; s < t.stages; ++s) {
    regions.push_back({l.stageOffset(s), l.stageOffset(s) + l.lhsBytes, 1024});
    for (int64_t box = 0; box < t.tn / t.inBoxCols(); ++box) {
      int64_t at = l.stageOffset(s) + l.lhsBytes + box * l.rhsBoxBytes;
      regions.push_back({at, at + l.rhsBoxBytes, 1024});
    }
  }
  for (int64_t c = 0; c < t.consumers; ++c)
    for (int64_t i = 0; i < t.epilogueBuffers; ++i) {
      int64_t at = l.consumerEpilogueOffset(c, t.epilogueBuffers) +
                   i * l.epilogueBoxBytes;
      regions.push_back({at, at + l.epilogueBoxBytes, 1024});
    }
  for (int64_t s = 0; s < t.stages; ++s) {
    regions.push_back({l.fullBarrierOffset + 8 * s,
                       l.fullBarrierOffset + 8 * s + 8, 8});
    regions.push_back({l.emptyBarrierOffset + 8 * s,
                       l.emptyBarrierOffset + 8 * s + 8, 8});
  }
  int64_t end = 0;
  for (size_t i = 0; i < regions.size(); ++i) {
    EXPECT_EQ(regions[i].begin % regions[i].align, 0) << "region " << i;
    end = std::max(end, regions[i].end);
    for (size_t j = 0; j < i; ++j)
      EXPECT_TRUE(regions[i].end <= regions[j].begin ||
                  regions[j].end <= regions[i].begin)
          << "regions " << j << " and " << i << " overlap";
  }
  // The whole arena, plus the run-time alignment of the base, and no more.
  EXPECT_EQ(l.requiredBytes, end + SmemArena::kBaseAlignment);
  EXPECT_EQ(pm.op.getSharedMemoryBytes(), l.requiredBytes);
  // The rhs tile is 128-byte rows of tile_k: one 64-column (f16) box.
  EXPECT_EQ(l.rhsBoxBytes, t.tk * 128);
  EXPECT_EQ(l.stageBytes, (t.tm * t.tk + t.tk * t.tn) * t.inBytes);
}

INSTANTIATE_TEST_SUITE_P(
    Configs, MatmulLayout,
    ::testing::Values(
        Config{"f16", "f16", "tile(128, 256, 64) stages(4)"},
        Config{"bf16", "bf16", "tile(128, 128, 64) stages(3)"},
        Config{"f16", "f16", "tile(128, 256, 32) stages(6)"},
        Config{"f16", "bf16",
               "tile(128, 128, 64) stages(5) {consumers = 1 : i64}"},
        Config{"f16", "f16",
               "tile(128, 256, 64) stages(4) {split = #weave<split n>}"}));

TEST(SmemBase, ViewsAndPointersAreAtTheAlignedBasePlusTheOffset) {
  auto ctx = makeContext();
  PipelineModule pm = PipelineModule::parse(
      *ctx, pipelineKernel(256, 256, 256, "f16", "f16",
                           "tile(128, 256, 64) stages(4)"));
  ASSERT_TRUE(pm.op);
  ImplicitLocOpBuilder b(pm.op.getLoc(), pm.op);
  SmemBase smem = SmemBase::create(b);
  Value offset = arith::ConstantIndexOp::create(b, 4096);
  Value ptr = smem.pointer(b, offset);
  auto view = smem.view(b, offset,
                        MemRefType::get({8}, b.getI64Type(),
                                        MemRefLayoutAttrInterface{},
                                        gpu::AddressSpaceAttr::get(
                                            ctx.get(),
                                            gpu::AddressSpace::Workgroup)))
                  .getDefiningOp<memref::ViewOp>();
  ASSERT_TRUE(view);
  auto start = collect<memref::ExtractAlignedPointerAsIndexOp>(pm.kernel());
  ASSERT_EQ(start.size(), 1u);
  for (int64_t raw : {0x400, 0x410, 0x7F8, 0x1000 + 1}) {
    IndexEvaluator ev;
    ev.bind(start[0], raw);
    int64_t aligned = (raw + 1023) / 1024 * 1024;
    EXPECT_EQ(ev(smem.alignedAddress()), aligned) << raw;
    EXPECT_EQ(ev(ptr), aligned + 4096) << raw;
    // The view is taken of the unaligned buffer: its byte shift is the
    // padding plus the offset.
    EXPECT_EQ(raw + ev(view.getByteShift()), aligned + 4096) << raw;
  }
}

} // namespace
