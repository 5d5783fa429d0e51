//===- MutationDriver.cpp - A libFuzzer stand-in for builds without clang -===//
//
// Drives a fuzz target's LLVMFuzzerTestOneInput where libFuzzer is not
// available (the normal gcc build, CI). It is not coverage-guided: it reads a
// seed corpus and applies byte, line and token mutations that suit both MLIR
// text and bundle manifests (numbers replaced by boundary values, element
// types by ones the verifiers must reject, lines spliced between seeds, deep
// nesting). Every input runs in-process and nothing is caught: a crash is a
// crash. A signal handler writes the input that was running to
// `<artifact_prefix>crash-<stack>-<input>` before the process dies, so every
// crash leaves a reproducer; `<stack>` hashes the top frames so that crashes
// can be told apart.
//
// The flags follow libFuzzer's, so the same command line works with either:
//   DRIVER [flags] CORPUS_DIR...   fuzz, seeding from the files in the dirs
//   DRIVER [flags] FILE...         run each file once (replay a reproducer)
//   -runs=N -max_total_time=S -seed=N -timeout=S (per input) -max_len=N
//   -artifact_prefix=PATH
// and one of its own:
//   -dump_inputs=DIR  write every input to DIR/<exec number> before running
//                   it (to find the input behind a late symptom, such as
//                   heap corruption that crashes a later input)
//   -keep_going=1   fuzz in a child process and start a new one (next seed)
//                   after each crash, so a campaign counts every distinct
//                   crash instead of stopping at the first (like libFuzzer's
//                   -fork=1 -ignore_crashes=1)
//
//===----------------------------------------------------------------------===//

#include "FuzzTarget.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

// Weak: a target may leave it out, as with libFuzzer.
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int *argc,
                                                          char ***argv);

namespace {

//===----------------------------------------------------------------------===//
// Crash reporting
//===----------------------------------------------------------------------===//

/// Counters shared between a -keep_going parent and its children.
struct SharedStats {
  std::atomic<uint64_t> execs{0};
  std::atomic<uint64_t> lastStack{0};
  char lastKind[16] = {0};
};

SharedStats *gStats = nullptr;
const uint8_t *gInput = nullptr;
size_t gInputSize = 0;
volatile sig_atomic_t gInRun = 0;
char gArtifactPrefix[4096] = "./";
unsigned gTimeoutSec = 0;
std::string gDumpDir;
uint64_t gDumped = 0;

uint64_t fnv(const uint8_t *data, size_t size, uint64_t h = 0xcbf29ce484222325ull) {
  for (size_t i = 0; i < size; ++i)
    h = (h ^ data[i]) * 0x100000001b3ull;
  return h;
}

void writeStr(const char *s) { (void)!write(2, s, strlen(s)); }

void hex(uint64_t v, char *out) {
  static const char digits[] = "0123456789abcdef";
  for (int i = 15; i >= 0; --i, v >>= 4)
    out[i] = digits[v & 15];
  out[16] = 0;
}

/// A hash of the frames above the signal frame, as module + offset (stable
/// across runs despite ASLR). Skips the handler's own frame and the signal
/// trampoline, the first frame in libc.
uint64_t stackSignature(void **frames, int count) {
  int first = 1;
  Dl_info info;
  for (int i = 1; i < count; ++i) {
    if (dladdr(frames[i], &info) && info.dli_fname &&
        strstr(info.dli_fname, "libc.so")) {
      first = i + 1;
      break;
    }
  }
  uint64_t h = 0xcbf29ce484222325ull;
  int used = 0;
  for (int i = first; i < count && used < 6; ++i) {
    if (!dladdr(frames[i], &info) || !info.dli_fname)
      continue;
    const char *base = strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    // Frames in libc (raise, abort) are the same for every abort.
    if (strstr(base, "libc.so"))
      continue;
    uint64_t offset = reinterpret_cast<uintptr_t>(frames[i]) -
                      reinterpret_cast<uintptr_t>(info.dli_fbase);
    h = fnv(reinterpret_cast<const uint8_t *>(base), strlen(base), h);
    h = fnv(reinterpret_cast<const uint8_t *>(&offset), sizeof(offset), h);
    ++used;
  }
  return h;
}

/// Writes the running input to `<prefix><kind>-<stack>-<input hash>`.
void saveInput(const char *kind, uint64_t stack) {
  char path[4200];
  char stackHex[17], inputHex[17];
  hex(stack, stackHex);
  hex(fnv(gInput, gInputSize), inputHex);
  snprintf(path, sizeof(path), "%s%s-%s-%s", gArtifactPrefix, kind, stackHex,
           inputHex);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    size_t done = 0;
    while (done < gInputSize) {
      ssize_t n = write(fd, gInput + done, gInputSize - done);
      if (n <= 0)
        break;
      done += n;
    }
    close(fd);
  }
  writeStr("==weave-fuzz== input written to ");
  writeStr(path);
  writeStr("\n");
  if (gStats) {
    gStats->lastStack = stack;
    strncpy(gStats->lastKind, kind, sizeof(gStats->lastKind) - 1);
  }
}

