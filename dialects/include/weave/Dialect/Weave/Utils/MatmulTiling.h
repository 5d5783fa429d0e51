//===- MatmulTiling.h - a matmul pipeline's tiling and rules -*- C++ -*-===//
//
// Contract. `MatmulTiling` is the one description of how a
// `weave.matmul_pipeline` is tiled: the configuration (tile M/N/K, stages,
// consumer warpgroups and their split, cluster_m, split_k), the element
// sizes, the per-consumer part of the tile (subM x subN, derived here and
// nowhere else), the problem (M, possibly dynamic, N, K) and the op's
// other clauses, and what the kernel declares when it is known (threads,
// cluster, shared memory budget). It is built once per use:
// `MatmulPipelineOp::getTiling()` from an op, `MatmulTiling::make` from
// plain numbers (the chooser).
//
// `check()` is the one legality owner of the pipeline. As CUTLASS's
// `can_implement`, each builder of Transforms/Pipeline states its own
// rules, here as a function the builder's `check` returns
// (checkWgmmaMainloop, checkEpilogue, checkBarrierRing, checkTileScheduler,
// checkSplitKFixup, checkSmemArena), and `check()` runs them in that order.
// Each returns the first rule it breaks, worded as the op verifier reports
// it after "'weave.matmul_pipeline' op ", or std::nullopt. Callers:
//  - `MatmulPipelineOp::verify` (every explicit tiling, at parse and after
//    every pass);
//  - `weave-verify-kernel`, with the kernel's block, cluster and smem set
//    (the rules on them: a warpgroup per role, the cluster_m shape, the
//    arena within smem);
//  - the chooser (ConfigChooser.cpp), with the rules its choice can break:
//    checkSmemArena (within the kernel's smem and the block's), checkTile-
//    Scheduler (clusters, segments) and checkSplitKWorkspace.
// The arithmetic both the op (IR) and the builders (Transforms) need lives
// here too: the shared memory layout (`SmemArena`, `MatmulSmemLayout`) and
// the split-K workspace size. Pure arithmetic, no MLIR type: the library
// (WeaveWeaveUtils) depends on neither IR nor Transforms, and both link it.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_DIALECT_WEAVE_UTILS_MATMULTILING_H
#define WEAVE_DIALECT_WEAVE_UTILS_MATMULTILING_H

#include "weave/Dialect/Weave/Utils/HardwareLimits.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <optional>
#include <string>

namespace mlir::weave::pipeline {

/// The first rule a tiling breaks, worded as the op verifier reports it
/// after "'weave.matmul_pipeline' op "; std::nullopt when it breaks none.
using TilingViolation = std::optional<std::string>;

/// Regions of shared memory laid out in order from an aligned base.
class SmemArena {
public:
  /// The run-time alignment of the base: the 128-byte swizzle pattern
  /// repeats every 1024 bytes, so tiles start on such a boundary.
  static constexpr int64_t kBaseAlignment = 1024;

