//===- Compiler.cpp - compile weave kernels in-process (JIT) --------------===//
//
// Parses the source with its own MLIRContext, runs compileModule (the weavec
// pipeline) up to a bundle and caches the result on disk under a SHA-256 key
// of everything that determines the bundle's bytes.
//
//===----------------------------------------------------------------------===//

#include "weave/Compiler.h"

#include "weave/Dialect/Weave/Analysis/ProtocolChecker.h"

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

#include <cerrno>
#include <cstring>
#include <optional>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = llvm::sys::fs;
using llvm::StringRef;

namespace weave {

namespace {

/// Bumped when the key's layout or the entry format changes.
constexpr const char *kCacheFormat = "weave-jit-cache 1";
constexpr StringRef kEntrySuffix = ".wbundle";
constexpr StringRef kTempInfix = ".wbundle.tmp-";
constexpr size_t kKeyHexDigits = 64;
/// The largest cache entry read back. A bundle is a cubin and its manifest
/// (kilobytes to a few megabytes); anything larger is not one of ours.
constexpr uint64_t kMaxEntryBytes = uint64_t(256) << 20;

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

/// Prints `message` to stderr as a warning, once per process for each
/// `(kind, directory)`: a cache that cannot be used costs compile time on
/// every call, which the user should hear about, but not on every call.
void warnOnce(StringRef kind, StringRef dir, const llvm::Twine &message) {
  static std::mutex mutex;
  static std::set<std::string> warned;
  std::lock_guard<std::mutex> lock(mutex);
  if (!warned.insert((kind + "\n" + dir).str()).second)
    return;
  llvm::errs() << "weave: warning: " << message << "\n";
  llvm::errs().flush();
}

/// Reads the cache entry at `path`. Only a regular file of at most
/// kMaxEntryBytes is read: a directory, a FIFO or a device (say a link to
/// /dev/zero) would throw, block or never end. Returns nothing when there is
/// no entry; `error` is set when there is one that cannot be read.
std::optional<std::vector<uint8_t>> readEntry(const std::string &path,
                                              std::string &error) {
  // O_NONBLOCK: should `path` become a FIFO between a check and the open,
  // the open returns at once instead of waiting for a writer.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    // No entry (or no cache directory yet): a plain miss.
    if (errno != ENOENT && errno != ENOTDIR)
      error = std::string("cannot open it: ") + std::strerror(errno);
    return std::nullopt;
  }
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    error = std::string("cannot stat it: ") + std::strerror(errno);
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) {
    error = "it is not a regular file";
    return std::nullopt;
  }
  if (static_cast<uint64_t>(st.st_size) > kMaxEntryBytes) {
    error = "it has " + std::to_string(st.st_size) + " bytes, more than the " +
            std::to_string(kMaxEntryBytes) + " a cache entry may have";
    return std::nullopt;
  }
  // Reads at most one byte more than the size: a file that grows meanwhile
  // is a miss, not an unbounded read.
  std::vector<uint8_t> bytes(static_cast<size_t>(st.st_size) + 1);
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      error = std::string("cannot read it: ") + std::strerror(errno);
      return std::nullopt;
    }
    if (n == 0)
      break;
    done += static_cast<size_t>(n);
  }
  if (done > static_cast<size_t>(st.st_size)) {
    error = "it changed while being read";
    return std::nullopt;
  }
  bytes.resize(done);
  return bytes;
}

/// Writes `bundle` to `entry` atomically (a temporary file, then rename), so
/// that concurrent readers see either no entry or a complete one. Returns
/// what went wrong, or "" on success; a failure only costs the next run a
/// compile, so the caller warns and goes on.
std::string storeEntry(const std::string &dir, const std::string &entry,
                       const Bundle &bundle) {
  if (std::error_code ec = fs::create_directories(dir))
    return "cannot create the directory: " + ec.message();
  llvm::SmallString<256> temp;
  int fd = -1;
  if (std::error_code ec = fs::createUniqueFile(
          entry + kTempInfix.str() + "%%%%%%%%", fd, temp))
    return "cannot create a file in it: " + ec.message();
  std::vector<uint8_t> bytes = serializeBundle(bundle);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
    os.close();
    if (std::error_code ec = os.error()) {
      os.clear_error();
      fs::remove(temp);
      return "cannot write '" + temp.str().str() + "': " + ec.message();
    }
  }
  if (std::error_code ec = fs::rename(temp, entry)) {
    fs::remove(temp);
    return "cannot replace '" + entry + "': " + ec.message();
  }
  return "";
}

