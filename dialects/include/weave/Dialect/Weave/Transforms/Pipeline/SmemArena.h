//===- SmemArena.h - shared memory layout of a pipeline ---------*- C++ -*-===//
//
// Contract. SmemArena is the one place that lays out and sizes the dynamic
// shared memory of a pipeline:
//  - `SmemArena` hands out regions in order, each aligned as asked (at most
//    kSwizzleAtomBytes), as byte offsets from a base that is itself aligned
//    to kSwizzleAtomBytes at run time; `requiredBytes()` is what the kernel
//    must request: the regions plus kSwizzleAtomBytes of slack for that
//    run-time alignment.
//  - `MatmulSmemLayout` is the layout of `weave.matmul_pipeline`: the ring
//    (stage s = lhs tile, then the rhs boxes), the epilogue boxes of each
//    consumer, then the full and empty mbarriers. `getSharedMemoryBytes()`
//    of the op and the expansion both read it, so the size the kernel
//    reserves is the size the expansion uses.
//  - `SmemBase` materializes the aligned base in a kernel and turns offsets
//    into typed views and pointers.
//
// The layout part is header-only and pure arithmetic because the dialect
// library (the op's verifier) needs it and must not link the pass library.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_SMEMARENA_H
#define WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_SMEMARENA_H

#include "weave/Dialect/Weave/IR/WeaveOps.h"

#include "mlir/IR/ImplicitLocOpBuilder.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cassert>

namespace mlir::weave::pipeline {

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

/// f32 words of the split-K workspace of an m x n output in tm x tn tiles
/// split `splitK` ways: the counters (one 32-bit word per tile and
/// consumer, in splitKCounterWords), then splitK - 1 partial tiles per
/// tile. The least size such that this and every larger size fits (a
/// larger workspace has more counter words). Shared by the op verifier and
/// the chooser. INT64_MAX when the size does not fit in an int64_t (no
/// workspace holds it: its bytes would not either): checked arithmetic, as
/// a variant's row bound may be near 2^63.
inline int64_t splitKWorkspaceWords(int64_t m, int64_t n, int64_t tm,
                                    int64_t tn, int64_t consumers,
                                    int64_t splitK) {
  constexpr int64_t kTooLarge = INT64_MAX;
  int64_t rowTiles = m / tm + (m % tm != 0), colTiles = n / tn + (n % tn != 0);
  int64_t tiles, partials, need, words;
  if (llvm::MulOverflow(rowTiles, colTiles, tiles) ||
      llvm::MulOverflow(tiles, splitK - 1, partials) ||
      llvm::MulOverflow(partials, tm, partials) ||
      llvm::MulOverflow(partials, tn, partials) ||
      llvm::MulOverflow(tiles, consumers, need) ||
      llvm::AddOverflow(partials, int64_t(32), words))
    return kTooLarge;
  // splitKCounterWords(w) <= w / 8192 + 32: the least w with
  // w - w / 8192 - 32 >= partials (a fixed point reached in a few steps:
  // each one shrinks the gap 8192 times), and room for every counter.
  for (int64_t next;; words = next) {
    if (llvm::AddOverflow(partials + 32, words / 8192, next))
      return kTooLarge;
    if (next == words)
      break;
  }
  // Counter words reach `need` once ceil(w / 8192) > (ceil(need / 32) - 1)
  // * 32, i.e. w > (ceil(need / 32) * 32 - 32) * 8192: the least w past it
  // in steps of 8192 from `words` (one step at a time took 2^40 steps for
  // a bound near 2^62).
  int64_t roundedNeed = (need / 32 + (need % 32 != 0)) * 32, threshold;
  if (llvm::MulOverflow(roundedNeed - 32, int64_t(8192), threshold))
    return kTooLarge;
  if (splitKCounterWords(words) < need) {
    int64_t steps = (threshold - words) / 8192 + 1;
    if (llvm::MulOverflow(steps, int64_t(8192), steps) ||
        llvm::AddOverflow(words, steps, words))
      return kTooLarge;
  }
  return words;
}
/// The tile geometry of a matmul pipeline, in elements and bytes.
struct MatmulTiling {
  int64_t tm, tn, tk, stages, consumers;
  bool splitM;
  int64_t splitK = 1; ///< units per tile (split_k)
  int64_t inBytes, outBytes;
  /// Bytes of one lhs row (tile_k elements): also the lhs swizzle span, 128
  /// or 64 (the swizzle pattern repeats every 8 rows).
  int64_t lhsRowBytes;
  int64_t subM; ///< output rows of one consumer (64 per wgmma block)
  int64_t subN; ///< output columns of one consumer
  /// Epilogue boxes each consumer has in shared memory at once.
  int64_t epilogueBuffers;