  /// Reserves `bytes` at the next offset that is a multiple of `align` (a
  /// power of two, at most kBaseAlignment) and returns that offset.
  int64_t allocate(int64_t bytes, int64_t align) {
    assert(align > 0 && (align & (align - 1)) == 0 &&
           align <= kBaseAlignment && "alignment must be a power of two "
                                      "no larger than the base's");
    int64_t offset = (end + align - 1) / align * align;
    end = offset + bytes;
    return offset;
  }
  /// Bytes laid out so far.
  int64_t usedBytes() const { return end; }
  /// Bytes to request: the regions plus the slack that aligns the base.
  int64_t requiredBytes() const { return end + kBaseAlignment; }

private:
  int64_t end = 0;
};

/// f32 words at the start of a split-K workspace of `workspaceWords` words
/// that hold the counters (SplitKFixup.h), a multiple of 32: the partials
/// after them start on a 128-byte line. Fixed by the workspace's size alone:
/// every kernel sharing a workspace (the variants of a dynamic M, at any M)
/// keeps its counters in the same words, never where another launch left
/// a partial. (Written without `w + 8191`, which overflows near 2^63.)
inline int64_t splitKCounterWords(int64_t workspaceWords) {
  int64_t lines = workspaceWords / 8192 + (workspaceWords % 8192 != 0);
  return (lines + 31) / 32 * 32;
}

/// The fewest ways a tail split splits a tile: at 2 ways it won and lost
/// alike (4 x H100, bf16, the GEMM + RS's chunk matmuls and the plain
/// matmul's sweep: 1536 rows of 5120 x 6912 6-8% faster, 1152 x 6912 x
/// 5120 4% slower than the unsplit 128 x 128 choice, docs/PERF.md "The
/// last round split along k"); from 3 (the last round at most a third of a
/// tile) it won (640 x 7168 x 8192 at 4 ways: 5-6%).
constexpr int64_t kMinTailSplit = 3;
/// After this many whole rounds a tail split takes kMinLateTailSplit = 2
/// ways too: with the spread fix-up (SplitKFixup.h), 2 ways through the
/// chooser were 2-8% faster at every row with 2 or more whole rounds before
/// the split one and 7-15% slower at rows with 0 or 1, where the chooser
/// traded 128 x 128 for it (one H200, bf16, the ops' ce_matmul form;
/// docs/PERF.md "The tail split's fix-up spread over its units").
constexpr int64_t kLateTailSplitRounds = 2;
constexpr int64_t kMinLateTailSplit = 2;
/// The fewest k steps a tail split's unit takes (shorter ones cost more in
/// fix-up than they gain; the chooser's split-K takes as many).
constexpr int64_t kMinTailSplitSteps = 4;

/// Segments (grid_tile_segments) of at most this many row tiles keep their
/// groups' width: no narrowing to the rows past a wave (TileScheduler::
/// tileCoords). There the narrowing gave 1- or 2-row groups whose waves
/// each read nearly all of b, and cost more than the waits it saves: the
/// all-gather matmul's ring with the segment's rows as one group, 4 x H200,
/// D = 4: 4-25% faster at 256 and 512 rows (2 and 4 row tiles) a shard of
/// 4096 x 7168, 8192 x 14336 and 4096 x 14336, 1-4% at 384 (3), and at
/// D = 2 512 x 4096 x 14336 6-7%, in bursts and 1000-launch runs alike;
/// from 5 rows on the same change lost up to 50% (640 x 8192 x 7168,
/// D = 4) or held level (docs/PERF.md, "The ring's groups at short
/// shards: kept").
constexpr int64_t kUnnarrowedSegmentRows = 4;

/// A tail split's room in a workspace of `workspaceWords` words (the split-K
/// layout: the counters, then the partials): the partial tiles of tm x tn
/// f32 it holds, and the tiles the counters serve (one word per consumer).
/// The kernel splits no more than both allow (TileScheduler::setTailSplit):
/// a tile split s ways takes s partial tiles (every split stores its own,
/// SplitKFixup.h).
struct TailSplitRoom {
  int64_t partialTiles = 0, counterTiles = 0;
};
inline TailSplitRoom tailSplitRoom(int64_t workspaceWords, int64_t tm,
                                   int64_t tn, int64_t consumers) {
  TailSplitRoom room;
  int64_t counters = splitKCounterWords(workspaceWords);
  if (workspaceWords <= counters || tm <= 0 || tn <= 0 || consumers <= 0)
    return room;
  room.partialTiles = (workspaceWords - counters) / (tm * tn);
  room.counterTiles = counters / consumers;
  return room;
}

/// f32 words of the split-K workspace of an m x n output in tm x tn tiles
/// split `splitK` ways: the counters (one 32-bit word per tile and
/// consumer, in splitKCounterWords), then splitK - 1 partial tiles per
/// tile. The least size such that this and every larger size fits (a
/// larger workspace has more counter words). INT64_MAX when the size does
/// not fit in an int64_t (no workspace holds it: its bytes would not
/// either): checked arithmetic, as a variant's row bound may be near 2^63.
int64_t splitKWorkspaceWords(int64_t m, int64_t n, int64_t tm, int64_t tn,
                             int64_t consumers, int64_t splitK);

/// The ways a tail split of at most `maxSplit` splits each tile of the
/// last, partial round of `tiles` tiles on `workers` workers with `numK`
/// k steps a tile, within `room` (1: none): min(maxSplit, the idle
/// workers' share, numK / kMinTailSplitSteps, the partial tiles the room
/// holds per tile), none where the round is whole, its tiles exceed
/// the counters or (with grid_tile_segments) the last segment's
/// `lastSegmentTiles`, or the ways fall below kMinTailSplit
/// (kMinLateTailSplit after kLateTailSplitRounds whole rounds). The kernel's rule
/// (TileScheduler::distribute spells it in IR; TileSchedulerTest checks
/// they agree), which TileOrder and the chooser's estimate take.
inline int64_t tailSplitWays(int64_t tiles, int64_t workers, int64_t numK,
                             int64_t maxSplit, const TailSplitRoom &room,
                             int64_t lastSegmentTiles = INT64_MAX) {
  if (maxSplit <= 1 || workers < 1)
    return 1;
  int64_t tail = tiles % workers;
  if (tail == 0 || tail > room.counterTiles || tail > lastSegmentTiles)
    return 1;
  int64_t s = std::min({maxSplit, workers / tail,
                        std::max<int64_t>(numK / kMinTailSplitSteps, 1),
                        room.partialTiles / tail});
  int64_t least = tiles / workers >= kLateTailSplitRounds ? kMinLateTailSplit
                                                          : kMinTailSplit;
  return s < least ? 1 : s;
}

/// The tiling of a matmul pipeline (see the contract above).
struct MatmulTiling {
  /// `m` of a dynamic row count.
  static constexpr int64_t kDynamic = -1;

