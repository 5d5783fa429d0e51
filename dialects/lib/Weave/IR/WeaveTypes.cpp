//===- WeaveTypes.cpp - weave types ---------------------------------------===//

#include "weave/Dialect/Weave/IR/WeaveDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

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
  // Parse a signed 64-bit value so that `<-1>` is an error instead of
  // wrapping around to 4294967295 counters.
  int64_t count = 1;
  if (succeeded(parser.parseOptionalLess())) {
    llvm::SMLoc loc = parser.getCurrentLocation();
    if (parser.parseInteger(count))
      return {};
    if (count < 0 || count > std::numeric_limits<uint32_t>::max()) {
      parser.emitError(loc) << "expects a semaphore counter count in [1, "
                            << std::numeric_limits<uint32_t>::max()
                            << "], got " << count;
      return {};
    }
    if (parser.parseGreater())
      return {};
  }
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), static_cast<unsigned>(count));
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
