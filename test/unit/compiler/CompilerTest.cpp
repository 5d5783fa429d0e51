//===- CompilerTest.cpp - weave::Compiler, the in-process compiler --------===//
//
// Compiles the ring_exchange example in-process, checks the cache (hit,
// miss on any change, corrupt entries, clearing), located diagnostics and
// that the bundle is byte-identical to `weavec --emit=bundle`.
//
//===----------------------------------------------------------------------===//

#include "weave/Compiler.h"

#include "weave/Target/CUDA/Ptxas.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <future>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <thread>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace stdfs = std::filesystem;
using namespace weave;

namespace {

const std::string kSourceDir = WEAVE_SOURCE_DIR;
const std::string kRingExchange =
    kSourceDir + "/examples/ring_exchange/ring_exchange.mlir";

std::string readText(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(file),
                     std::istreambuf_iterator<char>());
}

void writeText(const std::string &path, const std::string &text) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << text;
}

/// The cache entries (`<key>.wbundle`) in `dir`.
std::vector<std::string> cacheEntries(const std::string &dir) {
  std::vector<std::string> entries;
  if (!stdfs::is_directory(dir))
    return entries;
  for (const auto &entry : stdfs::directory_iterator(dir))
    if (entry.path().extension() == ".wbundle")
      entries.push_back(entry.path().string());
  return entries;
}

/// Sets (or unsets, with nullopt) an environment variable for a scope.
class ScopedEnv {
public:
  ScopedEnv(const char *name, std::optional<std::string> value) : name_(name) {
    if (const char *old = std::getenv(name))
      old_ = old;
    if (value)
      setenv(name, value->c_str(), /*overwrite=*/1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }

private:
  const char *name_;
  std::optional<std::string> old_;
};

/// Runs the weavec of this build with `args`; returns its exit status and
/// puts what it printed on stderr in `errors`.
int runWeavec(const std::string &args, const std::string &scratchDir,
              std::string *errors = nullptr) {
  std::string errorFile = scratchDir + "/weavec.stderr";
  std::string command = std::string("'") + WEAVE_WEAVEC_PATH + "' " + args +
                        " 2> '" + errorFile + "'";
  int status = std::system(command.c_str());
  if (errors)
    *errors = readText(errorFile);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// A kernel with `depth` nested scf.if regions.
std::string nestedKernel(int depth) {
  std::string text =
      "gpu.module @m {\n"
      "gpu.func @k(%a: memref<16xf32> {weave.name = \"a\"}) kernel "
      "attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "
      "\"x\", size = ?>, grid = [1, 1, 1], block = [32, 1, 1]>} {\n"
      "%c0 = arith.constant 0 : index\n"
      "%tid = gpu.thread_id x\n"
      "%t = arith.cmpi eq, %tid, %c0 : index\n"
      "%v = arith.constant 1.0 : f32\n";
  for (int i = 0; i < depth; ++i)
    text += "scf.if %t {\nmemref.store %v, %a[%tid] : memref<16xf32>\n";
  for (int i = 0; i < depth; ++i)
    text += "}\n";
  return text + "gpu.return\n}\n}\n";
}

/// Runs `fn` on a thread; ends the process with a failure when it has not
/// returned after `seconds` (a blocked thread cannot be stopped).
void withDeadline(int seconds, const std::function<void()> &fn) {
  std::promise<void> done;
  std::future<void> finished = done.get_future();
  std::thread thread([&] {
    fn();
    done.set_value();
  });
  if (finished.wait_for(std::chrono::seconds(seconds)) ==
      std::future_status::timeout) {
    std::fprintf(stderr, "FAILED: still running after %d s (blocked)\n",
                 seconds);
    std::_Exit(1);
  }
  thread.join();
}

/// How often `needle` occurs in `text`.
size_t countOf(const std::string &text, const std::string &needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + needle.size()))
    ++count;
  return count;
}

class CompilerTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string pattern =
        (stdfs::temp_directory_path() / "weave-jit-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    scratch_ = pattern;
    cacheDir_ = scratch_ + "/cache";
    source_ = readText(kRingExchange);
    ASSERT_FALSE(source_.empty()) << "cannot read " << kRingExchange;
  }
  void TearDown() override {
    std::error_code ec;
    stdfs::remove_all(scratch_, ec);
  }

  /// Options that cache into this test's own directory.
  JitOptions options() const {
    JitOptions options;
    options.cacheDir = cacheDir_;
    return options;
  }

  /// Whether a bundle can be built here (compilation needs ptxas).
  static bool havePtxas() { return !mlir::weave::findPtxas().empty(); }

  // The environment must not turn the cache off under the tests.
  ScopedEnv noDisable_{"WEAVE_DISABLE_CACHE", std::nullopt};
  std::string scratch_, cacheDir_, source_;
};

#define REQUIRE_PTXAS()                                                        \
  do {                                                                         \
    if (!havePtxas())                                                          \
      GTEST_SKIP() << "no ptxas (set CUDA_PATH or WEAVE_PTXAS)";               \
  } while (false)

std::vector<uint8_t> bytesOf(const Bundle &bundle) {
  return serializeBundle(bundle);
}

//===----------------------------------------------------------------------===//
// Compiling and caching
//===----------------------------------------------------------------------===//

TEST_F(CompilerTest, CompilesRingExchangeFromAString) {
  REQUIRE_PTXAS();
  Compiler compiler(options());
  EXPECT_EQ(compiler.cacheDir(), cacheDir_);
  Expected<Bundle> bundle = compiler.compileString(source_);
  ASSERT_TRUE(bundle) << bundle.error().toString();
  EXPECT_FALSE(compiler.lastCompileHitCache());

  EXPECT_EQ(bundle->arch, "sm_90a");
  EXPECT_FALSE(bundle->cubin.empty());
  const KernelInfo *kernel = findKernel(*bundle, "ring_exchange");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->grid, (std::array<uint32_t, 3>{1, 1, 1}));
  EXPECT_EQ(kernel->block, (std::array<uint32_t, 3>{512, 1, 1}));
  // User parameters in source order, then the team parameters.
  ASSERT_EQ(kernel->params.size(), 6u);
  const std::vector<ParamInfo> &params = kernel->params;
  EXPECT_EQ(params[0].kind, weave::abi::ParamKind::Buffer);
  EXPECT_EQ(params[0].name, "src");
  EXPECT_EQ(params[0].dtype, "f32");
  EXPECT_EQ(params[0].shape, (std::vector<int64_t>{65536}));
  EXPECT_EQ(params[1].kind, weave::abi::ParamKind::Symmetric);
  EXPECT_EQ(params[1].name, "inbox");
  EXPECT_EQ(params[1].shape, (std::vector<int64_t>{65536}));
  EXPECT_EQ(params[2].kind, weave::abi::ParamKind::Semaphore);
  EXPECT_EQ(params[2].name, "ready");
  EXPECT_EQ(params[3].kind, weave::abi::ParamKind::Rank);
  EXPECT_EQ(params[4].kind, weave::abi::ParamKind::TeamSize);
  EXPECT_EQ(params[5].kind, weave::abi::ParamKind::PeerBases);

  // One entry, named by a 64-digit key.
  std::vector<std::string> entries = cacheEntries(cacheDir_);
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(stdfs::path(entries[0]).filename().string().size(),
            64 + std::string(".wbundle").size());
  Expected<Bundle> stored = readBundleFile(entries[0]);
  ASSERT_TRUE(stored) << stored.error().toString();
  EXPECT_EQ(bytesOf(*stored), bytesOf(*bundle));
}

TEST_F(CompilerTest, SecondCompileHitsTheCache) {
  REQUIRE_PTXAS();
  Expected<Bundle> first = Compiler(options()).compileString(source_);
  ASSERT_TRUE(first) << first.error().toString();

  // A new Compiler (as in a second run of the program) finds the entry.
  Compiler compiler(options());
  Expected<Bundle> second = compiler.compileString(source_, "other-name");
  ASSERT_TRUE(second) << second.error().toString();
  EXPECT_TRUE(compiler.lastCompileHitCache());
  EXPECT_EQ(bytesOf(*second), bytesOf(*first));

  // And so does compileFile of the same text.
  Expected<Bundle> third = compiler.compileFile(kRingExchange);
  ASSERT_TRUE(third) << third.error().toString();
  EXPECT_TRUE(compiler.lastCompileHitCache());
  EXPECT_EQ(cacheEntries(cacheDir_).size(), 1u);
}

