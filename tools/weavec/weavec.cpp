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
#include "mlir/Support/ToolUtilities.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>

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

cl::opt<std::string> arch(
    "arch",
    cl::desc("GPU architecture to compile for: sm_75, sm_80, sm_86, sm_87, "
             "sm_89, sm_90 or sm_90a"),
    cl::value_desc("sm_XX"), cl::init("sm_90a"), cl::cat(weavecCategory));

cl::opt<unsigned> optLevel("O", cl::desc("Optimization level of NVPTX and ptxas (0-3)"),
                           cl::Prefix, cl::init(3), cl::cat(weavecCategory));

// A string, parsed by parseWaitTimeoutNs: the pass takes nanoseconds, and a
// millisecond count whose nanoseconds overflow 64 bits must be an error,
// not a wrapped (much shorter) timeout.
cl::opt<std::string> waitTimeoutMs(
    "wait-timeout-ms",
    cl::desc("Debug mode: a semaphore_wait that spins longer than this many "
             "milliseconds prints the kernel, device, counter, expected and "
             "observed values and traps, instead of hanging (0: off)"),
    cl::value_desc("ms"), cl::init("0"), cl::cat(weavecCategory));

cl::opt<bool> printIRAfterAll("print-ir-after-all",
                              cl::desc("Print the IR after every pass (to stderr)"),
                              cl::init(false), cl::cat(weavecCategory));

cl::opt<bool> verbose("v", cl::desc("Print ptxas's register and spill report (to stderr)"),
                      cl::init(false), cl::cat(weavecCategory));

cl::opt<bool> splitInputFile(
    "split-input-file",
    cl::desc("Compile each chunk of the input between '// -----' lines on "
             "its own (for tests)"),
    cl::init(false), cl::cat(weavecCategory));

cl::opt<bool> verifyDiagnostics(
    "verify-diagnostics",
    cl::desc("Check the diagnostics against the input's expected-* comments "
             "instead of printing them (for tests)"),
    cl::init(false), cl::cat(weavecCategory));

/// Prints the diagnostic of a driver-level failure (no source location).
int fail(const llvm::Twine &message) {
  llvm::errs() << "weavec: error: " << message << "\n";
  return 1;
}

/// The --wait-timeout-ms value in nanoseconds, or nothing when it is not a
/// whole number of milliseconds whose nanoseconds fit in 64 bits.
std::optional<uint64_t> parseWaitTimeoutNs(llvm::StringRef text) {
  constexpr uint64_t kNsPerMs = 1000000;
  uint64_t ms = 0;
  if (text.empty() || !llvm::all_of(text, llvm::isDigit) ||
      text.getAsInteger(10, ms) || ms > UINT64_MAX / kNsPerMs)
    return std::nullopt;
  return ms * kNsPerMs;
}

/// Compiles the source in `sourceMgr` and appends what --emit asks for to
/// `os`. Diagnostics go to the context's handler.
LogicalResult compileSource(llvm::SourceMgr &sourceMgr, MLIRContext &context,
                            raw_ostream &os) {
  OwningOpRef<ModuleOp> module =
      mlir::weave::parseWeaveSource(sourceMgr, &context);
  if (!module)
    return failure();

  mlir::weave::CompileOptions options;
  options.arch = arch;
  options.optLevel = optLevel;
  options.waitTimeoutNs = *parseWaitTimeoutNs(waitTimeoutMs);
  options.printIRAfterAll = printIRAfterAll;
  mlir::weave::CompileArtifacts artifacts;
  if (failed(mlir::weave::compileModule(*module, emitKind, options, artifacts)))
    return failure();
  if (verbose && !artifacts.ptxasLog.empty())
    llvm::errs() << artifacts.ptxasLog;

  switch (emitKind) {
  case EmitKind::Mlir:
  case EmitKind::Nvvm:
    os << artifacts.mlir;
    break;
  case EmitKind::Llvm:
    os << artifacts.llvmIR;
    break;
  case EmitKind::Ptx:
    os << artifacts.ptx;
    break;
  case EmitKind::Cubin:
    os.write(artifacts.cubin.data(), artifacts.cubin.size());
    break;
  case EmitKind::Bundle: {
    std::vector<uint8_t> bytes = ::weave::serializeBundle(artifacts.bundle);
    os.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
    break;
  }
  }
  return success();
}

/// Compiles one input (or, with --split-input-file, one chunk of it) in a
/// context of its own.
LogicalResult compileBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
                            raw_ostream &os) {
  DialectRegistry registry;
  mlir::weave::registerAllWeave(registry);
  MLIRContext context(registry);
  // An error already points at the op's line in the source; the op printed
  // back in generic form after it is noise to a kernel author.
  context.printOpOnDiagnostic(false);

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  if (verifyDiagnostics) {
    SourceMgrDiagnosticVerifierHandler handler(sourceMgr, &context);
    (void)compileSource(sourceMgr, context, os);
    return handler.verify();
  }
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  return compileSource(sourceMgr, context, os);
}

/// Everything after the flags: read, compile, write. Runs on the compiler
/// thread (mlir::weave::runOnCompilerStack).
int runCompiler() {
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::weave::readSourceFile(inputFilename, &errorMessage);
  if (!input)
    return fail(errorMessage);

  // The output file is only created once everything compiled: a failed
  // compile leaves no (partial) output behind.
  std::string result;
  llvm::raw_string_ostream resultStream(result);
  LogicalResult compiled =
      splitInputFile
          ? splitAndProcessBuffer(
                std::move(input),
                [](std::unique_ptr<llvm::MemoryBuffer> chunk,
                   raw_ostream &os) { return compileBuffer(std::move(chunk), os); },
                resultStream, kDefaultSplitMarker, kDefaultSplitMarker)
          : compileBuffer(std::move(input), resultStream);
  if (failed(compiled))
    return 1;

  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &errorMessage);
  if (!output)
    return fail(errorMessage);
  output->os() << result;
  output->os().flush();
  if (std::error_code ec = output->os().error()) {
    // Cleared, or the stream's destructor reports it again as a fatal
    // "IO failure on output stream" after the clean error.
    output->os().clear_error();
    return fail("cannot write output file '" + outputFilename +
                "': " + ec.message());
  }
  output->keep();
  return 0;
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

  // The flags are checked before any input is read, so that a bad flag is
  // reported even for a bad input.
  if (optLevel > 3)
    return fail("-O" + llvm::Twine(optLevel) + " is out of range; use -O0 to -O3");
  if (std::optional<std::string> archError = mlir::weave::checkArch(arch))
    return fail("--arch: " + *archError);
  if (!parseWaitTimeoutNs(waitTimeoutMs))
    return fail("--wait-timeout-ms expects a whole number of milliseconds "
                "from 0 to " +
                llvm::Twine(UINT64_MAX / 1000000) + ", got '" + waitTimeoutMs +
                "'");

  int status = 1;
  if (failed(mlir::weave::runOnCompilerStack([&] { status = runCompiler(); })))
    return fail("cannot start the compiler thread (it needs a stack of " +
                llvm::Twine(mlir::weave::kCompilerStackBytes >> 20) +
                " MiB, or at least a quarter of that)");
  return status;
}