void onDeadlySignal(int sig) {
  if (gInRun) {
    gInRun = 0;
    const char *kind = sig == SIGALRM ? "timeout" : "crash";
    writeStr(sig == SIGALRM ? "\n==weave-fuzz== timeout: an input ran longer "
                              "than -timeout\n"
                            : "\n==weave-fuzz== deadly signal: ");
    if (sig != SIGALRM) {
      writeStr(strsignal(sig));
      writeStr("\n");
    }
    void *frames[64];
    int count = backtrace(frames, 64);
    backtrace_symbols_fd(frames, count, 2);
    saveInput(kind, stackSignature(frames, count));
  }
  signal(sig, SIG_DFL);
  raise(sig == SIGALRM ? SIGABRT : sig);
}

/// A target that calls exit() (LLVM's reportFatalUsageError does) ends the
/// process like a crash does; treat it as one.
void onExit() {
  if (!gInRun)
    return;
  gInRun = 0;
  writeStr("\n==weave-fuzz== the target called exit()\n");
  void *frames[64];
  int count = backtrace(frames, 64);
  backtrace_symbols_fd(frames, count, 2);
  saveInput("exit", fnv(reinterpret_cast<const uint8_t *>("exit"), 4));
  _exit(77);
}

void installHandlers() {
  // Deep recursion overflows the stack; the handler needs its own.
  static std::vector<char> altStack(1 << 20);
  stack_t ss{};
  ss.ss_sp = altStack.data();
  ss.ss_size = altStack.size();
  sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = onDeadlySignal;
  sa.sa_flags = SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGALRM})
    sigaction(sig, &sa, nullptr);
  std::atexit(onExit);
  // backtrace() loads libgcc on first use, which is not safe in a handler.
  void *frames[2];
  backtrace(frames, 2);
}

void runOne(const std::string &input) {
  if (!gDumpDir.empty()) {
    std::ofstream dump(gDumpDir + "/" + std::to_string(gDumped++),
                       std::ios::binary);
    dump << input;
  }
  gInput = reinterpret_cast<const uint8_t *>(input.data());
  gInputSize = input.size();
  if (gTimeoutSec)
    alarm(gTimeoutSec);
  gInRun = 1;
  LLVMFuzzerTestOneInput(gInput, gInputSize);
  gInRun = 0;
  if (gTimeoutSec)
    alarm(0);
  if (gStats)
    ++gStats->execs;
}

//===----------------------------------------------------------------------===//
// Mutations
//===----------------------------------------------------------------------===//

