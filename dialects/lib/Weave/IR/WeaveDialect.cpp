//===- WeaveDialect.cpp - The weave dialect -------------------------------===//

#include "weave/Dialect/Weave/IR/WeaveDialect.h"
#include "weave/Dialect/Weave/IR/EqualDims.h"
#include "weave/Dialect/Weave/IR/KernelVariant.h"
#include "weave/Dialect/Weave/IR/TmaCoordinates.h"
#include "weave/Dialect/Weave/IR/WeaveOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::weave;

#include "weave/Dialect/Weave/IR/WeaveOpsDialect.cpp.inc"

void WeaveDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "weave/Dialect/Weave/IR/WeaveOps.cpp.inc"
      >();
  registerTypes();
  registerAttributes();
}

/// Folders (`weave.num_devices` on a static mesh) produce index attributes;
/// they become `arith.constant` ops.
Operation *WeaveDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

LogicalResult WeaveDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attr) {
  // Left on a kernel by convert-weave-to-nvvm while it lowers it.
  if (attr.getName() == "weave.team_args" || attr.getName() == "weave.tma_arg")
    return success();
  // Left on a TMA op by compileModule: its tensor map's place in the
  // manifest (KernelAbi.h, kTmaOrderAttrName), which the lowering keeps.
  if (attr.getName() == "weave.tma_order")
    return success();
  // Written by weave-expand-pipelines (EqualDims.h): quadruples of
  // argument and dimension indices.
  if (attr.getName() == kEqualDimsAttrName) {
    auto values = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!values || values.size() % 4 != 0 || !isa<gpu::GPUFuncOp>(op))
      return op->emitError() << "'" << kEqualDimsAttrName
                             << "' expects an array<i64> of (argument, "
                                "dimension) pairs on a gpu.func";
    for (int64_t v : values.asArrayRef())
      if (v < 0)
        return op->emitError() << "'" << kEqualDimsAttrName
                               << "' expects indices, found " << v;
    auto func = cast<gpu::GPUFuncOp>(op);
    ArrayRef<int64_t> v = values.asArrayRef();
    for (size_t i = 0; i < v.size(); i += 2) {
      auto type = v[i] < (int64_t)func.getNumArguments()
                      ? dyn_cast<MemRefType>(func.getArgument(v[i]).getType())
                      : MemRefType();
      if (!type || v[i + 1] >= type.getRank() ||
          !type.isDynamicDim(v[i + 1]))
        return op->emitError()
               << "'" << kEqualDimsAttrName << "' names dimension " << v[i + 1]
               << " of argument " << v[i]
               << ", which is not a dynamic dimension of a memref argument";
    }
    return success();
  }
  // A builder's promise that a TMA copy's coordinates lie inside its
  // tensor map (TmaCoordinates.h): the lowering leaves out their clamp.
  if (attr.getName() == kCoordinatesInRangeAttrName) {
    if (!isa<CopyGmemToSmemOp, CopySmemToGmemOp>(op) ||
        !isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << kCoordinatesInRangeAttrName
                             << "' expects to be a unit attribute of "
                                "weave.copy_gmem_to_smem or "
                                "weave.copy_smem_to_gmem";
    return success();
  }
  if (attr.getName() == kVariantAttrName) {
    auto func = dyn_cast<gpu::GPUFuncOp>(op);
    if (!func || !func.isKernel() || !op->hasAttr(getKernelAttrName()))
      return op->emitError() << "'" << kVariantAttrName
                             << "' expects to be attached to a gpu.func "
                                "kernel with a '"
                             << getKernelAttrName() << "' attribute";
    return readKernelVariant(op, attr.getValue());
  }
  if (attr.getName() != getKernelAttrName())
    return op->emitError() << "unknown weave attribute '"
                           << attr.getName().getValue() << "'; expected '"
                           << getKernelAttrName() << "' or '"
                           << kVariantAttrName << "'";
  if (!isa<KernelAttr>(attr.getValue()))
    return op->emitError() << "expects '" << getKernelAttrName()
                           << "' to be a #weave.kernel attribute, got "
                           << attr.getValue();
  auto func = dyn_cast<gpu::GPUFuncOp>(op);
  if (!func || !func.isKernel())
    return op->emitError() << "'" << getKernelAttrName()
                           << "' expects to be attached to a gpu.func kernel";
  return success();
}

//===----------------------------------------------------------------------===//
// Memory spaces
//===----------------------------------------------------------------------===//

bool mlir::weave::isSymmetric(MemRefType type) {
  return isa_and_present<SymmetricMemorySpaceAttr>(type.getMemorySpace());
}

bool mlir::weave::isWorkgroup(MemRefType type) {
  Attribute space = type.getMemorySpace();
  if (auto gpuSpace = dyn_cast_if_present<gpu::AddressSpaceAttr>(space))
    return gpuSpace.getValue() == gpu::AddressSpace::Workgroup;
  // Integer memory spaces are NVVM address spaces: shared memory is 3. (The
  // gpu::AddressSpace enum value of Workgroup is 2, which is not an NVVM
  // address space.)
  if (auto intSpace = dyn_cast_if_present<IntegerAttr>(space))
    return intSpace.getInt() == 3;
  return false;
}

bool mlir::weave::isGlobal(MemRefType type) {
  Attribute space = type.getMemorySpace();
  if (!space || isa<SymmetricMemorySpaceAttr>(space))
    return true;
  if (auto gpuSpace = dyn_cast<gpu::AddressSpaceAttr>(space))
    return gpuSpace.getValue() == gpu::AddressSpace::Global;
  if (auto intSpace = dyn_cast<IntegerAttr>(space))
    return intSpace.getInt() == 1;
  return false;
}

KernelAttr mlir::weave::getEnclosingKernelAttr(Operation *op) {
  auto func = op->getParentOfType<gpu::GPUFuncOp>();
  if (!func)
    return {};
  return func->getAttrOfType<KernelAttr>(WeaveDialect::getKernelAttrName());
}
