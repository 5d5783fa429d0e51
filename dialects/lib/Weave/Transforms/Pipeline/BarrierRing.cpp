//===- BarrierRing.cpp - the mbarrier ring of a pipeline ------------------===//
//
// See BarrierRing.h for the contract.
//
//===----------------------------------------------------------------------===//

#include "weave/Dialect/Weave/Transforms/Pipeline/BarrierRing.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::weave::pipeline;

void BarrierRing::initialize(int64_t emptyArrivals) {
  for (int64_t s = 0; s < stages; ++s) {
    NVVM::MBarrierInitOp::create(
        b, smem.pointer(b, barrierOffset(true, cIndex(s))), cI32(1), Value());
    NVVM::MBarrierInitOp::create(
        b, smem.pointer(b, barrierOffset(false, cIndex(s))),
        cI32(clusterSize * emptyArrivals), Value());
  }
  // The initialized barriers must be visible to the TMA unit.
  NVVM::FenceMbarrierInitOp::create(b);
}

void BarrierRing::synchronizeInit() {
  if (clusterSize > 1) {
    // Every thread of the cluster (release/acquire), before any peer
    // multicasts into this block or arrives on its barriers.
    NVVM::ClusterArriveOp::create(b, /*aligned=*/UnitAttr());
    NVVM::ClusterWaitOp::create(b, /*aligned=*/UnitAttr());
  } else {
    gpu::BarrierOp::create(b);
  }
}

Value BarrierRing::barrierOffset(bool full, Value slot) {
  int64_t base = fullOffset + (full ? 0 : stages * 8);
  return arith::AddIOp::create(b, cIndex(base),
                               arith::MulIOp::create(b, slot, cIndex(8)));
}

Value BarrierRing::slotOf(Value step) {
  return arith::RemUIOp::create(b, step, cIndex(stages));
}

Value BarrierRing::phaseOf(Value step) {
  Value round = arith::DivUIOp::create(b, step, cIndex(stages));
  Value parity = arith::RemUIOp::create(b, round, cIndex(2));
  return arith::IndexCastOp::create(b, b.getI32Type(), parity);
}

/// Spins on `mbarrier.try_wait.parity` without a suspend-time hint: with
/// one (which nvvm.mbarrier.try_wait.parity requires) ptxas emits a
/// NANOSLEEP after every failed try, which costs whole microseconds on the
/// critical path of the ring.
void BarrierRing::wait(bool full, Value slot, Value parity) {
  LLVM::InlineAsmOp::create(
      b, TypeRange{},
      ValueRange{smem.pointer(b, barrierOffset(full, slot)), parity},
      "{\n\t.reg .pred ready;\n"
      "wait_barrier:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 ready, [$0], $1;\n\t"
      "@!ready bra wait_barrier;\n}",
      "l,r,~{memory}", /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None, /*asm_dialect=*/{},
      /*operand_attrs=*/{});
}

Value BarrierRing::acquire(Value step) {
  Value slot = slotOf(step);
  // A fresh barrier counts as having completed the phase before phase 0,
  // so the first round of waits (parity 1) passes at once.
  Value parity = arith::XOrIOp::create(b, phaseOf(step), cI32(1));
  wait(/*full=*/false, slot, parity);
  return slot;
}

Value BarrierRing::arm(Value slot, int64_t bytes) {
  Value full = barrierOffset(true, slot);
  NVVM::MBarrierArriveExpectTxOp::create(
      b, Type(), smem.pointer(b, full), cI32(bytes), NVVM::MemScopeKind::CTA,
      /*relaxed=*/false, /*predicate=*/Value());
  return smem.view(b, full, sharedType({}, b.getI64Type()));
}

Value BarrierRing::waitFull(Value step) {
  Value slot = slotOf(step);
  wait(/*full=*/true, slot, phaseOf(step));
  return slot;
}

void BarrierRing::release(Value slot, Value lane) {
  Value arrives = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, lane,
                                        cIndex(clusterSize));
  scf::IfOp::create(b, arrives, [&](OpBuilder &, Location) {
    Value barrier = smem.pointer(b, barrierOffset(false, slot));
    if (clusterSize == 1) {
      NVVM::MBarrierArriveOp::create(b, Type(), barrier, Value());
      scf::YieldOp::create(b);
      return;
    }
    // Every block of the cluster multicasts into this slot: arrive on the
    // barrier at the same offset in block `lane` (this one included). The
    // arrival orders nothing but the reads the releasing group has already
    // waited for, so it is a CTA-scope release: a cluster-scope one costs
    // a fence on every step.
    Value address = LLVM::PtrToIntOp::create(b, b.getI32Type(), barrier);
    Value rank = arith::IndexCastOp::create(b, b.getI32Type(), lane);
    LLVM::InlineAsmOp::create(
        b, TypeRange{}, ValueRange{address, rank},
        "{\n\t.reg .b32 remote;\n\t"
        "mapa.shared::cluster.u32 remote, $0, $1;\n\t"
        "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}",
        "r,r,~{memory}", /*has_side_effects=*/true,
        /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
        /*asm_dialect=*/{}, /*operand_attrs=*/{});
    scf::YieldOp::create(b);
  });
}

void BarrierRing::waitLastUses(bool full, Value steps) {
  for (int64_t back = 1; back <= stages; ++back) {
    Value used = arith::CmpIOp::create(b, arith::CmpIPredicate::uge, steps,
                                       cIndex(back));
    scf::IfOp::create(b, used, [&](OpBuilder &, Location) {
      Value step = arith::SubIOp::create(b, steps, cIndex(back));
      wait(full, slotOf(step), phaseOf(step));
      scf::YieldOp::create(b);
    });
  }
}