  //===--- The configuration (what the chooser picks) ---------------------===//
  int64_t tm = 0, tn = 0, tk = 0, stages = 0, consumers = 1;
  bool splitM = true;
  int64_t clusterM = 1;
  int64_t splitK = 1; ///< units per tile (split_k)
  /// tail_split: the most units a tile of the last, partial round of the
  /// persistent walk is split into along k (1: off). The split of a launch
  /// is chosen at run time (TileScheduler::setTailSplit).
  int64_t tailSplit = 1;

  //===--- Derived by make() ----------------------------------------------===//
  int64_t inBytes = 2, outBytes = 2;
  /// Bytes of one lhs row (tile_k elements): also the lhs swizzle span, 128
  /// or 64 (the swizzle pattern repeats every 8 rows).
  int64_t lhsRowBytes = 0;
  int64_t subM = 0; ///< output rows of one consumer (64 per wgmma block)
  int64_t subN = 0; ///< output columns of one consumer
  /// Epilogue boxes each consumer has in shared memory at once.
  int64_t epilogueBuffers = 1;

  //===--- The problem and the op's other clauses -------------------------===//
  int64_t m = kDynamic, n = 0, k = 0;
  /// The most rows a launch may have (a static M, or a weave.variant's
  /// bound on a dynamic one): the split-K workspace holds a region per
  /// tile. std::nullopt: unbounded.
  std::optional<int64_t> maxRows;
  int64_t delayRelease = 0, gridTileWidth = 8, gridTileSegments = 1,
          gridTileInterleave = 1, gridTileLag = 0, kRotation = 0;
  /// grid_tile_keep_width: the segments' groups do not narrow.
  bool gridTileKeepWidth = false;
  /// grid_tile_column_block: the walk's runs of column tiles, by the
  /// column block their last column lies in (0: one run, every column).
  int64_t gridTileColumnBlock = 0;
  /// walk_m: whether the op bounds its walk, and the bound where it is a
  /// constant (std::nullopt: known at run time only).
  bool walkM = false;
  std::optional<int64_t> walkMConstant;
  /// Whether the op has a region (before_load, callback, after_loads,
  /// epilogue): a region would see row tiles padded to a whole cluster.
  bool regions = false;
  /// Whether the op reads row tiles of lhs from lhs_rows.
  bool lhsRows = false;
  /// f32 words of the workspace operand (0: none).
  int64_t workspaceWords = 0;
  /// lhs and out as the messages show them ("'memref<?x64xf16>' into
  /// '...'"): set from an op, empty from the chooser.
  std::string operandText;

  //===--- The kernel, where known (weave-verify-kernel, the chooser) -----===//
  std::optional<int64_t> blockThreads;
  std::optional<std::array<int64_t, 3>> clusterShape;
  /// Dynamic shared memory the kernel declares (its `smem`).
  std::optional<int64_t> kernelSmem;

  /// The tiling of a configuration on inputs of `inBytes` and an output of
  /// `outBytes` per element, with the per-consumer part derived; the
  /// problem and the clauses keep their defaults.
  static MatmulTiling make(int64_t tm, int64_t tn, int64_t tk, int64_t stages,
                           int64_t consumers, bool splitM, int64_t inBytes,
                           int64_t outBytes);
  /// The tiling of an op (`op.getTiling()`, MatmulPipelineOp): a template so
  /// that this header needs no IR.
  template <typename OpT> static MatmulTiling get(OpT op) {
    return op.getTiling();
  }

