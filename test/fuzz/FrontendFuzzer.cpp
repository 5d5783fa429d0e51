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

void putLE(std::vector<uint8_t> &out, size_t at, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

/// An ELF64 EM_CUDA image whose symbol table holds `names`: stands in for
/// ptxas's cubin so that verifyBundle can check the manifest alone.
std::vector<uint8_t> symbolImage(const std::vector<std::string> &names) {
  std::string strtab(1, '\0');
  std::vector<uint32_t> offsets;
  for (const std::string &name : names) {
    offsets.push_back(static_cast<uint32_t>(strtab.size()));
    strtab += name;
    strtab += '\0';
  }
  size_t strtabOff = 64;
  size_t symtabOff = (strtabOff + strtab.size() + 7) & ~size_t(7);
  size_t symtabSize = 24 * (names.size() + 1);
  size_t shOff = (symtabOff + symtabSize + 7) & ~size_t(7);
  std::vector<uint8_t> image(shOff + 3 * 64, 0);
  std::memcpy(image.data(), "\x7f" "ELF", 4);
  image[4] = 2; // ELFCLASS64
  image[5] = 1; // little-endian
  image[6] = 1;
  putLE(image, 16, 2, 2);
  putLE(image, 18, ::weave::kElfMachineCuda, 2);
  putLE(image, 20, 1, 4);
  putLE(image, 0x28, shOff, 8);
  putLE(image, 0x34, 64, 2);
  putLE(image, 0x3A, 64, 2);
  putLE(image, 0x3C, 3, 2);
  std::memcpy(image.data() + strtabOff, strtab.data(), strtab.size());
  for (size_t i = 0; i < names.size(); ++i) {
    size_t sym = symtabOff + 24 * (i + 1);
    putLE(image, sym, offsets[i], 4);
    image[sym + 4] = 0x12; // STB_GLOBAL, STT_FUNC
  }
  size_t sh1 = shOff + 64, sh2 = shOff + 128;
  putLE(image, sh1 + 4, 3, 4); // SHT_STRTAB
  putLE(image, sh1 + 24, strtabOff, 8);
  putLE(image, sh1 + 32, strtab.size(), 8);
  putLE(image, sh2 + 4, 2, 4); // SHT_SYMTAB
  putLE(image, sh2 + 24, symtabOff, 8);
  putLE(image, sh2 + 32, symtabSize, 8);
  putLE(image, sh2 + 40, 1, 4);
  putLE(image, sh2 + 56, 24, 8);
  return image;
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
    bundle.cubin = symbolImage(names);
    ::weave::Status status = ::weave::verifyBundle(bundle);
    if (!status)
      fail("compiled, but the manifest fails verifyBundle (weavec "
           "--emit=bundle would report a compiler bug): " +
           status.error().message());
  }
  return 0;
}
