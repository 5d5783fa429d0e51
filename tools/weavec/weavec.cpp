//===- weavec.cpp - the Weave compiler driver -----------------------------===//
//
// Reads a weave kernel (.mlir), verifies it and writes what `--emit` asks
// for. Diagnostics are printed as `file:line:col: error: ...`; a user error
// exits 1, never a crash.
//
//===----------------------------------------------------------------------===//

#include "weave/Dialect/Weave/Analysis/ProtocolChecker.h"
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
#include <map>
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

//===- --check-protocol (docs/PROTOCOL_CHECKER.md) ------------------------===//

cl::opt<bool> checkProtocolFlag(
    "check-protocol",
    cl::desc("Instead of compiling, run every member of a team over several "
             "launches on the CPU and report deadlocks, races and remote "
             "accesses out of bounds (docs/PROTOCOL_CHECKER.md)"),
    cl::init(false), cl::cat(weavecCategory));
cl::list<int64_t> checkTeamSizes(
    "team-size", cl::desc("--check-protocol: team sizes (default 2,3,4,8)"),
    cl::CommaSeparated, cl::cat(weavecCategory));
cl::opt<int64_t> checkLaunches(
    "launches", cl::desc("--check-protocol: consecutive launches (default 2)"),
    cl::init(2), cl::cat(weavecCategory));
cl::list<int64_t> checkGrids(
    "check-grid",
    cl::desc("--check-protocol: blocks of a persistent grid (default 1,3; a "
             "capped one, persistent(N), at most N)"),
    cl::CommaSeparated, cl::cat(weavecCategory));
cl::opt<unsigned> checkSchedules(
    "check-schedules",
    cl::desc("--check-protocol: schedules per configuration (default 4: "
             "rank order, reverse, then random)"),
    cl::init(4), cl::cat(weavecCategory));
cl::opt<uint64_t> checkSeed("check-seed",
                            cl::desc("--check-protocol: seed of the random "
                                     "schedules (default 1)"),
                            cl::init(1), cl::cat(weavecCategory));
cl::opt<uint64_t> checkStepLimit(
    "check-step-limit",
    cl::desc("--check-protocol: interpreted operations per schedule"),
    cl::init(20000000), cl::cat(weavecCategory));
cl::list<std::string> checkShapes(
    "check-shape",
    cl::desc("--check-protocol: [KERNEL:]NAME=S0xS1... the dynamic sizes of "
             "a parameter, in order; N*D is N times the team size"),
    cl::cat(weavecCategory));
cl::list<std::string> checkFills(
    "check-fill",
    cl::desc("--check-protocol: NAME=V0,V1,... the contents of an integer "
             "buffer (repeated)"),
    cl::cat(weavecCategory));
cl::list<std::string> checkArgs(
    "check-arg",
    cl::desc("--check-protocol: NAME=V a by-value integer parameter "
             "(default: the launch number + 1)"),
    cl::cat(weavecCategory));
cl::list<std::string> checkHostSignals(
    "check-host-signal",
    cl::desc("--check-protocol: NAME=V a semaphore the host sets to V before "
             "every launch and to 0 after it (e.g. flags that stream memory "
             "operations raise)"),
    cl::cat(weavecCategory));
cl::list<std::string> checkKernelWritten(
    "check-kernel-written",
    cl::desc("--check-protocol: NAME a symmetric buffer that holds only what "
             "the kernels write (no host input): a read of bytes no member "
             "has written is reported"),
    cl::cat(weavecCategory));
cl::opt<bool> checkNoHostIO(
    "check-no-host-io",
    cl::desc("--check-protocol: do not model the host reading outputs and "
             "writing inputs between launches"),
    cl::init(false), cl::cat(weavecCategory));

