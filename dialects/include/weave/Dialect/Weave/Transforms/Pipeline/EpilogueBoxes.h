//===- EpilogueBoxes.h - a tile's epilogue boxes as plain arithmetic ------===//
//
// Contract. The epilogue (Epilogue.h) hands a tile's output out in boxes of
// 64 rows (one wgmma block) x `boxCols` columns (128 bytes), numbered
// row-major over the whole tile; a combine or epilogue region sees each
// box's number, or its first row and column in the output (BoxPlace). This
// header is that numbering on integers instead of IR, as TileOrder.h is the
// schedule's: the protocol checker replays a region's boxes with it, and
// EpilogueTest checks it against the places the epilogue builds for every
// consumer of several tilings, so the layout has two spellings, not two
// layouts. Header-only, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_EPILOGUEBOXES_H
#define WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_EPILOGUEBOXES_H

#include "weave/Dialect/Weave/Utils/HardwareLimits.h"

#include <algorithm>
#include <cstdint>

namespace mlir::weave::pipeline {

/// The boxes of one tile_m x tile_n output tile.
struct TileBoxes {
  int64_t tileM = 0, tileN = 0;
  /// Output columns of one box: 128 bytes of the output element.
  int64_t boxCols = 0;

  /// Boxes in one 64-row band of the tile (at least one).
  int64_t perRow() const { return std::max<int64_t>(tileN / boxCols, 1); }
  /// Boxes of the tile.
  int64_t count() const {
    return tileM / int64_t(hw::kWgmmaM) * perRow();
  }
  /// The output row and column where box `index` of tile (m, n) starts.
  int64_t row(int64_t m, int64_t index) const {
    return m * tileM + int64_t(hw::kWgmmaM) * (index / perRow());
  }
  int64_t col(int64_t n, int64_t index) const {
    return n * tileN + boxCols * (index % perRow());
  }
};

} // namespace mlir::weave::pipeline

#endif // WEAVE_DIALECT_WEAVE_TRANSFORMS_PIPELINE_EPILOGUEBOXES_H
