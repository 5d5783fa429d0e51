//===- SharedVariants.h - one function for identical variants ---*- C++ -*-===//
//
// Contract. `shareIdenticalVariants(gpuModule, kernels)`: of the kernels
// of one weave.variant group whose expanded forms are identical (the same
// attributes but their name and weave.variant, the same body up to
// locations), each but the first in module order leaves `gpuModule`, and
// its manifest entry (found in `kernels` by name) names the first's
// function (KernelInfo::function). The entry keeps its own name and range:
// the runtime still picks it by its range and launches the first's code.
// Identical IR lowers to identical code, so the sharing is exact; what it
// saves is the lowering and ptxas of every copy. (The chooser gives one
// configuration several ranges of rows: the dynamic-M matmul at N = K =
// 4096 with a tail split had 24 variants of 8 configurations.)
// Run after the expansion and the ABI (each entry's range comes from its
// own kernel), before the lowering.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_PIPELINE_SHAREDVARIANTS_H
#define WEAVE_PIPELINE_SHAREDVARIANTS_H

#include "weave/runtime/Bundle.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <vector>

namespace mlir::weave {

void shareIdenticalVariants(gpu::GPUModuleOp gpuModule,
                            std::vector<::weave::KernelInfo> &kernels);

} // namespace mlir::weave

#endif // WEAVE_PIPELINE_SHAREDVARIANTS_H
