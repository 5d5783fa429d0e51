//===- Registration.h - register everything Weave provides ------*- C++ -*-===//

#ifndef WEAVE_REGISTRATION_H
#define WEAVE_REGISTRATION_H

namespace mlir {
class DialectRegistry;
namespace weave {

/// Registers the weave dialect and the dialects its pipelines produce in
/// `registry`, and every Weave pass and pass pipeline with the global pass
/// registry (so that `--pass-name` works in weave-opt).
void registerAllWeave(DialectRegistry &registry);

} // namespace weave
} // namespace mlir

#endif // WEAVE_REGISTRATION_H