const char *const kBoundaryNumbers[] = {
    "0", "1", "-1", "2", "3", "7", "8", "16", "31", "32", "63", "64", "127",
    "128", "255", "256", "1023", "1024", "1025", "4096", "65535", "65536",
    "2147483647", "2147483648", "-2147483648", "4294967295", "4294967296",
    "4294967297", "9223372036854775807", "9223372036854775808",
    "-9223372036854775808", "18446744073709551615", "18446744073709551616",
    "4611686018427387904", "18446744073710", "1e309", "0x7fffffff", "-0"};

const char *const kTypes[] = {
    "f16", "bf16", "f32", "f64", "i1", "i8", "i16", "i32", "i64", "index",
    "f8E4M3FN", "tf32", "u32"};

const char *const kReplacementTypes[] = {
    "index", "complex<f32>", "vector<4xf32>", "none", "f64", "i1", "i8",
    "i64", "f16", "bf16", "f32", "i32", "tuple<f32, i32>", "memref<4xf32>",
    "!weave.semaphore", "tf32", "f8E4M3FN", "i128", "ui32", "si8", "i0",
    "vector<[4]xf32>", "tensor<4xf32>"};

const char *const kTokens[] = {
    // MLIR and the weave dialect.
    "weave.put ", "weave.get ", "weave.remote_ref ", "weave.device_id",
    "weave.num_devices", "weave.semaphore_signal ", "weave.semaphore_wait ",
    "weave.copy_smem_to_gmem ", "weave.copy_gmem_to_smem ",
    "weave.wait_smem_to_gmem", "weave.matmul_pipeline ", "weave.yield",
    "#weave.symmetric", "!weave.semaphore", "#weave.mesh<", "#weave.kernel<",
    "{weave.name = \"x\"}", "{weave.name = \"rank\"}", "{weave.name = \"\"}",
    "gpu.func ", "kernel", "gpu.barrier", "gpu.module ", "gpu.return",
    "gpu.thread_id x", "gpu.block_id y", "scf.for ", "scf.if ", "scf.yield",
    "memref.subview ", "memref.load ", "memref.store ", "memref.alloca() ",
    "memref.atomic_rmw addf ", "vector.load ", "vector.transfer_read ",
    "arith.constant ", "arith.addi ", "arith.divsi ", "llvm.inline_asm ",
    "nvvm.barrier0", "func.func ", "return", "dense<0>", "?", "x", " -> ",
    " : ", ", ", "%", "@\"a b\"", "@", "#", "!", "<", ">", "(", ")", "[",
    "]", "{", "}", "\"", "// -----", "\n", "strided<[?, 1], offset: ?>",
    "affine_map<(d0) -> (d0)>", ", 3>", ", 1>", "loc(unknown)", "on ",
    "scope(sys)", "scope(gpu)", "callback", "delay_release", "tile(auto)",
    "cluster_m(2)", "split_k(4)", "weave.variant = ",
    "{of = \"mm\", arg = 0, axis = 0, lo = 1, hi = 128}",
    // Bundle manifests.
    "weave-manifest 2\n", "arch sm_90a\n", "kernel k\n", "end\n", "param ",
    "buffer ", "symmetric ", "semaphore ", "scalar ", "rank ", "team_size ",
    "peer_bases ", "tma ", "dim ", "axis=", ",?", "dtype=", "shape=", "align=",
    "count=", "source=", "variant_of mm\n", "function mm__m1_128\n", "range=1..128,", "range=129..,",
    "box=", "swizzle=", "view=peer", "view=local", "offset=", "grid ",
    "block ", "cluster ", "smem ", "team ", "cc ", "producer ", "#", "\r\n",
    "\x7f" "ELF"};

bool isWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

class Mutator {
public:
  Mutator(const std::vector<std::string> &seeds, size_t maxLen, uint64_t seed)
      : seeds_(seeds), maxLen_(maxLen), rng_(seed) {}