TEST_F(CompilerTest, AnyChangeThatMattersMisses) {
  REQUIRE_PTXAS();
  Expected<Bundle> base = Compiler(options()).compileString(source_);
  ASSERT_TRUE(base) << base.error().toString();

  JitOptions o2 = options();
  o2.optLevel = 2;
  Compiler atO2(o2);
  ASSERT_TRUE(atO2.compileString(source_));
  EXPECT_FALSE(atO2.lastCompileHitCache());

  JitOptions debug = options();
  debug.waitTimeoutNs = 2000000000;
  Compiler withTimeout(debug);
  ASSERT_TRUE(withTimeout.compileString(source_));
  EXPECT_FALSE(withTimeout.lastCompileHitCache());

  Compiler compiler(options());
  ASSERT_TRUE(compiler.compileString(source_ + "// a comment\n"));
  EXPECT_FALSE(compiler.lastCompileHitCache());

  EXPECT_EQ(cacheEntries(cacheDir_).size(), 4u);
  // The original still hits.
  ASSERT_TRUE(compiler.compileString(source_));
  EXPECT_TRUE(compiler.lastCompileHitCache());
}

TEST_F(CompilerTest, CorruptEntryIsAMissAndIsRewritten) {
  REQUIRE_PTXAS();
  Expected<Bundle> good = Compiler(options()).compileString(source_);
  ASSERT_TRUE(good) << good.error().toString();
  std::vector<std::string> entries = cacheEntries(cacheDir_);
  ASSERT_EQ(entries.size(), 1u);

  for (const std::string &damage :
       {std::string("not a bundle"), std::string(),
        readText(entries[0]).substr(0, 100)}) {
    writeText(entries[0], damage);
    Compiler compiler(options());
    Expected<Bundle> again = compiler.compileString(source_);
    ASSERT_TRUE(again) << again.error().toString();
    EXPECT_FALSE(compiler.lastCompileHitCache());
    EXPECT_EQ(bytesOf(*again), bytesOf(*good));
    // The entry was overwritten with a good one.
    Expected<Bundle> stored = readBundleFile(entries[0]);
    ASSERT_TRUE(stored) << stored.error().toString();
    ASSERT_TRUE(compiler.compileString(source_));
    EXPECT_TRUE(compiler.lastCompileHitCache());
  }
}

//===----------------------------------------------------------------------===//
// Deep nesting
//===----------------------------------------------------------------------===//

// About 4,000 nested regions overflowed an 8 MiB stack in the parser and
// took the host program down (SIGSEGV). The compile runs on a thread of its
// own with a large stack; nesting beyond 10000 levels is a located error.
TEST_F(CompilerTest, DeepNestingDoesNotTakeTheHostDown) {
  JitOptions off = options();
  off.useCache = false;
  Compiler compiler(off);
  Expected<Bundle> deep = compiler.compileString(nestedKernel(4000), "deep");
  if (havePtxas())
    ASSERT_TRUE(deep) << deep.error().toString();
  else
    ASSERT_EQ(deep.error().code(), ErrorCode::CompileError);

  Expected<Bundle> deeper =
      compiler.compileString(nestedKernel(10001), "deeper.mlir");
  ASSERT_FALSE(deeper);
  EXPECT_EQ(deeper.error().code(), ErrorCode::CompileError);
  EXPECT_EQ(deeper.error().message().rfind(
                "deeper.mlir:20002:20: error: expects brackets, braces, "
                "parentheses and type parameters nested at most 10000 deep",
                0),
            0u)
      << deeper.error().message();
}

//===----------------------------------------------------------------------===//
// Cache entries that are not bundles, and caches that cannot be written
//===----------------------------------------------------------------------===//

