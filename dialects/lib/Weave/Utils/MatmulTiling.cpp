//===- MatmulTiling.cpp - the rules of a matmul pipeline's tiling ---------===//
//
// Each builder's rules (the contract is in the header). The messages are the
// op verifier's: they follow "'weave.matmul_pipeline' op ".
//
//===----------------------------------------------------------------------===//

#include "weave/Dialect/Weave/Utils/MatmulTiling.h"

#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir::weave;
using namespace mlir::weave::pipeline;

namespace {

/// ceil(a / b) for a >= 0, b > 0, without overflowing near 2^63.
int64_t ceilDiv(int64_t a, int64_t b) { return a / b + (a % b != 0); }

/// Builds a violation's message with raw_ostream's <<.
class Message {
public:
  template <typename T> Message &operator<<(const T &value) {
    os << value;
    return *this;
  }
  operator TilingViolation() { return std::move(text); }

private:
  std::string text;
  llvm::raw_string_ostream os{text};
};

} // namespace

int64_t mlir::weave::pipeline::splitKWorkspaceWords(int64_t m, int64_t n,
                                                    int64_t tm, int64_t tn,
                                                    int64_t consumers,
                                                    int64_t splitK) {
  constexpr int64_t kTooLarge = INT64_MAX;
  int64_t rowTiles = ceilDiv(m, tm), colTiles = ceilDiv(n, tn);
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

MatmulTiling MatmulTiling::make(int64_t tm, int64_t tn, int64_t tk,
                                int64_t stages, int64_t consumers, bool splitM,
                                int64_t inBytes, int64_t outBytes) {
  MatmulTiling t;
  t.tm = tm;
  t.tn = tn;
  t.tk = tk;
  t.stages = stages;
  t.consumers = consumers;
  t.splitM = splitM;
  t.inBytes = inBytes;
  t.outBytes = outBytes;
  t.lhsRowBytes = tk * inBytes;
  // The per-consumer part of the tile: the one place it is derived.
  t.subM = splitM ? tm / consumers : tm;
  t.subN = splitM ? tn : tn / consumers;
  t.epilogueBuffers = epilogueBuffersFor(t.subM, t.subN, outBytes);
  return t;
}

TilingViolation MatmulTiling::check() const {
  for (auto rule : {checkWgmmaMainloop, checkEpilogue, checkBarrierRing,
                    checkTileScheduler, checkSplitKFixup, checkSmemArena})
    if (TilingViolation violation = rule(*this))
      return violation;
  return std::nullopt;
}

/// Whether rows of `cols` elements of `bytes` each span a multiple of 16
/// bytes, as a tensor map's global stride must. (Unsigned: a huge static
/// width must not overflow into UB; the kernel argument check rejects its
/// byte size.)
static bool tmaRows(int64_t cols, int64_t bytes) {
  return (static_cast<uint64_t>(cols) * bytes) % hw::kTmaAlignBytes == 0;
}

static TilingViolation tmaRowsViolation(const char *name, int64_t cols) {
  return Message() << "expects rows of " << name
                   << " to span a multiple of 16 bytes (a TMA stride rule), "
                      "got "
                   << cols << " elements";
}

TilingViolation
mlir::weave::pipeline::checkWgmmaMainloop(const MatmulTiling &t) {
  // wgmma: each consumer warpgroup owns a 64*i x N sub-tile with N a
  // multiple of 8 up to 256, and consumes K in steps of 16 (f16/bf16).
  if ((t.splitM ? t.tm : t.tn) % t.consumers != 0)
    return Message() << "expects the split dimension of the tile to be "
                        "divisible by "
                     << t.consumers << " consumer warpgroups";
  if (t.subM % hw::kWgmmaM != 0)
    return Message() << "expects each consumer's tile_m to be a multiple of "
                     << hw::kWgmmaM << " (the wgmma M), got " << t.subM;
  if (t.subN % hw::kWgmmaNStep != 0 || t.subN > hw::kWgmmaMaxN)
    return Message() << "expects each consumer's tile_n to be a multiple of "
                     << hw::kWgmmaNStep << " and at most " << hw::kWgmmaMaxN
                     << " (legal wgmma N), got " << t.subN;
  // Edge tiles are handled by TMA (zero-filled loads, clipped stores), but
  // a tensor map needs rows that are a multiple of 16 bytes.
  if (!tmaRows(t.k, t.inBytes))
    return tmaRowsViolation("lhs", t.k);
  if (!tmaRows(t.n, t.inBytes))
    return tmaRowsViolation("rhs", t.n);
  if ((t.subM != 64 && t.subM != 128) || (!t.splitM && t.subN % 64 != 0))
    return Message() << "expects each consumer to own 64 or 128 rows "
                        "(tile_m = 64 or 128 times consumers for split M, "
                        "64 or 128 for split N) and, for split N, a "
                        "multiple of 64 columns; got "
                     << t.subM << "x" << t.subN;
  // f32 accumulators: subM * subN / 128 registers per consumer thread.
  if (t.subM * t.subN > 64 * 256)
    return Message() << "expects each consumer's part of the tile to have at "
                        "most 64x256 elements (its f32 accumulators take "
                        "subM * subN / 128 registers per thread), got "
                     << t.subM << "x" << t.subN;
  if (t.tn % 64 != 0)
    return Message() << "expects tile_n to be a multiple of 64 (rhs tiles are "
                        "loaded as 64-column boxes), got "
                     << t.tn;
  int64_t swizzleElems = 128 / t.inBytes;
  if (t.tk != swizzleElems && t.tk != swizzleElems / 2)
    return Message() << "expects tile_k to be " << swizzleElems << " or "
                     << swizzleElems / 2
                     << " (lhs rows of one 128- or 64-byte swizzle span), got "
                     << t.tk;
  if (t.consumers > 3)
    return Message() << "expects 1, 2 or 3 consumer warpgroups, got "
                     << t.consumers;
  if (t.tm > hw::kTmaMaxBoxDim || t.tn > hw::kTmaMaxBoxDim)
    return Message() << "expects tile_m and tile_n of at most "
                     << hw::kTmaMaxBoxDim << " (a TMA box limit), got " << t.tm
                     << "x" << t.tn;
  // The roles: a producer warpgroup and the consumers.
  if (t.blockThreads &&
      *t.blockThreads != t.warpgroups() * hw::kWarpgroupThreads)
    return Message() << "needs " << t.warpgroups() << " warpgroups ("
                     << t.warpgroups() * hw::kWarpgroupThreads
                     << " threads: one producer and " << t.consumers
                     << " consumers), but the kernel's block has "
                     << *t.blockThreads << " threads";
  return std::nullopt;
}

TilingViolation mlir::weave::pipeline::checkEpilogue(const MatmulTiling &t) {
  // Its boxes (64 rows x 128 bytes per wgmma block of subN columns) follow
  // from the mainloop's rules; its TMA stores need rows of out that a
  // tensor map can stride.
  if (!tmaRows(t.n, t.outBytes))
    return tmaRowsViolation("out", t.n);
  return std::nullopt;
}

TilingViolation mlir::weave::pipeline::checkBarrierRing(const MatmulTiling &t) {
  if (t.delayRelease >= t.stages)
    return Message() << "expects delay_release (" << t.delayRelease
                     << ") to be smaller than stages (" << t.stages << ")";
  return std::nullopt;
}

TilingViolation
mlir::weave::pipeline::checkTileScheduler(const MatmulTiling &t) {
  // Segments visit the shards one after the other, interleave visits them
  // in turns: one order or the other.
  if (t.gridTileSegments > 1 && t.gridTileInterleave > 1)
    return Message() << "expects grid_tile_segments ("
                     << t.gridTileSegments << ") or grid_tile_interleave ("
                     << t.gridTileInterleave << "), not both";
  // Keeping the width is about the segments' narrowing: alone it would
  // say something the schedule does not do.
  if (t.gridTileKeepWidth && t.gridTileSegments <= 1)
    return Message() << "expects grid_tile_keep_width only with "
                        "grid_tile_segments (the width narrows only there)";
  // A split's unit covers a range of k steps; rotating them would move
  // steps between splits.
  if (t.kRotation > 0 && t.splitK > 1)
    return Message() << "expects k_rotation (" << t.kRotation
                     << ") without split_k (" << t.splitK << ")";
  // Segments are equal runs of row tiles (of whole clusters): a static
  // count must divide; a dynamic one is the kernel's to check.
  if (t.gridTileSegments > 1) {
    if (t.dynamicM() && t.clusterM > 1)
      return Message() << "expects a static row count with "
                          "grid_tile_segments and cluster_m";
    if (!t.dynamicM() &&
        ceilDiv(t.m, t.tm) % (t.gridTileSegments * t.clusterM) != 0)
      return Message() << "expects the " << ceilDiv(t.m, t.tm)
                       << " row tiles to divide into " << t.gridTileSegments
                       << " grid_tile_segments of whole clusters of "
                       << t.clusterM;
  }
  // Column runs split the walk by columns; segments and the interleave's
  // shards split it by rows, and walk_m cuts it by rows: one at a time
  // (the runs' groups would otherwise need each other's arithmetic).
  if (t.gridTileColumnBlock > 0) {
    if (t.gridTileSegments > 1 || t.gridTileInterleave > 1 || t.walkM)
      return Message() << "expects grid_tile_column_block ("
                       << t.gridTileColumnBlock
                       << ") without grid_tile_segments, "
                          "grid_tile_interleave or walk_m";
  }
  // walk_m bounds the walk to its first W row tiles; segments and the
  // interleave's shards are fractions of all the row tiles (and the lag's
  // phases of the shards), which a bound would cut through: their rows
  // would no longer be what the clause says.
  if (t.walkM) {
    if (t.gridTileSegments > 1)
      return Message() << "expects walk_m without grid_tile_segments ("
                       << t.gridTileSegments
                       << "): a bound would cut through the segments";
    if (t.gridTileInterleave > 1)
      return Message() << "expects walk_m without grid_tile_interleave ("
                       << t.gridTileInterleave
                       << "): a bound would cut through the shards";
    if (t.walkMConstant && *t.walkMConstant < 0)
      return Message() << "expects walk_m to be at least 0, got "
                       << *t.walkMConstant;
    if (t.walkMConstant && *t.walkMConstant % t.clusterM != 0)
      return Message() << "expects walk_m (" << *t.walkMConstant
                       << ") to be a multiple of cluster_m (" << t.clusterM
                       << "): a cluster's row tiles are walked together";
  }
  int64_t cluster = t.clusterM;
  if (cluster != 1) {
    if (cluster != 2 && cluster != 4)
      return Message() << "expects cluster_m to be 1, 2 or 4, got " << cluster;
    if ((t.tn / 64) % cluster != 0)
      return Message() << "expects the " << t.tn / 64
                       << " rhs boxes of a tile (64 columns each) to divide "
                          "among the "
                       << cluster << " blocks of a cluster";
    if (t.gridTileWidth % cluster != 0)
      return Message() << "expects grid_tile_width (" << t.gridTileWidth
                       << ") to be a multiple of cluster_m (" << cluster
                       << "): a cluster's tiles are in one group";
    // Blocks of a cluster take adjacent row tiles. Without regions the
    // row tiles are padded to a multiple of the cluster: a block whose tile
    // lies past the last row loads zeros (TMA fills out-of-bounds boxes)
    // and stores nothing (TMA clips), but still loads and multicasts its
    // share of the rhs for its partners. A region would see the padded
    // tile (before_load could wait for rows that never come), so with one
    // the count must be a multiple of the cluster, which only a static M
    // shows.
    if (t.regions && t.dynamicM())
      return Message() << "expects a static row count with cluster_m("
                       << cluster
                       << ") and a region (the row tiles must divide among "
                          "the blocks of a cluster), got "
                       << t.operandText;
    int64_t rowTiles = t.dynamicM() ? 0 : ceilDiv(t.m, t.tm);
    if (t.regions && rowTiles % cluster != 0)
      return Message() << "expects the number of row tiles (" << rowTiles
                       << " of " << t.tm << " rows) to be a multiple of "
                       << "cluster_m (" << cluster
                       << ") with a region; use a smaller cluster_m for "
                          "this shape";
  }
  if (t.clusterShape && cluster != 1 &&
      ((*t.clusterShape)[0] != cluster || (*t.clusterShape)[1] != 1 ||
       (*t.clusterShape)[2] != 1))
    return Message() << "with cluster_m(" << cluster
                     << ") needs the kernel's cluster to be [" << cluster
                     << ", 1, 1] (set cluster = [" << cluster
                     << ", 1, 1] in #weave.kernel)";
  return std::nullopt;
}

TilingViolation
mlir::weave::pipeline::checkSplitKWorkspace(const MatmulTiling &t) {
  if (t.splitK <= 1)
    return std::nullopt;
  if (!t.maxRows)
    return Message() << "expects a static row count, or a kernel argument "
                        "whose rows a weave.variant bounds (hi), with split_k("
                     << t.splitK
                     << ") (the workspace holds one region per tile)";
  int64_t need =
      splitKWorkspaceWords(*t.maxRows, t.n, t.tm, t.tn, t.consumers, t.splitK);
  if (need == INT64_MAX)
    return Message()
           << "needs a split-K workspace of more than 2^63 f32 for up to "
           << *t.maxRows
           << " lhs rows, which no buffer holds; bound the rows (a smaller "
              "weave.variant hi) or use split_k(1)";
  if (t.workspaceWords < need)
    return Message() << "needs a workspace of at least " << need
                     << " f32 (counters, then tiles x (split_k - 1) x tile_m "
                        "x tile_n partials), got "
                     << t.workspaceWords;
  return std::nullopt;
}

/// tail_split's rule on the tiling: a workspace that holds the partials
/// of one tile split kMinLateTailSplit ways, the fewest it splits. (The
/// clauses it excludes, split_k, clusters, regions, segments,
/// interleave and k_rotation, are the op verifier's, as split_k's are:
/// MatmulPipelineOp::verifyAutoTile, which checks them before any tile is
/// chosen.)
TilingViolation
mlir::weave::pipeline::checkTailSplitWorkspace(const MatmulTiling &t) {
  if (t.tailSplit <= 1 ||
      tailSplitRoom(t.workspaceWords, t.tm, t.tn, t.consumers).partialTiles >=
          kMinLateTailSplit)
    return std::nullopt;
  int64_t partials = kMinLateTailSplit * t.tm * t.tn;
  return Message() << "needs a workspace of at least "
                   << splitKCounterWords(partials + 1024) + partials
                   << " f32 (counters, then " << kMinLateTailSplit << " "
                   << t.tm << " x " << t.tn
                   << " partial tiles: one tile split the fewest ways) with "
                      "tail_split ("
                   << t.tailSplit << "), got " << t.workspaceWords;
}

TilingViolation mlir::weave::pipeline::checkSplitKFixup(const MatmulTiling &t) {
  if (TilingViolation violation = checkTailSplitWorkspace(t))
    return violation;
  if (t.splitK <= 1)
    return std::nullopt;
  int64_t numK = ceilDiv(t.k, t.tk);
  if (t.splitK > numK)
    return Message() << "expects split_k (" << t.splitK
                     << ") to be at most the " << numK << " k steps of a tile";
  return checkSplitKWorkspace(t);
}

TilingViolation mlir::weave::pipeline::checkSmemArena(const MatmulTiling &t) {
  // Bound stages before counting bytes: a huge count would overflow the
  // sum (and the expansion unrolls one barrier init per stage).
  int64_t stageBytes = (t.tm * t.tk + t.tk * t.tn) * t.inBytes;
  int64_t limit = hw::kMaxSharedMemoryPerBlock;
  if (t.stages > limit / stageBytes)
    return Message() << "expects at most " << limit / stageBytes
                     << " stages of " << stageBytes
                     << " bytes (the shared memory a Hopper block can "
                        "have), got "
                     << t.stages;
  int64_t smem = MatmulSmemLayout(t).requiredBytes;
  if (smem > limit)
    return Message() << "needs " << smem
                     << " bytes of shared memory, more than the " << limit
                     << " a Hopper block can have; reduce stages or tiles";
  if (t.kernelSmem && *t.kernelSmem < smem)
    return Message() << "needs " << smem
                     << " bytes of dynamic shared memory, but the kernel "
                        "declares smem = "
                     << *t.kernelSmem;
  return std::nullopt;
}
