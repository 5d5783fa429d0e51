//===- SplitKFixup.cpp - the serial fix-up of split-K units ---------------===//
//
// See SplitKFixup.h for the contract.
//
//===----------------------------------------------------------------------===//

#include "weave/Dialect/Weave/Transforms/Pipeline/SplitKFixup.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::weave;
using namespace mlir::weave::pipeline;

namespace {

void inlinePtx(ImplicitLocOpBuilder &b, ValueRange operands, StringRef asm_,
               StringRef constraints) {
  LLVM::InlineAsmOp::create(b, TypeRange{}, operands, asm_, constraints,
                            /*has_side_effects=*/true,
                            /*is_align_stack=*/false,
                            LLVM::tailcallkind::TailCallKind::None,
                            /*asm_dialect=*/{}, /*operand_attrs=*/{});
}

} // namespace

Value SplitKFixup::wordPointer(Value words) {
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, workspace);
  Value bytes = arith::AddIOp::create(
      b, base, arith::MulIOp::create(b, words, cIndex(4)));
  Value address = arith::IndexCastOp::create(b, b.getI64Type(), bytes);
  return LLVM::IntToPtrOp::create(
      b, LLVM::LLVMPointerType::get(b.getContext(), /*addressSpace=*/1),
      address);
}

void SplitKFixup::syncConsumer() {
  // The warpgroup's named barrier (id = its index), as the epilogue's.
  Value id = arith::IndexCastOp::create(b, b.getI32Type(), warpgroup);
  NVVM::BarrierOp::create(b, TypeRange{}, id, cI32(kWarpgroupThreads),
                          NVVM::BarrierReductionAttr(), Value());
}

void SplitKFixup::finish(ArrayRef<Value> accs, const Unit &unit,
                         StoreFn store) {
  int64_t perBlock = tiling.subN / 2;
  int64_t perThread = tiling.mBlocks() * perBlock;
  Value consumer = arith::SubIOp::create(b, warpgroup, cIndex(1));
  Value slotIndex = arith::AddIOp::create(
      b, arith::MulIOp::create(b, unit.slot, cIndex(tiling.consumers)),
      consumer);
  // split_k's s is a constant (these fold); a tail split's is the
  // launch's, and 1 for the whole tiles, which store at once.
  Value others = b.createOrFold<arith::SubIOp>(unit.splits, cIndex(1));
  // split_k: always split (the wait is emitted unguarded, as before).
  std::optional<int64_t> constantSplits = getConstantIntValue(unit.splits);
  // The counters first, one word per (tile, consumer) `slot`; then split
  // j < s - 1 of slot owns words [(slot * (s - 1) + j) * regionWords, ...)
  // after them.
  int64_t regionWords = kWarpgroupThreads * perThread;
  int64_t partialBase = splitKCounterWords(
      cast<MemRefType>(workspace.getType()).getDimSize(0));
  Value laneWords = arith::MulIOp::create(b, laneInGroup, cIndex(4));
  // Word group g (4 words) of this thread in split j's region.
  auto groupPointer = [&](Value split, int64_t group) {
    Value region = arith::AddIOp::create(
        b, b.createOrFold<arith::MulIOp>(slotIndex, others), split);
    Value words = arith::AddIOp::create(
        b, arith::MulIOp::create(b, region, cIndex(regionWords)),
        arith::AddIOp::create(
            b, laneWords,
            cIndex(partialBase + group * 4 * kWarpgroupThreads)));
    return wordPointer(words);
  };
  Value counter = wordPointer(slotIndex);
  Value leader = eq(laneInGroup, cIndex(0));
  auto onLeader = [&](function_ref<void()> body) {
    scf::IfOp::create(b, leader, [&](OpBuilder &, Location) {
      body();
      scf::YieldOp::create(b);
    });
  };
  Value isLast = eq(unit.split, others);
  Type f32 = b.getF32Type();
  auto vec4 = VectorType::get({4}, f32);

  scf::IfOp::create(
      b, isLast,
      [&](OpBuilder &, Location) {
        // The last split: wait for the others, add their sum, clear it.
        // (A whole tile, splits = 1, has no others: it stores at once.)
        auto wait = [&] {
          onLeader([&] {
            Value want = b.createOrFold<arith::IndexCastOp>(b.getI32Type(),
                                                            others);
            inlinePtx(b, ValueRange{counter, want},
                      "{\n\t.reg .pred done;\n\t.reg .b32 arrived;\n"
                      "wait_splits:\n\t"
                      "ld.acquire.gpu.global.u32 arrived, [$0];\n\t"
                      "setp.ge.u32 done, arrived, $1;\n\t"
                      "@!done bra wait_splits;\n}",
                      "l,r,~{memory}");
            inlinePtx(b, ValueRange{counter},
                      "st.relaxed.gpu.global.u32 [$0], 0;", "l,~{memory}");
          });
          syncConsumer();
        };
        if (constantSplits) {
          wait();
        } else {
          Value split = arith::CmpIOp::create(b, arith::CmpIPredicate::ugt,
                                              unit.splits, cIndex(1));
          scf::IfOp::create(b, split, [&](OpBuilder &, Location) {
            wait();
            scf::YieldOp::create(b);
          });
        }
        // Add the other splits' partials, in split order (a loop, not
        // unrolled: each split's loads then reuse the same registers; the
        // unrolled form spilled 300 bytes at 64x256 with 5 splits).
        auto splits = scf::ForOp::create(b, cIndex(0), others, cIndex(1),
                                         ValueRange(accs));
        b.setInsertionPointToStart(splits.getBody());
        SmallVector<Value> total(splits.getRegionIterArgs());
        for (int64_t g = 0; g < perThread / 4; ++g) {
          Value sum = LLVM::LoadOp::create(
              b, vec4, groupPointer(splits.getInductionVar(), g),
              /*alignment=*/16, /*isVolatile=*/true);
          for (int64_t q = 0; q < 4; ++q) {
            int64_t i = 4 * g + q;
            int64_t block = i / perBlock, index = i % perBlock;
            Value part = LLVM::ExtractElementOp::create(b, sum, cI32(q));
            Value mine = LLVM::ExtractValueOp::create(b, total[block], index);
            total[block] = LLVM::InsertValueOp::create(
                b, total[block], arith::AddFOp::create(b, mine, part), index);
          }
        }
        scf::YieldOp::create(b, total);
        b.setInsertionPointAfter(splits);
        total.assign(splits.getResults().begin(), splits.getResults().end());
        store(total);
        scf::YieldOp::create(b);
      },
      [&](OpBuilder &, Location) {
        // Any other split: store the partial into its own region (16-byte
        // stores, coalesced across the warpgroup), then arrive.
        for (int64_t g = 0; g < perThread / 4; ++g) {
          Value group = LLVM::PoisonOp::create(b, vec4);
          for (int64_t q = 0; q < 4; ++q) {
            int64_t i = 4 * g + q;
            Value v = LLVM::ExtractValueOp::create(b, accs[i / perBlock],
                                                   i % perBlock);
            group = LLVM::InsertElementOp::create(b, group, v, cI32(q));
          }
          LLVM::StoreOp::create(b, group, groupPointer(unit.split, g),
                                /*alignment=*/16);
        }
        // Every thread's stores precede the leader's release.
        syncConsumer();
        onLeader([&] {
          inlinePtx(b, ValueRange{counter},
                    "fence.acq_rel.gpu;\n\t"
                    "red.relaxed.gpu.global.add.u32 [$0], 1;",
                    "l,~{memory}");
        });
        scf::YieldOp::create(b);
      });
}
