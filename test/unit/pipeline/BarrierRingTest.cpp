//===- BarrierRingTest.cpp - the mbarrier ring ----------------------------===//
//
// Step s uses slot s mod stages in phase (s / stages) mod 2; the producer
// waits on the empty barrier with the opposite parity (a fresh barrier
// passes at once), consumers on the full one; initialization counts one
// arrival on a full barrier and one per releasing group and cluster block
// on an empty one; a release arrives on every cluster block's barrier; the
// tail waits for the last phase of each used slot.
//
//===----------------------------------------------------------------------===//

#include "PipelineTestSupport.h"

#include "weave/Dialect/Weave/Transforms/Pipeline/BarrierRing.h"

using namespace mlir;
using namespace mlir::weave::pipeline;
using namespace weave_test;

namespace {

constexpr int64_t kFull = 4096; // where the arena put the full barriers
constexpr int64_t kBase = 0x8000;

struct Fixture {
  std::unique_ptr<MLIRContext> ctx = makeContext();
  PipelineModule pm = PipelineModule::parse(
      *ctx, pipelineKernel(256, 256, 256, "f16", "f16",
                           "tile(128, 256, 64) stages(4)"));
  ImplicitLocOpBuilder b{pm.op.getLoc(), pm.op};
  SmemBase smem = SmemBase::create(b);
  Value step = arith::ConstantIndexOp::create(b, 0); // rebound below