  std::string next() {
    std::string data = seeds_.empty() ? std::string() : pickSeed();
    int count = 1 + static_cast<int>(below(5));
    for (int i = 0; i < count; ++i)
      mutate(data);
    if (data.size() > maxLen_)
      data.resize(maxLen_);
    return data;
  }

private:
  size_t below(size_t n) { return n == 0 ? 0 : rng_() % n; }
  template <typename T, size_t N> const char *pick(const T (&items)[N]) {
    return items[below(N)];
  }
  const std::string &pickSeed() { return seeds_[below(seeds_.size())]; }

  static std::vector<std::pair<size_t, size_t>> lines(const std::string &s) {
    std::vector<std::pair<size_t, size_t>> out;
    size_t start = 0;
    while (start < s.size()) {
      size_t nl = s.find('\n', start);
      size_t end = nl == std::string::npos ? s.size() : nl + 1;
      out.push_back({start, end - start});
      start = end;
    }
    return out;
  }

  std::string randomLine(const std::string &s) {
    auto ls = lines(s);
    if (ls.empty())
      return "\n";
    auto [at, len] = ls[below(ls.size())];
    std::string line = s.substr(at, len);
    if (line.empty() || line.back() != '\n')
      line += '\n';
    return line;
  }

  /// Token spans [begin, end) matching `pred` at word boundaries.
  template <typename Pred>
  std::vector<std::pair<size_t, size_t>> spans(const std::string &s, Pred pred) {
    std::vector<std::pair<size_t, size_t>> out;
    for (size_t i = 0; i < s.size();) {
      size_t len = pred(s, i);
      if (len) {
        out.push_back({i, len});
        i += len;
      } else {
        ++i;
      }
    }
    return out;
  }

  bool replaceNumber(std::string &s) {
    auto nums = spans(s, [](const std::string &t, size_t i) -> size_t {
      if (i > 0 && (isWordChar(t[i - 1]) || t[i - 1] == '-'))
        return 0;
      size_t j = i;
      if (t[j] == '-')
        ++j;
      size_t digits = j;
      while (digits < t.size() && std::isdigit(static_cast<unsigned char>(t[digits])))
        ++digits;
      if (digits == j || (digits < t.size() && isWordChar(t[digits]) &&
                          t[digits] != 'x'))
        return 0;
      return digits - i;
    });
    if (nums.empty())
      return false;
    auto [at, len] = nums[below(nums.size())];
    std::string value;
    if (below(4) == 0) {
      long long old = std::strtoll(s.substr(at, len).c_str(), nullptr, 10);
      value = std::to_string(old + static_cast<long long>(below(5)) - 2);
    } else {
      value = pick(kBoundaryNumbers);
    }
    s.replace(at, len, value);
    return true;
  }

  bool replaceType(std::string &s) {
    auto types = spans(s, [](const std::string &t, size_t i) -> size_t {
      if (i > 0 && (isWordChar(t[i - 1]) || t[i - 1] == '%' ||
                    t[i - 1] == '@' || t[i - 1] == '.'))
        return 0;
      for (const char *type : kTypes) {
        size_t n = strlen(type);
        if (t.compare(i, n, type) == 0 &&
            (i + n == t.size() || !isWordChar(t[i + n])))
          return n;
      }
      return 0;
    });
    if (types.empty())
      return false;
    auto [at, len] = types[below(types.size())];
    s.replace(at, len, pick(kReplacementTypes));
    return true;
  }

