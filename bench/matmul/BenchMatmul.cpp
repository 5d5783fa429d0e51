//===- BenchMatmul.cpp - The weave matmul kernel against cuBLAS -----------===//
//
//   weave_bench_matmul [--bundles DIR] [--shapes MxNxK,...] [--dtype
//   f16|bf16|all]
//                      [--iters N] [--warmup N] [--device N] [--check-only]
//                      [--tile-config] [--seed S] [--timeout SECONDS]
//                      [--no-gate] [--rounds R]
//
// For every bundle DIR/matmul_<dtype>_<M>x<N>x<K>.wbundle (all of them, or
// the --shapes asked for): random inputs (uniform in [-1, 1), seeded),
// output poisoned with NaN, one run of the kernel checked against cuBLAS
// (cublasGemmEx, fp32 accumulation and fp32 split-K reductions) and against
// float64 dot products at sampled positions; then both timed (CUDA events
// around each of N back-to-back launches, median, after warm-up; see
// bench/support/include/weave/bench/Timing.h). With --rounds R the two are
// timed in R alternating rounds (ours first in even rounds, cuBLAS first in
// odd ones) and each median is over all its rounds' launches: the GPU's
// clocks drift under its power limit, and alternation lets the drift fall
// on both alike. The table comes last.
//
// The kernel contract: kernel `matmul`, user parameters a [M,K], b [K,N],
// c [M,N], plain device buffers of one 16-bit dtype, row-major,
// c = a @ b with fp32 accumulation.
//
// Exit status: 0 when every result was correct (or "SKIP:" without a GPU),
// 1 when a result was wrong or a run failed, 2 on a usage or bundle error.
//
//===----------------------------------------------------------------------===//

#include "weave/bench/Args.h"
#include "weave/bench/Cublas.h"
#include "weave/bench/Gpus.h"
#include "weave/bench/HostData.h"
#include "weave/bench/Manifest.h"
#include "weave/bench/Table.h"
#include "weave/bench/Timing.h"
#include "weave/examples/HostSetup.h"
#include "weave/runtime/Bundle.h"
#include "weave/runtime/Kernel.h"

#include <algorithm>
#include <map>
#include <array>
#include <deque>
#include <cmath>
#include <optional>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>
#include <tuple>
#include <vector>

using namespace weave;
using namespace weave::bench;
using examples::LocalBuffers;
using examples::LocalStreams;

