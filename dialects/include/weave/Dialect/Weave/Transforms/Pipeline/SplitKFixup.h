//===- SplitKFixup.h - the fix-up of split-K and tail splits ----*- C++ -*-===//
//
// Contract. With split_k = s, or a tail split's s (TileScheduler), the s
// units of a tile (TileScheduler's Unit) each hold an f32 partial of the
// tile in their consumers' accumulators. `finish(accs, unit, store)`, run
// by every thread of consumer warpgroup `consumer` after its mainloop of
// `unit`, sums them in split order (p_0 + p_1 + ... in f32: the same
// values at every launch) and has `store(total, owned)` (the epilogue)
// write the tile's boxes out, in one of two forms:
//  - split_k (a constant s; serial): a unit with split j < s - 1 stores
//    its accumulators into its own region of the workspace (16-byte
//    stores), then, after a barrier of the warpgroup, its leader fences
//    (`fence.acq_rel.gpu`) and adds 1 to the counter of (tile, consumer);
//    nothing is stored to the output. The unit with split s - 1 has its
//    leader spin (`ld.acquire.gpu`) until that counter reaches s - 1 and
//    reset it to 0; after a barrier of the warpgroup every thread adds the
//    s - 1 regions' words of its accumulators (volatile loads: L2, never a
//    stale L1 line), in split order, into them and calls `store(total,
//    {})`: every box;
//  - a tail split (s known at run time; parallel): every unit stores its
//    partial into region j, arrives (fence, add 1), and waits until all s
//    have arrived; then each unit sums, for the boxes it owns, the s
//    regions' words of those boxes and calls `store(total, owned)`: box b
//    of consumer c (the epilogue's numbering) is owned by split (c x boxes
//    + b) mod s. So the fix-up's reads and stores are spread over the s
//    units instead of one unit reading s - 1 tiles: on one H200 the serial
//    form's reads cost 2-8 us a launch at 128 x 256 tiles split 4-8 ways
//    (docs/PERF.md, "The tail split's fix-up spread over its units"). The
//    counter takes a second increment from each unit once it passed the
//    wait; the unit whose increment makes it 2s resets it to 0 (all have
//    stopped reading it). Needs the s units resident at once: the tail's
//    units are one a worker in the last round (t x s <= W).
// (Plain stores, not reductions: scalar `red.global.add.f32` of the
// partials ran 2-3x slower than cuBLAS at 64-127 rows on an H100,
// docs/PERF.md; and reductions would sum in no fixed order.)
// Workspace layout, in f32 words: one 32-bit counter per (tile t,
// consumer c) at word `t * consumers + c`, in the first
// splitKCounterWords(workspace size) words (SmemArena.h: fixed by the
// size, so kernels of other configurations or row counts sharing the
// workspace agree on it); after them split j's partial of (t, c) at
// `((t * consumers + c) * r + j) * 128 * perThread`, r = s - 1 (split_k)
// or s (tail split), perThread = mBlocks * subN / 2, thread-major in
// groups of 4 (word `4 * (i / 4) * 128 + 4 * thread + i % 4` for the
// thread's accumulator word i: coalesced) (splitKWorkspaceWords,
// tailSplitRoom). The counters must be zero before the first launch;
// every launch leaves them zero (the partials need no clearing).
// Deadlock freedom: the last split of a tile has the highest unit index
// and waits only for lower ones, which the blocks of a resident grid
// reach first (each walks its units in increasing order); a tail split's
// units all run in the last round, one per worker.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_SPLITKFIXUP_H
#define WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_SPLITKFIXUP_H

#include "weave/Dialect/Weave/Transforms/Pipeline/Builders.h"
#include "weave/Dialect/Weave/Transforms/Pipeline/SmemArena.h"
#include "weave/Dialect/Weave/Transforms/Pipeline/TileScheduler.h"

