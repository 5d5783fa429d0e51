//===- weave-opt.cpp - mlir-opt with the weave dialect and passes ---------===//
//
// The test driver for lit: every upstream dialect and pass, plus the weave
// dialect and every Weave pass and pipeline. Like weavec, it checks the
// source for what the upstream parser cannot take (findUnparsableSource:
// too deep nesting, `array<index: ...>`) and runs on the compiler's large
// stack (runOnCompilerStack), so that no input crashes it.
//
//===----------------------------------------------------------------------===//

#include "weave/Dialect/Weave/IR/WeaveDialect.h"
#include "weave/Dialect/Weave/Transforms/Passes.h"
#include "weave/Pipeline/Compile.h"
#include "weave/Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

/// What MlirOptMain(argc, argv, input, output, registry) does, with the
/// source checked first and the processing on the compiler stack.
static LogicalResult run(int argc, char **argv, StringRef inputFilename,
                         StringRef outputFilename, DialectRegistry &registry) {
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  // --show-dialects and --list-passes read no input.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return MlirOptMain(argc, argv, inputFilename, outputFilename, registry);

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      mlir::weave::readSourceFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << errorMessage << "\n";
    return failure();
  }
  if (auto bad = mlir::weave::findUnparsableSource(file->getBuffer())) {
    llvm::SourceMgr sourceMgr;
    const char *start = file->getBufferStart();
    sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    sourceMgr.PrintMessage(llvm::SMLoc::getFromPointer(start + bad->first),
                           llvm::SourceMgr::DK_Error, bad->second);
    return failure();
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return failure();
  }
  LogicalResult result = failure();
  if (failed(mlir::weave::runOnCompilerStack([&] {
        result = MlirOptMain(output->os(), std::move(file), registry, config);
      }))) {
    llvm::errs() << "weave-opt: cannot start the compiler thread\n";
    return failure();
  }
  if (succeeded(result))
    output->keep();
  return result;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  registerAllPasses();
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  mlir::weave::registerAllWeave(registry);
  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      argc, argv, "Weave optimizer driver\n", registry);
  return asMainReturnCode(
      run(argc, argv, inputFilename, outputFilename, registry));
}