  /// Wraps a line in many levels of one nesting construct: regions, arrays,
  /// types. The upstream parser recurses on each.
  void nest(std::string &s) {
    static const size_t kDepths[] = {16, 200, 1000, 2000, 4000, 8000, 16000};
    size_t depth = kDepths[below(sizeof(kDepths) / sizeof(kDepths[0]))];
    auto ls = lines(s);
    size_t at = ls.empty() ? 0 : ls[below(ls.size())].first;
    std::string open, close;
    switch (below(4)) {
    case 0: // regions
      open = "scf.execute_region{";
      close = "scf.yield}";
      break;
    case 1: // attributes
      open = "[";
      close = "]";
      break;
    case 2: // types
      open = "tuple<";
      close = ">";
      break;
    default: // affine expressions
      open = "(";
      close = ")";
      break;
    }
    size_t budget = maxLen_ > s.size() ? maxLen_ - s.size() : 0;
    depth = std::min(depth, budget / (open.size() + close.size() + 1));
    std::string prefix, suffix;
    for (size_t i = 0; i < depth; ++i) {
      prefix += open;
      suffix += close;
    }
    size_t end = s.find('\n', at);
    end = end == std::string::npos ? s.size() : end;
    s.insert(end, suffix);
    s.insert(at, prefix);
  }

  void mutate(std::string &s) {
    auto ls = lines(s);
    switch (below(16)) {
    case 0: // flip a bit
      if (!s.empty())
        s[below(s.size())] ^= static_cast<char>(1u << below(8));
      break;
    case 1: { // set a byte to a syntax character or any byte
      static const char kChars[] = "{}()<>[],:=%@!#\"\n -0123456789x?^.";
      if (!s.empty())
        s[below(s.size())] = below(2) ? kChars[below(sizeof(kChars) - 1)]
                                      : static_cast<char>(below(256));
      break;
    }
    case 2: { // insert random bytes
      std::string bytes;
      for (size_t i = 0, n = 1 + below(8); i < n; ++i)
        bytes += static_cast<char>(below(256));
      s.insert(below(s.size() + 1), bytes);
      break;
    }
    case 3: // erase bytes
      if (!s.empty()) {
        size_t at = below(s.size());
        s.erase(at, 1 + below(16));
      }
      break;
    case 4: // delete a line
      if (!ls.empty()) {
        auto [at, len] = ls[below(ls.size())];
        s.erase(at, len);
      }
      break;
    case 5: // duplicate a line
      if (!ls.empty()) {
        auto [at, len] = ls[below(ls.size())];
        std::string line = s.substr(at, len);
        for (size_t i = 0, n = 1 + below(3); i < n; ++i)
          s.insert(at, line);
      }
      break;
    case 6: // swap two lines
      if (ls.size() >= 2) {
        size_t a = below(ls.size()), b = below(ls.size());
        if (a > b)
          std::swap(a, b);
        if (a != b) {
          std::string la = s.substr(ls[a].first, ls[a].second);
          std::string lb = s.substr(ls[b].first, ls[b].second);
          s.replace(ls[b].first, ls[b].second, la);
          s.replace(ls[a].first, ls[a].second, lb);
        }
      }
      break;
    case 7: { // splice in a line of another seed
      std::string line = randomLine(pickSeed());
      size_t at = ls.empty() ? 0 : ls[below(ls.size())].first;
      s.insert(at, line);
      break;
    }
    case 8: // replace a line by one of another seed
      if (!ls.empty()) {
        auto [at, len] = ls[below(ls.size())];
        s.replace(at, len, randomLine(pickSeed()));
      }
      break;
    case 9: { // crossover at line boundaries
      const std::string &other = pickSeed();
      auto ols = lines(other);
      if (!ls.empty() && !ols.empty()) {
        size_t cut = ls[below(ls.size())].first;
        size_t ocut = ols[below(ols.size())].first;
        s = s.substr(0, cut) + other.substr(ocut);
      }
      break;
    }
    case 10:
    case 11:
      if (!replaceNumber(s))
        s.insert(below(s.size() + 1), pick(kBoundaryNumbers));
      break;
    case 12:
      if (!replaceType(s))
        s.insert(below(s.size() + 1), pick(kReplacementTypes));
      break;
    case 13: // insert a dictionary token
      s.insert(below(s.size() + 1), pick(kTokens));
      break;
    case 14: // copy a chunk elsewhere
      if (!s.empty()) {
        size_t at = below(s.size());
        std::string chunk = s.substr(at, 1 + below(64));
        s.insert(below(s.size() + 1), chunk);
      }
      break;
    case 15:
      if (below(8) == 0)
        nest(s);
      else if (!replaceType(s))
        replaceNumber(s);
      break;
    }
  }

