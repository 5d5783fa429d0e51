//===- WeaveDialect.cpp - The weave dialect -------------------------------===//

#include "weave/Dialect/Weave/IR/WeaveDialect.h"
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

LogicalResult WeaveDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attr) {
  if (attr.getName() != getKernelAttrName())
    return op->emitError() << "unknown weave attribute '" << attr.getName()
                           << "'";
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
  if (auto intSpace = dyn_cast_if_present<IntegerAttr>(space))
    return intSpace.getInt() ==
           static_cast<int64_t>(gpu::GPUDialect::getWorkgroupAddressSpace());
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
