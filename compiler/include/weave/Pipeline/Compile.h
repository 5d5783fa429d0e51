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
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/FunctionExtras.h"

#include <optional>
#include <string>

namespace llvm {
class SourceMgr;
} // namespace llvm

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

/// The pipeline's stages, in order (each defined once; compileModule runs
/// them with its checks between them):
/// weave-configure-pipelines and weave-verify-kernel: after them the kernel
/// is what `--emit=mlir` prints, every rule checked;
void buildWeaveVerifyPipeline(OpPassManager &pm);
/// canonicalize, weave-expand-pipelines, canonicalize (the manifest is
/// computed after it);
void buildWeaveExpandPipeline(OpPassManager &pm);
/// the lowering of an expanded kernel to the LLVM/NVVM dialects.
void buildWeaveLowerPipeline(OpPassManager &pm, const CompileOptions &options);

/// All three stages back to back: weave IR to the LLVM/NVVM dialects
/// (`weave-to-llvm` in weave-opt).
void buildWeaveToLLVMPipeline(OpPassManager &pm, const CompileOptions &options);

/// Registers `weave-to-llvm` as a pass pipeline for weave-opt.
void registerWeavePipelines();

/// The GPU architectures the pipeline compiles for (PTX ISA 8.0 and the
/// weave lowering): Turing through Hopper.
ArrayRef<StringLiteral> getSupportedArchs();

/// Nothing when `arch` is one of getSupportedArchs(); otherwise the reason,
/// naming the supported ones (for the driver to prefix with its flag name).
std::optional<std::string> checkArch(StringRef arch);

/// The compute capability (major * 10 + minor) a supported `arch` needs.
unsigned getComputeCapability(StringRef arch);

/// How deep brackets, braces, parentheses and type parameters may nest in
/// the source. The parser recurses once per level; with the stack of
/// runOnCompilerStack this depth is far from overflowing it.
inline constexpr unsigned kMaxNestingDepth = 10000;

/// The offset and message of the first thing in `text` that the upstream
/// parser cannot take safely: nesting deeper than kMaxNestingDepth (at the
/// bracket that opens the next level), or a dense array of a type that is
/// not a builtin integer or float (at the type; MLIR 22 crashes on
/// `array<index: 1>`). parseWeaveSource (weavec, the JIT) and weave-opt
/// check with it before parsing.
std::optional<std::pair<size_t, std::string>>
findUnparsableSource(StringRef text);

/// The largest source weavec and weave-opt read (256 MiB; the largest
/// kernel source in the tree is under 1 MiB): an endless input (`weavec
/// /dev/zero`, a pipe that never closes) stops there with an error instead
/// of taking all memory.
inline constexpr size_t kMaxSourceBytes = size_t(256) << 20;

/// Reads `filename` (- for stdin) into a buffer named after it, reading at
/// most `limit` bytes: a larger (or endless) input fails with a message in
/// `error`, as does one that cannot be opened or read.
std::unique_ptr<llvm::MemoryBuffer>
readSourceFile(StringRef filename, std::string *error,
               size_t limit = kMaxSourceBytes);

/// Parses the main buffer of `sourceMgr` as a module, first rejecting
/// nesting deeper than kMaxNestingDepth with an error at the offending
/// bracket. Errors go to the context's diagnostic handler.
OwningOpRef<ModuleOp> parseWeaveSource(llvm::SourceMgr &sourceMgr,
                                       MLIRContext *context);

/// Stack size of the thread runOnCompilerStack starts.
inline constexpr size_t kCompilerStackBytes = size_t(1) << 30;

/// Runs `fn` to completion on a new thread with a kCompilerStackBytes stack
/// (the parser, the verifier and the passes recurse on nested IR; a default
/// 8 MiB stack overflows at about 3,000 nested regions), as clang runs
/// its compile. Fails, without running `fn`, when no such thread can be
/// started (then smaller stacks down to 256 MiB were tried too).
LogicalResult runOnCompilerStack(llvm::function_ref<void()> fn);

/// Compiles `module` (in place) up to `emit`. Errors are emitted as
/// diagnostics on the module's context.
LogicalResult compileModule(ModuleOp module, EmitKind emit,
                            const CompileOptions &options,
                            CompileArtifacts &artifacts);

} // namespace mlir::weave

#endif // WEAVE_PIPELINE_COMPILE_H
