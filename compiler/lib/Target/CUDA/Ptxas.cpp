//===- Ptxas.cpp - assemble PTX into a cubin with ptxas -------------------===//

#include "weave/Target/CUDA/Ptxas.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;

std::string mlir::weave::findPtxas() {
  if (const char *explicitPath = std::getenv("WEAVE_PTXAS"))
    return explicitPath;
  const char *cudaPath = std::getenv("CUDA_PATH");
  for (const char *root : {cudaPath, "/usr/local/cuda"}) {
    if (!root)
      continue;
    llvm::SmallString<256> path(root);
    llvm::sys::path::append(path, "bin", "ptxas");
    if (llvm::sys::fs::can_execute(path))
      return path.str().str();
  }
  if (llvm::ErrorOr<std::string> found = llvm::sys::findProgramByName("ptxas"))
    return *found;
  return "";
}

namespace {
/// Removes a temporary file when it goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};
} // namespace

std::string mlir::weave::ptxasVersion(StringRef ptxas) {
  if (ptxas.empty())
    return "";
  TempFile messages;
  if (llvm::sys::fs::createTemporaryFile("weave", "log", messages.path))
    return "";
  SmallVector<StringRef> args = {ptxas, "--version"};
  std::optional<StringRef> redirects[] = {std::nullopt, messages.path,
                                          messages.path};
  int status = llvm::sys::ExecuteAndWait(ptxas, args, /*Env=*/std::nullopt,
                                         redirects);
  if (status != 0)
    return "";
  auto buffer = llvm::MemoryBuffer::getFile(messages.path);
  return buffer ? (*buffer)->getBuffer().str() : "";
}

FailureOr<std::vector<char>>
mlir::weave::assemblePtx(StringRef ptx, StringRef arch, unsigned optLevel,
                         Location loc, std::string *log) {
  std::string ptxas = findPtxas();
  if (ptxas.empty())
    return emitError(loc) << "cannot find ptxas to build a cubin: set "
                             "CUDA_PATH or WEAVE_PTXAS, or put it on PATH "
                             "(--emit=ptx needs no ptxas)";
  TempFile input, output, messages;
  if (llvm::sys::fs::createTemporaryFile("weave", "ptx", input.path) ||
      llvm::sys::fs::createTemporaryFile("weave", "cubin", output.path) ||
      llvm::sys::fs::createTemporaryFile("weave", "log", messages.path))
    return emitError(loc) << "cannot create temporary files for ptxas";
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(input.path, ec);
    if (ec)
      return emitError(loc) << "cannot write " << input.path << ": "
                            << ec.message();
    os << ptx;
  }
  std::string archFlag = ("-arch=" + arch).str();
  std::string optFlag = "-O" + std::to_string(optLevel);
  SmallVector<StringRef> args = {ptxas,   archFlag,     optFlag, "-v",
                                 "--warn-on-spills", input.path, "-o",
                                 output.path};
  std::optional<StringRef> redirects[] = {std::nullopt, messages.path,
                                          messages.path};
  std::string execError;
  int status = llvm::sys::ExecuteAndWait(ptxas, args, /*Env=*/std::nullopt,
                                         redirects, /*SecondsToWait=*/0,
                                         /*MemoryLimit=*/0, &execError);
  std::string report;
  if (auto buffer = llvm::MemoryBuffer::getFile(messages.path))
    report = (*buffer)->getBuffer().str();
  if (status != 0)
    return emitError(loc) << "ptxas (" << ptxas << ") failed"
                          << (execError.empty() ? "" : ": " + execError)
                          << "\n"
                          << report;
  auto cubin = llvm::MemoryBuffer::getFile(output.path, /*IsText=*/false);
  if (!cubin)
    return emitError(loc) << "ptxas produced no cubin at " << output.path;
  if (log)
    *log = report;
  StringRef bytes = (*cubin)->getBuffer();
  return std::vector<char>(bytes.begin(), bytes.end());
}
