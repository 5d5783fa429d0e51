//===- TmaOperands.cpp - a pipeline's operands as TMA sees them -----------===//
//
// See TmaOperands.h for the contract.
//
//===----------------------------------------------------------------------===//

#include "weave/Dialect/Weave/Transforms/Pipeline/TmaOperands.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::weave;
using namespace mlir::weave::pipeline;

/// Checks one operand; `tile` holds its tile sizes (rows, columns).
static LogicalResult verifyTmaOperand(MatmulPipelineOp op, Value value,
                                      StringRef name,
                                      std::array<int64_t, 2> tile) {
  auto viewType = cast<MemRefType>(value.getType());
  while (auto subview = value.getDefiningOp<memref::SubViewOp>()) {
    if (!subview.hasUnitStride() || subview.getSourceType().getRank() != 2)
      return op.emitOpError()
             << "expects " << name << " to be a unit-stride 2-d view";
    value = subview.getSource();
  }
  auto arg = dyn_cast<BlockArgument>(value);
  auto func = op->getParentOfType<gpu::GPUFuncOp>();
  if (!arg || !func || arg.getOwner() != &func.getBody().front() ||
      arg.getArgNumber() >= func.getNumArguments())
    return op.emitOpError()
           << "expects " << name
           << " to be a kernel argument or a subview of one: its TMA tensor "
              "map is built on the host from the argument";
  // TMA clips and zero-fills at the edges of the argument, not of the view:
  // a view smaller than its argument must not have edge tiles.
  auto argType = cast<MemRefType>(value.getType());
  for (int i = 0; i < 2; ++i) {
    // A dynamic row count of a row range of lhs is fine where only `out`
    // sees the products: the tiles past the range load the argument's next
    // rows (not zeros), whose products fall on rows of out past its own
    // row count (checked equal to lhs's at entry), which its tensor map
    // clips. A region would see them.
    bool rowRange = name == "lhs" && i == 0 && !op.hasRegions();
    if (viewType.isDynamicDim(i) && viewType != argType && rowRange)
      continue;
    // A dynamic size of a view (not of the argument itself) cannot be
    // shown to be a multiple of the tile.
    if (viewType.isDynamicDim(i) && viewType != argType)
      return op.emitOpError()
             << "expects " << name << " dimension " << i
             << " to be static when " << name
             << " is a view of its kernel argument (a dynamic size cannot be "
                "shown to be a multiple of the tile, and TMA clips at the "
                "argument's edge); pass the argument itself";
    if (viewType.getDimSize(i) != argType.getDimSize(i) &&
        viewType.getDimSize(i) % tile[i] != 0)
      return op.emitOpError()
             << "expects " << name << " dimension " << i << " ("
             << viewType.getDimSize(i) << ") to be a multiple of its tile ("
             << tile[i] << ") when the view is smaller than its kernel "
             << "argument: TMA clips at the argument's edge, so an edge tile "
                "would read or write outside the view";
  }
  return success();
}

/// lhs_rows' range is whole row tiles (each row tile is loaded from one of
/// the two): what is known at compile time. (The expansion traps on a
/// range known only at run time that is not.)
static LogicalResult verifyLhsRows(MatmulPipelineOp op, int64_t tm) {
  Value part = op.getLhsRows();
  if (!part)
    return success();
  auto type = cast<MemRefType>(part.getType());
  if (!type.isDynamicDim(0) && type.getDimSize(0) % tm != 0)
    return op.emitOpError() << "expects lhs_rows' row count ("
                            << type.getDimSize(0)
                            << ") to be a multiple of tile_m (" << tm
                            << "): a row tile is loaded from lhs or from the "
                               "part, not from both";
  if (std::optional<int64_t> at = getConstantIntValue(op.getLhsRowsAt()))
    if (*at < 0 || *at % tm != 0)
      return op.emitOpError() << "expects lhs_rows' first row (" << *at
                              << ") to be a non-negative multiple of tile_m ("
                              << tm << ")";
  return success();
}

LogicalResult mlir::weave::pipeline::verifyTmaOperands(MatmulPipelineOp op) {
  int64_t tm = op.tileM(), tn = op.tileN(), tk = op.tileK();
  if (failed(verifyLhsRows(op, tm)))
    return failure();
  // One error per pipeline: the first operand that cannot be used. (No
  // `into`: the epilogue region stores every box itself.)
  return failure(failed(verifyTmaOperand(op, op.getLhs(), "lhs", {tm, tk})) ||
                 (op.getLhsRows() &&
                  failed(verifyTmaOperand(op, op.getLhsRows(), "lhs_rows",
                                          {tm, tk}))) ||
                 failed(verifyTmaOperand(op, op.getRhs(), "rhs", {tk, tn})) ||
                 (op.getOut() &&
                  failed(verifyTmaOperand(op, op.getOut(), "out", {tm, tn}))));
}

TmaOperand mlir::weave::pipeline::resolveTmaOperand(Value value,
                                                    OpBuilder &builder,
                                                    Location loc) {
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  TmaOperand result{value, zero, zero};
  while (auto subview = value.getDefiningOp<memref::SubViewOp>()) {
    SmallVector<OpFoldResult> offsets = subview.getMixedOffsets();
    Value offs[2];
    for (int i = 0; i < 2; ++i)
      offs[i] = getValueOrCreateConstantIndexOp(builder, loc, offsets[i]);
    result.rowOffset =
        arith::AddIOp::create(builder, loc, result.rowOffset, offs[0]);
    result.colOffset =
        arith::AddIOp::create(builder, loc, result.colOffset, offs[1]);
    value = subview.getSource();
  }
  result.argument = value;
  return result;
}
