//===- WeaveOps.h - weave operations ----------------------------*- C++ -*-===//

#ifndef WEAVE_DIALECT_WEAVE_IR_WEAVEOPS_H
#define WEAVE_DIALECT_WEAVE_IR_WEAVEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "weave/Dialect/Weave/IR/WeaveDialect.h"
#include "weave/Dialect/Weave/Utils/MatmulTiling.h"

#define GET_OP_CLASSES
#include "weave/Dialect/Weave/IR/WeaveOps.h.inc"

namespace mlir::weave {

/// How a weave.matmul_pipeline box region (`epilogue`, `combine`) names its
/// box, told apart by its argument count: the tile form (box, m, n, box
/// index[, lane]), which depends on the tile, or the coordinate form (box,
/// row, col[, lane]: the box's first element in the output), which does
/// not and so allows tile(auto). None: empty, or a count that is neither.
enum class BoxRegionForm { None, Tile, Coordinates };
/// `lane`: the region also takes the thread's lane (combine).
BoxRegionForm boxRegionForm(Region &region, bool lane);

/// Whether a weave.matmul_pipeline's `before_load` region takes the fourth
/// argument, the first step of the step's unit: (m, n, k, first) or (m, n,
/// k, first, tile_m, tile_n) rather than (m, n, k) (the verifier checks the
/// types).
bool beforeLoadTakesFirst(Region &region);
/// Whether it also takes the tile's shape, (m, n, k, first, tile_m,
/// tile_n): the rows and columns of a tile, which tile(auto) picks, so a
/// region can turn the tile indices into elements.
bool beforeLoadTakesTile(Region &region);

} // namespace mlir::weave

#endif // WEAVE_DIALECT_WEAVE_IR_WEAVEOPS_H
