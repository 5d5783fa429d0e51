//===- Ptxas.h - assemble PTX into a cubin with ptxas -----------*- C++ -*-===//

#ifndef WEAVE_TARGET_CUDA_PTXAS_H
#define WEAVE_TARGET_CUDA_PTXAS_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <vector>

namespace mlir::weave {

/// Finds ptxas: $WEAVE_PTXAS, then $CUDA_PATH/bin, /usr/local/cuda/bin, PATH.
/// Returns an empty string when there is none.
std::string findPtxas();

/// The output of `<ptxas> --version` (its release line identifies the
/// assembler; the JIT cache keys on it). Empty when it cannot be run.
std::string ptxasVersion(StringRef ptxas);

/// Assembles `ptx` for `arch` (e.g. "sm_90a") at -O`optLevel`. On failure
/// emits ptxas's own messages as an error at `loc`. `log` receives ptxas's
/// verbose report (registers, spills) on success.
FailureOr<std::vector<char>> assemblePtx(StringRef ptx, StringRef arch,
                                         unsigned optLevel, Location loc,
                                         std::string *log = nullptr);

} // namespace mlir::weave

#endif // WEAVE_TARGET_CUDA_PTXAS_H