namespace mlir::weave::pipeline {

/// A tail split's fix-up loads this many splits' partials of a box before
/// it adds them (the loads in flight together). 2 and 4 measured the same
/// on one H200 (docs/PERF.md, "The tail split's fix-up spread over its
/// units"): the sum is not bound by the loads' latency there.
constexpr int64_t kRegionsInFlight = 4;

class SplitKFixup : BuilderBase {
public:
  /// What this builder can implement (as CUTLASS's can_implement): the
  /// first of its rules `tiling` breaks, or nothing. Its rules: a k step per
  /// split at least, a workspace that holds the counters and partials
  /// (checkSplitKFixup in Utils/MatmulTiling.h, which MatmulTiling::check
  /// runs).
  static TilingViolation check(const MatmulTiling &tiling) {
    return checkSplitKFixup(tiling);
  }

  /// `workspace`: the f32 workspace memref (static size); `warpgroup`:
  /// this warpgroup's index in the block (consumers are 1..consumers),
  /// `laneInGroup` the thread's index in it.
  SplitKFixup(ImplicitLocOpBuilder &b, const MatmulTiling &tiling,
              Value workspace, Value warpgroup, Value laneInGroup)
      : BuilderBase(b), tiling(tiling), workspace(workspace),
        warpgroup(warpgroup), laneInGroup(laneInGroup) {}

  /// `store(total, owned)`: the epilogue of the tile (Epilogue::store),
  /// for the boxes whose `owned` flag is set (every box where empty).
  using StoreFn = function_ref<void(ArrayRef<Value>, ArrayRef<Value>)>;
  void finish(ArrayRef<Value> accs, const Unit &unit, StoreFn store);
  /// Where a tile may hold rows past the row count `rows` (a tile's start
  /// is tileStart(m, tile_m, rowEdge)): a thread whose rows of a 64-row
  /// block all lie past it neither stores its partial of that block nor
  /// loads the other splits' (its total there is its own partial, which
  /// the output's tensor map clips). Those rows' products are of
  /// zero-filled lhs rows, so the sum they skip is zero. At 16 rows of a
  /// 64-row tile the fix-up moves a quarter of the words.
  void skipRowsPast(Value rows, Value rowEdge) {
    this->rows = rows;
    this->rowEdge = rowEdge;
  }

private:
  /// Where a unit's tile keeps its partials: split j's region is
  /// firstRegion + j (regionsPerSlot regions a (tile, consumer)); the
  /// counter's address; this thread's first word in a region; the thread's
  /// accumulator words.
  struct Partials {
    Value firstRegion, counter, laneWords;
    int64_t partialBase = 0, perBlock = 0, perThread = 0;
  };
  Partials partialsOf(const Unit &unit, Value regionsPerSlot);
  /// Word group `group` (4 words) of this thread in split `split`'s region.
  Value groupPointer(const Partials &p, Value split, int64_t group);
  /// The accumulators into split `split`'s region (16-byte stores,
  /// coalesced across the warpgroup), of the 64-row blocks `present`
  /// (rowsPresent; empty: all).
  void storePartial(const Partials &p, ArrayRef<Value> accs, Value split,
                    ArrayRef<Value> present);
  void finishSerial(ArrayRef<Value> accs, const Unit &unit, StoreFn store);
  void finishSpread(ArrayRef<Value> accs, const Unit &unit, StoreFn store);
  /// A global pointer `words` f32 words past the workspace's base.
  Value wordPointer(Value words);
  void syncConsumer();
  /// Per 64-row block of this consumer's part of `unit`'s tile: whether
  /// this thread's rows there reach below `rows` (skipRowsPast); empty
  /// where every row is.
  SmallVector<Value> rowsPresent(const Unit &unit);

  const MatmulTiling &tiling;
  Value workspace, warpgroup, laneInGroup;
  Value rows, rowEdge;
};

} // namespace mlir::weave::pipeline

#endif // WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_SPLITKFIXUP_H