/// A CompileError carrying the printed diagnostics.
Error compileError(std::string diagnostics) {
  while (!diagnostics.empty() && diagnostics.back() == '\n')
    diagnostics.pop_back();
  if (diagnostics.empty())
    diagnostics = "compilation failed without a diagnostic";
  return Error(ErrorCode::CompileError, std::move(diagnostics));
}

/// A source parsed as weavec parses it: a context of its own (compiles stay
/// independent and its memory goes with it) and the diagnostics collected
/// as text. `module` is null when parsing failed.
struct ParsedSource {
  explicit ParsedSource(std::unique_ptr<llvm::MemoryBuffer> buffer)
      : context(registry()), diagnosticStream(diagnostics),
        handler(sourceMgr, &context, diagnosticStream) {
    context.printOpOnDiagnostic(false);
    sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
    module = mlir::weave::parseWeaveSource(sourceMgr, &context);
  }
  static mlir::DialectRegistry registry() {
    mlir::DialectRegistry registry;
    mlir::weave::registerAllWeave(registry);
    return registry;
  }
  mlir::MLIRContext context;
  llvm::SourceMgr sourceMgr;
  std::string diagnostics;
  llvm::raw_string_ostream diagnosticStream;
  mlir::SourceMgrDiagnosticHandler handler;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

/// `fn()` on the compiler's large stack (a deeply nested input must not
/// overflow the caller's stack and take the host program down).
template <typename T, typename Fn> Expected<T> onCompilerStack(Fn &&fn) {
  std::optional<Expected<T>> result;
  auto run = [&] { result.emplace(fn()); };
  if (mlir::failed(mlir::weave::runOnCompilerStack(run)))
    return Error(ErrorCode::System,
                 "cannot start the compiler thread (it needs a stack of " +
                     std::to_string(mlir::weave::kCompilerStackBytes >> 20) +
                     " MiB, or at least a quarter of that)");
  return std::move(*result);
}

} // namespace

struct Compiler::Impl {
  JitOptions options;
  /// Absolute; empty when the cache is off.
  std::string cacheDir;
  bool lastHit = false;

  Expected<Bundle> compile(std::unique_ptr<llvm::MemoryBuffer> buffer);
  Expected<Bundle> runPipeline(std::unique_ptr<llvm::MemoryBuffer> buffer);
  Expected<Bundle>
  runPipelineHere(std::unique_ptr<llvm::MemoryBuffer> buffer);
};

Expected<Bundle>
Compiler::Impl::runPipeline(std::unique_ptr<llvm::MemoryBuffer> buffer) {
  // On a thread of its own with a large stack, as weavec compiles: deeply
  // nested input must not overflow the caller's stack and take the host
  // program down.
  return onCompilerStack<Bundle>(
      [&] { return runPipelineHere(std::move(buffer)); });
}

