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

#endif // WEAVE_DIALECT_WEAVE_IR_WEAVEOPS_H
