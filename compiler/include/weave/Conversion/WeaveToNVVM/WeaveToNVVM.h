//===- WeaveToNVVM.h - weave to LLVM/NVVM conversion ------------*- C++ -*-===//

#ifndef WEAVE_CONVERSION_WEAVETONVVM_WEAVETONVVM_H
#define WEAVE_CONVERSION_WEAVETONVVM_WEAVETONVVM_H

#include <cstdint>

namespace mlir {
class LLVMTypeConverter;
class RewritePatternSet;
namespace weave {

/// Adds the type conversions of weave types (`!weave.semaphore` to a global
/// pointer, `#weave.symmetric` to address space 1).
void populateWeaveToNVVMTypeConversions(LLVMTypeConverter &converter);

/// Adds one pattern per weave communication op. `waitTimeoutNs` > 0 turns
/// on the trapping debug mode of `weave.semaphore_wait`.
void populateWeaveToNVVMConversionPatterns(LLVMTypeConverter &converter,
                                           RewritePatternSet &patterns,
                                           uint64_t waitTimeoutNs = 0);

} // namespace weave
} // namespace mlir

#endif // WEAVE_CONVERSION_WEAVETONVVM_WEAVETONVVM_H
