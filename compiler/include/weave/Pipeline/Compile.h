//===- Compile.h - the weave compilation pipeline ---------------*- C++ -*-===//
//
// One pipeline serves weavec, weave-opt (as pass pipelines) and the C++ API:
// verify -> expand pipelines -> convert-weave-to-nvvm -> NVPTX -> ptxas ->
// bundle.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_PIPELINE_COMPILE_H
#define WEAVE_PIPELINE_COMPILE_H

#include "weave/runtime/Bundle.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <string>

namespace mlir::weave {

/// How far to take a module.
enum class EmitKind { Mlir, Nvvm, Llvm, Ptx, Cubin, Bundle };

struct CompileOptions {
  std::string arch = "sm_90a";
  unsigned optLevel = 3;
  /// Non-zero: semaphore waits trap after spinning this long (debug mode).
  uint64_t waitTimeoutNs = 0;
  /// Print the IR after every pass to stderr.
  bool printIRAfterAll = false;
};

/// Everything a compilation produced, up to the requested stage.
struct CompileArtifacts {
  std::string mlir;    ///< Mlir: the verified weave IR; Nvvm: the lowered IR
  std::string llvmIR;  ///< Llvm: LLVM IR of the device module
  std::string ptx;     ///< Ptx and later
  std::vector<char> cubin;
  std::string ptxasLog; ///< ptxas -v report (registers, spills)
  ::weave::Bundle bundle;
};

/// Adds the passes from verified weave IR to the LLVM/NVVM dialects.
void buildWeaveToLLVMPipeline(OpPassManager &pm, const CompileOptions &options);

/// Registers `weave-to-llvm` as a pass pipeline for weave-opt.
void registerWeavePipelines();

/// Compiles `module` (in place) up to `emit`. Errors are emitted as
/// diagnostics on the module's context.
LogicalResult compileModule(ModuleOp module, EmitKind emit,
                            const CompileOptions &options,
                            CompileArtifacts &artifacts);

} // namespace mlir::weave

#endif // WEAVE_PIPELINE_COMPILE_H
