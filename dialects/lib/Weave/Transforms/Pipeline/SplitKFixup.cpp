//===- SplitKFixup.cpp - the fix-up of split-K and tail-split units -------===//
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

SplitKFixup::Partials SplitKFixup::partialsOf(const Unit &unit,
                                              Value regionsPerSlot) {
  Partials p;
  p.perBlock = tiling.subN / 2;
  p.perThread = tiling.mBlocks() * p.perBlock;
  Value consumer = arith::SubIOp::create(b, warpgroup, cIndex(1));
  Value slotIndex = arith::AddIOp::create(
      b, arith::MulIOp::create(b, unit.slot, cIndex(tiling.consumers)),
      consumer);
  // The counters first, one word per (tile, consumer) `slot`; then split j
  // of slot owns words [(slot * regionsPerSlot + j) * regionWords, ...)
  // after them.
  p.firstRegion = b.createOrFold<arith::MulIOp>(slotIndex, regionsPerSlot);
  p.counter = wordPointer(slotIndex);
  p.laneWords = arith::MulIOp::create(b, laneInGroup, cIndex(4));
  p.partialBase = splitKCounterWords(
      cast<MemRefType>(workspace.getType()).getDimSize(0));
  return p;
}

Value SplitKFixup::groupPointer(const Partials &p, Value split,
                                int64_t group) {
  int64_t regionWords = kWarpgroupThreads * p.perThread;
  Value region = arith::AddIOp::create(b, p.firstRegion, split);
  Value words = arith::AddIOp::create(
      b, arith::MulIOp::create(b, region, cIndex(regionWords)),
      arith::AddIOp::create(
          b, p.laneWords,
          cIndex(p.partialBase + group * 4 * kWarpgroupThreads)));
  return wordPointer(words);
}

SmallVector<Value> SplitKFixup::rowsPresent(const Unit &unit) {
  SmallVector<Value> present;
  if (!rows)
    return present;
  // The thread's first row in 64-row block `block`, where the epilogue
  // stores it (its other row is 8 below).
  Value tileRow0 = tileStart(unit.m, tiling.tm, rowEdge);
  Value consumer = arith::SubIOp::create(b, warpgroup, cIndex(1));
  Value start = partStart(tiling, tileRow0, /*rows=*/true, consumer);
  Value first =
      arith::AddIOp::create(b, start, fragmentLane(laneInGroup).row);
  for (int64_t block = 0; block < tiling.mBlocks(); ++block)
    present.push_back(arith::CmpIOp::create(
        b, arith::CmpIPredicate::ult,
        arith::AddIOp::create(b, first, cIndex(block * hw::kWgmmaM)), rows));
  return present;
}

void SplitKFixup::storePartial(const Partials &p, ArrayRef<Value> accs,
                               Value split, ArrayRef<Value> present) {
  auto vec4 = VectorType::get({4}, b.getF32Type());
  int64_t groupsPerBlock = p.perBlock / 4;
  for (int64_t block = 0; block < tiling.mBlocks(); ++block)
    ifThen(present.empty() ? Value() : present[block], [&] {
      for (int64_t g = block * groupsPerBlock;
           g < (block + 1) * groupsPerBlock; ++g) {
        Value group = LLVM::PoisonOp::create(b, vec4);
        for (int64_t q = 0; q < 4; ++q) {
          int64_t i = 4 * g + q;
          Value v = LLVM::ExtractValueOp::create(b, accs[i / p.perBlock],
                                                 i % p.perBlock);
          group = LLVM::InsertElementOp::create(b, group, v, cI32(q));
        }
        LLVM::StoreOp::create(b, group, groupPointer(p, split, g),
                              /*alignment=*/16);
      }
    });
}

void SplitKFixup::finish(ArrayRef<Value> accs, const Unit &unit,
                         StoreFn store) {
  // split_k's s is a constant (it folds); a tail split's is the launch's.
  if (getConstantIntValue(unit.splits))
    return finishSerial(accs, unit, store);
  finishSpread(accs, unit, store);
}

