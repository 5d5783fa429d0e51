//===- Compiler.h - compile weave kernels in-process (JIT) ------*- C++ -*-===//
//
// weave::Compiler runs the weavec pipeline (`weavec --emit=bundle`) inside the
// calling process and returns the bundle the runtime loads. Results are kept
// in an on-disk cache, so a second run of a program skips compilation.
//
// This header includes no MLIR or LLVM header: a program that JIT-compiles
// kernels needs only it, the runtime headers and the WeaveJit library.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_COMPILER_H
#define WEAVE_COMPILER_H

#include "weave/runtime/Bundle.h"
#include "weave/runtime/Error.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace weave {

/// What to compile for and where to cache. Every field that changes the
/// output (arch, optLevel, waitTimeoutNs) is part of the cache key.
struct JitOptions {
  /// GPU architecture, as weavec's --arch: sm_75, sm_80, sm_86, sm_87,
  /// sm_89, sm_90 or sm_90a (others are an InvalidArgument error).
  std::string arch = "sm_90a";
  /// Optimization level of NVPTX and ptxas (0-3), as weavec's -O.
  unsigned optLevel = 3;
  /// Non-zero: semaphore waits trap after spinning this long (debug mode),
  /// as weavec's --wait-timeout-ms (in nanoseconds here).
  uint64_t waitTimeoutNs = 0;
  /// Where bundles are cached. Empty: defaultCacheDir().
  std::string cacheDir;
  /// False: always compile, never read or write the cache. The environment
  /// variable WEAVE_DISABLE_CACHE=1 has the same effect.
  bool useCache = true;
};

/// What `weavec --check-protocol` explores (docs/PROTOCOL_CHECKER.md); the
/// defaults are weavec's.
struct CheckOptions {
  /// Team sizes (a kernel with a static mesh size is checked at that size).
  std::vector<int64_t> teamSizes = {2, 3, 4, 8};
  /// Consecutive launches of every member, with no host synchronization.
  int64_t launches = 2;
  /// Block counts a `grid = [persistent, 1, 1]` kernel is checked at.
  std::vector<int64_t> persistentGrids = {1, 3};
  /// Schedules per configuration and the seed of the random ones.
  unsigned schedules = 4;
  uint64_t seed = 1;
  /// Dynamic sizes by parameter name ("KERNEL:NAME" for one kernel), every
  /// `?` in order; a negative -N is N times the team size.
  std::map<std::string, std::vector<int64_t>> shapes;
  /// Contents of integer buffers (repeated), by parameter name.
  std::map<std::string, std::vector<int64_t>> fills;
  /// By-value integer parameters (default: the launch number + 1).
  std::map<std::string, int64_t> args;
  /// Model the host reading outputs and writing inputs between launches.
  bool hostIO = true;
};

/// Compiles weave kernels (.mlir) into bundles, in-process, with the same
/// pipeline and the same output bytes as `weavec --emit=bundle`.
///
/// Errors never abort: a kernel the compiler rejects yields an Error with
/// code CompileError whose message holds the diagnostics as weavec prints
/// them (`name:line:col: error: ...`, the source line and a caret).
///
/// Each compile runs on a thread of its own with a 1 GiB stack (reserved
/// address space), so that deeply nested input cannot overflow the caller's
/// stack; nesting deeper than 10000 levels is a CompileError.
///
/// The cache reads only regular files of at most 256 MiB: anything else at
/// an entry's path (a directory, a FIFO, a device) is a miss, reported once
/// per process and cache directory on stderr (`weave: warning: ...`). A
/// cache that cannot be written is reported the same way, once; the compile
/// still returns its bundle.
///
/// A Compiler is not thread-safe; use one per thread (they may share a cache
/// directory, also across processes: entries are written atomically).
class Compiler {
public:
  explicit Compiler(JitOptions options = {});
  ~Compiler();
  Compiler(Compiler &&) noexcept;
  Compiler &operator=(Compiler &&) noexcept;

  /// Compiles the kernel file at `path`; diagnostics name the file as given.
  Expected<Bundle> compileFile(const std::string &path);
  /// Compiles `source`; diagnostics name the buffer `bufferName`.
  Expected<Bundle> compileString(std::string_view source,
                                 std::string_view bufferName = "<string>");

  /// Runs the protocol checker (`weavec --check-protocol`) on `source`:
  /// every member of a team over several launches on the CPU. Returns its
  /// one-line summary, or an Error with code CompileError whose message
  /// holds the located deadlocks, races and out-of-bounds accesses (or the
  /// compile errors) as weavec prints them. Nothing is cached.
  Expected<std::string> checkProtocolString(
      std::string_view source, const CheckOptions &check = {},
      std::string_view bufferName = "<string>");

  /// Whether the last successful compile was answered from the cache.
  bool lastCompileHitCache() const;
  /// The cache directory in use; empty when the cache is off.
  const std::string &cacheDir() const;
  const JitOptions &options() const;

  /// Removes every cache entry (`<key>.wbundle` and temporary files) from
  /// cacheDir(), leaving other files and the directory itself alone.
  Status clearCache();

  /// The cache directory used when JitOptions::cacheDir is empty:
  /// $WEAVE_CACHE_DIR, else $XDG_CACHE_HOME/weave, else $HOME/.cache/weave;
  /// empty (no cache) when none of these variables is set.
  static std::string defaultCacheDir();

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace weave

#endif // WEAVE_COMPILER_H