  /// 64-row x 128-byte boxes a consumer owning `subM x subN` of the tile
  /// streams its output through at once: two, or one if that is all of its
  /// part (clamped to at least one box each way: asked of tilings no rule
  /// was checked on yet).
  static int64_t epilogueBuffersFor(int64_t subM, int64_t subN,
                                    int64_t outBytes) {
    int64_t boxCols =
        std::max<int64_t>(1, 128 / std::max<int64_t>(1, outBytes));
    int64_t boxes = std::max<int64_t>(1, subM / hw::kWgmmaM) *
                    std::max<int64_t>(1, subN / boxCols);
    return std::min<int64_t>(2, boxes);
  }
  bool dynamicM() const { return m < 0; }
  /// Whether a tile that would cross the edge of M or N is moved back to
  /// end at it (the mainloop loads it whole, the epilogue stores only its
  /// boxes that reach past where it would have started): in a pipeline
  /// whose tiles nothing but its own stores sees (no region; lhs_rows'
  /// row tiles are whole). TMA zero-fills the rows or columns of a box
  /// past the edge, and a load-bound step pays for it: 128 x 64 tiles ran
  /// 770 x 1024 x 4096 in 26.9 us and 768 rows in 16.2 (one H200,
  /// docs/PERF.md "Small M: the rhs streams, the lhs does not"). A box
  /// over rows or columns of the neighbouring tile stores what the
  /// neighbour stores there: both sum the same products in the same order.
  bool shiftsEdgeTiles() const { return shiftsEdgeTilesOf(regions, lhsRows); }
  /// The same rule on an op's facts, before it has a tiling (the chooser).
  static bool shiftsEdgeTilesOf(bool regions, bool lhsRows) {
    return !regions && !lhsRows;
  }
  /// Whether the rows (columns) have a tile that the kernel moves
  /// (shiftsEdgeTiles): M known only at run time, or more than one tile
  /// and not whole tiles (a single tile has nowhere to move).
  bool shiftsRowTiles() const {
    return shiftsEdgeTiles() && (dynamicM() || (m > tm && m % tm != 0));
  }
  bool shiftsColTiles() const {
    return shiftsEdgeTiles() && n > tn && n % tn != 0;
  }
  /// Rows of the lhs box a stage loads: tile_m; or, where the only row
  /// tile holds fewer (a static M below tile_m) in a pipeline whose tiles
  /// nothing but its own stores sees (shiftsEdgeTiles), M rounded up to
  /// the swizzle's 8-row atom. TMA zero-fills a box's rows past the edge,
  /// and a decode step paid for them: 64 x 128 split_k(4) ran 1 x 4096 x
  /// 4096 in 15.2 us and 64 rows in 12.4 (one H200, docs/PERF.md "The
  /// decode rows"). The tile's rows past the box keep stale shared
  /// memory; only output rows past M read them (a product's row is its
  /// lhs row's), which the output's tensor map clips and the split-K
  /// fix-up skips.
  int64_t lhsBoxRows() const {
    return lhsBoxRowsOf(dynamicM() ? kDynamic : m, tm, shiftsEdgeTiles());
  }
  /// The same rule on an op's facts (the chooser): `m` kDynamic where the
  /// kernel reads it at run time. shortLhsBoxOf: whether it is M's rows.
  static bool shortLhsBoxOf(int64_t m, int64_t tm, bool shiftsEdgeTiles) {
    return m >= 0 && m < tm && shiftsEdgeTiles;
  }
  static int64_t lhsBoxRowsOf(int64_t m, int64_t tm, bool shiftsEdgeTiles) {
    return shortLhsBoxOf(m, tm, shiftsEdgeTiles) ? (m + 7) / 8 * 8 : tm;
  }
  /// Whether a tile may hold rows past M: where M is read at run time, or
  /// its last row tile is partial and not moved inside (one row tile, a
  /// region, lhs_rows). The split-K fix-up skips those rows' partials.
  bool tilesPassRows() const {
    return dynamicM() || (!shiftsRowTiles() && m % tm != 0);
  }
  /// 64-row wgmma blocks of one consumer, each with its own accumulator.
  int64_t mBlocks() const { return subM / hw::kWgmmaM; }
  /// Output columns in one 128-byte epilogue box.
  int64_t outBoxCols() const { return 128 / outBytes; }
  /// Input columns in one 128-byte rhs box.
  int64_t inBoxCols() const { return 128 / inBytes; }
  /// Threads of the block: a producer warpgroup and the consumers.
  int64_t warpgroups() const { return 1 + consumers; }

