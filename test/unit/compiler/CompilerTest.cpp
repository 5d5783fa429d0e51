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

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <thread>

#include <sys/wait.h>

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

  JitOptions badArch = options();
  badArch.arch = "gfx90a";
  bundle = Compiler(badArch).compileString(source_);
  ASSERT_FALSE(bundle);
  EXPECT_EQ(bundle.error().code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(bundle.error().message(),
            "arch expects sm_XX (e.g. sm_90a), got 'gfx90a'");
}

TEST_F(CompilerTest, PtxasFailureIsALocatedError) {
  REQUIRE_PTXAS();
  JitOptions unknownArch = options();
  unknownArch.arch = "sm_999";
  Compiler compiler(unknownArch);
  Expected<Bundle> bundle = compiler.compileString(source_, "ring.mlir");
  ASSERT_FALSE(bundle);
  EXPECT_EQ(bundle.error().code(), ErrorCode::CompileError);
  // Located at the module, as weavec reports it.
  const std::string &message = bundle.error().message();
  EXPECT_EQ(message.rfind("ring.mlir:", 0), 0u) << message;
  EXPECT_NE(message.find(":1: error: ptxas ("), std::string::npos) << message;
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

} // namespace
