//===- JitSource.h - Ops' kernels compiled in-process -----------*- C++ -*-===//
//
// A KernelSource that compiles each kernel instance with weave::Compiler
// (the on-disk cache answers repeated runs). Header-only, so the ops
// library itself never links the compiler: a program that uses this header
// links Weave::jit.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_OPS_JITSOURCE_H
#define WEAVE_OPS_JITSOURCE_H

#include "weave/Compiler.h"
#include "weave/ops/KernelSource.h"

namespace weave::ops {

class JitSource : public KernelSource {
public:
  explicit JitSource(JitOptions options = {}) : compiler_(std::move(options)) {}
  Expected<Bundle> bundleFor(const KernelInstance &instance) override {
    WEAVE_ASSIGN_OR_RETURN(std::string source, instance.source());
    return compiler_.compileString(source, instance.key() + ".mlir");
  }

private:
  Compiler compiler_;
};

} // namespace weave::ops

#endif // WEAVE_OPS_JITSOURCE_H
