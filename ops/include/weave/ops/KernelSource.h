//===- KernelSource.h - Where the ops' kernels come from --------*- C++ -*-===//
//
// Every op runs a kernel written in the dialect: one of the templates of
// examples/ (embedded in the library) with its placeholders filled for the
// op's shape and dtype, a *kernel instance*. A KernelSource turns an
// instance into a bundle: the JIT compiles it (JitSource.h, needs
// Weave::jit), or a folder of bundles compiled ahead of time with weavec
// answers it on a machine without LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_OPS_KERNELSOURCE_H
#define WEAVE_OPS_KERNELSOURCE_H

#include "weave/runtime/Bundle.h"
#include "weave/runtime/Error.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace weave::ops {

/// A template with its placeholders (@KEY@) filled.
struct KernelInstance {
  /// The template, as `<example>/<file stem>`, e.g.
  /// "all_reduce/one_shot_all_reduce" (examples/<example>/<stem>.mlir.in).
  std::string templateName;
  /// The kernel (gpu.func) to launch from it.
  std::string kernelName;
  /// Placeholder values, in the order they are listed in `key()`.
  std::vector<std::pair<std::string, std::string>> values;

  /// A file-name-safe name unique to the instance, e.g.
  /// "one_shot_all_reduce.N-1001.T-bf16": the bundle's file name in a
  /// bundle folder is `<key>.wbundle`.
  std::string key() const;
  /// The template's text with every placeholder filled; NotFound for an
  /// unknown template, InvalidArgument when a placeholder is left.
  Expected<std::string> source() const;
};

/// The names of the embedded templates (`<example>/<stem>`).
std::vector<std::string> templateNames();
/// The embedded text of one template; NotFound if there is none.
Expected<std::string> templateText(const std::string &name);

class KernelSource {
public:
  virtual ~KernelSource();
  /// The bundle holding `instance.kernelName`, compiled for `instance`.
  virtual Expected<Bundle> bundleFor(const KernelInstance &instance) = 0;
};

/// Bundles compiled ahead of time: `<folder>/<instance.key()>.wbundle`. A
/// missing one is NotFound, naming the file and how to make it (the
/// instance's source, written by `weave-ops-source`-style tooling or by
/// KernelInstance::source, through `weavec --emit=bundle`).
std::unique_ptr<KernelSource> bundleFolder(std::string folder);

} // namespace weave::ops

#endif // WEAVE_OPS_KERNELSOURCE_H
