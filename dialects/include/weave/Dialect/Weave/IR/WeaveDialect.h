//===- WeaveDialect.h - The weave dialect -----------------------*- C++ -*-===//

#ifndef WEAVE_DIALECT_WEAVE_IR_WEAVEDIALECT_H
#define WEAVE_DIALECT_WEAVE_IR_WEAVEDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"

#include "weave/Dialect/Weave/IR/WeaveOpsDialect.h.inc"
#include "weave/Dialect/Weave/IR/WeaveEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "weave/Dialect/Weave/IR/WeaveOpsTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "weave/Dialect/Weave/IR/WeaveAttrs.h.inc"

namespace mlir::weave {

/// True for memrefs in `#weave.symmetric` memory.
bool isSymmetric(MemRefType type);
/// True for memrefs in shared (workgroup) memory: `#gpu.address_space<workgroup>` or 3.
bool isWorkgroup(MemRefType type);
/// True for memrefs a device can address in global memory: no memory space,
/// address space 1, `#gpu.address_space<global>` or `#weave.symmetric`.
bool isGlobal(MemRefType type);

/// The `#weave.kernel` attribute of the kernel enclosing `op`, if any.
KernelAttr getEnclosingKernelAttr(Operation *op);

} // namespace mlir::weave

#endif // WEAVE_DIALECT_WEAVE_IR_WEAVEDIALECT_H