  /// An evaluator with the smem base at kBase.
  IndexEvaluator evaluator() {
    IndexEvaluator ev;
    ev.bind(collect<memref::ExtractAlignedPointerAsIndexOp>(pm.kernel())[0],
            kBase);
    return ev;
  }
  /// The inline-asm waits emitted after `from` (in the kernel).
  SmallVector<LLVM::InlineAsmOp> waits() {
    SmallVector<LLVM::InlineAsmOp> result;
    for (auto op : collect<LLVM::InlineAsmOp>(pm.kernel()))
      if (op.getAsmString().contains("try_wait.parity"))
        result.push_back(op);
    return result;
  }
};

TEST(BarrierRing, SlotAndPhaseFollowTheStepCount) {
  Fixture f;
  BarrierRing ring(f.b, f.smem, kFull, /*stages=*/3, /*clusterSize=*/1);
  Value slot = ring.slotOf(f.step), phase = ring.phaseOf(f.step);
  for (int64_t s = 0; s < 12; ++s) {
    IndexEvaluator ev = f.evaluator();
    ev.bind(f.step, s);
    EXPECT_EQ(ev(slot), s % 3);
    EXPECT_EQ(ev(phase), (s / 3) % 2);
  }
}

TEST(BarrierRing, ProducerWaitsOnEmptyWithTheOppositeParity) {
  Fixture f;
  BarrierRing ring(f.b, f.smem, kFull, /*stages=*/4, /*clusterSize=*/1);
  Value slot = ring.acquire(f.step);
  Value barrier = ring.arm(slot, /*bytes=*/49152);
  Value consumed = ring.waitFull(f.step);
  auto waits = f.waits();
  ASSERT_EQ(waits.size(), 2u);
  auto arms = collect<NVVM::MBarrierArriveExpectTxOp>(f.pm.kernel());
  ASSERT_EQ(arms.size(), 1u);
  for (int64_t s : {0, 1, 4, 7, 9}) {
    IndexEvaluator ev = f.evaluator();
    ev.bind(f.step, s);
    int64_t phase = (s / 4) % 2, slotIndex = s % 4;
    EXPECT_EQ(ev(slot), slotIndex);
    EXPECT_EQ(ev(consumed), slotIndex);
    // acquire: empty[slot], parity phase ^ 1.
    EXPECT_EQ(ev(waits[0].getOperands()[0]),
              kBase + kFull + 4 * 8 + 8 * slotIndex);
    EXPECT_EQ(ev(waits[0].getOperands()[1]), phase ^ 1);
    // arm: full[slot], expecting the stage's bytes.
    EXPECT_EQ(ev(arms[0].getAddr()), kBase + kFull + 8 * slotIndex);
    EXPECT_EQ(ev(arms[0].getTxcount()), 49152);
    // waitFull: full[slot], parity phase.
    EXPECT_EQ(ev(waits[1].getOperands()[0]), kBase + kFull + 8 * slotIndex);
    EXPECT_EQ(ev(waits[1].getOperands()[1]), phase);
  }
  // The loads complete on the armed barrier: a memref<i64> view of it.
  auto view = barrier.getDefiningOp<memref::ViewOp>();
  ASSERT_TRUE(view);
  EXPECT_EQ(cast<MemRefType>(view.getType()).getRank(), 0);
}

TEST(BarrierRing, InitializeCountsArrivalsPerClusterBlock) {
  for (int64_t cluster : {1, 2, 4}) {
    Fixture f;
    BarrierRing ring(f.b, f.smem, kFull, /*stages=*/3, cluster);
    ring.initialize(/*emptyArrivals=*/3);
    ring.synchronizeInit();
    auto inits = collect<NVVM::MBarrierInitOp>(f.pm.kernel());
    ASSERT_EQ(inits.size(), 6u);
    IndexEvaluator ev = f.evaluator();
    std::set<int64_t> addresses;
    for (auto init : inits) {
      int64_t at = ev(init.getAddr()) - kBase;
      addresses.insert(at);
      bool full = at < kFull + 3 * 8;
      EXPECT_EQ(ev(init.getCount()), full ? 1 : 3 * cluster) << at;
    }
    EXPECT_EQ(addresses, (std::set<int64_t>{kFull, kFull + 8, kFull + 16,
                                            kFull + 24, kFull + 32,
                                            kFull + 40}));
    EXPECT_EQ(collect<NVVM::FenceMbarrierInitOp>(f.pm.kernel()).size(), 1u);
    // A cluster synchronizes every block; a lone block its threads.
    EXPECT_EQ(collect<NVVM::ClusterWaitOp>(f.pm.kernel()).size(),
              cluster > 1 ? 1u : 0u);
    EXPECT_EQ(collect<gpu::BarrierOp>(f.pm.kernel()).size(),
              cluster > 1 ? 0u : 1u);
  }
}

TEST(BarrierRing, ReleaseArrivesOnEveryClusterBlock) {
  for (int64_t cluster : {1, 2, 4}) {
    Fixture f;
    BarrierRing ring(f.b, f.smem, kFull, /*stages=*/4, cluster);
    Value lane = arith::ConstantIndexOp::create(f.b, 0); // rebound below
    Value slot = arith::ConstantIndexOp::create(f.b, 2);
    ring.release(slot, lane);
    auto ifs = collect<scf::IfOp>(f.pm.kernel());
    ASSERT_EQ(ifs.size(), 1u);
    for (int64_t l = 0; l < 8; ++l) {
      IndexEvaluator ev = f.evaluator();
      ev.bind(lane, l);
      EXPECT_EQ(ev(ifs[0].getCondition()), l < cluster) << "lane " << l;
    }
    if (cluster == 1) {
      auto arrive = collect<NVVM::MBarrierArriveOp>(f.pm.kernel());
      ASSERT_EQ(arrive.size(), 1u);
      EXPECT_EQ(f.evaluator()(arrive[0].getAddr()),
                kBase + kFull + 4 * 8 + 2 * 8);
    } else {
      // Lane l arrives on block l's barrier at the same offset (mapa).
      auto asms = collect<LLVM::InlineAsmOp>(f.pm.kernel());
      ASSERT_EQ(asms.size(), 1u);
      EXPECT_TRUE(asms[0].getAsmString().contains("mapa.shared::cluster"));
      IndexEvaluator ev = f.evaluator();
      ev.bind(lane, 1);
      EXPECT_EQ(ev(asms[0].getOperands()[0]), kBase + kFull + 4 * 8 + 2 * 8);
      EXPECT_EQ(ev(asms[0].getOperands()[1]), 1);
    }
  }
}

TEST(BarrierRing, TailWaitsForTheLastPhaseOfEveryUsedSlot) {
  Fixture f;
  BarrierRing ring(f.b, f.smem, kFull, /*stages=*/3, /*clusterSize=*/1);
  ring.waitLastUses(/*full=*/true, f.step);
  auto ifs = collect<scf::IfOp>(f.pm.kernel());
  auto waits = f.waits();
  ASSERT_EQ(ifs.size(), 3u);
  ASSERT_EQ(waits.size(), 3u);
  for (int64_t steps : {0, 1, 2, 5, 7}) {
    IndexEvaluator ev = f.evaluator();
    ev.bind(f.step, steps);
    std::set<int64_t> slots;
    for (int back = 1; back <= 3; ++back) {
      bool used = ev(ifs[back - 1].getCondition());
      EXPECT_EQ(used, steps >= back);
      if (!used)
        continue;
      int64_t last = steps - back;
      EXPECT_EQ(ev(waits[back - 1].getOperands()[0]),
                kBase + kFull + 8 * (last % 3));
      EXPECT_EQ(ev(waits[back - 1].getOperands()[1]), (last / 3) % 2);
      slots.insert(last % 3);
    }
    EXPECT_EQ(static_cast<int64_t>(slots.size()), std::min<int64_t>(steps, 3));
  }
}

} // namespace
