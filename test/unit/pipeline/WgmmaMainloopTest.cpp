//===- WgmmaMainloopTest.cpp - TMA loads and the wgmma k loop -------------===//
//
// The loads of a step read the lhs tile at (m*tile_m, k*tile_k) and the rhs
// boxes at (k*tile_k, n*tile_n + 64*box) of the operands' views, into the
// step's slot at the arena's offsets, on the armed barrier; in a cluster a
// block loads its share of the boxes, multicast to all. The consumer's k
// loop issues tile_k/16 wgmma per 64-row block with descriptors of its part
// of the slot, and releases every slot exactly once.
//
//===----------------------------------------------------------------------===//

#include "PipelineTestSupport.h"

#include "weave/Dialect/Weave/Transforms/Pipeline/WgmmaMainloop.h"

using namespace mlir;
using namespace mlir::weave;
using namespace mlir::weave::pipeline;
using namespace weave_test;

namespace {

constexpr int64_t kBase = 0x10000;

struct Fixture {
  std::unique_ptr<MLIRContext> ctx = makeContext();
  PipelineModule pm;
  MatmulTiling tiling;
  std::optional<MatmulSmemLayout> layout;
  ImplicitLocOpBuilder b;
  SmemBase smem;
  std::optional<BarrierRing> ring;