namespace {

constexpr const char *kProgram = "weave_bench_matmul";

struct Options : CommonOptions {
  std::vector<std::array<int64_t, 3>> shapes; ///< empty: every bundle found
  std::string sweep; ///< --sweep FILE: the sweep's list (see readSweep)
  int device = 0;
  bool tileConfig = false;
  int samples = 256;
  /// --placements N: each case's kernel and cuBLAS timed again on N fresh
  /// allocations of a, of b, of c and of all three (see timePlacements).
  int placements = 0;
  /// --data: the inputs' values: "uniform" (a and b uniform in [-1, 1)) or
  /// "mlp" (a as a SwiGLU block's activations, b uniform scaled by
  /// K^-1/2: the down projection's data).
  std::string data = "uniform";
};

struct Case {
  DType dtype;
  int64_t m, n, k;
  std::string path;
  Bundle bundle; ///< read and checked before any GPU work
  /// The configuration weavec chose per kernel (sweep; the sidecar's
  /// `KERNEL CONFIG` lines): the variants of a dynamic-M bundle differ.
  std::map<std::string, std::string> configs;
  int64_t wsWords = 0;  ///< f32 words of its `ws` parameter; 0: none
  int twin = -1;        ///< sweep: the dynamic-M case of the same row
  bool dynamic = false; ///< its bundle has a '?' row count
};

struct Result {
  const Case *c = nullptr;
  std::string status = "not run"; ///< "ok", "WRONG", "ERROR: ..."
  Comparison comparison;
  /// The output of the last launch after timing, checked again (a split-K
  /// workspace must be left zero by every launch).
  Comparison again;
  SampleCheck samples;
  TimingResult ours, cublas;
  bool timed = false;
  /// The configuration launched: that of the kernel (or variant, chosen
  /// by the runtime for this M) that bind() picked; "?" when unknown.
  std::string config = "?";
};

void usage(FILE *out) {
  std::fprintf(
      out,
      "usage: %s [--bundles DIR] [--shapes MxNxK,...] [--dtype f16|bf16|all]\n"
      "       [--iters N] [--warmup N] [--device N] [--check-only]\n"
      "       [--tile-config] [--seed S] [--timeout SECONDS] [--no-gate]\n"
      "       [--rounds R] [--sweep FILE] [--placements N]\n"
      "       [--data uniform|mlp]\n"
      "Runs DIR/matmul_<dtype>_<M>x<N>x<K>.wbundle (default DIR: %s),\n"
      "checks it against cuBLAS and times both: N launches of each, in R\n"
      "alternating rounds (default 1), median over all rounds.\n"
      "--placements N: then times both again on N fresh allocations of a,\n"
      "of b, of the output and of all three (older ones kept, so each lands\n"
      "elsewhere; cuBLAS writes the same output as ours), one line each:\n"
      "whether a time is the kernel's or its buffers' placement.\n"
      "--data mlp: a as a SwiGLU MLP block's activations and b uniform\n"
      "scaled by K^-1/2 (a down projection's data) instead of both uniform\n"
      "in [-1, 1): a matmul's speed depends on the power its data draws.\n",
      kProgram, WEAVE_BENCH_MATMUL_BUNDLE_DIR);
}

/// Parses the command line; exits with 0 (--help) or 2 (usage error).
Options parseOptions(int argc, char **argv) {
  Options o;
  o.bundleDir = WEAVE_BENCH_MATMUL_BUNDLE_DIR;
  Args args(kProgram, usage, argc, argv);
  parseCommandLine(args, o, [&](const std::string &key) {
    if (key == "--shapes") {
      for (const std::string &s : splitCommas(args.value())) {
        std::smatch m;
        static const std::regex shape("([0-9]+)x([0-9]+)x([0-9]+)");
        if (!std::regex_match(s, m, shape))
          args.fail("bad shape '" + s + "' (want MxNxK)");
        o.shapes.push_back(
            {std::stoll(m[1]), std::stoll(m[2]), std::stoll(m[3])});
      }
    } else if (key == "--device") {
      o.device = static_cast<int>(args.number());
    } else if (key == "--sweep") {
      o.sweep = args.value();
    } else if (key == "--tile-config") {
      o.tileConfig = true;
    } else if (key == "--placements") {
      o.placements = static_cast<int>(args.number());
    } else if (key == "--data") {
      o.data = args.value();
      if (o.data != "uniform" && o.data != "mlp")
        args.fail("--data is 'uniform' or 'mlp', got '" + o.data + "'");
    } else {
      return false;
    }
    return true;
  });
  return o;
}

std::string shapeName(int64_t m, int64_t n, int64_t k) {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

std::string bundleName(DType dtype, int64_t m, int64_t n, int64_t k) {
  return std::string("matmul_") + dtypeName(dtype) + "_" + shapeName(m, n, k) +
         ".wbundle";
}

/// The cases to run: every matching bundle in the directory, or the asked
/// shapes (a missing bundle is an error then).
std::vector<Case> findCases(const Options &o,
                            std::vector<std::string> &missing) {
  std::vector<Case> cases;
  namespace fs = std::filesystem;
  if (!o.shapes.empty()) {
    for (DType dtype : o.dtypes)
      for (const auto &s : o.shapes) {
        std::string path =
            (fs::path(o.bundleDir) / bundleName(dtype, s[0], s[1], s[2]))
                .string();
        if (fs::exists(path))
          cases.push_back({dtype, s[0], s[1], s[2], path, {}});
        else
          missing.push_back(path);
      }
    return cases;
  }
  static const std::regex name("matmul_(f16|bf16)_([0-9]+)x([0-9]+)x([0-9]+)"
                               "\\.wbundle");
  for (const BundleFile &file : findBundleFiles(o.bundleDir, name)) {
    const std::vector<std::string> &m = file.groups;
    DType dtype = *parseMatmulDType(m[1]);
    if (std::find(o.dtypes.begin(), o.dtypes.end(), dtype) == o.dtypes.end())
      continue;
    cases.push_back({dtype,
                     std::stoll(m[2]),
                     std::stoll(m[3]),
                     std::stoll(m[4]),
                     file.path,
                     {}});
  }
  std::sort(cases.begin(), cases.end(), [](const Case &a, const Case &b) {
    return std::make_tuple(a.dtype, a.m, a.n, a.k) <
           std::make_tuple(b.dtype, b.m, b.n, b.k);
  });
  return cases;
}

/// Reads the bundle and checks its manifest against the contract and the
/// file name's shape.
Status loadCase(Case &c) {
  WEAVE_ASSIGN_OR_RETURN(c.bundle, readBundleFile(c.path));
  WEAVE_ASSIGN_OR_RETURN(const KernelInfo *kernel,
                         contractKernel(c.bundle, "matmul"));
  // a, b, c, and optionally a split-K workspace `ws` (f32, 1-d).
  size_t users = 0;
  for (const ParamInfo &p : kernel->params)
    users += p.kind == abi::ParamKind::Buffer;
  WEAVE_TRY(expectUserParamCount(*kernel, users == 4 ? 4 : 3));
  WEAVE_ASSIGN_OR_RETURN(MatmulParams p,
                         matmulParams(*kernel, dtypeName(c.dtype)));
  if (users == 4) {
    const ParamInfo &ws = kernel->params[3];
    if (ws.name != "ws" || ws.dtype != "f32" || ws.shape.size() != 1 ||
        ws.shape[0] < 1)
      return Error(ErrorCode::InvalidBundle,
                   "expects the 4th parameter to be the workspace ws, a "
                   "static 1-d f32 buffer");
    c.wsWords = ws.shape[0];
  }
  // A '?' row count (dynamic-M bundle) serves any M.
  int64_t rows = p.a->shape.size() == 2 && p.a->shape[0] == abi::kDynamicDim
                     ? abi::kDynamicDim
                     : c.m;
  c.dynamic = rows == abi::kDynamicDim;
  std::vector<int64_t> wantA = {rows, c.k}, wantB = {c.k, c.n},
                       wantC = {rows, c.n};
  if (p.a->shape != wantA || p.b->shape != wantB || p.c->shape != wantC)
    return Error(ErrorCode::InvalidBundle,
                 "the manifest's shapes a " + shapeText(p.a->shape) + ", b " +
                     shapeText(p.b->shape) + ", c " + shapeText(p.c->shape) +
                     " are not a [M,K], b [K,N], c [M,N] for the file name's " +
                     shapeName(c.m, c.n, c.k));
  return ok();
}

/// A per-case seed: the same inputs for the same shape in every run.
uint64_t seedFor(const Options &o, const Case &c, uint64_t tensor) {
  uint64_t h = o.seed * 0x100000001b3ull;
  for (uint64_t v :
       {uint64_t(c.dtype), uint64_t(c.m), uint64_t(c.n), uint64_t(c.k), tensor})
    h = (h ^ v) * 0x100000001b3ull;
  return h;
}

Status poison(const LocalBuffers &buffer, CUstream stream) {
  WEAVE_CU_TRY(cuMemsetD16Async(buffer.pointer(0), kPoison16,
                                buffer.bytes() / 2, stream),
               "poisoning an output buffer");
  return ok();
}

Status zeroWords(const LocalBuffers &buffer) {
  WEAVE_CU_TRY(cuMemsetD32(buffer.pointer(0), 0, buffer.bytes() / 4),
               "zeroing the split-K workspace");
  return ok();
}

/// The bound kernel against cuBLAS of the same product on a and b (writing
/// `cublasOut`), in o.rounds rotated rounds: {ours, cuBLAS}.
Expected<std::vector<TimingResult>>
timeAgainstCublas(const Options &o, const Case &c,
                  const std::vector<TimedStream> &timed, Kernel &kernel,
                  const BoundArgs &bound, const LocalStreams &streams,
                  const CublasHandle &cublas, CUdeviceptr a, CUdeviceptr b,
                  CUdeviceptr cublasOut) {
  auto timeOurs = [&]() {
    return timeIterations(
        timed, [&](int) { return kernel.launch(bound, streams); }, o.timing);
  };
  auto timeCublas = [&]() {
    return timeIterations(
        timed,
        [&](int) {
          return gemmRowMajor(cublas, c.dtype, c.m, c.n, c.k, a, b, cublasOut,
                              streams[0], Reduction::Default);
        },
        o.timing);
  };
  return timeInRounds(o.rounds, {timeOurs, timeCublas});
}

/// Times `kernel` and cuBLAS on fresh allocations: for each operand (a, b,
/// the output, then all three) `o.placements` times a new buffer holding
/// the same values, the others the case's own; cuBLAS writes the same
/// output as the kernel. The buffers made stay allocated until the study
/// ends, so each new one lands at another address (and other pages). Prints
/// one line per placement; a failure ends the study with its error.
Status timePlacements(const Options &o, const Case &c, Team &team,
                      SymmetricHeap &heap, const LocalStreams &streams,
                      const CublasHandle &cublas, Kernel &kernel,
                      const LocalBuffers &a, const LocalBuffers &b,
                      const LocalBuffers &out,
                      const std::optional<LocalBuffers> &ws) {
  // A deque: the buffers made keep their addresses as more are added.
  std::deque<LocalBuffers> kept;
  auto fresh = [&](const LocalBuffers &like,
                   std::vector<int64_t> shape) -> Expected<const LocalBuffers *> {
    WEAVE_ASSIGN_OR_RETURN(
        LocalBuffers made,
        LocalBuffers::create(team, dtypeName(c.dtype), std::move(shape)));
    WEAVE_CU_TRY(cuMemcpyDtoD(made.pointer(0), like.pointer(0), like.bytes()),
                 "copying a placement's buffer");
    kept.push_back(std::move(made));
    return &kept.back();
  };
  std::vector<TimedStream> timed = timedStreams(team, streams.get());
  // The operands that get a fresh buffer: each alone, then all three.
  struct Study {
    const char *name;
    bool a, b, c;
  };
  for (const Study &study : {Study{"a", true, false, false},
                             Study{"b", false, true, false},
                             Study{"c", false, false, true},
                             Study{"all", true, true, true}}) {
    for (int p = 0; p < o.placements; ++p) {
      const LocalBuffers *pa = &a, *pb = &b, *pc = &out;
      if (study.a) {
        WEAVE_ASSIGN_OR_RETURN(pa, fresh(a, {c.m, c.k}));
      }
      if (study.b) {
        WEAVE_ASSIGN_OR_RETURN(pb, fresh(b, {c.k, c.n}));
      }
      if (study.c) {
        WEAVE_ASSIGN_OR_RETURN(pc, fresh(out, {c.m, c.n}));
      }
      WEAVE_TRY(team.synchronize());
      std::vector<KernelArg> args = {pa->args(), pb->args(), pc->args()};
      if (ws)
        args.push_back(ws->args());
      WEAVE_ASSIGN_OR_RETURN(BoundArgs bound, kernel.bind(heap, args));
      WEAVE_ASSIGN_OR_RETURN(
          std::vector<TimingResult> t,
          timeAgainstCublas(o, c, timed, kernel, bound, streams, cublas,
                            pa->pointer(0), pb->pointer(0), pc->pointer(0)));
      std::printf("%s %s placement %-3s %d: a 0x%llx b 0x%llx c 0x%llx: ours "
                  "%.4f ms, cuBLAS %.4f ms, cuBLAS / ours %.3f\n",
                  shapeName(c.m, c.n, c.k).c_str(), dtypeName(c.dtype),
                  study.name,
                  p, (unsigned long long)pa->pointer(0),
                  (unsigned long long)pb->pointer(0),
                  (unsigned long long)pc->pointer(0), t[0].medianMs,
                  t[1].medianMs, t[1].medianMs / t[0].medianMs);
      std::fflush(stdout);
    }
  }
  return ok();
}

/// Runs one case: check, then time. Errors other than a timeout become the
/// row's status; a timeout ends the process.
Result runCase(const Options &o, const Case &c, Team &team, SymmetricHeap &heap,
               const LocalStreams &streams, const CublasHandle &cublas) {
  Result r;
  r.c = &c;
  auto fail = [&](const Error &e) {
    if (e.code() == ErrorCode::Timeout)
      abandon(kProgram, shapeName(c.m, c.n, c.k) + " " + dtypeName(c.dtype) +
                            ": " + e.toString());
    r.status = "ERROR";
    std::fprintf(stderr, "%s: %s %s: error: %s\n", kProgram,
                 shapeName(c.m, c.n, c.k).c_str(), dtypeName(c.dtype),
                 e.toString().c_str());
    return r;
  };
  Expected<Kernel> kernel = examples::loadKernel(team, c.bundle, "matmul");
  if (!kernel)
    return fail(kernel.error());
  // A persistent grid of clusters that cannot all be resident runs in two
  // waves: worth knowing when reading the timings.
  const KernelInfo &info = kernel->info();
  uint32_t clusterSize = info.clusterBlocks();
  if (clusterSize > 1) {
    Expected<int> resident = kernel->maxResidentClusters();
    if (!resident)
      return fail(resident.error());
    std::printf("%s %s: %d clusters of %u blocks resident at once, grid has "
                "%u\n",
                shapeName(c.m, c.n, c.k).c_str(), dtypeName(c.dtype),
                *resident, clusterSize,
                kernel->launchGrid()[0] * kernel->launchGrid()[1] *
                    kernel->launchGrid()[2] / clusterSize);
  }

  auto buffers = [&](std::vector<int64_t> shape) {
    return LocalBuffers::create(team, dtypeName(c.dtype), std::move(shape));
  };
  Expected<LocalBuffers> a = buffers({c.m, c.k});
  Expected<LocalBuffers> b = buffers({c.k, c.n});
  Expected<LocalBuffers> out = buffers({c.m, c.n});
  Expected<LocalBuffers> ref = buffers({c.m, c.n});
  for (auto *buf : {&a, &b, &out, &ref})
    if (!*buf)
      return fail(buf->error());

  bool mlp = o.data == "mlp";
  std::vector<uint16_t> hostA =
      mlp ? mlpActivations(c.dtype, c.m * c.k, seedFor(o, c, 0))
          : randomValues(c.dtype, c.m * c.k, seedFor(o, c, 0));
  std::vector<uint16_t> hostB =
      mlp ? scaledValues(c.dtype, c.k * c.n, seedFor(o, c, 1),
                         1.0f / std::sqrt(float(c.k)))
          : randomValues(c.dtype, c.k * c.n, seedFor(o, c, 1));
  CUstream stream = streams[0];
  for (Status s : {a->upload(0, hostA.data()), b->upload(0, hostB.data()),
                   poison(*out, stream), poison(*ref, stream)})
    if (!s)
      return fail(s.error());
  // Pageable uploads may still be in flight on return; the launch stream is
  // a non-blocking one, so wait for the whole context once.
  if (Status s = team.synchronize(); !s)
    return fail(s.error());

  std::vector<TimedStream> timed = timedStreams(team, streams.get());
  std::vector<KernelArg> args = {a->args(), b->args(), out->args()};
  // The split-K workspace starts zero; every launch leaves it zero.
  std::optional<LocalBuffers> ws;
  if (c.wsWords > 0) {
    Expected<LocalBuffers> w = LocalBuffers::create(team, "f32", {c.wsWords});
    if (!w)
      return fail(w.error());
    ws.emplace(std::move(*w));
    if (Status st = zeroWords(*ws); !st)
      return fail(st.error());
    args.push_back(ws->args());
  }
  // Which kernel runs at this M: a dynamic-M bundle's variants differ.
  Expected<BoundArgs> bound = kernel->bind(heap, args);
  if (!bound)
    return fail(bound.error());
  std::string launched = bound->kernel()->info().name;
  if (auto it = c.configs.find(launched); it != c.configs.end())
    r.config = it->second;
  if (!kernel->variants().empty())
    r.config += " [" + launched + "]";
  if (Status s = kernel->launch(*bound, streams); !s)
    return fail(s.error());
  if (Status s =
          gemmRowMajor(cublas, c.dtype, c.m, c.n, c.k, a->pointer(0),
                       b->pointer(0), ref->pointer(0), stream, Reduction::Fp32);
      !s)
    return fail(s.error());
  if (Status s = waitStreams(timed, o.timing.timeoutSeconds); !s)
    return fail(s.error());

  std::vector<uint16_t> hostOut(c.m * c.n), hostRef(c.m * c.n);
  if (Status s = out->download(0, hostOut.data()); !s)
    return fail(s.error());
  if (Status s = ref->download(0, hostRef.data()); !s)
    return fail(s.error());
  Tolerance tolerance = defaultTolerance(c.dtype);
  r.comparison = compare(c.dtype, hostOut.data(), hostRef.data(),
                         hostOut.size(), tolerance);
  auto at = [&](const std::vector<uint16_t> &v, int64_t cols) {
    return [&v, cols, dt = c.dtype](int64_t i, int64_t j) {
      return toFloat(dt, v[i * cols + j]);
    };
  };
  r.samples = checkSamples(at(hostA, c.k), at(hostB, c.n), at(hostOut, c.n),
                           at(hostRef, c.n), c.m, c.n, c.k, r.comparison.rmsRef,
                           tolerance, o.samples, seedFor(o, c, 2));
  bool correct = r.comparison.passed && r.samples.badOurs == 0;
  r.status = correct ? "ok" : "WRONG";
  if (r.samples.badRef)
    r.status += " (cuBLAS reference off at sampled positions!)";
  if (!correct || r.samples.badRef) {
    size_t w = r.comparison.worstIndex;
    std::fprintf(stderr,
                 "%s: %s %s: %s; worst at [%zu, %zu]: ours %g, cuBLAS %g; "
                 "samples vs float64: %d/%d ours and %d/%d cuBLAS past the "
                 "bound\n",
                 kProgram, shapeName(c.m, c.n, c.k).c_str(), dtypeName(c.dtype),
                 r.comparison.summary().c_str(), w / c.n, w % c.n,
                 r.comparison.worstOurs, r.comparison.worstRef,
                 r.samples.badOurs, r.samples.samples, r.samples.badRef,
                 r.samples.samples);
  }

  if (o.checkOnly)
    return r;
  Expected<std::vector<TimingResult>> timings =
      timeAgainstCublas(o, c, timed, *kernel, *bound, streams, cublas,
                        a->pointer(0), b->pointer(0), ref->pointer(0));
  if (!timings)
    return fail(timings.error());
  r.ours = (*timings)[0];
  r.cublas = (*timings)[1];
  r.timed = true;
  // After all those launches (no host synchronization between them), the
  // next one is still right: poison, launch, compare with cuBLAS again.
  for (Status st : {poison(*out, stream), kernel->launch(*bound, streams),
                    waitStreams(timed, o.timing.timeoutSeconds),
                    out->download(0, hostOut.data()),
                    ref->download(0, hostRef.data())})
    if (!st)
      return fail(st.error());
  r.again = compare(c.dtype, hostOut.data(), hostRef.data(), hostOut.size(),
                    tolerance);
  if (o.placements > 0)
    if (Status st = timePlacements(o, c, team, heap, streams, cublas, *kernel,
                                   *a, *b, *out, ws);
        !st)
      return fail(st.error());
  if (!r.again.passed) {
    r.status = "WRONG after repeated launches";
    std::fprintf(stderr, "%s: %s %s: after the timed launches: %s\n",
                 kProgram, shapeName(c.m, c.n, c.k).c_str(),
                 dtypeName(c.dtype), r.again.summary().c_str());
  }
  return r;
}

double tflops(const Case &c, double ms) {
  return ms > 0 ? 2.0 * c.m * c.n * c.k / (ms * 1e-3) / 1e12 : 0;
}

/// The lines `KERNEL CONFIG` of `path` (a bundle's `.config` sidecar: the
/// pipeline configuration weavec chose for each kernel); empty if none.
std::map<std::string, std::string> readConfigs(const std::string &path) {
  std::map<std::string, std::string> configs;
  FILE *f = std::fopen(path.c_str(), "r");
  if (!f)
    return configs;
  char line[512];
  while (std::fgets(line, sizeof(line), f)) {
    std::string text(line);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
      text.pop_back();
    size_t space = text.find(' ');
    if (space != std::string::npos)
      configs[text.substr(0, space)] = text.substr(space + 1);
  }
  std::fclose(f);
  return configs;
}

/// The sweep's list: one row per line, `dtype M N K static.wbundle
/// dynamic.wbundle|-`, bundle paths relative to the list's folder, each
/// with a `<bundle>.config` sidecar. A row's dynamic case follows its
/// static one (twin).
std::vector<Case> readSweep(const Options &o) {
  std::vector<Case> cases;
  namespace fs = std::filesystem;
  std::string dir = fs::path(o.sweep).parent_path().string();
  FILE *f = std::fopen(o.sweep.c_str(), "r");
  if (!f) {
    std::fprintf(stderr, "%s: error: cannot read the sweep list '%s'\n",
                 kProgram, o.sweep.c_str());
    std::exit(2);
  }
  char line[1024];
  while (std::fgets(line, sizeof(line), f)) {
    char dtype[16], stat[400], dyn[400];
    long long m, n, k;
    if (line[0] == '#' ||
        std::sscanf(line, "%15s %lld %lld %lld %399s %399s", dtype, &m, &n, &k,
                    stat, dyn) != 6)
      continue;
    std::optional<DType> dt = parseMatmulDType(dtype);
    if (!dt || std::find(o.dtypes.begin(), o.dtypes.end(), *dt) ==
                   o.dtypes.end())
      continue;
    Case c{*dt, m, n, k, (fs::path(dir) / stat).string(), {}, {}, 0, -1,
           false};
    c.configs = readConfigs(c.path + ".config");
    cases.push_back(c);
    if (std::string(dyn) != "-") {
      Case d = c;
      d.path = (fs::path(dir) / dyn).string();
      d.configs = readConfigs(d.path + ".config");
      cases.back().twin = static_cast<int>(cases.size());
      cases.push_back(d);
    }
  }
  std::fclose(f);
  return cases;
}

/// The sweep's table: per row ours / cuBLAS, the dynamic-M bundle beside
/// the static one, and the geometric mean and minimum of the ratios.
void printSweep(const std::vector<Case> &cases,
                const std::vector<Result> &results) {
  Table table({"shape (MxNxK)", "dtype", "config (static)", "ours ms",
               "cuBLAS ms", "ratio", "dyn config", "dyn ms", "dyn ratio",
               "dyn/static", "check"});
  double logSum = 0, dynLogSum = 0, minRatio = 1e9, minDyn = 1e9,
         worstDyn = 0;
  int count = 0, dynCount = 0;
  std::string minShape, minDynShape, worstDynShape;
  for (size_t i = 0; i < cases.size(); ++i) {
    if (cases[i].dynamic && i > 0 && cases[i - 1].twin == int(i))
      continue; // printed with its static row
    const Result &r = results[i];
    const Result *d = cases[i].twin >= 0 ? &results[cases[i].twin] : nullptr;
    std::string name =
        shapeName(cases[i].m, cases[i].n, cases[i].k);
    double ratio = r.timed ? r.cublas.medianMs / r.ours.medianMs : 0;
    if (r.timed) {
      logSum += std::log(ratio);
      ++count;
      if (ratio < minRatio) {
        minRatio = ratio;
        minShape = name + " " + dtypeName(cases[i].dtype);
      }
    }
    double dynRatio = d && d->timed ? d->cublas.medianMs / d->ours.medianMs : 0;
    double dynSlow = d && d->timed && r.timed
                         ? d->ours.medianMs / r.ours.medianMs
                         : 0;
    if (d && d->timed) {
      dynLogSum += std::log(dynRatio);
      ++dynCount;
      if (dynRatio < minDyn) {
        minDyn = dynRatio;
        minDynShape = name + " " + dtypeName(cases[i].dtype);
      }
      if (dynSlow > worstDyn) {
        worstDyn = dynSlow;
        worstDynShape = name + " " + dtypeName(cases[i].dtype);
      }
    }
    std::string check = r.status;
    if (d && d->status != "ok")
      check += " / dyn " + d->status;
    table.addRow(
        {name, dtypeName(cases[i].dtype), r.config,
         r.timed ? formatMs(r.ours.medianMs, 4) : "-",
         r.timed ? formatMs(r.cublas.medianMs, 4) : "-",
         r.timed ? strprintf("%.3f", ratio) : "-",
         d ? d->config : "-",
         d && d->timed ? formatMs(d->ours.medianMs, 4) : "-",
         d && d->timed ? strprintf("%.3f", dynRatio) : "-",
         dynSlow > 0 ? strprintf("%.3f", dynSlow) : "-", check});
  }
  std::printf("%s", table.str().c_str());
  if (count)
    std::printf("static: %d shapes, geometric mean %.3f, minimum %.3f (%s)\n",
                count, std::exp(logSum / count), minRatio, minShape.c_str());
  if (dynCount)
    std::printf("dynamic M: %d shapes, geometric mean %.3f, minimum %.3f "
                "(%s); slowest against static %.3f (%s)\n",
                dynCount, std::exp(dynLogSum / dynCount), minDyn,
                minDynShape.c_str(), worstDyn, worstDynShape.c_str());
}

} // namespace

int main(int argc, char **argv) {
  Options o = parseOptions(argc, argv);
  std::vector<std::string> missing;
  std::vector<Case> cases =
      o.sweep.empty() ? findCases(o, missing) : readSweep(o);
  for (const std::string &path : missing)
    std::fprintf(stderr, "%s: error: no bundle %s\n", kProgram, path.c_str());
  if (cases.empty()) {
    std::fprintf(stderr,
                 "%s: error: no matmul bundles to run in '%s' (expected "
                 "matmul_<f16|bf16>_<M>x<N>x<K>.wbundle; the build makes them "
                 "with `ninja weave_bench_bundles`)\n",
                 kProgram, o.bundleDir.c_str());
    return 2;
  }

  int bad = checkCases(kProgram, cases, loadCase);
  if (o.tileConfig && !bad)
    for (const Case &c : cases) {
      // A dynamic-M bundle's variants each have their launch shape.
      std::vector<const KernelInfo *> kernels = findVariants(c.bundle, "matmul");
      if (const KernelInfo *k = findKernel(c.bundle, "matmul"))
        kernels = {k};
      for (const KernelInfo *k : kernels)
        std::printf("%s %s: %s%s\n", shapeName(c.m, c.n, c.k).c_str(),
                    dtypeName(c.dtype),
                    kernels.size() > 1 ? (k->name + ": ").c_str() : "",
                    launchSummary(*k).c_str());
    }
  if (bad)
    return 2;

  int count = visibleGpusOrExit(kProgram, 1);
  if (o.device >= count) {
    std::fprintf(stderr, "%s: error: --device %d, but there are %d GPUs\n",
                 kProgram, o.device, count);
    return 2;
  }
  Expected<Team> team = Team::createInProcess({o.device});
  if (!team)
    return examples::reportError(kProgram, team.error());
  Expected<SymmetricHeap> heap = SymmetricHeap::create(*team, 1 << 20);
  if (!heap)
    return examples::reportError(kProgram, heap.error());
  Expected<LocalStreams> streams = LocalStreams::create(*team);
  if (!streams)
    return examples::reportError(kProgram, streams.error());
  Expected<CublasHandle> cublas =
      CublasHandle::create(team->device(0).context());
  if (!cublas)
    return examples::reportError(kProgram, cublas.error());

  std::vector<Result> results;
  for (const Case &c : cases) {
    std::fprintf(stderr, "%s: %s %s ...\n", kProgram,
                 shapeName(c.m, c.n, c.k).c_str(), dtypeName(c.dtype));
    results.push_back(runCase(o, c, *team, *heap, *streams, *cublas));
  }

  if (!o.sweep.empty()) {
    int wrong = 0;
    for (const Result &r : results)
      wrong += r.status != "ok";
    std::printf("\nweave matmul sweep vs cuBLAS (cublasGemmEx, fp32 "
                "accumulation), %s, device %d; ratio = cuBLAS / ours; every "
                "result checked, and checked again after the timed launches\n",
                team->device(0).name().c_str(), o.device);
    printSweep(cases, results);
    std::printf("%s: %zu case(s), %d wrong or failed\n", kProgram,
                results.size(), wrong);
    return wrong ? 1 : 0;
  }

  Table table({"shape (MxNxK)", "dtype", "ours ms", "cuBLAS ms",
               "speed-up (cuBLAS/ours)", "ours TFLOP/s", "cuBLAS TFLOP/s",
               "rel err", "max abs err", "check"});
  int wrong = 0;
  bool gated = true;
  for (const Result &r : results) {
    bool ok = r.status == "ok";
    wrong += !ok;
    gated = gated && (!r.timed || (r.ours.gated && r.cublas.gated));
    bool checked = r.status != "ERROR" && r.status != "not run";
    table.addRow(
        {shapeName(r.c->m, r.c->n, r.c->k), dtypeName(r.c->dtype),
         r.timed ? formatMs(r.ours.medianMs, 4) : "-",
         r.timed ? formatMs(r.cublas.medianMs, 4) : "-",
         r.timed ? strprintf("%.3f", r.cublas.medianMs / r.ours.medianMs) : "-",
         r.timed ? strprintf("%.1f", tflops(*r.c, r.ours.medianMs)) : "-",
         r.timed ? strprintf("%.1f", tflops(*r.c, r.cublas.medianMs)) : "-",
         checked ? strprintf("%.2e", r.comparison.relFrobenius) : "-",
         checked ? strprintf("%.2e", r.comparison.maxAbsError) : "-",
         r.status});
  }
  std::printf("\nweave matmul vs cuBLAS (cublasGemmEx, fp32 accumulation), "
              "%s, device %d\n",
              team->device(0).name().c_str(), o.device);
  if (!o.checkOnly)
    std::printf("timing: CUDA events around each of %d back-to-back launches "
                "after %d warm-up launches, in %d alternating round(s), "
                "median; streams %s; same inputs every launch (L2-warm where "
                "they fit)\n",
                o.timing.iterations, o.timing.warmup, o.rounds,
                gated ? "held until all launches were enqueued"
                      : "not held (launch overhead may show)");
  std::printf("check: ||ours-ref||/||ref|| < %.0e and every |ours-ref| <= "
              "4u*(|ref|+rms(ref)), u = 2^-11 (f16) / 2^-8 (bf16); %d "
              "sampled elements vs float64 dot products\n\n",
              defaultTolerance(DType::F16).relFrobenius, o.samples);
  std::printf("%s", table.str().c_str());
  if (!missing.empty())
    std::printf("%zu asked-for bundle(s) missing\n", missing.size());
  std::printf("%s: %zu case(s), %d wrong or failed\n", kProgram, results.size(),
              wrong);
  if (wrong)
    return 1;
  return missing.empty() ? 0 : 2;
}
