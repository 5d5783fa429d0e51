//===- BarrierRing.h - the mbarrier ring of a pipeline ----------*- C++ -*-===//
//
// Contract. A ring of `stages` shared memory slots guarded by two mbarriers
// each, for one producer and any number of consumers, in a block or a
// cluster of `clusterSize` blocks that run the same steps:
//  - step s (counted across tiles) uses slot `s mod stages` in phase
//    `(s / stages) mod 2` (slotOf, phaseOf);
//  - full[slot] completes a phase when its one arrival (the producer's
//    `arm`, which also expects the transaction bytes) and those bytes have
//    landed; empty[slot] when `clusterSize * emptyArrivals` releases came,
//    one per releasing group of every block of the cluster;
//  - `initialize` (one thread, before any use) sets the counts and makes
//    them visible to the TMA unit; `synchronizeInit` (every thread of the
//    block) then orders the initialization before any use, cluster-wide in
//    a cluster, where peers arrive on and multicast into this block;
//  - the producer `acquire`s step s (waits until its slot was released in
//    the previous round; a fresh barrier passes at once) and `arm`s it;
//    consumers `waitFull` for step s and `release` its slot (every block's
//    empty barrier in a cluster; lane i of the releasing group arrives on
//    block i's, so remote arrivals go out in parallel);
//  - `waitLastUses` (the tail) waits for the last phase of every slot used
//    by a block's `steps` steps, on the full barriers (every load landed)
//    or the empty ones (every consumer of the cluster released them).
// Barriers live at the offsets the arena gave (full, then empty, 8 bytes
// each).
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_BARRIERRING_H
#define WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_BARRIERRING_H

#include "weave/Dialect/Weave/Transforms/Pipeline/Builders.h"
#include "weave/Dialect/Weave/Transforms/Pipeline/SmemArena.h"

namespace mlir::weave::pipeline {

class BarrierRing : BuilderBase {
public:
  /// What this builder can implement (as CUTLASS's can_implement): the
  /// first of its rules `tiling` breaks, or nothing. Its rules: delay_release
  /// smaller than stages (checkBarrierRing in Utils/MatmulTiling.h, which
  /// MatmulTiling::check runs).
  static TilingViolation check(const MatmulTiling &tiling) {
    return checkBarrierRing(tiling);
  }

  BarrierRing(ImplicitLocOpBuilder &b, const SmemBase &smem,
              int64_t fullOffset, int64_t stages, int64_t clusterSize)
      : BuilderBase(b), smem(smem), fullOffset(fullOffset), stages(stages),
        clusterSize(clusterSize) {}

  int64_t getStages() const { return stages; }
  int64_t getClusterSize() const { return clusterSize; }

  /// One thread: initializes every barrier, full ones for one arrival,
  /// empty ones for `emptyArrivals` per block of the cluster.
  void initialize(int64_t emptyArrivals);
  /// Every thread of the block, after `initialize`.
  void synchronizeInit();

  Value slotOf(Value step);
  Value phaseOf(Value step);
  /// Byte offset (index) of slot `slot`'s full or empty barrier.
  Value barrierOffset(bool full, Value slot);
  /// Spins until the full or empty barrier of `slot` completed the phase
  /// of parity `parity` (i32).
  void wait(bool full, Value slot, Value parity);

  /// Producer: waits until the slot of `step` is free; returns the slot.
  Value acquire(Value step);
  /// Producer: arrives on the full barrier of `slot` expecting `bytes` of
  /// transactions; returns the barrier as a memref<i64> view for the loads.
  Value arm(Value slot, int64_t bytes);
  /// Consumer: waits until the loads of `step` landed; returns the slot.
  Value waitFull(Value step);
  /// Hands `slot` back: lane `lane` (< clusterSize) of the releasing group
  /// arrives on the empty barrier of block `lane` of the cluster.
  void release(Value slot, Value lane);
  /// The tail: waits for the last use of every slot among `steps` steps.
  void waitLastUses(bool full, Value steps);

private:
  const SmemBase &smem;
  int64_t fullOffset, stages, clusterSize;
};

} // namespace mlir::weave::pipeline

#endif // WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_BARRIERRING_H