// Whatever sits at an entry's path, a compile returns the bundle: a
// directory, a FIFO, a link to /dev/zero or a huge file is a miss with one
// warning (it threw, blocked or read without end), and is replaced where a
// rename can replace it.
TEST_F(CompilerTest, CacheEntryThatIsNotARegularFileIsAMiss) {
  REQUIRE_PTXAS();
  struct Case {
    const char *what;
    std::function<void(const std::string &)> make;
    const char *warning;
    bool replaced;
  };
  const Case cases[] = {
      {"directory",
       [](const std::string &path) {
         stdfs::create_directory(path);
         writeText(path + "/inside", "keeps the directory non-empty");
       },
       "it is not a regular file", false},
      {"fifo",
       [](const std::string &path) { ASSERT_EQ(mkfifo(path.c_str(), 0600), 0); },
       "it is not a regular file", true},
      {"link to /dev/zero",
       [](const std::string &path) {
         ASSERT_EQ(symlink("/dev/zero", path.c_str()), 0);
       },
       "it is not a regular file", true},
      {"huge file",
       [](const std::string &path) {
         writeText(path, "");
         ASSERT_EQ(truncate(path.c_str(), off_t(300) << 20), 0);
       },
       "bytes, more than the 268435456 a cache entry may have", true},
  };
  Expected<Bundle> good = Compiler(options()).compileString(source_);
  ASSERT_TRUE(good) << good.error().toString();
  std::string name =
      stdfs::path(cacheEntries(cacheDir_).at(0)).filename().string();
  int index = 0;
  for (const Case &c : cases) {
    SCOPED_TRACE(c.what);
    // A directory of its own per case: warnings are once per directory.
    JitOptions own = options();
    own.cacheDir = scratch_ + "/cache" + std::to_string(index++);
    stdfs::create_directories(own.cacheDir);
    std::string entry = own.cacheDir + "/" + name;
    c.make(entry);

    testing::internal::CaptureStderr();
    withDeadline(120, [&] {
      Compiler compiler(own);
      for (int i = 0; i < 2; ++i) {
        Expected<Bundle> bundle = compiler.compileString(source_);
        ASSERT_TRUE(bundle) << bundle.error().toString();
        EXPECT_EQ(bytesOf(*bundle), bytesOf(*good));
        // Replaced by the first compile: the second one hits.
        EXPECT_EQ(compiler.lastCompileHitCache(), c.replaced && i == 1);
      }
    });
    std::string errors = testing::internal::GetCapturedStderr();
    EXPECT_EQ(countOf(errors, "weave: warning: ignoring the JIT cache entry '" +
                                  entry + "': "),
              1u)
        << errors;
    EXPECT_EQ(countOf(errors, c.warning), 1u) << errors;
    // A directory cannot be renamed over: that is said once too.
    EXPECT_EQ(countOf(errors, "weave: warning: cannot store into the JIT "
                              "cache '"),
              c.replaced ? 0u : 1u)
        << errors;
    if (c.replaced) {
      Expected<Bundle> stored = readBundleFile(entry);
      ASSERT_TRUE(stored) << stored.error().toString();
    }
  }
}

// A cache directory that cannot be created says so once per process, and
// every compile still returns its bundle.
TEST_F(CompilerTest, UnwritableCacheDirectoryWarnsOnce) {
  REQUIRE_PTXAS();
  writeText(scratch_ + "/file", "a regular file, not a directory");
  JitOptions broken = options();
  broken.cacheDir = scratch_ + "/file/cache";
  testing::internal::CaptureStderr();
  {
    Compiler compiler(broken);
    for (const std::string &source : {source_, source_ + "// another\n"}) {
      Expected<Bundle> bundle = compiler.compileString(source);
      ASSERT_TRUE(bundle) << bundle.error().toString();
      EXPECT_FALSE(compiler.lastCompileHitCache());
    }
  }
  ASSERT_TRUE(Compiler(broken).compileString(source_));
  std::string errors = testing::internal::GetCapturedStderr();
  EXPECT_EQ(countOf(errors, "weave: warning: cannot store into the JIT cache '" +
                                broken.cacheDir +
                                "': cannot create the directory: Not a "
                                "directory (compiled bundles are not cached; "
                                "this is reported once)"),
            1u)
      << errors;
  EXPECT_EQ(countOf(errors, "warning"), 1u) << errors;
}

