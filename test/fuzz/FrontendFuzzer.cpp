//===- FrontendFuzzer.cpp - Fuzz target: the weavec front end -------------===//
//
// Does with the input bytes what `weavec --emit=ptx` does with a file: parse
// them as MLIR with every Weave dialect registered, verify, and compile down
// to PTX (verify-kernel, pipeline expansion, convert-weave-to-nvvm, NVPTX);
// no ptxas. Diagnostics go to a SourceMgrDiagnosticHandler writing nowhere
// (WEAVE_FUZZ_VERBOSE=1 prints them, to reduce a crash).
//
// Besides crashes, one rule is checked always: a compile that fails must say
// why with at least one error. WEAVE_FUZZ_ORACLES=1 adds two the issue asks
// for, off by default because they flag defects still open rather than
// crashes: every error carries a source location (not unknown), and a
// kernel that compiles has a manifest verifyBundle accepts (otherwise
// `--emit=bundle` would report "the bundle fails its own checks").
//
//===----------------------------------------------------------------------===//

#include "FuzzTarget.h"

#include "weave/Pipeline/Compile.h"
#include "weave/Registration.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "FakeCubin.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace mlir;

namespace {

/// Larger inputs are slow for a reason (the NVPTX backend on a big kernel),
/// not a bug; 64 KB holds every example several times over.
constexpr size_t kMaxInputBytes = 64 * 1024;

bool envFlag(const char *name) {
  const char *v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

const DialectRegistry &registry() {
  static const DialectRegistry *instance = [] {
    auto *r = new DialectRegistry();
    mlir::weave::registerAllWeave(*r);
    return r;
  }();
  return *instance;
}

[[noreturn]] void fail(const std::string &message) {
  std::fprintf(stderr, "frontend fuzzer: %s\n", message.c_str());
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  (void)registry();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > kMaxInputBytes)
    return 0;
  static const bool verbose = envFlag("WEAVE_FUZZ_VERBOSE");
  static const bool oracles = envFlag("WEAVE_FUZZ_ORACLES");

  // One thread: a campaign runs on one core, and -keep_going forks.
  MLIRContext context(registry(), MLIRContext::Threading::DISABLED);
  context.printOpOnDiagnostic(false);

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz-input.mlir"),
      llvm::SMLoc());
  SourceMgrDiagnosticHandler printer(sourceMgr, &context,
                                     verbose ? llvm::errs() : llvm::nulls());
  // Registered last, so it sees each diagnostic first; it only counts and
  // passes the diagnostic on to the printer.
  unsigned errors = 0, unlocated = 0;
  std::string firstUnlocated;
  context.getDiagEngine().registerHandler([&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error) {
      ++errors;
      if (!diag.getLocation()->findInstanceOf<FileLineColLoc>()) {
        if (!unlocated++)
          firstUnlocated = diag.str();
      }
    }
    return failure();
  });

  // As weavec: the nesting bound, then parse and compile on the compiler's
  // large-stack thread.
  OwningOpRef<ModuleOp> module;
  mlir::weave::CompileOptions options; // weavec's defaults: sm_90a, -O3
  mlir::weave::CompileArtifacts artifacts;
  LogicalResult result = failure();
  if (failed(mlir::weave::runOnCompilerStack([&] {
        module = mlir::weave::parseWeaveSource(sourceMgr, &context);
        if (module)
          result = mlir::weave::compileModule(
              *module, mlir::weave::EmitKind::Ptx, options, artifacts);
      })))
    fail("no compiler thread could be started");
  if (!module) {
    if (errors == 0)
      fail("the parser rejected the input without an error");
    return 0;
  }
  if (failed(result) && errors == 0)
    fail("compileModule failed without an error");
  if (oracles && unlocated)
    fail("an error without a source location: " + firstUnlocated);
  if (oracles && succeeded(result)) {
    ::weave::Bundle bundle = artifacts.bundle;
    bundle.arch = options.arch;
    std::vector<std::string> names;
    for (const ::weave::KernelInfo &kernel : bundle.kernels)
      names.push_back(kernel.name);
    bundle.cubin = ::weave::test::makeFakeCubin(names); // stands in for ptxas's cubin
    ::weave::Status status = ::weave::verifyBundle(bundle);
    if (!status)
      fail("compiled, but the manifest fails verifyBundle (weavec "
           "--emit=bundle would report a compiler bug): " +
           status.error().message());
  }
  return 0;
}