Expected<Bundle>
Compiler::Impl::runPipelineHere(std::unique_ptr<llvm::MemoryBuffer> buffer) {
  // Set up exactly as weavec does.
  ParsedSource parsed(std::move(buffer));
  if (!parsed.module)
    return compileError(std::move(parsed.diagnostics));

  mlir::weave::CompileOptions compileOptions;
  compileOptions.arch = options.arch;
  compileOptions.optLevel = options.optLevel;
  compileOptions.waitTimeoutNs = options.waitTimeoutNs;
  mlir::weave::CompileArtifacts artifacts;
  if (mlir::failed(mlir::weave::compileModule(*parsed.module,
                                              mlir::weave::EmitKind::Bundle,
                                              compileOptions, artifacts)))
    return compileError(std::move(parsed.diagnostics));
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
  if (std::optional<std::string> archError =
          mlir::weave::checkArch(options.arch))
    return Error(ErrorCode::InvalidArgument, "arch: " + *archError);

  std::string entry;
  if (!cacheDir.empty()) {
    llvm::SmallString<256> path(cacheDir);
    llvm::sys::path::append(path,
                            cacheKey(buffer->getBuffer(), options) + ".wbundle");
    entry = path.str().str();
    // Read here rather than with readBundleFile, which need not guard
    // against what may sit at a cache path. parseBundle verifies the
    // checksum and the manifest: a damaged entry is a miss, and is
    // overwritten below.
    std::string readError;
    if (std::optional<std::vector<uint8_t>> bytes = readEntry(entry, readError)) {
      Expected<Bundle> cached = parseBundle(bytes->data(), bytes->size());
      if (cached && cached->arch == options.arch) {
        lastHit = true;
        return cached;
      }
    } else if (!readError.empty()) {
      warnOnce("read", cacheDir,
               "ignoring the JIT cache entry '" + entry + "': " + readError +
                   " (compiling instead; further unreadable entries in '" +
                   cacheDir + "' are not reported)");
    }
  }

  Expected<Bundle> bundle = runPipeline(std::move(buffer));
  if (bundle && !entry.empty()) {
    std::string storeError = storeEntry(cacheDir, entry, *bundle);
    if (!storeError.empty())
      warnOnce("write", cacheDir,
               "cannot store into the JIT cache '" + cacheDir +
                   "': " + storeError +
                   " (compiled bundles are not cached; this is reported once)");
  }
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

Expected<std::string>
Compiler::checkProtocolString(std::string_view source,
                              const CheckOptions &check,
                              std::string_view bufferName) {
  if (std::optional<std::string> archError =
          mlir::weave::checkArch(impl_->options.arch))
    return Error(ErrorCode::InvalidArgument, "arch: " + *archError);
  mlir::weave::ProtocolCheckOptions options;
  options.teamSizes = check.teamSizes;
  options.launches = check.launches;
  options.persistentGrids = check.persistentGrids;
  options.schedules = check.schedules;
  options.seed = check.seed;
  options.shapes = check.shapes;
  options.fills = check.fills;
  options.scalarArgs = check.args;
  options.hostIO = check.hostIO;
  for (int64_t d : options.teamSizes)
    if (d < 1 || d > 64)
      return Error(ErrorCode::InvalidArgument,
                   "team sizes go from 1 to 64, got " + std::to_string(d));
  if (options.launches < 1 || options.launches > 16)
    return Error(ErrorCode::InvalidArgument,
                 "launches go from 1 to 16, got " +
                     std::to_string(options.launches));
  for (int64_t g : options.persistentGrids)
    if (g < 1 || g > 1024)
      return Error(ErrorCode::InvalidArgument,
                   "persistent grids go from 1 to 1024 blocks, got " +
                       std::to_string(g));
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(source.data(), source.size()),
      llvm::StringRef(bufferName.data(), bufferName.size()));
  return onCompilerStack<std::string>([&]() -> Expected<std::string> {
    ParsedSource parsed(std::move(buffer));
    mlir::weave::CompileOptions compileOptions;
    compileOptions.arch = impl_->options.arch;
    mlir::weave::CompileArtifacts artifacts;
    std::string summary;
    llvm::raw_string_ostream summaryStream(summary);
    if (!parsed.module ||
        mlir::failed(mlir::weave::compileModule(
            *parsed.module, mlir::weave::EmitKind::Mlir, compileOptions,
            artifacts)) ||
        mlir::failed(mlir::weave::checkProtocol(*parsed.module, options,
                                                summaryStream))) {
      return compileError(std::move(parsed.diagnostics));
    }
    return summary;
  });
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
