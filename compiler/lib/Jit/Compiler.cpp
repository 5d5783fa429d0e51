//===- Compiler.cpp - compile weave kernels in-process (JIT) --------------===//
//
// Parses the source with its own MLIRContext, runs compileModule (the weavec
// pipeline) up to a bundle and caches the result on disk under a SHA-256 key
// of everything that determines the bundle's bytes.
//
//===----------------------------------------------------------------------===//

#include "weave/Compiler.h"

#include "WeaveBuildId.h"
#include "weave/Pipeline/Compile.h"
#include "weave/Registration.h"
#include "weave/Target/CUDA/Ptxas.h"
#include "weave/runtime/Abi.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <map>
#include <mutex>

namespace fs = llvm::sys::fs;
using llvm::StringRef;

namespace weave {

namespace {

/// Bumped when the key's layout or the entry format changes.
constexpr const char *kCacheFormat = "weave-jit-cache 1";
constexpr StringRef kEntrySuffix = ".wbundle";
constexpr StringRef kTempInfix = ".wbundle.tmp-";
constexpr size_t kKeyHexDigits = 64;

/// The value of environment variable `name`, or "" when unset.
std::string getEnv(const char *name) {
  const char *value = std::getenv(name);
  return value ? value : "";
}

/// Identifies the ptxas that compileModule will run: its `--version` output,
/// computed once per process for each ptxas path.
std::string ptxasIdentity() {
  std::string path = mlir::weave::findPtxas();
  if (path.empty())
    return "none";
  static std::mutex mutex;
  static std::map<std::string, std::string> versions;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = versions.find(path);
  if (it == versions.end())
    it = versions.emplace(path, mlir::weave::ptxasVersion(path)).first;
  return it->second;
}

/// The cache key: SHA-256, in hex, of the source, the options that change
/// the output and the versions of every tool that produces it.
std::string cacheKey(StringRef source, const JitOptions &options) {
  llvm::SHA256 hash;
  auto field = [&](StringRef name, StringRef value) {
    // Length-prefixed, so that no two different tuples hash the same text.
    hash.update(name);
    hash.update(" " + std::to_string(value.size()) + ":");
    hash.update(value);
  };
  field("format", kCacheFormat);
  field("source", source);
  field("arch", options.arch);
  field("optLevel", std::to_string(options.optLevel));
  field("waitTimeoutNs", std::to_string(options.waitTimeoutNs));
  field("abi", std::to_string(abi::kAbiVersion));
  field("llvm", LLVM_VERSION_STRING);
  field("ptxas", ptxasIdentity());
  field("compiler", WEAVE_COMPILER_BUILD_ID);
  return llvm::toHex(hash.final(), /*LowerCase=*/true);
}

/// Whether `name` is a file the cache writes: `<key>.wbundle` or a temporary
/// `<key>.wbundle.tmp-XXXXXXXX` left by an interrupted write.
bool isCacheFileName(StringRef name) {
  if (name.size() < kKeyHexDigits ||
      !llvm::all_of(name.take_front(kKeyHexDigits), llvm::isHexDigit))
    return false;
  StringRef rest = name.drop_front(kKeyHexDigits);
  return rest == kEntrySuffix || rest.starts_with(kTempInfix);
}

/// Writes `bundle` to `entry` atomically (a temporary file, then rename), so
/// that concurrent readers see either no entry or a complete one. A failure
/// only costs the next run a compile, so it is not reported.
void storeEntry(const std::string &dir, const std::string &entry,
                const Bundle &bundle) {
  if (fs::create_directories(dir))
    return;
  llvm::SmallString<256> temp;
  int fd = -1;
  if (fs::createUniqueFile(entry + kTempInfix.str() + "%%%%%%%%", fd, temp))
    return;
  std::vector<uint8_t> bytes = serializeBundle(bundle);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
    os.close();
    if (os.has_error()) {
      os.clear_error();
      fs::remove(temp);
      return;
    }
  }
  if (fs::rename(temp, entry))
    fs::remove(temp);
}

/// A CompileError carrying the printed diagnostics.
Error compileError(std::string diagnostics) {
  while (!diagnostics.empty() && diagnostics.back() == '\n')
    diagnostics.pop_back();
  if (diagnostics.empty())
    diagnostics = "compilation failed without a diagnostic";
  return Error(ErrorCode::CompileError, std::move(diagnostics));
}

} // namespace

struct Compiler::Impl {
  JitOptions options;
  /// Absolute; empty when the cache is off.
  std::string cacheDir;
  bool lastHit = false;

  Expected<Bundle> compile(std::unique_ptr<llvm::MemoryBuffer> buffer);
  Expected<Bundle> runPipeline(std::unique_ptr<llvm::MemoryBuffer> buffer);
};