TEST_F(CompilerTest, ClearCacheRemovesOnlyEntries) {
  REQUIRE_PTXAS();
  Compiler compiler(options());
  ASSERT_TRUE(compiler.compileString(source_));
  writeText(cacheDir_ + "/notes.txt", "not ours");
  writeText(cacheDir_ + "/" + std::string(64, 'a') + ".wbundle.tmp-12345678",
            "interrupted write");
  ASSERT_TRUE(compiler.clearCache());
  EXPECT_TRUE(cacheEntries(cacheDir_).empty());
  EXPECT_TRUE(stdfs::exists(cacheDir_ + "/notes.txt"));
  EXPECT_FALSE(stdfs::exists(cacheDir_ + "/" + std::string(64, 'a') +
                             ".wbundle.tmp-12345678"));
  ASSERT_TRUE(compiler.compileString(source_));
  EXPECT_FALSE(compiler.lastCompileHitCache());
}

TEST_F(CompilerTest, ClearCacheOfAMissingDirectoryIsFine) {
  Compiler compiler(options());
  EXPECT_FALSE(stdfs::exists(cacheDir_));
  EXPECT_TRUE(compiler.clearCache());
}

TEST_F(CompilerTest, CacheOffNeverReadsOrWrites) {
  REQUIRE_PTXAS();
  JitOptions off = options();
  off.useCache = false;
  Compiler compiler(off);
  EXPECT_EQ(compiler.cacheDir(), "");
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(compiler.compileString(source_));
    EXPECT_FALSE(compiler.lastCompileHitCache());
  }
  EXPECT_FALSE(stdfs::exists(cacheDir_));
}

TEST_F(CompilerTest, DisableCacheEnvironmentVariable) {
  {
    ScopedEnv disable("WEAVE_DISABLE_CACHE", "1");
    EXPECT_EQ(Compiler(options()).cacheDir(), "");
  }
  {
    ScopedEnv enable("WEAVE_DISABLE_CACHE", "0");
    EXPECT_EQ(Compiler(options()).cacheDir(), cacheDir_);
  }
}

TEST_F(CompilerTest, DefaultCacheDirectory) {
  ScopedEnv home("HOME", "/home/someone");
  {
    ScopedEnv dir("WEAVE_CACHE_DIR", scratch_ + "/explicit");
    ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(Compiler::defaultCacheDir(), scratch_ + "/explicit");
    EXPECT_EQ(Compiler().cacheDir(), scratch_ + "/explicit");
  }
  {
    ScopedEnv dir("WEAVE_CACHE_DIR", std::nullopt);
    ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(Compiler::defaultCacheDir(), "/xdg/weave");
  }
  {
    ScopedEnv dir("WEAVE_CACHE_DIR", std::nullopt);
    ScopedEnv xdg("XDG_CACHE_HOME", std::nullopt);
    EXPECT_EQ(Compiler::defaultCacheDir(), "/home/someone/.cache/weave");
    ScopedEnv noHome("HOME", std::nullopt);
    EXPECT_EQ(Compiler::defaultCacheDir(), "");
    EXPECT_EQ(Compiler().cacheDir(), "");
  }
}

TEST_F(CompilerTest, RelativeCacheDirIsMadeAbsolute) {
  JitOptions relative;
  relative.cacheDir = "some/dir";
  std::string cacheDir = Compiler(relative).cacheDir();
  EXPECT_TRUE(stdfs::path(cacheDir).is_absolute()) << cacheDir;
  EXPECT_EQ(stdfs::path(cacheDir), stdfs::current_path() / "some/dir");
}

TEST_F(CompilerTest, CompilersOnTwoThreads) {
  REQUIRE_PTXAS();
  JitOptions off = options();
  off.useCache = false;
  std::optional<Expected<Bundle>> results[2];
  std::thread threads[2];
  for (int i = 0; i < 2; ++i)
    threads[i] = std::thread(
        [&, i] { results[i].emplace(Compiler(off).compileString(source_)); });
  for (std::thread &thread : threads)
    thread.join();
  ASSERT_TRUE(*results[0]) << results[0]->error().toString();
  ASSERT_TRUE(*results[1]) << results[1]->error().toString();
  EXPECT_EQ(bytesOf(**results[0]), bytesOf(**results[1]));
}