  static MatmulTiling get(MatmulPipelineOp op) {
    auto lhs = cast<MemRefType>(op.getLhs().getType());
    auto out = op.getOutType();
    MatmulTiling t;
    t.tm = op.tileM();
    t.tn = op.tileN();
    t.tk = op.tileK();
    t.stages = op.numStages();
    t.consumers = op.getConsumers();
    t.splitM = op.getSplit() == ConsumerSplit::M;
    t.splitK = op.getSplitK();
    t.inBytes = lhs.getElementTypeBitWidth() / 8;
    t.outBytes = out.getElementTypeBitWidth() / 8;
    t.lhsRowBytes = t.tk * t.inBytes;
    t.subM = t.splitM ? t.tm / t.consumers : t.tm;
    t.subN = t.splitM ? t.tn : t.tn / t.consumers;
    t.epilogueBuffers = op.getEpilogueBuffers();
    return t;
  }
  /// 64-row x 128-byte boxes a consumer owning `subM x subN` of the tile
  /// streams its output through at once: two, or one if that is all of its
  /// part (clamped to at least one box each way: the op asks before its
  /// verifier ran).
  static int64_t epilogueBuffersFor(int64_t subM, int64_t subN,
                                    int64_t outBytes) {
    int64_t boxCols = std::max<int64_t>(1, 128 / std::max<int64_t>(1, outBytes));
    int64_t boxes = std::max<int64_t>(1, subM / 64) *
                    std::max<int64_t>(1, subN / boxCols);
    return std::min<int64_t>(2, boxes);
  }
  /// 64-row wgmma blocks of one consumer, each with its own accumulator.
  int64_t mBlocks() const { return subM / 64; }
  /// Output columns in one 128-byte epilogue box.
  int64_t outBoxCols() const { return 128 / outBytes; }
  /// Input columns in one 128-byte rhs box.
  int64_t inBoxCols() const { return 128 / inBytes; }
};

/// Where everything of a matmul pipeline lives, in bytes from the aligned
/// base.
struct MatmulSmemLayout {
  int64_t lhsBytes, rhsBoxBytes, rhsBytes, stageBytes;
  int64_t ringOffset, epilogueOffset, epilogueBoxBytes;
  int64_t fullBarrierOffset, emptyBarrierOffset;
  int64_t requiredBytes;

  explicit MatmulSmemLayout(const MatmulTiling &t) {
    lhsBytes = t.tm * t.tk * t.inBytes;
    rhsBoxBytes = t.tk * 128;
    rhsBytes = t.tk * t.tn * t.inBytes;
    stageBytes = lhsBytes + rhsBytes;
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

/// The aligned base of the dynamic shared memory in a kernel.
class SmemBase {
public:
  /// Declares the dynamic shared memory and aligns its base up to
  /// SmemArena::kBaseAlignment at run time.
  static SmemBase create(ImplicitLocOpBuilder &b);

  /// A view of type `type` at byte `offset` (an index) from the base.
  Value view(ImplicitLocOpBuilder &b, Value offset, MemRefType type) const;
  /// A shared-address-space pointer at byte `offset` (an index).
  Value pointer(ImplicitLocOpBuilder &b, Value offset) const;
  /// The aligned base as an i64 shared address.
  Value alignedAddress() const { return alignedBase; }

private:
  Value dynamicSmem, pad, alignedBase;
};

} // namespace mlir::weave::pipeline

#endif // WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_SMEMARENA_H