Expected<Bundle>
Compiler::Impl::runPipeline(std::unique_ptr<llvm::MemoryBuffer> buffer) {
  // Set up exactly as weavec does; a context per compile keeps compiles
  // independent and lets its memory go with it.
  mlir::DialectRegistry registry;
  mlir::weave::registerAllWeave(registry);
  mlir::MLIRContext context(registry);
  context.printOpOnDiagnostic(false);

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  std::string diagnostics;
  llvm::raw_string_ostream diagnosticStream(diagnostics);
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context,
                                           diagnosticStream);

  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module)
    return compileError(std::move(diagnostics));

  mlir::weave::CompileOptions compileOptions;
  compileOptions.arch = options.arch;
  compileOptions.optLevel = options.optLevel;
  compileOptions.waitTimeoutNs = options.waitTimeoutNs;
  mlir::weave::CompileArtifacts artifacts;
  if (mlir::failed(mlir::weave::compileModule(
          *module, mlir::weave::EmitKind::Bundle, compileOptions, artifacts)))
    return compileError(std::move(diagnostics));
  return std::move(artifacts.bundle);
}

Expected<Bundle>
Compiler::Impl::compile(std::unique_ptr<llvm::MemoryBuffer> buffer) {
  lastHit = false;
  // The checks weavec makes on its flags.
  if (options.optLevel > 3)
    return Error(ErrorCode::InvalidArgument,
                 "optLevel " + std::to_string(options.optLevel) +
                     " is out of range; use 0 to 3");
  if (!StringRef(options.arch).starts_with("sm_"))
    return Error(ErrorCode::InvalidArgument,
                 "arch expects sm_XX (e.g. sm_90a), got '" + options.arch +
                     "'");

  std::string entry;
  if (!cacheDir.empty()) {
    llvm::SmallString<256> path(cacheDir);
    llvm::sys::path::append(path,
                            cacheKey(buffer->getBuffer(), options) + ".wbundle");
    entry = path.str().str();
    if (fs::exists(entry)) {
      // readBundleFile verifies the checksum and the manifest: a damaged
      // entry is a miss, and is overwritten below.
      Expected<Bundle> cached = readBundleFile(entry);
      if (cached && cached->arch == options.arch) {
        lastHit = true;
        return cached;
      }
    }
  }

  Expected<Bundle> bundle = runPipeline(std::move(buffer));
  if (bundle && !entry.empty())
    storeEntry(cacheDir, entry, *bundle);
  return bundle;
}

Compiler::Compiler(JitOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  std::string disable = getEnv("WEAVE_DISABLE_CACHE");
  bool disabled = !disable.empty() && disable != "0";
  if (!impl_->options.useCache || disabled)
    return;
  llvm::SmallString<256> dir(impl_->options.cacheDir.empty()
                                 ? defaultCacheDir()
                                 : impl_->options.cacheDir);
  if (dir.empty())
    return;
  // Absolute, so that a later chdir does not move the cache.
  if (fs::make_absolute(dir))
    return;
  impl_->cacheDir = dir.str().str();
}

Compiler::~Compiler() = default;
Compiler::Compiler(Compiler &&) noexcept = default;
Compiler &Compiler::operator=(Compiler &&) noexcept = default;

Expected<Bundle> Compiler::compileFile(const std::string &path) {
  impl_->lastHit = false;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (std::error_code ec = buffer.getError())
    return Error(ec == std::errc::no_such_file_or_directory
                     ? ErrorCode::NotFound
                     : ErrorCode::System,
                 "cannot open input file '" + path + "': " + ec.message());
  return impl_->compile(std::move(*buffer));
}

Expected<Bundle> Compiler::compileString(std::string_view source,
                                         std::string_view bufferName) {
  return impl_->compile(llvm::MemoryBuffer::getMemBufferCopy(
      StringRef(source.data(), source.size()),
      StringRef(bufferName.data(), bufferName.size())));
}

bool Compiler::lastCompileHitCache() const { return impl_->lastHit; }

const std::string &Compiler::cacheDir() const { return impl_->cacheDir; }

const JitOptions &Compiler::options() const { return impl_->options; }

Status Compiler::clearCache() {
  if (impl_->cacheDir.empty() || !fs::is_directory(impl_->cacheDir))
    return ok();
  std::error_code ec;
  for (fs::directory_iterator it(impl_->cacheDir, ec), end; it != end && !ec;
       it.increment(ec)) {
    StringRef name = llvm::sys::path::filename(it->path());
    if (!isCacheFileName(name))
      continue;
    if (std::error_code removeError = fs::remove(it->path()))
      return Error(ErrorCode::System, "cannot remove cache entry '" +
                                          it->path() +
                                          "': " + removeError.message());
  }
  if (ec)
    return Error(ErrorCode::System, "cannot list the cache directory '" +
                                        impl_->cacheDir + "': " +
                                        ec.message());
  return ok();
}

std::string Compiler::defaultCacheDir() {
  if (std::string dir = getEnv("WEAVE_CACHE_DIR"); !dir.empty())
    return dir;
  if (std::string dir = getEnv("XDG_CACHE_HOME"); !dir.empty())
    return dir + "/weave";
  if (std::string home = getEnv("HOME"); !home.empty())
    return home + "/.cache/weave";
  return "";
}

} // namespace weave