  const std::vector<std::string> &seeds_;
  size_t maxLen_;
  std::mt19937_64 rng_;
};

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

bool readFile(const std::string &path, std::string &out) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return false;
  out.assign(std::istreambuf_iterator<char>(file),
             std::istreambuf_iterator<char>());
  return true;
}

void readCorpus(const std::string &dir, std::vector<std::string> &out) {
  DIR *d = opendir(dir.c_str());
  if (!d)
    return;
  std::vector<std::string> names;
  while (dirent *e = readdir(d))
    if (e->d_name[0] != '.')
      names.push_back(e->d_name);
  closedir(d);
  // Sorted, so that -seed=N reproduces the same inputs.
  std::sort(names.begin(), names.end());
  for (const std::string &name : names) {
    std::string path = dir + "/" + name;
    struct stat st;
    if (stat(path.c_str(), &st) != 0)
      continue;
    if (S_ISDIR(st.st_mode)) {
      readCorpus(path, out);
    } else if (S_ISREG(st.st_mode)) {
      std::string data;
      if (readFile(path, data))
        out.push_back(std::move(data));
    }
  }
}

struct Options {
  long long runs = -1;
  double maxTotalTime = 0;
  uint64_t seed = 0;
  size_t maxLen = 65536;
  bool keepGoing = false;
  std::vector<std::string> dirs, files;
};

double seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// Fuzzes until the run or time budget is spent; returns normally only
/// without a crash.
void fuzzLoop(const std::vector<std::string> &seeds, const Options &opts,
              uint64_t seed, std::chrono::steady_clock::time_point start,
              long long runsLeft) {
  Mutator mutator(seeds, opts.maxLen, seed);
  // The seeds themselves first: a seed that crashes is found at once.
  size_t seedIndex = seed == opts.seed ? 0 : seeds.size();
  for (long long i = 0; runsLeft < 0 || i < runsLeft; ++i) {
    if (opts.maxTotalTime > 0 && seconds(start) >= opts.maxTotalTime)
      break;
    if (seedIndex < seeds.size()) {
      std::string input = seeds[seedIndex++];
      if (input.size() > opts.maxLen)
        input.resize(opts.maxLen);
      runOne(input);
    } else {
      runOne(mutator.next());
    }
  }
}

} // namespace