  Fixture(const std::string &attrs, int64_t cluster = 1)
      : pm(PipelineModule::parse(
            *ctx, pipelineKernel(512, 512, 512, "f16", "f16", attrs,
                                 cluster))),
        tiling(MatmulTiling::get(pm.op)), b(pm.op.getLoc(), pm.op),
        smem(SmemBase::create(b)) {
    layout.emplace(tiling);
    ring.emplace(b, smem, layout->fullBarrierOffset, tiling.stages, cluster);
  }
  Value free() { return arith::ConstantIndexOp::create(b, 0); }
  TmaOperand operand(unsigned arg, int64_t row, int64_t col) {
    return {pm.kernel().getArgument(arg),
            arith::ConstantIndexOp::create(b, row),
            arith::ConstantIndexOp::create(b, col)};
  }
  IndexEvaluator evaluator() {
    IndexEvaluator ev;
    ev.bind(collect<memref::ExtractAlignedPointerAsIndexOp>(pm.kernel())[0],
            kBase);
    return ev;
  }
  /// Byte offset of a view from the aligned base.
  int64_t viewOffset(IndexEvaluator &ev, Value view) {
    return ev(view.getDefiningOp<memref::ViewOp>().getByteShift()) + kBase -
           kBase; // the base is aligned: the pad is 0
  }
};

TEST(WgmmaMainloop, LoadsReadTheTilesOfTheStepIntoItsSlot) {
  for (int64_t cluster : {1, 2, 4}) {
    Fixture f("tile(128, 256, 64) stages(4) cluster_m(" +
                  std::to_string(cluster) + ")",
              cluster);
    ASSERT_TRUE(f.pm.op);
    WgmmaMainloop mainloop(f.b, f.tiling, *f.layout, f.smem, *f.ring,
                           f.b.getF16Type(), f.operand(0, 3, 0),
                           f.operand(1, 0, 64));
    mainloop.prepareLoads();
    Value m = f.free(), n = f.free(), k = f.free(), rank = f.free();
    Value slot = f.ring->acquire(f.free());
    Value barrier = f.ring->arm(slot, f.layout->stageBytes);
    mainloop.issueLoads(m, n, k, slot, barrier, rank);
    auto loads = collect<CopyGmemToSmemOp>(f.pm.kernel());
    int64_t share = 256 / 64 / cluster;
    ASSERT_EQ(static_cast<int64_t>(loads.size()), 1 + share);
    for (auto [mm, nn, kk, s, r] :
         {std::array<int64_t, 5>{0, 0, 0, 0, 0}, {2, 1, 5, 3, cluster - 1}}) {
      IndexEvaluator ev = f.evaluator();
      ev.bind(m, mm);
      ev.bind(n, nn);
      ev.bind(k, kk);
      ev.bind(slot, s);
      ev.bind(rank, r);
      auto lhs = loads[0];
      EXPECT_EQ(lhs.getSource(), f.pm.kernel().getArgument(0));
      EXPECT_EQ(ev(lhs.getIndices()[0]), 3 + mm * 128);
      EXPECT_EQ(ev(lhs.getIndices()[1]), kk * 64);
      EXPECT_EQ(f.viewOffset(ev, lhs.getTarget()), s * f.layout->stageBytes);
      EXPECT_EQ(lhs.getSwizzle(), 128u);
      EXPECT_FALSE(lhs.getMulticastMask());
      EXPECT_EQ(lhs.getBarrier(), barrier);
      for (int64_t i = 0; i < share; ++i) {
        auto rhs = loads[1 + i];
        int64_t box = r * share + i;
        EXPECT_EQ(rhs.getSource(), f.pm.kernel().getArgument(1));
        EXPECT_EQ(ev(rhs.getIndices()[0]), kk * 64);
        EXPECT_EQ(ev(rhs.getIndices()[1]), 64 + nn * 256 + box * 64);
        EXPECT_EQ(f.viewOffset(ev, rhs.getTarget()),
                  s * f.layout->stageBytes + f.layout->lhsBytes +
                      box * f.layout->rhsBoxBytes);
        EXPECT_EQ(rhs.getBarrier(), barrier);
        if (cluster > 1)
          EXPECT_EQ(ev(rhs.getMulticastMask()), (1 << cluster) - 1);
        else
          EXPECT_FALSE(rhs.getMulticastMask());
      }
    }
  }
}

TEST(WgmmaMainloop, ConsumerIssuesItsWgmmaAndReleasesEachSlotOnce) {
  for (int64_t consumers : {1, 2}) {
    // A lone consumer owns the whole tile: at most 64x256 accumulators.
    Fixture f(std::string("tile(128, ") + (consumers == 1 ? "128" : "256") +
              ", 64) stages(4) {consumers = " + std::to_string(consumers) +
              " : i64}");
    ASSERT_TRUE(f.pm.op);
    WgmmaMainloop mainloop(f.b, f.tiling, *f.layout, f.smem, *f.ring,
                           f.b.getF16Type(), f.operand(0, 0, 0),
                           f.operand(1, 0, 0));
    Value consumer = f.free(), lane = f.free(), numK = f.free(),
          first = f.free();
    auto [accs, end] = mainloop.consumeTile(consumer, lane, numK, first);
    int64_t blocks = f.tiling.mBlocks();
    EXPECT_EQ(static_cast<int64_t>(accs.size()), blocks);
    auto loops = collect<scf::ForOp>(f.pm.kernel());
    ASSERT_EQ(loops.size(), 1u);
    scf::ForOp loop = loops[0];
    auto mmas = collect<NVVM::WgmmaMmaAsyncOp>(loop);
    ASSERT_EQ(static_cast<int64_t>(mmas.size()), 64 / 16 * blocks);
    for (auto mma : mmas) {
      EXPECT_EQ(mma.getShape().getM(), 64);
      EXPECT_EQ(mma.getShape().getN(), f.tiling.subN);
      EXPECT_EQ(mma.getShape().getK(), 16);
    }
    // One release per step: in the loop (two consumers: this step's slot;
    // one: the previous step's, from the second step on), and the last
    // step's after the loop for a lone consumer.
    auto arrivesIn = collect<NVVM::MBarrierArriveOp>(loop);
    auto arrivesAll = collect<NVVM::MBarrierArriveOp>(f.pm.kernel());
    EXPECT_EQ(arrivesIn.size(), 1u);
    EXPECT_EQ(arrivesAll.size(), consumers == 1 ? 2u : 1u);
    // The first wgmma of a step reads this consumer's rows of the slot's
    // lhs tile and the slot's rhs tile.
    for (auto [s, c] : {std::pair<int64_t, int64_t>{0, 0}, {6, 1}}) {
      if (c >= consumers)
        continue;
      IndexEvaluator ev = f.evaluator();
      ev.bind(loop.getRegionIterArgs().back(), s);
      ev.bind(consumer, c);
      int64_t slotAt = (s % 4) * f.layout->stageBytes;
      int64_t fieldBase = (kBase >> 4) & 0x3FFF;
      int64_t lhsAt = slotAt + c * f.tiling.subM * f.tiling.lhsRowBytes;
      int64_t rhsAt = slotAt + f.layout->lhsBytes;
      int64_t descA = ev(mmas[0].getDescriptorA());
      int64_t descB = ev(mmas[0].getDescriptorB());
      EXPECT_EQ(descA & 0x3FFF, fieldBase + lhsAt / 16);
      EXPECT_EQ(descB & 0x3FFF, fieldBase + rhsAt / 16);
      EXPECT_EQ(uint64_t(descA) >> 62, 1u); // 128-byte swizzle
      EXPECT_EQ((descA >> 32) & 0x3FFF, 8 * 128 / 16); // 8-row stride
      EXPECT_EQ((descB >> 16) & 0x3FFF, f.layout->rhsBoxBytes / 16);
    }
  }
}

// The operand type comes from the dtype table: bf16 multiplies as bf16 (not
// whatever is not f16), and a type the table gives no pipeline wgmma stops
// the compiler instead of being multiplied as bf16.
TEST(WgmmaMainloop, OperandTypeFromTheDTypeTable) {
  Fixture f("tile(128, 256, 64) stages(4) {consumers = 2 : i64}");
  ASSERT_TRUE(f.pm.op);
  WgmmaMainloop mainloop(f.b, f.tiling, *f.layout, f.smem, *f.ring,
                         f.b.getBF16Type(), f.operand(0, 0, 0),
                         f.operand(1, 0, 0));
  mainloop.consumeTile(f.free(), f.free(), f.free(), f.free());
  auto mmas = collect<NVVM::WgmmaMmaAsyncOp>(f.pm.kernel());
  ASSERT_FALSE(mmas.empty());
  for (auto mma : mmas) {
    EXPECT_EQ(mma.getTypeA(), NVVM::WGMMATypes::bf16);
    EXPECT_EQ(mma.getTypeB(), NVVM::WGMMATypes::bf16);
  }
}

TEST(WgmmaMainloopDeathTest, RejectsATypeThatIsNoPipelineOperand) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  for (const char *type : {"f32", "i8"}) {
    EXPECT_DEATH(
        {
          Fixture f("tile(128, 256, 64) stages(4) {consumers = 2 : i64}");
          Type input = std::string(type) == "f32" ? Type(f.b.getF32Type())
                                                  : Type(f.b.getI8Type());
          WgmmaMainloop mainloop(f.b, f.tiling, *f.layout, f.smem, *f.ring,
                                 input, f.operand(0, 0, 0),
                                 f.operand(1, 0, 0));
          mainloop.consumeTile(f.free(), f.free(), f.free(), f.free());
        },
        std::string(type) +
            " is no wgmma operand of the matmul pipeline \\(expected f16 or "
            "bf16");
  }
}

} // namespace
