//===- WeaveTypes.cpp - weave types ---------------------------------------===//

#include "weave/Dialect/Weave/IR/WeaveDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::weave;

#define GET_TYPEDEF_CLASSES
#include "weave/Dialect/Weave/IR/WeaveOpsTypes.cpp.inc"

void WeaveDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "weave/Dialect/Weave/IR/WeaveOpsTypes.cpp.inc"
      >();
}

/// `!weave.semaphore` or `!weave.semaphore<N>`.
Type SemaphoreType::parse(AsmParser &parser) {
  unsigned count = 1;
  if (succeeded(parser.parseOptionalLess())) {
    if (parser.parseInteger(count) || parser.parseGreater())
      return {};
  }
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), count);
}

void SemaphoreType::print(AsmPrinter &printer) const {
  if (getCount() != 1)
    printer << "<" << getCount() << ">";
}

LogicalResult
SemaphoreType::verify(function_ref<InFlightDiagnostic()> emitError,
                      unsigned count) {
  if (count == 0)
    return emitError() << "expects at least one semaphore counter, got 0";
  return success();
}
