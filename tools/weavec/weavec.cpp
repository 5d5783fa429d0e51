//===- weavec.cpp - the Weave compiler driver -----------------------------===//
//
// Reads a weave kernel (.mlir), verifies it and writes what `--emit` asks
// for. Diagnostics are printed as `file:line:col: error: ...`; a user error
// exits 1, never a crash.
//
//===----------------------------------------------------------------------===//

#include "weave/Pipeline/Compile.h"
#include "weave/Registration.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

namespace {

cl::OptionCategory weavecCategory("weavec options");

cl::opt<std::string> inputFilename(cl::Positional,
                                   cl::desc("<input .mlir file, or - for stdin>"),
                                   cl::init("-"), cl::cat(weavecCategory));

cl::opt<std::string> outputFilename("o", cl::desc("Write the output to <file> (- for stdout)"),
                                    cl::value_desc("file"), cl::init("-"),
                                    cl::cat(weavecCategory));

using mlir::weave::EmitKind;
cl::opt<EmitKind> emitKind(
    "emit", cl::desc("What to produce:"), cl::init(EmitKind::Mlir),
    cl::values(
        clEnumValN(EmitKind::Mlir, "mlir", "the verified weave IR, printed back"),
        clEnumValN(EmitKind::Nvvm, "nvvm",
                   "the kernel lowered to the LLVM and NVVM dialects"),
        clEnumValN(EmitKind::Llvm, "llvm", "LLVM IR of the device module"),
        clEnumValN(EmitKind::Ptx, "ptx", "PTX assembly (no ptxas needed)"),
        clEnumValN(EmitKind::Cubin, "cubin", "a cubin assembled by ptxas"),
        clEnumValN(EmitKind::Bundle, "bundle",
                   "a Weave bundle: the cubin and a manifest per kernel, "
                   "loadable by the runtime (docs/BUNDLE.md)")),
    cl::cat(weavecCategory));

cl::opt<std::string> arch("arch",
                          cl::desc("GPU architecture to compile for"),
                          cl::value_desc("sm_XX"), cl::init("sm_90a"),
                          cl::cat(weavecCategory));

cl::opt<unsigned> optLevel("O", cl::desc("Optimization level of NVPTX and ptxas (0-3)"),
                           cl::Prefix, cl::init(3), cl::cat(weavecCategory));

cl::opt<uint64_t> waitTimeoutMs(
    "wait-timeout-ms",
    cl::desc("Debug mode: a semaphore_wait that spins longer than this many "
             "milliseconds prints the kernel, device, counter, expected and "
             "observed values and traps, instead of hanging (0: off)"),
    cl::init(0), cl::cat(weavecCategory));

cl::opt<bool> printIRAfterAll("print-ir-after-all",
                              cl::desc("Print the IR after every pass (to stderr)"),
                              cl::init(false), cl::cat(weavecCategory));

cl::opt<bool> verbose("v", cl::desc("Print ptxas's register and spill report (to stderr)"),
                      cl::init(false), cl::cat(weavecCategory));

/// Prints the diagnostic of a driver-level failure (no source location).
int fail(const llvm::Twine &message) {
  llvm::errs() << "weavec: error: " << message << "\n";
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::HideUnrelatedOptions(weavecCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "weavec - the Weave compiler\n\n"
      "Compiles a kernel written in the weave MLIR dialect. The input is\n"
      "parsed and verified (each op's verifier, then the whole-kernel rules\n"
      "of weave-verify-kernel), lowered through NVVM to PTX, assembled by\n"
      "ptxas and packed with its manifest into a bundle the runtime loads.\n"
      "--emit picks where to stop. Errors are reported as file:line:col.\n\n"
      "Example: weavec ring.mlir --emit=bundle -o ring.wbundle\n\n"
      "Exit status: 0 on success, 1 on any error in the input or the flags.\n");

  DialectRegistry registry;
  mlir::weave::registerAllWeave(registry);
  MLIRContext context(registry);
  // An error already points at the op's line in the source; the op printed
  // back in generic form after it is noise to a kernel author.
  context.printOpOnDiagnostic(false);

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &errorMessage);
  if (!input)
    return fail(errorMessage);

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);

  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  if (optLevel > 3)
    return fail("-O" + llvm::Twine(optLevel) + " is out of range; use -O0 to -O3");
  if (!llvm::StringRef(arch).starts_with("sm_"))
    return fail("--arch expects sm_XX (e.g. sm_90a), got '" + arch + "'");

  mlir::weave::CompileOptions options;
  options.arch = arch;
  options.optLevel = optLevel;
  options.waitTimeoutNs = waitTimeoutMs * 1000000ull;
  options.printIRAfterAll = printIRAfterAll;
  mlir::weave::CompileArtifacts artifacts;
  if (failed(mlir::weave::compileModule(*module, emitKind, options, artifacts)))
    return 1;
  if (verbose && !artifacts.ptxasLog.empty())
    llvm::errs() << artifacts.ptxasLog;

  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &errorMessage);
  if (!output)
    return fail(errorMessage);
  switch (emitKind) {
  case EmitKind::Mlir:
  case EmitKind::Nvvm:
    output->os() << artifacts.mlir;
    break;
  case EmitKind::Llvm:
    output->os() << artifacts.llvmIR;
    break;
  case EmitKind::Ptx:
    output->os() << artifacts.ptx;
    break;
  case EmitKind::Cubin:
    output->os().write(artifacts.cubin.data(), artifacts.cubin.size());
    break;
  case EmitKind::Bundle: {
    std::vector<uint8_t> bytes = ::weave::serializeBundle(artifacts.bundle);
    output->os().write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
    break;
  }
  }
  output->os().flush();
  if (output->os().has_error())
    return fail("cannot write output file '" + outputFilename + "'");
  output->keep();
  return 0;
}