int main(int argc, char **argv) {
  Options opts;
  opts.seed = static_cast<uint64_t>(
      std::chrono::system_clock::now().time_since_epoch().count());
  gTimeoutSec = 60;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *flag) -> const char * {
      size_t n = strlen(flag);
      return arg.compare(0, n, flag) == 0 ? arg.c_str() + n : nullptr;
    };
    if (const char *v = value("-runs="))
      opts.runs = std::atoll(v);
    else if (const char *v = value("-max_total_time="))
      opts.maxTotalTime = std::atof(v);
    else if (const char *v = value("-seed="))
      opts.seed = std::strtoull(v, nullptr, 10);
    else if (const char *v = value("-timeout="))
      gTimeoutSec = static_cast<unsigned>(std::atoi(v));
    else if (const char *v = value("-max_len="))
      opts.maxLen = static_cast<size_t>(std::atoll(v));
    else if (const char *v = value("-artifact_prefix="))
      snprintf(gArtifactPrefix, sizeof(gArtifactPrefix), "%s", v);
    else if (const char *v = value("-dump_inputs="))
      gDumpDir = v;
    else if (const char *v = value("-keep_going="))
      opts.keepGoing = std::atoi(v) != 0;
    else if (!arg.empty() && arg[0] == '-')
      fprintf(stderr, "weave-fuzz: ignoring unknown flag '%s'\n", arg.c_str());
    else {
      struct stat st;
      if (stat(arg.c_str(), &st) != 0) {
        fprintf(stderr, "weave-fuzz: cannot open '%s': %s\n", arg.c_str(),
                strerror(errno));
        return 2;
      }
      (S_ISDIR(st.st_mode) ? opts.dirs : opts.files).push_back(arg);
    }
  }
  installHandlers();
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);

  // Files only: replay each once, as libFuzzer does.
  if (opts.dirs.empty() && !opts.files.empty()) {
    for (const std::string &path : opts.files) {
      std::string data;
      if (!readFile(path, data)) {
        fprintf(stderr, "weave-fuzz: cannot read '%s'\n", path.c_str());
        return 2;
      }
      fprintf(stderr, "weave-fuzz: running %s (%zu bytes)\n", path.c_str(),
              data.size());
      runOne(data);
    }
    fprintf(stderr, "weave-fuzz: %zu input(s) ran without a crash\n",
            opts.files.size());
    return 0;
  }

  std::vector<std::string> seeds;
  for (const std::string &dir : opts.dirs)
    readCorpus(dir, seeds);
  for (const std::string &path : opts.files) {
    std::string data;
    if (readFile(path, data))
      seeds.push_back(std::move(data));
  }
  if (seeds.empty())
    seeds.push_back("");
  fprintf(stderr, "weave-fuzz: %zu seed(s), -seed=%llu, -max_len=%zu\n",
          seeds.size(), static_cast<unsigned long long>(opts.seed), opts.maxLen);

  auto start = std::chrono::steady_clock::now();
  void *shared = mmap(nullptr, sizeof(SharedStats), PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  gStats = new (shared) SharedStats();

  if (!opts.keepGoing) {
    fuzzLoop(seeds, opts, opts.seed, start, opts.runs);
    fprintf(stderr, "weave-fuzz: done, %llu execs in %.0f s, no crash\n",
            static_cast<unsigned long long>(gStats->execs.load()),
            seconds(start));
    return 0;
  }

  // -keep_going: one child at a time; each crash is recorded by its stack
  // signature and the next child continues with the next seed.
  std::map<uint64_t, std::pair<std::string, int>> unique; // stack -> kind, hits
  int crashes = 0;
  for (uint64_t child = 0;; ++child) {
    if (opts.maxTotalTime > 0 && seconds(start) >= opts.maxTotalTime)
      break;
    long long runsLeft = -1;
    if (opts.runs >= 0) {
      runsLeft = opts.runs - static_cast<long long>(gStats->execs.load());
      if (runsLeft <= 0)
        break;
    }
    gStats->lastStack = 0;
    gStats->lastKind[0] = 0;
    fflush(nullptr);
    pid_t pid = fork();
    if (pid < 0) {
      perror("weave-fuzz: fork");
      return 2;
    }
    if (pid == 0) {
      fuzzLoop(seeds, opts, opts.seed + child * 0x9e3779b97f4a7c15ull, start,
               runsLeft);
      fflush(nullptr);
      _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
      break;
    ++crashes;
    uint64_t stack = gStats->lastStack;
    auto &entry = unique[stack];
    entry.first = gStats->lastKind[0] ? gStats->lastKind : "crash";
    ++entry.second;
  }
  fprintf(stderr,
          "weave-fuzz: done, %llu execs in %.0f s, %d crash(es), %zu unique "
          "stack(s)\n",
          static_cast<unsigned long long>(gStats->execs.load()), seconds(start),
          crashes, unique.size());
  for (const auto &[stack, entry] : unique) {
    char stackHex[17];
    hex(stack, stackHex);
    fprintf(stderr, "  %s-%s: %d hit(s)\n", entry.first.c_str(), stackHex,
            entry.second);
  }
  return crashes ? 1 : 0;
}