//===----------------------------------------------------------------------===//
// The same bytes as weavec
//===----------------------------------------------------------------------===//

TEST_F(CompilerTest, BundleIsByteIdenticalToWeavec) {
  REQUIRE_PTXAS();
  for (const char *example : {"ring_exchange/ring_exchange.mlir",
                              "tma_forward/tma_forward.mlir"}) {
    SCOPED_TRACE(example);
    std::string path = kSourceDir + "/examples/" + example;
    std::string output = scratch_ + "/weavec.wbundle";
    std::string errors;
    ASSERT_EQ(runWeavec("'" + path + "' --emit=bundle -o '" + output + "'",
                        scratch_, &errors),
              0)
        << errors;
    std::string expected = readText(output);
    ASSERT_FALSE(expected.empty());

    Compiler compiler(options());
    Expected<Bundle> fromFile = compiler.compileFile(path);
    ASSERT_TRUE(fromFile) << fromFile.error().toString();
    EXPECT_FALSE(compiler.lastCompileHitCache());
    std::vector<uint8_t> jitBytes = bytesOf(*fromFile);
    EXPECT_EQ(std::string(jitBytes.begin(), jitBytes.end()), expected);

    JitOptions off = options();
    off.useCache = false;
    Expected<Bundle> fromString = Compiler(off).compileString(readText(path));
    ASSERT_TRUE(fromString) << fromString.error().toString();
    jitBytes = bytesOf(*fromString);
    EXPECT_EQ(std::string(jitBytes.begin(), jitBytes.end()), expected);

    // The cache entry holds the same bytes.
    ASSERT_TRUE(compiler.compileFile(path));
    EXPECT_TRUE(compiler.lastCompileHitCache());
  }
  EXPECT_EQ(cacheEntries(cacheDir_).size(), 2u);

  // The options reach the pipeline as weavec's flags do.
  std::string output = scratch_ + "/weavec-O1.wbundle";
  ASSERT_EQ(runWeavec("'" + kRingExchange + "' --emit=bundle -O1 " +
                          "--wait-timeout-ms=5 -o '" + output + "'",
                      scratch_),
            0);
  JitOptions o1 = options();
  o1.optLevel = 1;
  o1.waitTimeoutNs = 5000000;
  Expected<Bundle> jit = Compiler(o1).compileFile(kRingExchange);
  ASSERT_TRUE(jit) << jit.error().toString();
  std::vector<uint8_t> jitBytes = bytesOf(*jit);
  EXPECT_EQ(std::string(jitBytes.begin(), jitBytes.end()), readText(output));
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

// Inputs the compiler rejects, at each stage: the parser, an op verifier,
// an unknown op and the weave-verify-kernel pass (two errors).
const char *const kBadSources[] = {
    "func.func @f() {\n  %c = arith.constant : i32\n  return\n}\n",
    "gpu.module @m {\n"
    "  gpu.func @k(%b: memref<16xf32>, %d: index) kernel attributes "
    "{weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = \"x\", size = "
    "2>, grid = [1, 1, 1], block = [128, 1, 1]>} {\n"
    "    %r = weave.remote_ref %b on %d : memref<16xf32>\n"
    "    gpu.return\n"
    "  }\n"
    "}\n",
    "func.func @f() {\n  weave.frobnicate\n  return\n}\n",
    "func.func @host() {\n  %me = weave.device_id \"x\"\n"
    "  %n = weave.num_devices \"x\"\n  return\n}\n",
    "gpu.module @m {\n"
    "  gpu.func @k(%a: memref<16xf32> {weave.name = \"rank\"}) kernel "
    "attributes {weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = "
    "\"x\", size = ?>, grid = [1, 1, 1], block = [128, 1, 1]>} {\n"
    "    gpu.return\n"
    "  }\n"
    "}\n",
};

TEST_F(CompilerTest, ErrorsAreLocatedDiagnostics) {
  Compiler compiler(options());
  const char *expected[] = {
      "<string>:2:22: error: expected attribute value",
      "<string>:3:10: error: 'weave.remote_ref' op expects a buffer in "
      "#weave.symmetric memory, got 'memref<16xf32>'",
      "<string>:2:3: error: custom op 'weave.frobnicate' is unknown",
      "<string>:2:9: error: 'weave.device_id' op expects to be inside a "
      "gpu.func kernel with a 'weave.kernel' attribute",
      // At the argument, before lowering (the bundle's own checks used to
      // find the duplicate name, at 0:0).
      "<string>:2:15: error: kernel argument #0 has weave.name \"rank\", "
      "which the ABI reserves for a team parameter",
  };
  for (size_t i = 0; i < std::size(kBadSources); ++i) {
    SCOPED_TRACE(kBadSources[i]);
    Expected<Bundle> bundle = compiler.compileString(kBadSources[i]);
    ASSERT_FALSE(bundle);
    EXPECT_EQ(bundle.error().code(), ErrorCode::CompileError);
    EXPECT_EQ(bundle.error().message().rfind(expected[i], 0), 0u)
        << bundle.error().message();
    EXPECT_FALSE(compiler.lastCompileHitCache());
  }
  // Both weave-verify-kernel errors are reported.
  Expected<Bundle> twoErrors = compiler.compileString(kBadSources[3], "k.mlir");
  ASSERT_FALSE(twoErrors);
  EXPECT_NE(twoErrors.error().message().find(
                "k.mlir:3:8: error: 'weave.num_devices' op expects"),
            std::string::npos)
      << twoErrors.error().message();
  // Failures are not cached.
  EXPECT_TRUE(cacheEntries(cacheDir_).empty());
}

TEST_F(CompilerTest, ErrorsReadExactlyAsWeavecPrintsThem) {
  Compiler compiler(options());
  for (size_t i = 0; i < std::size(kBadSources); ++i) {
    SCOPED_TRACE(kBadSources[i]);
    std::string path = scratch_ + "/bad" + std::to_string(i) + ".mlir";
    writeText(path, kBadSources[i]);
    std::string weavecErrors;
    ASSERT_EQ(runWeavec("'" + path + "' --emit=bundle -o /dev/null", scratch_,
                        &weavecErrors),
              1);
    Expected<Bundle> bundle = compiler.compileFile(path);
    ASSERT_FALSE(bundle);
    EXPECT_EQ(bundle.error().message() + "\n", weavecErrors);
  }
}

TEST_F(CompilerTest, MissingFile) {
  Compiler compiler(options());
  std::string path = scratch_ + "/no-such-kernel.mlir";
  Expected<Bundle> bundle = compiler.compileFile(path);
  ASSERT_FALSE(bundle);
  EXPECT_EQ(bundle.error().code(), ErrorCode::NotFound);
  EXPECT_EQ(bundle.error().message(),
            "cannot open input file '" + path +
                "': No such file or directory");
}

TEST_F(CompilerTest, BadOptions) {
  JitOptions badLevel = options();
  badLevel.optLevel = 7;
  Expected<Bundle> bundle = Compiler(badLevel).compileString(source_);
  ASSERT_FALSE(bundle);
  EXPECT_EQ(bundle.error().code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(bundle.error().message(), "optLevel 7 is out of range; use 0 to 3");

  // Only the architectures the pipeline builds for; the message names them.
  for (const char *arch : {"gfx90a", "sm_999", "sm_100a", "sm_70", "sm_"}) {
    JitOptions badArch = options();
    badArch.arch = arch;
    bundle = Compiler(badArch).compileString(source_);
    ASSERT_FALSE(bundle);
    EXPECT_EQ(bundle.error().code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(bundle.error().message(),
              "arch: unsupported GPU architecture '" + std::string(arch) +
                  "'; supported: sm_75, sm_80, sm_86, sm_87, sm_89, sm_90, "
                  "sm_90a");
  }
}

TEST_F(CompilerTest, PtxasFailureIsALocatedError) {
  // A ptxas that fails, so that the test does not depend on what the real
  // one rejects.
  std::string fake = scratch_ + "/ptxas";
  writeText(fake, "#!/bin/sh\necho 'ptxas fatal   : fake failure' >&2\n"
                  "exit 1\n");
  stdfs::permissions(fake, stdfs::perms::owner_all);
  ScopedEnv ptxas("WEAVE_PTXAS", fake);
  Compiler compiler(options());
  Expected<Bundle> bundle = compiler.compileString(source_, "ring.mlir");
  ASSERT_FALSE(bundle);
  EXPECT_EQ(bundle.error().code(), ErrorCode::CompileError);
  // Located at the module, as weavec reports it.
  const std::string &message = bundle.error().message();
  EXPECT_EQ(message.rfind("ring.mlir:", 0), 0u) << message;
  EXPECT_NE(message.find(":1: error: ptxas ("), std::string::npos) << message;
  EXPECT_NE(message.find("fake failure"), std::string::npos) << message;
  EXPECT_TRUE(cacheEntries(cacheDir_).empty());
}

TEST_F(CompilerTest, EmptyInputIsAnErrorNotACrash) {
  Compiler compiler(options());
  Expected<Bundle> bundle = compiler.compileString("");
  ASSERT_FALSE(bundle);
  EXPECT_EQ(bundle.error().code(), ErrorCode::CompileError);
  EXPECT_NE(bundle.error().message().find("error: expects exactly one "
                                          "gpu.module"),
            std::string::npos)
      << bundle.error().message();
}

//===----------------------------------------------------------------------===//
// The protocol checker (docs/PROTOCOL_CHECKER.md)
//===----------------------------------------------------------------------===//

TEST(CompilerProtocolCheck, ReportsTheRingExchangeRaceWithLocations) {
  // examples/ring_exchange without its credit (the wait for the
  // neighbour's "inbox free"; issue #29): a member's next put overwrites
  // the neighbour's inbox before the neighbour's host has read it.
  std::string source = readText(kRingExchange);
  const std::string credit =
      "weave.semaphore_wait %ready[%c1], %one decrement";
  size_t at = source.find(credit);
  ASSERT_NE(at, std::string::npos) << "the example's credit wait moved";
  size_t lineStart = source.rfind('\n', at) + 1;
  size_t lineEnd = source.find('\n', at);
  // Keep the line count, so that the locations below stay the example's.
  source.replace(lineStart, lineEnd - lineStart, "");
  Compiler compiler;
  CheckOptions check;
  check.teamSizes = {2};
  Expected<std::string> summary =
      compiler.checkProtocolString(source, check, "ring.mlir");
  ASSERT_FALSE(summary);
  EXPECT_EQ(summary.error().code(), ErrorCode::CompileError);
  const std::string &message = summary.error().message();
  EXPECT_NE(message.find("ring.mlir:47:5: error: race: a put (remote write)"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("note: the other access: the host stream"),
            std::string::npos)
      << message;
  // The example itself, with its credit, passes.
  EXPECT_TRUE(compiler.checkProtocolString(readText(kRingExchange), check,
                                           "ring.mlir"));
}

TEST(CompilerProtocolCheck, PassesWithoutHostAccessesAndSaysWhatItExplored) {
  Compiler compiler;
  CheckOptions check;
  check.teamSizes = {2, 4};
  check.launches = 3;
  check.hostIO = false;
  Expected<std::string> summary =
      compiler.checkProtocolString(readText(kRingExchange), check);
  ASSERT_TRUE(summary) << summary.error().toString();
  EXPECT_EQ(summary->rfind("protocol check passed: 1 kernel, team sizes 2,4, "
                           "grids 1, 3 launches",
                           0),
            0u)
      << *summary;
}

TEST(CompilerProtocolCheck, RejectsBadOptions) {
  Compiler compiler;
  CheckOptions check;
  check.launches = 0;
  Expected<std::string> summary =
      compiler.checkProtocolString(readText(kRingExchange), check);
  ASSERT_FALSE(summary);
  EXPECT_EQ(summary.error().code(), ErrorCode::InvalidArgument);
}

} // namespace
