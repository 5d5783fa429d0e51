//===- weavec.cpp - the Weave compiler driver -----------------------------===//
//
// Reads a weave kernel (.mlir), verifies it and writes what `--emit` asks
// for. Diagnostics are printed as `file:line:col: error: ...`; a user error
// exits 1, never a crash.
//
//===----------------------------------------------------------------------===//

#include "weave/Dialect/Weave/Transforms/Passes.h"
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

enum class EmitKind { Mlir };
cl::opt<EmitKind> emitKind(
    "emit", cl::desc("What to produce:"), cl::init(EmitKind::Mlir),
    cl::values(clEnumValN(EmitKind::Mlir, "mlir",
                          "the verified weave IR, printed back")),
    cl::cat(weavecCategory));

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
      "of weave-verify-kernel); errors are reported as file:line:col.\n"
      "Exit status: 0 on success, 1 on any error in the input or the flags.\n");

  DialectRegistry registry;
  weave::registerAllWeave(registry);
  MLIRContext context(registry);

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

  PassManager pm(&context);
  pm.addPass(weave::createVerifyKernelPass());
  if (failed(pm.run(*module)))
    return 1;

  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &errorMessage);
  if (!output)
    return fail(errorMessage);
  switch (emitKind) {
  case EmitKind::Mlir:
    module->print(output->os());
    break;
  }
  output->os().flush();
  if (output->os().has_error())
    return fail("cannot write output file '" + outputFilename + "'");
  output->keep();
  return 0;
}