  /// The first rule of any builder this tiling breaks (see the contract).
  TilingViolation check() const;
};

/// The rules of each builder, in the order check() runs them.
/// WgmmaMainloop: the consumers and their split, the wgmma shapes, tile_k
/// of one swizzle span, 64-column rhs boxes, the TMA box and stride limits
/// of the loads, the accumulators' registers; the kernel's block of one
/// warpgroup per role.
TilingViolation checkWgmmaMainloop(const MatmulTiling &t);
/// Epilogue: the output's rows for its TMA stores.
TilingViolation checkEpilogue(const MatmulTiling &t);
/// BarrierRing: a slot is held by at most stages - 1 later steps.
TilingViolation checkBarrierRing(const MatmulTiling &t);
/// TileScheduler: segments and clusters of whole row tiles, the cluster's
/// share of the rhs boxes, a walk bound (walk_m) of whole clusters without
/// segments or interleave; the kernel's cluster shape.
TilingViolation checkTileScheduler(const MatmulTiling &t);
/// SplitKFixup: at least one k step per split, and the workspace; with
/// tail_split, checkTailSplitWorkspace (the clauses it excludes are the op
/// verifier's, as split_k's are).
TilingViolation checkSplitKFixup(const MatmulTiling &t);
/// The workspace part of checkSplitKFixup (what a chooser's split breaks).
TilingViolation checkSplitKWorkspace(const MatmulTiling &t);
/// With tail_split, a workspace that holds the partials of one tile split
/// kMinLateTailSplit ways, the fewest it splits (what the chooser's tail
/// split candidate must keep).
TilingViolation checkTailSplitWorkspace(const MatmulTiling &t);
/// SmemArena: the layout within a block's shared memory and the kernel's.
TilingViolation checkSmemArena(const MatmulTiling &t);

/// Where everything of a matmul pipeline lives, in bytes from the aligned
/// base.
struct MatmulSmemLayout {
  int64_t lhsBytes, rhsBoxBytes, rhsBytes, stageBytes;
  /// Bytes a stage's loads deliver (its barrier's transaction count): the
  /// lhs box may be shorter than the tile (MatmulTiling::lhsBoxRows).
  int64_t stageLoadBytes;
  int64_t ringOffset, epilogueOffset, epilogueBoxBytes;
  int64_t fullBarrierOffset, emptyBarrierOffset;
  int64_t requiredBytes;

  explicit MatmulSmemLayout(const MatmulTiling &t) {
    lhsBytes = t.tm * t.tk * t.inBytes;
    rhsBoxBytes = t.tk * 128;
    rhsBytes = t.tk * t.tn * t.inBytes;
    stageBytes = lhsBytes + rhsBytes;
    stageLoadBytes = t.lhsBoxRows() * t.tk * t.inBytes + rhsBytes;
    epilogueBoxBytes = 64 * 128;
    SmemArena arena;
    ringOffset = arena.allocate(t.stages * stageBytes,
                                SmemArena::kBaseAlignment);
    epilogueOffset =
        arena.allocate(t.consumers * t.epilogueBuffers * epilogueBoxBytes,
                       SmemArena::kBaseAlignment);
    fullBarrierOffset = arena.allocate(t.stages * 8, 8);
    emptyBarrierOffset = arena.allocate(t.stages * 8, 8);
    requiredBytes = arena.requiredBytes();
  }
  /// Offset of stage `s`'s lhs tile; its rhs boxes follow at lhsBytes.
  int64_t stageOffset(int64_t s) const { return ringOffset + s * stageBytes; }
  /// Offset of the epilogue boxes of consumer `c`.
  int64_t consumerEpilogueOffset(int64_t c, int64_t buffers) const {
    return epilogueOffset + c * buffers * epilogueBoxBytes;
  }
};

} // namespace mlir::weave::pipeline

#endif // WEAVE_DIALECT_WEAVE_UTILS_MATMULTILING_H
