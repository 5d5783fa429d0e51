//===- EpilogueTest.cpp - accumulators to the output ----------------------===//
//
// The epilogue stores each consumer's part of the tile as 64 x 128-byte
// boxes: the fragment stores of the warpgroup's 128 threads fill every
// 4-byte word of a box exactly once, each where the 128-byte swizzle puts
// its fragment's row and column, and
// one TMA store per box, from the leader thread, writes it at its place in
// `out`.
//
//===----------------------------------------------------------------------===//

#include "PipelineTestSupport.h"

#include "weave/Dialect/Weave/Transforms/Pipeline/Epilogue.h"
#include "weave/Dialect/Weave/Transforms/Pipeline/EpilogueBoxes.h"
#include "weave/Dialect/Weave/Transforms/Pipeline/WgmmaMainloop.h"

#include <set>

using namespace mlir;
using namespace mlir::weave;
using namespace mlir::weave::pipeline;
using namespace weave_test;

namespace {

constexpr int64_t kBase = 0x20000;

struct Case {
  const char *out;
  const char *attrs;
};

class EpilogueTest : public ::testing::TestWithParam<Case> {};

TEST_P(EpilogueTest, BoxesCoverTheTileAndGoToTheirPlace) {
  Case c = GetParam();
  auto ctx = makeContext();
  PipelineModule pm = PipelineModule::parse(
      *ctx, pipelineKernel(512, 512, 512, "f16", c.out, c.attrs));
  ASSERT_TRUE(pm.op);
  ASSERT_TRUE(succeeded(pm.op.verify()));
  MatmulTiling t = MatmulTiling::get(pm.op);
  MatmulSmemLayout layout(t);
  ImplicitLocOpBuilder b(pm.op.getLoc(), pm.op);
  SmemBase smem = SmemBase::create(b);
  BarrierRing ring(b, smem, layout.fullBarrierOffset, t.stages, 1);
  auto free = [&] { return Value(arith::ConstantIndexOp::create(b, 0)); };
  Value warpgroup = free(), lane = free(), m = free(), n = free();
  TmaOperand out{pm.kernel().getArgument(2),
                 arith::ConstantIndexOp::create(b, 8),
                 arith::ConstantIndexOp::create(b, 0)};
  Type accType =
      WgmmaMainloop(b, t, layout, smem, ring, b.getF16Type(), {}, {})
          .getAccumulatorType();
  SmallVector<Value> accs;
  for (int64_t i = 0; i < t.mBlocks(); ++i)
    accs.push_back(LLVM::ZeroOp::create(b, accType));
  Type outElt = cast<MemRefType>(pm.op.getOut().getType()).getElementType();
  Epilogue(b, t, layout, smem, outElt, out, warpgroup, lane)
      .store(accs, m, n);

  int64_t boxCols = t.outBoxCols();
  int64_t perBlock = t.subN / boxCols;
  int64_t boxes = t.mBlocks() * perBlock;
  auto copies = collect<CopySmemToGmemOp>(pm.kernel());
  ASSERT_EQ(static_cast<int64_t>(copies.size()), boxes);
  auto stores = collect<LLVM::StoreOp>(pm.kernel());
  // Per thread: two pair stores per 8-column accumulator group.
  ASSERT_EQ(static_cast<int64_t>(stores.size()), boxes * boxCols / 8 * 2);
  int64_t storesPerBox = boxCols / 8 * 2;
  for (int64_t consumer = 0; consumer < t.consumers; ++consumer) {
    int64_t region = layout.consumerEpilogueOffset(consumer, t.epilogueBuffers);
    for (auto [mm, nn] : {std::pair<int64_t, int64_t>{0, 0}, {1, 1}}) {
      IndexEvaluator ev;
      ev.bind(collect<memref::ExtractAlignedPointerAsIndexOp>(pm.kernel())[0],
              kBase);
      ev.bind(warpgroup, consumer + 1);
      ev.bind(m, mm);
      ev.bind(n, nn);
      for (int64_t box = 0; box < boxes; ++box) {
        // Leader only (lane 0 of the warpgroup).
        auto guard = copies[box]->getParentOfType<scf::IfOp>();
        ASSERT_TRUE(guard);
        ev.bind(lane, 0);
        EXPECT_TRUE(ev(guard.getCondition()));
        ev.bind(lane, 5);
        EXPECT_FALSE(ev(guard.getCondition()));
        int64_t row = 8 + mm * t.tm + (t.splitM ? consumer * t.subM : 0) +
                      box / perBlock * 64;
        int64_t col = nn * t.tn + (t.splitM ? 0 : consumer * t.subN) +
                      box % perBlock * boxCols;
        EXPECT_EQ(ev(copies[box].getIndices()[0]), row) << "box " << box;
        EXPECT_EQ(ev(copies[box].getIndices()[1]), col) << "box " << box;
        EXPECT_EQ(copies[box].getTarget(), out.argument);
        EXPECT_EQ(copies[box].getSwizzle(), 128u);
        int64_t buffer = box % t.epilogueBuffers;
        EXPECT_EQ(ev(copies[box]
                         .getSource()
                         .getDefiningOp<memref::ViewOp>()
                         .getByteShift()),
                  region + buffer * layout.epilogueBoxBytes);
        // The warpgroup's fragment stores of this box: every word once.
        std::set<int64_t> words;
        for (int64_t l = 0; l < 128; ++l) {
          ev.bind(lane, l);
          for (int64_t i = 0; i < storesPerBox; ++i) {
            auto gep = stores[box * storesPerBox + i]
                           .getAddr()
                           .getDefiningOp<LLVM::GEPOp>();
            ASSERT_TRUE(gep);
            int64_t at = ev(gep.getBase()) - kBase +
                         ev(gep.getDynamicIndices()[0]);
            int64_t inBox = at - region - buffer * layout.epilogueBoxBytes;
            ASSERT_GE(inBox, 0);
            ASSERT_LT(inBox, layout.epilogueBoxBytes);
            // Thread l's pair i (group i/2, half i%2) of the wgmma m64nN
            // fragment is at row 16*warp + lane/4 + 8*half, column
            // 8*group + 2*(lane%4), at the 128-byte-swizzled address.
            int64_t row = 16 * (l / 32) + l % 32 / 4 + 8 * (i % 2);
            int64_t byte = (8 * (i / 2) + 2 * (l % 4)) * t.outBytes;
            EXPECT_EQ(inBox,
                      row * 128 + ((byte / 16) ^ (row % 8)) * 16 + byte % 16)
                << "lane " << l << ", store " << i;
            // A pair of adjacent columns: 2 * outBytes bytes.
            for (int64_t w = 0; w < 2 * t.outBytes / 4; ++w)
              words.insert(inBox / 4 + w);
          }
        }
        EXPECT_EQ(static_cast<int64_t>(words.size()),
                  layout.epilogueBoxBytes / 4)
            << "box " << box;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Tiles, EpilogueTest,
    ::testing::Values(
        Case{"f16", "tile(128, 256, 64) stages(4)"},
        Case{"bf16", "tile(256, 128, 64) stages(3)"},
        Case{"f16", "tile(128, 128, 64) stages(4) {consumers = 1 : i64}"},
        Case{"f16", "tile(128, 256, 64) stages(4) {split = #weave<split n>}"},
        Case{"f32", "tile(128, 256, 64) stages(3)"},
        Case{"f32", "tile(128, 128, 64) stages(4) {consumers = 1 : i64}"}));

} // namespace

namespace {

/// With a box handler the leader hands each box to it, with its index in
/// the whole tile (row-major over tile_m / 64 x tile_n / boxCols boxes) and
/// its first row and column in the output, instead of storing it.
TEST(EpilogueHandler, GetsEveryBoxOfTheTileOnceWithItsTileIndex) {
  for (const char *attrs :
       {"tile(128, 256, 64) stages(4)", "tile(256, 128, 64) stages(3)",
        "tile(128, 256, 64) stages(4) {split = #weave<split n>}",
        "tile(128, 192, 64) stages(4)",
        "tile(128, 128, 64) stages(4) {consumers = 1 : i64}",
        "tile(64, 256, 64) stages(4) {consumers = 1 : i64}"}) {
    auto ctx = makeContext();
    PipelineModule pm = PipelineModule::parse(
        *ctx, pipelineKernel(512, 512, 512, "f16", "f32", attrs));
    ASSERT_TRUE(pm.op);
    MatmulTiling t = MatmulTiling::get(pm.op);
    MatmulSmemLayout layout(t);
    ImplicitLocOpBuilder b(pm.op.getLoc(), pm.op);
    SmemBase smem = SmemBase::create(b);
    BarrierRing ring(b, smem, layout.fullBarrierOffset, t.stages, 1);
    Value warpgroup = arith::ConstantIndexOp::create(b, 0);
    Value lane = arith::ConstantIndexOp::create(b, 0);
    Value m = arith::ConstantIndexOp::create(b, 3);
    Value n = arith::ConstantIndexOp::create(b, 1);
    TmaOperand out{pm.kernel().getArgument(2),
                   arith::ConstantIndexOp::create(b, 0),
                   arith::ConstantIndexOp::create(b, 0)};
    Type accType =
        WgmmaMainloop(b, t, layout, smem, ring, b.getF16Type(), {}, {})
            .getAccumulatorType();
    SmallVector<Value> accs;
    for (int64_t i = 0; i < t.mBlocks(); ++i)
      accs.push_back(LLVM::ZeroOp::create(b, accType));
    Epilogue epilogue(b, t, layout, smem, b.getF32Type(), out, warpgroup,
                      lane);
    std::vector<Epilogue::BoxPlace> handed;
    epilogue.setBoxHandler([&](Value, const Epilogue::BoxPlace &place) {
      handed.push_back(place);
    });
    epilogue.store(accs, m, n);
    EXPECT_TRUE(collect<CopySmemToGmemOp>(pm.kernel()).empty());
    int64_t tileBoxes = t.tm / 64 * (t.tn / t.outBoxCols());
    int64_t perConsumer = tileBoxes / t.consumers;
    ASSERT_EQ(static_cast<int64_t>(handed.size()), perConsumer);
    std::set<int64_t> seen;
    for (int64_t consumer = 0; consumer < t.consumers; ++consumer) {
      IndexEvaluator ev;
      ev.bind(collect<memref::ExtractAlignedPointerAsIndexOp>(pm.kernel())[0],
              0x40000);
      ev.bind(warpgroup, consumer + 1);
      for (size_t i = 0; i < handed.size(); ++i) {
        EXPECT_EQ(handed[i].m, m);
        EXPECT_EQ(handed[i].n, n);
        int64_t index = ev(handed[i].index);
        seen.insert(index);
        // The consumer's box i covers tile rows / columns that index names.
        int64_t perBlock = t.subN / t.outBoxCols();
        int64_t row = (t.splitM ? consumer * t.subM : 0) + i / perBlock * 64;
        int64_t col = ((t.splitM ? 0 : consumer * t.subN) +
                       i % perBlock * t.outBoxCols());
        EXPECT_EQ(index,
                  row / 64 * (t.tn / t.outBoxCols()) + col / t.outBoxCols())
            << attrs << ", consumer " << consumer << ", box " << i;
        // And its place in the output: tile (3, 1)'s origin plus that.
        EXPECT_EQ(ev(handed[i].row), 3 * t.tm + row)
            << attrs << ", consumer " << consumer << ", box " << i;
        EXPECT_EQ(ev(handed[i].col), 1 * t.tn + col)
            << attrs << ", consumer " << consumer << ", box " << i;
        // The same box by the integer numbering the protocol checker
        // replays (EpilogueBoxes.h): one layout, two spellings.
        TileBoxes boxes{t.tm, t.tn, t.outBoxCols()};
        EXPECT_EQ(boxes.row(3, index), ev(handed[i].row))
            << attrs << ", consumer " << consumer << ", box " << i;
        EXPECT_EQ(boxes.col(1, index), ev(handed[i].col))
            << attrs << ", consumer " << consumer << ", box " << i;
      }
    }
    EXPECT_EQ(static_cast<int64_t>(seen.size()), tileBoxes) << attrs;
    EXPECT_EQ((TileBoxes{t.tm, t.tn, t.outBoxCols()}.count()), tileBoxes)
        << attrs;
  }
}

} // namespace