void SplitKFixup::finishSerial(ArrayRef<Value> accs, const Unit &unit,
                               StoreFn store) {
  // split_k's s is a constant: these fold. Split j < s - 1 stores into
  // region j of s - 1.
  Value others = b.createOrFold<arith::SubIOp>(unit.splits, cIndex(1));
  Partials p = partialsOf(unit, others);
  int64_t perBlock = p.perBlock;
  Value counter = p.counter;
  Value leader = eq(laneInGroup, cIndex(0));
  auto onLeader = [&](function_ref<void()> body) { ifThen(leader, body); };
  Value isLast = eq(unit.split, others);
  Type f32 = b.getF32Type();
  auto vec4 = VectorType::get({4}, f32);

  scf::IfOp::create(
      b, isLast,
      [&](OpBuilder &, Location) {
        // The last split: wait for the others, add their sum, clear it.
        {
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
        }
        // Add the other splits' partials, in split order (a loop, not
        // unrolled: each split's loads then reuse the same registers; the
        // unrolled form spilled 300 bytes at 64x256 with 5 splits).
        // A block whose rows all lie past the row count keeps this
        // split's partial (skipRowsPast).
        SmallVector<Value> present = rowsPresent(unit);
        auto splits = scf::ForOp::create(b, cIndex(0), others, cIndex(1),
                                         ValueRange(accs));
        b.setInsertionPointToStart(splits.getBody());
        SmallVector<Value> total(splits.getRegionIterArgs());
        int64_t groupsPerBlock = perBlock / 4;
        for (int64_t block = 0; block < tiling.mBlocks(); ++block) {
          auto addBlock = [&] {
            Value sums = total[block];
            for (int64_t g = block * groupsPerBlock;
                 g < (block + 1) * groupsPerBlock; ++g) {
              Value sum = LLVM::LoadOp::create(
                  b, vec4, groupPointer(p, splits.getInductionVar(), g),
                  /*alignment=*/16, /*isVolatile=*/true);
              for (int64_t q = 0; q < 4; ++q) {
                int64_t index = (4 * g + q) % perBlock;
                Value part = LLVM::ExtractElementOp::create(b, sum, cI32(q));
                Value mine = LLVM::ExtractValueOp::create(b, sums, index);
                sums = LLVM::InsertValueOp::create(
                    b, sums, arith::AddFOp::create(b, mine, part), index);
              }
            }
            return sums;
          };
          if (present.empty()) {
            total[block] = addBlock();
            continue;
          }
          auto added = scf::IfOp::create(b, TypeRange{total[block].getType()},
                                         present[block],
                                         /*withElseRegion=*/true);
          b.setInsertionPointToStart(added.thenBlock());
          scf::YieldOp::create(b, addBlock());
          b.setInsertionPointToStart(added.elseBlock());
          scf::YieldOp::create(b, total[block]);
          b.setInsertionPointAfter(added);
          total[block] = added.getResult(0);
        }
        scf::YieldOp::create(b, total);
        b.setInsertionPointAfter(splits);
        total.assign(splits.getResults().begin(), splits.getResults().end());
        store(total, {});
        scf::YieldOp::create(b);
      },
      [&](OpBuilder &, Location) {
        // Any other split: store the partial into its own region (16-byte
        // stores, coalesced across the warpgroup), then arrive.
        storePartial(p, accs, unit.split, rowsPresent(unit));
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

void SplitKFixup::finishSpread(ArrayRef<Value> accs, const Unit &unit,
                               StoreFn store) {
  // Every split stores its partial: region j of s.
  Value splits = unit.splits;
  Partials p = partialsOf(unit, splits);
  int64_t perBlock = p.perBlock;
  Value consumer = arith::SubIOp::create(b, warpgroup, cIndex(1));
  Value counter = p.counter;
  Value leader = eq(laneInGroup, cIndex(0));
  Type f32 = b.getF32Type();
  Type i32 = b.getI32Type();
  auto vec4 = VectorType::get({4}, f32);

  // 1. This split's partial into its region (16-byte stores, coalesced
  // across the warpgroup); the accumulators are dead after it.
  SmallVector<Value> present = rowsPresent(unit);
  storePartial(p, accs, unit.split, present);
  // 2. Every thread's stores precede the leader's release; the leader
  // arrives, waits for all s, then counts itself past the wait (its
  // result is read at the end, so the atom's latency overlaps the sum).
  syncConsumer();
  Value want = b.createOrFold<arith::IndexCastOp>(i32, splits);
  auto passed = scf::IfOp::create(b, TypeRange{i32}, leader,
                                  /*withElseRegion=*/true);
  b.setInsertionPointToStart(passed.thenBlock());
  {
    inlinePtx(b, ValueRange{counter, want},
              "{\n\t.reg .pred done;\n\t.reg .b32 arrived;\n\t"
              "fence.acq_rel.gpu;\n\t"
              "red.relaxed.gpu.global.add.u32 [$0], 1;\n"
              "wait_all_splits:\n\t"
              "ld.acquire.gpu.global.u32 arrived, [$0];\n\t"
              "setp.ge.u32 done, arrived, $1;\n\t"
              "@!done bra wait_all_splits;\n}",
              "l,r,~{memory}");
    auto old = LLVM::InlineAsmOp::create(
        b, TypeRange{i32}, ValueRange{counter},
        "atom.relaxed.gpu.global.add.u32 $0, [$1], 1;", "=r,l,~{memory}",
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None, /*asm_dialect=*/{},
        /*operand_attrs=*/{});
    scf::YieldOp::create(b, old.getResult(0));
  }
  b.setInsertionPointToStart(passed.elseBlock());
  scf::YieldOp::create(b, ValueRange{cI32(0)});
  b.setInsertionPointAfter(passed);
  syncConsumer();

  // 3. The boxes this split owns: box `box` of this consumer (the
  // epilogue's numbering: 64-row block box / boxesPerBlock, columns
  // boxCols * (box % boxesPerBlock)) is split (consumer * boxes + box)
  // mod s's. Its words are the groups of columns 8j .. 8j + 7 of its
  // block: the s regions' values of them summed in split order,
  // kRegionsInFlight regions' loads in flight at a time.
  int64_t boxCols = tiling.outBoxCols();
  int64_t boxesPerBlock = tiling.subN / boxCols;
  int64_t boxes = tiling.mBlocks() * boxesPerBlock;
  int64_t groupsPerBox = boxCols / 8;
  Value firstBox = arith::MulIOp::create(b, consumer, cIndex(boxes));
  SmallVector<Value> owned;
  SmallVector<Value> total;
  for (Value acc : accs)
    total.push_back(LLVM::PoisonOp::create(b, acc.getType()));
  Value zero4 = arith::ConstantOp::create(
      b, vec4, DenseElementsAttr::get(vec4, b.getF32FloatAttr(0.0f)));
  // kRegionsInFlight regions' loads in flight together: the loop's trip
  // count is s / kRegionsInFlight rounded up.
  Value rounds = ceilDiv(splits, cIndex(kRegionsInFlight));
  for (int64_t box = 0; box < boxes; ++box) {
    int64_t block = box / boxesPerBlock;
    int64_t firstGroup =
        (block * perBlock) / 4 + (box % boxesPerBlock) * groupsPerBox;
    Value owner = arith::RemUIOp::create(
        b, arith::AddIOp::create(b, firstBox, cIndex(box)), splits);
    Value mine = eq(owner, unit.split);
    owned.push_back(mine);
    // A thread's rows past the row count skip the sum (skipRowsPast);
    // the box is still stored, and the tensor map clips those rows.
    Value sums = present.empty()
                     ? mine
                     : arith::AndIOp::create(b, mine, present[block]);
    SmallVector<Type> types(groupsPerBox, vec4);
    auto sum = scf::IfOp::create(b, types, sums, /*withElseRegion=*/true);
    b.setInsertionPointToStart(sum.thenBlock());
    {
      SmallVector<Value> init(groupsPerBox, zero4);
      auto loop = scf::ForOp::create(b, cIndex(0), rounds, cIndex(1), init);
      b.setInsertionPointToStart(loop.getBody());
      Value first = arith::MulIOp::create(b, loop.getInductionVar(),
                                          cIndex(kRegionsInFlight));
      // Regions first + i for i < kRegionsInFlight, all loaded before any is
      // added (first < s; the others where below s).
      SmallVector<Value> present;
      SmallVector<SmallVector<Value>> loaded(kRegionsInFlight);
      for (int64_t i = 0; i < kRegionsInFlight; ++i) {
        Value region = arith::AddIOp::create(b, first, cIndex(i));
        auto loadRegion = [&] {
          SmallVector<Value> v;
          for (int64_t g = 0; g < groupsPerBox; ++g)
            v.push_back(LLVM::LoadOp::create(
                b, vec4, groupPointer(p, region, firstGroup + g),
                /*alignment=*/16, /*isVolatile=*/true));
          return v;
        };
        if (i == 0) {
          present.push_back(Value());
          loaded[i] = loadRegion();
          continue;
        }
        Value here = arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                           region, splits);
        present.push_back(here);
        auto load = scf::IfOp::create(b, types, here, /*withElseRegion=*/true);
        b.setInsertionPointToStart(load.thenBlock());
        scf::YieldOp::create(b, loadRegion());
        b.setInsertionPointToStart(load.elseBlock());
        scf::YieldOp::create(b, SmallVector<Value>(groupsPerBox, zero4));
        b.setInsertionPointAfter(load);
        loaded[i].assign(load.getResults().begin(), load.getResults().end());
      }
      SmallVector<Value> acc(loop.getRegionIterArgs());
      for (int64_t i = 0; i < kRegionsInFlight; ++i)
        for (int64_t g = 0; g < groupsPerBox; ++g) {
          Value added = arith::AddFOp::create(b, acc[g], loaded[i][g]);
          acc[g] = i == 0 ? added
                          : arith::SelectOp::create(b, present[i], added,
                                                    acc[g]);
        }
      scf::YieldOp::create(b, acc);
      b.setInsertionPointAfter(loop);
      scf::YieldOp::create(b, loop.getResults());
    }
    b.setInsertionPointToStart(sum.elseBlock());
    scf::YieldOp::create(b, SmallVector<Value>(groupsPerBox, zero4));
    b.setInsertionPointAfter(sum);
    for (int64_t g = 0; g < groupsPerBox; ++g)
      for (int64_t q = 0; q < 4; ++q) {
        int64_t i = 4 * (firstGroup + g) + q;
        Value v = LLVM::ExtractElementOp::create(b, sum.getResult(g), cI32(q));
        total[i / perBlock] =
            LLVM::InsertValueOp::create(b, total[i / perBlock], v,
                                        i % perBlock);
      }
  }
  store(total, owned);

  // 4. The split whose second increment made the count 2s resets it: every
  // split has passed the wait (each counts itself past it), so no one
  // reads it any more.
  Value twice = arith::SubIOp::create(
      b, arith::MulIOp::create(b, want, cI32(2)), cI32(1));
  Value lastPast = arith::AndIOp::create(
      b, leader,
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, passed.getResult(0),
                            twice));
  scf::IfOp::create(b, lastPast, [&](OpBuilder &, Location) {
    inlinePtx(b, ValueRange{counter}, "st.relaxed.gpu.global.u32 [$0], 0;",
              "l,~{memory}");
    scf::YieldOp::create(b);
  });
}