/// NAME=<integers separated by `sep`>, or an error message.
std::optional<std::string>
parseNamedInts(llvm::StringRef flag, llvm::StringRef text, char sep,
               std::map<std::string, std::vector<int64_t>> &out) {
  auto [name, rest] = text.split('=');
  std::vector<int64_t> values;
  llvm::SmallVector<llvm::StringRef> parts;
  rest.split(parts, sep);
  for (llvm::StringRef p : parts) {
    int64_t v;
    // --check-shape: `K*D` is K times the team size (stored as -K).
    bool perMember = sep == 'x' && p.trim().consume_back_insensitive("*D");
    if (perMember) {
      llvm::StringRef k = p.trim();
      k.consume_back_insensitive("*D");
      if (k.getAsInteger(10, v) || v <= 0)
        return ("--" + flag + " expects NAME=<sizes separated by 'x', each N "
                "or N*D>, got '" + text + "'").str();
      values.push_back(-v);
      continue;
    }
    if (p.trim().getAsInteger(10, v))
      return ("--" + flag + " expects NAME=<integers separated by '" +
              llvm::Twine(sep) + "'>, got '" + text + "'").str();
    values.push_back(v);
  }
  if (name.empty() || values.empty())
    return ("--" + flag + " expects NAME=..., got '" + text + "'").str();
  out[name.str()] = values;
  return std::nullopt;
}

/// The checker's options from the flags, or an error message.
std::optional<std::string>
protocolOptions(mlir::weave::ProtocolCheckOptions &o) {
  if (!checkTeamSizes.empty())
    o.teamSizes.assign(checkTeamSizes.begin(), checkTeamSizes.end());
  for (int64_t d : o.teamSizes)
    if (d < 1 || d > 64)
      return "--team-size takes sizes from 1 to 64, got " + std::to_string(d);
  if (checkLaunches < 1 || checkLaunches > 16)
    return "--launches takes 1 to 16, got " + std::to_string(checkLaunches);
  o.launches = checkLaunches;
  if (!checkGrids.empty())
    o.persistentGrids.assign(checkGrids.begin(), checkGrids.end());
  for (int64_t g : o.persistentGrids)
    if (g < 1 || g > 1024)
      return "--check-grid takes 1 to 1024 blocks, got " + std::to_string(g);
  o.schedules = checkSchedules;
  o.seed = checkSeed;
  o.stepLimit = checkStepLimit;
  o.hostIO = !checkNoHostIO;
  for (const std::string &s : checkShapes)
    if (auto e = parseNamedInts("check-shape", s, 'x', o.shapes))
      return e;
  for (const std::string &s : checkFills)
    if (auto e = parseNamedInts("check-fill", s, ',', o.fills))
      return e;
  for (const std::string &s : checkArgs) {
    std::map<std::string, std::vector<int64_t>> one;
    if (auto e = parseNamedInts("check-arg", s, ',', one))
      return e;
    o.scalarArgs[one.begin()->first] = one.begin()->second.front();
  }
  for (const std::string &s : checkHostSignals) {
    std::map<std::string, std::vector<int64_t>> one;
    if (auto e = parseNamedInts("check-host-signal", s, ',', one))
      return e;
    int64_t v = one.begin()->second.front();
    if (one.begin()->second.size() != 1 || v < 0 || v > UINT32_MAX)
      return "--check-host-signal expects NAME=V, one value from 0 to 2^32 - "
             "1, got '" + s + "'";
    o.hostSignals[one.begin()->first] = v;
  }
  for (const std::string &s : checkKernelWritten)
    o.kernelWritten.insert(s);
  return std::nullopt;
}

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
  if (checkProtocolFlag) {
    // The checker runs on the verified kernel, tiles configured.
    mlir::weave::ProtocolCheckOptions checkOptions;
    (void)protocolOptions(checkOptions); // checked in main
    if (failed(mlir::weave::compileModule(*module, EmitKind::Mlir, options,
                                          artifacts)))
      return failure();
    return mlir::weave::checkProtocol(*module, checkOptions, os);
  }
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

  {
    mlir::weave::ProtocolCheckOptions checkOptions;
    if (std::optional<std::string> error = protocolOptions(checkOptions))
      return fail(*error);
  }

  int status = 1;
  if (failed(mlir::weave::runOnCompilerStack([&] { status = runCompiler(); })))
    return fail("cannot start the compiler thread (it needs a stack of " +
                llvm::Twine(mlir::weave::kCompilerStackBytes >> 20) +
                " MiB, or at least a quarter of that)");
  return status;
}
