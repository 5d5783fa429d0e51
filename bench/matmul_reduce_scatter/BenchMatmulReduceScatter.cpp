//===- BenchMatmulReduceScatter.cpp - GEMM + RS against cuBLAS (+ NCCL) ---===//
//
//   weave_bench_matmul_reduce_scatter [--bundles DIR] [--matmul-bundles DIR]
//       [--m-shards 1024,...] [--dtype f16|bf16|all] [--devices D]
//       [--iters N] [--warmup N] [--rounds R] [--check-only] [--no-nccl]
//       [--samples N] [--seed S] [--timeout SECONDS] [--no-gate] [--no-graphs]
//       [--ce] [--op ALGORITHM,...]
//
// C = ReduceScatter_rows(A_d @ B_d) on a team of D: member d holds A_d
// [D*m_shard, K] and B_d [K, N] and ends with rows [d*m_shard, (d+1)*m_shard)
// of the sum. For every bundle DIR/matmul_reduce_scatter_<dtype>_d<D>_m<M>
// .wbundle of the team's size (examples/matmul_reduce_scatter's template),
// and at every --m-shards value (default 1024,2048,4096,8192) for every
// DIR/matmul_reduce_scatter_<dtype>_d<D>_mdyn_k<K>_n<N>.wbundle (the op's
// instance: one bundle for every m_shard, as weave::ops runs it):
// random inputs per member (uniform in [-1, 1), rounded to the dtype),
// NaN-poisoned outputs, one launch, then
//  - the check: every element of every member's c against the sum of the
//    members' cuBLAS partial products (fp32 accumulation, each rounded to
//    the dtype), summed in float64 and rounded once: within the default
//    tolerance (bench/README.md);
//  - the numerics: at --samples positions per member, the error against
//    float64 dot products of the fused kernel and of the NCCL path, cuBLAS
//    partials in the output dtype + a reduce-scatter summing in that dtype.
//    On a physical team of 2+ GPUs with NCCL: ncclReduceScatter itself. On
//    one GPU (a loopback team, or D = 1) the ring is emulated on the host
//    from the real cuBLAS partials: member d's rows are summed in ring
//    order P_{d+1} + P_{d+2} + ... + P_d, rounded to the dtype after every
//    addition as NCCL's ring does (its reduction adds in float and stores
//    the dtype);
//  - timings (unless --check-only), CUDA events around each of N
//    back-to-back iterations, the longest member, median, in R rotated
//    rounds (bench/support/include/weave/bench/Timing.h); each iteration
//    one replay of a CUDA graph per member holding one iteration's work
//    (--no-graphs: the work enqueued directly; cuBLAS + NCCL is always
//    enqueued directly):
//      ours          the fused kernel on every member
//      local cuBLAS  the partial product (D*m_shard) x K x N on member 0
//                    (the compute floor of one member)
//      plain matmul  (D = 1 only) weave's matmul of the same m_shard x N x K
//                    (DIR2/matmul_<dtype>_<M>x<N>x<K>.wbundle, bench/matmul),
//                    when its bundle is there: the epilogue's cost
//      cuBLAS+NCCL   (2+ GPUs, NCCL) cuBLAS partial in the dtype, then
//                    ncclReduceScatter (sum) of it
//    A loopback team's times are of D members sharing one GPU: no speed
//    claim, except D = 1.
//  - with --ce, the copy-engine design (CopyEngine.h) from
//    DIR/ce_matmul_<dtype>_d<D>_mdyn_k<K>_n<N>.wbundle (the op's instance,
//    `weave-ops key matmul_reduce_scatter --algorithm copy_engine`): checked
//    like ours (every element, NaN-poisoned buffers; also three iterations back
//    to back and three graph replays) and timed in a second table (one CUDA
//    graph over every device, direct launches, and its parts).
//  - with --op ALGORITHM,... (copy_engine, owner_slots, input_gather,
//    scatter: the op's algorithms), the op itself:
//    ops::MatmulReduceScatter::create(..., ALGORITHM) through an
//    ops::Communicator whose kernels come from DIR (ops::bundleFolder:
//    `weave-ops source` + weavec of every algorithm's instance, named by
//    `weave-ops key`; the fused and --ce bundles above are the owner_slots and
//    copy_engine instances of the same keys). Checked like ours into its own
//    NaN-poisoned c (once, three calls back to back, three replays of its CUDA
//    graphs, and once more after its timings), then timed as one replay per
//    member of a graph holding one call (--no-graphs: the call enqueued
//    directly), in the same rounds as the rest, in a table of its own.
//
// The kernel contract: kernel `matmul_reduce_scatter`, user parameters
// a [D*m or ?, K], b [K, N], partial [D*m or ?, N] (never written; bound
// with one 128-row tile when dynamic), slots symmetric [?, N] (bound with
// 2*D*m rows), c [m or ?, N] (all the dtype), launches i64 [1] (zeroed
// once), and its semaphores: `barrier` (2, zero at rest: the op's
// template, per-source slots and a pass) or `flags` (the kernel's count,
// zeroed once, raised by every launch: the owner-reduce template,
// owner_combine.mlir.in).
//
// Exit status: 0 when every result was correct, 1 when one was wrong or a
// run failed, 2 on a usage or bundle error; "SKIP:" without a GPU.
//
//===----------------------------------------------------------------------===//

#include "CopyEngine.h"

#include "weave/bench/Args.h"
#include "weave/bench/Cublas.h"
#include "weave/bench/Gpus.h"
#include "weave/bench/HostData.h"
#include "weave/bench/Manifest.h"
#include "weave/bench/Nccl.h"
#include "weave/bench/Table.h"
#include "weave/bench/Timing.h"
#include "weave/examples/HostSetup.h"
#include "weave/ops/Communicator.h"
#include "weave/ops/FusedMatmul.h"
#include "weave/ops/KernelSource.h"
#include "weave/runtime/Bootstrap.h"
#include "weave/runtime/Bundle.h"
#include "weave/runtime/Kernel.h"
#include "weave/runtime/KernelArgs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <tuple>
#include <vector>

using namespace weave;
using namespace weave::bench;
using examples::LocalBuffers;
using examples::TeamGraphs;

namespace {

constexpr const char *kProgram = "weave_bench_matmul_reduce_scatter";
/// The op's kernel, or the owner-reduce template's (owner_combine.mlir.in),
/// which takes the same parameters but its semaphores.
constexpr const char *kKernel = "matmul_reduce_scatter";
constexpr const char *kOwnerKernel = "owner_combine";
/// Rows of `partial` bound for a dynamic bundle: the epilogue region
/// replaces its stores, so one row tile backs its tensor map.
constexpr int64_t kRowTile = 128;

struct Options : CommonOptions {
  std::string matmulDir = WEAVE_BENCH_MATMUL_BUNDLE_DIR;
  std::vector<int64_t> mShards; ///< empty: every bundle found for D
  int devices = 0;              ///< 0: every visible GPU (or the loopback)
  bool nccl = WEAVE_BENCH_HAVE_NCCL;
  int samples = 1024; ///< float64 positions per member
  bool graphs = true;  ///< time replays of CUDA graphs
  bool ce = false;     ///< also the copy-engine design (CopyEngine.h)
  /// --op: the op's algorithms to check and time (ops::MatmulReduceScatter).
  std::vector<std::string> ops;
};

struct Case {
  DType dtype;
  int64_t d = 0, m = 0; ///< team size, rows per shard
  bool dynamic = false; ///< one bundle for every m_shard
  int64_t k = 0, n = 0; ///< from the manifest
  uint32_t semaphores = 0; ///< of the kernel's semaphore parameter
  std::string kernel;      ///< kKernel or kOwnerKernel, as the bundle has
  std::string path;
  Bundle bundle;
};

/// Error against float64 at the sampled positions.
struct Numerics {
  double sumSq = 0, refSq = 0, maxAbs = 0;
  void add(double value, double exact) {
    double e = value - exact;
    sumSq += e * e;
    refSq += exact * exact;
    maxAbs = std::max(maxAbs, std::fabs(e));
  }
  double relFrobenius() const {
    return refSq > 0 ? std::sqrt(sumSq / refSq) : 0;
  }
};

struct Result {
  const Case *c = nullptr;
  std::string status = "not run";
  Comparison check;
  Numerics fused, viaNccl;
  bool ncclReal = false; ///< the NCCL numbers come from NCCL itself
  std::optional<TimingResult> ours, local, plain, nccl;
  std::string plainNote;
  // The copy-engine design (--ce): its check, and its times: the copy
  // variant in a graph and enqueued directly, the direct variant in a
  // graph, and the copy variant's chunk matmuls alone (no copy, no sum).
  std::string ceStatus = "-";
  Comparison ceCheck;
  std::optional<TimingResult> ceGraph, ceEager, directGraph, chunksOnly,
      copiesOnly;
  std::string ceNote;
  /// --op: one per asked algorithm, in the order asked.
  struct OpRun {
    std::string algorithm;
    std::string status = "not run";
    Comparison check;
    std::optional<TimingResult> time;
    std::string note;
  };
  std::vector<OpRun> ops;
};

void usage(FILE *out) {
  std::fprintf(
      out,
      "usage: %s [--bundles DIR] [--matmul-bundles DIR] [--m-shards 1024,...]\n"
      "       [--dtype f16|bf16|all] [--devices D] [--iters N] [--warmup N]\n"
      "       [--rounds R] [--check-only] [--no-nccl] [--samples N] "
      "[--seed S]\n"
      "       [--timeout SECONDS] [--no-gate] [--no-graphs] [--ce]\n"
      "       [--op copy_engine,owner_slots,input_gather]\n"
      "Runs DIR/matmul_reduce_scatter_<dtype>_d<D>_m<M_SHARD>.wbundle and "
      "DIR/matmul_reduce_scatter_<dtype>_d<D>_mdyn_k<K>_n<N>.wbundle (at every "
      "--m-shards)\n(default DIR: %s) on a team of D (GPUs, or "
      "WEAVE_LOOPBACK_TEAM=D on "
      "one), checks it, reports its\nnumerics against the NCCL path and "
      "times it against local cuBLAS, weave's plain\nmatmul (D = 1) and "
      "cuBLAS + NCCL reduce-scatter%s.\n",
      kProgram, WEAVE_BENCH_MRS_BUNDLE_DIR,
      WEAVE_BENCH_HAVE_NCCL ? " (2+ GPUs)" : " (not in this build: no NCCL)");
}

Options parseOptions(int argc, char **argv) {
  Options o;
  o.bundleDir = WEAVE_BENCH_MRS_BUNDLE_DIR;
  Args args(kProgram, usage, argc, argv);
  parseCommandLine(args, o, [&](const std::string &key) {
    if (key == "--m-shards") {
      auto list = parseIntList(args.value());
      if (!list)
        args.fail("--m-shards wants 1024,2048,...");
      o.mShards = *list;
    } else if (key == "--matmul-bundles") {
      o.matmulDir = args.value();
    } else if (key == "--devices") {
      o.devices = static_cast<int>(args.number());
    } else if (key == "--samples") {
      o.samples = static_cast<int>(args.number());
    } else if (key == "--no-nccl") {
      o.nccl = false;
    } else if (key == "--no-graphs") {
      o.graphs = false;
    } else if (key == "--ce") {
      o.ce = true;
    } else if (key == "--op") {
      // A comma-separated list of the op's algorithms; create() rejects an
      // unknown one (with the offered ones) per case.
      std::string list = args.value();
      for (size_t at = 0; at <= list.size();) {
        size_t comma = std::min(list.find(',', at), list.size());
        if (comma > at)
          o.ops.push_back(list.substr(at, comma - at));
        at = comma + 1;
      }
      if (o.ops.empty())
        args.fail("--op wants copy_engine,owner_slots,...");
    } else {
      return false;
    }
    return true;
  });
  return o;
}

std::vector<Case> findBundles(const Options &o) {
  static const std::regex name("matmul_reduce_scatter_(f16|bf16)_d([0-9]+)_m"
                               "([0-9]+|dyn_k[0-9]+_n[0-9]+)\\.wbundle");
  std::vector<Case> out;
  std::vector<int64_t> dynamicShards = o.mShards;
  if (dynamicShards.empty())
    dynamicShards = {1024, 2048, 4096, 8192};
  for (const BundleFile &file : findBundleFiles(o.bundleDir, name)) {
    const std::vector<std::string> &m = file.groups;
    Case c;
    c.dtype = *parseMatmulDType(m[1]);
    c.d = std::stoll(m[2]);
    c.path = file.path;
    c.dynamic = m[3].rfind("dyn", 0) == 0;
    if (!c.dynamic) {
      c.m = std::stoll(m[3]);
      out.push_back(std::move(c));
      continue;
    }
    for (int64_t shard : dynamicShards) {
      Case one = c;
      one.m = shard;
      out.push_back(std::move(one));
    }
  }
  return out;
}

/// Reads the bundle and checks it against the contract.
Status loadCase(Case &c) {
  WEAVE_ASSIGN_OR_RETURN(c.bundle, readBundleFile(c.path));
  c.kernel = findKernel(c.bundle, kOwnerKernel) ? kOwnerKernel : kKernel;
  WEAVE_ASSIGN_OR_RETURN(const KernelInfo *kernel,
                         contractKernel(c.bundle, c.kernel));
  WEAVE_TRY(expectUserParamCount(*kernel, 7));
  std::string dt = dtypeName(c.dtype);
  using K = abi::ParamKind;
  WEAVE_ASSIGN_OR_RETURN(const ParamInfo *a,
                         contractParam(*kernel, 0, "a", K::Buffer, dt, 2));
  WEAVE_ASSIGN_OR_RETURN(const ParamInfo *b,
                         contractParam(*kernel, 1, "b", K::Buffer, dt, 2));
  WEAVE_ASSIGN_OR_RETURN(
      const ParamInfo *partial,
      contractParam(*kernel, 2, "partial", K::Buffer, dt, 2));
  WEAVE_ASSIGN_OR_RETURN(const ParamInfo *slots,
                         contractParam(*kernel, 3, "slots", K::Symmetric, dt, 2));
  WEAVE_ASSIGN_OR_RETURN(const ParamInfo *out,
                         contractParam(*kernel, 4, "c", K::Buffer, dt, 2));
  WEAVE_ASSIGN_OR_RETURN(
      const ParamInfo *launches,
      contractParam(*kernel, 5, "launches", K::Buffer, "i64", 1));
  WEAVE_ASSIGN_OR_RETURN(
      const ParamInfo *sems,
      contractParam(*kernel, 6,
                    kernel->params.size() > 6 && kernel->params[6].name == "flags"
                        ? "flags"
                        : "barrier",
                    K::Semaphore, "", -1));
  c.k = a->shape[1];
  c.n = b->shape[1];
  c.semaphores = sems->semaphoreCount;
  int64_t rows = c.d * c.m;
  auto rowsAre = [](const ParamInfo *p, int64_t want) {
    return p->shape[0] == abi::kDynamicDim || p->shape[0] == want;
  };
  if (!rowsAre(a, rows) || b->shape[0] != c.k || !rowsAre(partial, rows) ||
      partial->shape[1] != c.n || slots->shape[0] != abi::kDynamicDim ||
      slots->shape[1] != c.n || !rowsAre(out, c.m) || out->shape[1] != c.n ||
      launches->shape[0] != 1 || sems->semaphoreCount == 0 ||
      (sems->name == "barrier" && sems->semaphoreCount != 2) ||
      c.m % kRowTile != 0)
    return Error(ErrorCode::InvalidBundle,
                 "shapes a " + shapeText(a->shape) + ", b " +
                     shapeText(b->shape) + ", slots " + shapeText(slots->shape) +
                     ", c " + shapeText(out->shape) +
                     " are not a [D*m,K], b [K,N], slots [?,N], c [m,N] for D=" +
                     std::to_string(c.d) + ", m=" + std::to_string(c.m) +
                     " (a multiple of 128)");
  if (kernel->teamSize != 0 && kernel->teamSize != c.d)
    return Error(ErrorCode::InvalidBundle,
                 "the kernel was compiled for a team of " +
                     std::to_string(kernel->teamSize) +
                     ", the file name says " + std::to_string(c.d));
  return ok();
}

uint64_t seedFor(const Options &o, const Case &c, uint64_t rank,
                 uint64_t tensor) {
  uint64_t h = o.seed * 0x100000001b3ull;
  for (uint64_t v : {uint64_t(c.dtype), uint64_t(c.d), uint64_t(c.m),
                     uint64_t(c.k), uint64_t(c.n), rank, tensor})
    h = (h ^ v) * 0x100000001b3ull;
  return h;
}

struct Context {
  examples::HostSession session;
  bool loopback = false;
  std::vector<CublasHandle> cublas;
  std::vector<NcclComms> nccl; ///< empty: no NCCL baseline
  std::string ncclNote;
  std::vector<TimedStream> timed;
  /// --op: the ops' communicator (kernels from --bundles); made once the
  /// context has its final address (it keeps the team and heap's).
  std::unique_ptr<ops::Communicator> comm;
};

/// Times `enqueue` (one iteration's work on `streams`, a prefix of the
/// session's): replays of one CUDA graph per member (examples::TeamGraphs,
/// captured once outside the timing; a member with no work replays an
/// empty graph), or (without graphs) the work enqueued directly.
Expected<TimingResult> timeWork(const Options &o, Context &ctx,
                                const std::vector<TimedStream> &streams,
                                const std::function<Status()> &enqueue) {
  if (!o.graphs)
    return timeIterations(streams, [&](int) { return enqueue(); }, o.timing);
  const examples::LocalStreams &all = ctx.session.streams;
  WEAVE_ASSIGN_OR_RETURN(TeamGraphs graphs,
                         TeamGraphs::capture(ctx.session.team, all, enqueue));
  Expected<TimingResult> t = timeIterations(
      streams, [&](int) { return graphs.launch(all); }, o.timing);
  // The graphs are destroyed after their replays have run.
  WEAVE_TRY(waitStreams(ctx.timed, o.timing.timeoutSeconds));
  return t;
}

/// Rounds `value` to the dtype and back.
double roundTo(DType dtype, double value) {
  return toFloat(dtype, fromFloat(dtype, static_cast<float>(value)));
}

Result runCase(const Options &o, const Case &c, Context &ctx) {
  Result r;
  r.c = &c;
  std::string label = "m_shard " + std::to_string(c.m) + " " +
                      dtypeName(c.dtype) + " on a team of " +
                      std::to_string(c.d);
  auto fail = [&](const Error &e) {
    if (e.code() == ErrorCode::Timeout)
      abandon(kProgram, label + ": " + e.toString());
    r.status = "ERROR";
    std::fprintf(stderr, "%s: %s: error: %s\n", kProgram, label.c_str(),
                 e.toString().c_str());
    return r;
  };
#define TRY(expr)                                                              \
  do {                                                                         \
    if (Status s_ = (expr); !s_)                                               \
      return fail(s_.error());                                                 \
  } while (false)

  Team &team = ctx.session.team;
  SymmetricHeap &heap = ctx.session.heap;
  const std::vector<CUstream> &streams = ctx.session.streams.get();
  size_t local = team.localCount();
  std::string dtype = dtypeName(c.dtype);
  const int64_t rows = c.d * c.m;

  Expected<Kernel> kernel = examples::loadKernel(team, c.bundle, c.kernel);
  if (!kernel)
    return fail(kernel.error());
  Expected<SymmetricBuffer> slots =
      heap.allocateTensor(dtype, {2 * rows, c.n});
  if (!slots)
    return fail(slots.error());
  Expected<SemaphoreArray> semaphores = heap.allocateSemaphores(c.semaphores);
  if (!semaphores)
    return fail(semaphores.error());
  // Both go back to the heap when the case ends (after its work), so that
  // the heap sized for the largest case holds every case in turn.
  struct Release {
    SymmetricHeap &heap;
    const std::vector<TimedStream> &timed;
    double timeoutSeconds;
    SymmetricBuffer slots;
    SemaphoreArray semaphores;
    ~Release() {
      (void)waitStreams(timed, timeoutSeconds);
      (void)heap.free(slots);
      (void)heap.free(semaphores);
    }
  } release{heap, ctx.timed, o.timing.timeoutSeconds, *slots, *semaphores};
  Expected<LocalBuffers> a = LocalBuffers::create(team, dtype, {rows, c.k});
  Expected<LocalBuffers> b = LocalBuffers::create(team, dtype, {c.k, c.n});
  Expected<LocalBuffers> partial =
      LocalBuffers::create(team, dtype, {c.dynamic ? kRowTile : rows, c.n});
  Expected<LocalBuffers> launches = LocalBuffers::create(team, "i64", {1});
  Expected<LocalBuffers> out = LocalBuffers::create(team, dtype, {c.m, c.n});
  // cuBLAS's partial product in the dtype (the NCCL path's input and the
  // check's reference), and the NCCL path's reduce-scattered rows.
  Expected<LocalBuffers> cublasPartial =
      LocalBuffers::create(team, dtype, {rows, c.n});
  Expected<LocalBuffers> ncclOut = LocalBuffers::create(team, dtype, {c.m, c.n});
  for (auto *buf : {&a, &b, &partial, &launches, &out, &cublasPartial, &ncclOut})
    if (!*buf)
      return fail(buf->error());

  // Inputs of every member, kept on the host for the float64 samples.
  std::vector<std::vector<uint16_t>> hostA(local), hostB(local);
  for (size_t i = 0; i < local; ++i) {
    uint32_t rank = team.rankOf(i);
    hostA[i] = randomValues(c.dtype, rows * c.k, seedFor(o, c, rank, 0));
    hostB[i] = randomValues(c.dtype, c.k * c.n, seedFor(o, c, rank, 1));
    TRY(a->upload(i, hostA[i].data()));
    TRY(b->upload(i, hostB[i].data()));
    TRY(team.device(i).makeCurrent());
    TRY(checkDriver(cuMemsetD32Async(launches->pointer(i), 0, 2, streams[i]),
                    "zeroing the launch count"));
    TRY(checkDriver(
        cuMemsetD16Async(out->pointer(i), kPoison16, c.m * c.n, streams[i]),
        "poisoning c"));
    TRY(checkDriver(
        cuMemsetD16Async(ncclOut->pointer(i), kPoison16, c.m * c.n, streams[i]),
        "poisoning the NCCL output"));
    TRY(checkDriver(cuMemsetD16Async(cublasPartial->pointer(i), kPoison16,
                                     rows * c.n, streams[i]),
                    "poisoning the cuBLAS partial"));
  }
  TRY(waitStreams(ctx.timed, o.timing.timeoutSeconds));

  std::vector<KernelArg> args{a->args(),   b->args(),        partial->args(),
                              *slots,      out->args(),      launches->args(),
                              *semaphores};
  auto launch = [&]() { return kernel->launch(heap, args, streams); };
  // The tensor-map tables are written by the first binding (synchronous
  // copies): bind before anything is timed.
  TRY(kernel->prepare(heap, args));
  TRY(launch());
  for (size_t i = 0; i < local; ++i)
    TRY(gemmRowMajor(ctx.cublas[i], c.dtype, rows, c.n, c.k, a->pointer(i),
                     b->pointer(i), cublasPartial->pointer(i), streams[i],
                     Reduction::Fp32));
  TRY(waitStreams(ctx.timed, o.timing.timeoutSeconds));

  // The partials of every member (host), by rank.
  std::vector<std::vector<uint16_t>> partials(c.d);
  std::vector<size_t> localOf(c.d);
  for (size_t i = 0; i < local; ++i) {
    uint32_t rank = team.rankOf(i);
    localOf[rank] = i;
    partials[rank].resize(rows * c.n);
    TRY(cublasPartial->download(i, partials[rank].data()));
  }

  // The NCCL path, for real where there is NCCL and a physical team.
#if WEAVE_BENCH_HAVE_NCCL
  if (!ctx.nccl.empty()) {
    const NcclComms &comms = ctx.nccl.front();
    ncclDataType_t type = c.dtype == DType::BF16 ? ncclBfloat16 : ncclFloat16;
    ncclResult_t g = ncclGroupStart();
    for (size_t i = 0; i < local && g == ncclSuccess; ++i)
      g = ncclReduceScatter(
          reinterpret_cast<const void *>(cublasPartial->pointer(i)),
          reinterpret_cast<void *>(ncclOut->pointer(i)), c.m * c.n, type,
          ncclSum, comms[i], streams[i]);
    ncclResult_t e = ncclGroupEnd();
    if (g != ncclSuccess || e != ncclSuccess)
      return fail(Error(ErrorCode::DriverError,
                        std::string("ncclReduceScatter failed: ") +
                            ncclGetErrorString(g != ncclSuccess ? g : e)));
    TRY(waitStreams(ctx.timed, o.timing.timeoutSeconds));
    r.ncclReal = true;
  }
#endif

  // The check: every element of every member's c against the cuBLAS
  // partials summed in float64, rounded once.
  Tolerance tolerance = defaultTolerance(c.dtype);
  bool correct = true;
  std::vector<uint16_t> got(c.m * c.n), ref(c.m * c.n), viaNccl(c.m * c.n);
  // Member d's rows of the sum into `ref`.
  auto reference = [&](uint32_t d) {
    parallelChunks(c.m * c.n, [&](unsigned, size_t begin, size_t end) {
      for (size_t e = begin; e < end; ++e) {
        double sum = 0;
        for (int64_t s = 0; s < c.d; ++s)
          sum += toFloat(c.dtype, partials[s][d * c.m * c.n + e]);
        ref[e] = fromFloat(c.dtype, static_cast<float>(sum));
      }
    });
  };
  for (size_t i = 0; i < local; ++i) {
    uint32_t d = team.rankOf(i);
    TRY(out->download(i, got.data()));
    if (r.ncclReal)
      TRY(ncclOut->download(i, viaNccl.data()));
    reference(d);
    Comparison cmp = compare(c.dtype, got.data(), ref.data(), got.size(),
                             tolerance);
    if (!cmp.passed) {
      std::fprintf(stderr, "%s: %s: rank %u: %s; worst at [%zu, %zu]: ours "
                   "%g, reference %g\n",
                   kProgram, label.c_str(), d, cmp.summary().c_str(),
                   cmp.worstIndex / c.n, cmp.worstIndex % c.n, cmp.worstOurs,
                   cmp.worstRef);
      correct = false;
    }
    if (i == 0 || cmp.relFrobenius > r.check.relFrobenius)
      r.check = cmp;

    // Numerics at sampled positions of this member's rows.
    std::mt19937_64 rng(seedFor(o, c, d, 2));
    for (int s = 0; s < o.samples; ++s) {
      int64_t row = static_cast<int64_t>(rng() % c.m);
      int64_t col = static_cast<int64_t>(rng() % c.n);
      int64_t global = d * c.m + row;
      double exact = 0;
      for (int64_t src = 0; src < c.d; ++src) {
        const std::vector<uint16_t> &A = hostA[localOf[src]];
        const std::vector<uint16_t> &B = hostB[localOf[src]];
        for (int64_t k = 0; k < c.k; ++k)
          exact += double(toFloat(c.dtype, A[global * c.k + k])) *
                   toFloat(c.dtype, B[k * c.n + col]);
      }
      size_t e = row * c.n + col;
      r.fused.add(toFloat(c.dtype, got[e]), exact);
      double ring;
      if (r.ncclReal) {
        ring = toFloat(c.dtype, viaNccl[e]);
      } else {
        // NCCL's ring: member d's rows start at d + 1 and end at d, each
        // addition rounded to the dtype.
        size_t at = global * c.n + col;
        ring = toFloat(c.dtype, partials[(d + 1) % c.d][at]);
        for (int64_t step = 2; step <= c.d; ++step)
          ring = roundTo(c.dtype,
                         ring + toFloat(c.dtype,
                                        partials[(d + step) % c.d][at]));
      }
      r.viaNccl.add(ring, exact);
    }
  }
  r.status = correct ? "ok" : "WRONG";

  // The copy-engine design (--ce): its bundles beside the fused ones.
  using mrs::CeParts;
  using mrs::CeVariant;
  std::unique_ptr<mrs::CopyEngineDesign> ce;
  // Every member's c (`download` puts member i's into `got`) against the
  // reference above; a wrong one prints a line naming `who` and makes
  // `status` "WRONG (what)"; `worst` keeps the largest error.
  auto checkMembers = [&](const std::string &who, const std::string &what,
                          const std::function<Status(size_t)> &download,
                          std::string &status, Comparison &worst) -> Status {
    bool good = true;
    for (size_t i = 0; i < local; ++i) {
      uint32_t d = team.rankOf(i);
      WEAVE_TRY(download(i));
      reference(d);
      Comparison cmp =
          compare(c.dtype, got.data(), ref.data(), got.size(), tolerance);
      if (!cmp.passed) {
        std::fprintf(stderr,
                     "%s: %s: %s, %s: rank %u: %s; worst at [%zu, %zu]: "
                     "ours %g, reference %g\n",
                     kProgram, label.c_str(), who.c_str(), what.c_str(), d,
                     cmp.summary().c_str(), cmp.worstIndex / c.n,
                     cmp.worstIndex % c.n, cmp.worstOurs, cmp.worstRef);
        good = false;
      }
      if (cmp.relFrobenius >= worst.relFrobenius)
        worst = cmp;
    }
    if (!good && status.rfind("WRONG", 0) != 0)
      status = "WRONG (" + what + ")";
    return ok();
  };
  // Every member's c of the design.
  auto checkCe = [&](const std::string &what) -> Status {
    return checkMembers(
        "copy-engine design", what,
        [&](size_t i) { return ce->out().download(i, got.data()); },
        r.ceStatus, r.ceCheck);
  };
  if (o.ce) {
    std::string dir = o.bundleDir + "/";
    std::string cePath = dir + "ce_matmul_" + dtype + "_d" +
                         std::to_string(c.d) + "_mdyn_k" + std::to_string(c.k) +
                         "_n" + std::to_string(c.n) + ".wbundle";
    Expected<Bundle> ceBundle = readBundleFile(cePath);
    Expected<std::unique_ptr<mrs::CopyEngineDesign>> made =
        ceBundle
            ? mrs::CopyEngineDesign::create(team, heap, ctx.timed,
                                            std::move(*ceBundle), c.dtype, c.d,
                                            c.m, c.k, c.n, a->args(), b->args())
            : Expected<std::unique_ptr<mrs::CopyEngineDesign>>(
                  ceBundle.error());
    if (!made) {
      r.ceStatus = "ERROR";
      r.ceNote = made.error().toString();
      std::fprintf(stderr, "%s: %s: copy-engine design: %s\n", kProgram,
                   label.c_str(), r.ceNote.c_str());
    } else {
      ce = std::move(*made);
      r.ceStatus = "ok";
      // Each variant once from NaN-poisoned buffers, then three back to
      // back with no host synchronization. A failure here is the design's
      // (reported in its table), not the fused kernel's case.
      Status checked = [&]() -> Status {
        for (CeVariant v : {CeVariant::Copy, CeVariant::Direct})
          for (int times : {1, 3}) {
            WEAVE_TRY(ce->poison());
            for (int t = 0; t < times; ++t)
              WEAVE_TRY(ce->enqueue(v, CeParts{}));
            WEAVE_TRY(waitStreams(ctx.timed, o.timing.timeoutSeconds));
            WEAVE_TRY(checkCe(std::string(mrs::ceVariantName(v)) + " x" +
                              std::to_string(times)));
          }
        return ok();
      }();
      if (!checked) {
        if (checked.error().code() == ErrorCode::Timeout)
          abandon(kProgram, label + ": " + checked.error().toString());
        r.ceStatus = "ERROR";
        r.ceNote = checked.error().toString();
        std::fprintf(stderr, "%s: %s: copy-engine design: %s\n", kProgram,
                     label.c_str(), r.ceNote.c_str());
        TRY(waitStreams(ctx.timed, o.timing.timeoutSeconds));
        ce.reset();
      }
    }
  }
  // The op itself (--op): one ops::MatmulReduceScatter per asked algorithm,
  // each into a c of its own, checked before it is timed.
  std::vector<std::optional<ops::MatmulReduceScatter>> opObjects(o.ops.size());
  std::vector<std::optional<LocalBuffers>> opOuts(o.ops.size());
  std::vector<std::optional<TeamGraphs>> opGraphs(o.ops.size());
  // Destroyed first: the ops' work is done before they go.
  struct Drain {
    const std::vector<TimedStream> &timed;
    double timeoutSeconds;
    ~Drain() { (void)waitStreams(timed, timeoutSeconds); }
  } drainOps{ctx.timed, o.timing.timeoutSeconds};
  r.ops.resize(o.ops.size());
  std::vector<ops::TensorRef> opA, opB;
  for (size_t i = 0; i < local; ++i) {
    opA.push_back({a->pointer(i), dtype, {rows, c.k}});
    opB.push_back({b->pointer(i), dtype, {c.k, c.n}});
  }
  auto opCall = [&](size_t x) -> Status {
    std::vector<ops::TensorRef> opC;
    for (size_t i = 0; i < local; ++i)
      opC.push_back({opOuts[x]->pointer(i), dtype, {c.m, c.n}});
    return (*opObjects[x])(opA, opB, opC, streams);
  };
  auto poisonOp = [&](size_t x) -> Status {
    for (size_t i = 0; i < local; ++i) {
      WEAVE_TRY(team.device(i).makeCurrent());
      WEAVE_TRY(checkDriver(cuMemsetD16Async(opOuts[x]->pointer(i), kPoison16,
                                             c.m * c.n, streams[i]),
                            "poisoning the op's c"));
    }
    return ok();
  };
  // Waits, then every member's c of op x against the reference; a wrong
  // one makes the op's status "WRONG (what)".
  auto checkOp = [&](size_t x, const std::string &what) -> Status {
    Result::OpRun &run = r.ops[x];
    // (Which of the checks did not finish: a hang says where it is.)
    if (Status waited = waitStreams(ctx.timed, o.timing.timeoutSeconds);
        !waited)
      return Error(waited.error().code(),
                   "the check '" + what + "': " + waited.error().message());
    return checkMembers(
        "op (" + run.algorithm + ")", what,
        [&](size_t i) { return opOuts[x]->download(i, got.data()); },
        run.status, run.check);
  };
  for (size_t x = 0; x < o.ops.size(); ++x) {
    Result::OpRun &run = r.ops[x];
    run.algorithm = o.ops[x];
    Status checked = [&]() -> Status {
      const std::string &algorithm = run.algorithm;
      Expected<ops::MatmulReduceScatter> made =
          ops::MatmulReduceScatter::create(*ctx.comm, dtype, c.m, c.k, c.n,
                                           algorithm);
      if (!made)
        return made.error();
      ops::MatmulReduceScatter op = std::move(*made);
      if (op.algorithm() != algorithm)
        return Error(ErrorCode::InvalidArgument,
                     "asked for algorithm " + algorithm + ", the op runs " +
                         op.algorithm());
      opObjects[x].emplace(std::move(op));
      WEAVE_ASSIGN_OR_RETURN(LocalBuffers buffer,
                             LocalBuffers::create(team, dtype, {c.m, c.n}));
      opOuts[x].emplace(std::move(buffer));
      run.status = "ok";
      // Once, then three calls with no host synchronization, each from a
      // poisoned c; then three replays of one captured call.
      for (int times : {1, 3}) {
        WEAVE_TRY(poisonOp(x));
        for (int t = 0; t < times; ++t)
          WEAVE_TRY(opCall(x));
        WEAVE_TRY(checkOp(x, "x" + std::to_string(times)));
      }
      WEAVE_ASSIGN_OR_RETURN(TeamGraphs graphs,
                             TeamGraphs::capture(team, ctx.session.streams,
                                                 [&] { return opCall(x); }));
      opGraphs[x].emplace(std::move(graphs));
      WEAVE_TRY(poisonOp(x));
      for (int t = 0; t < 3; ++t)
        WEAVE_TRY(opGraphs[x]->launch(ctx.session.streams));
      return checkOp(x, "graph x3");
    }();
    if (!checked) {
      if (checked.error().code() == ErrorCode::Timeout)
        abandon(kProgram, label + ": " + checked.error().toString());
      run.status = "ERROR";
      run.note = checked.error().toString();
      std::fprintf(stderr, "%s: %s: op (%s): %s\n", kProgram, label.c_str(),
                   run.algorithm.c_str(), run.note.c_str());
      TRY(waitStreams(ctx.timed, o.timing.timeoutSeconds));
      opGraphs[x].reset();
      opObjects[x].reset();
    }
  }
  if (o.checkOnly)
    return r;

  // Timings, in rotated rounds.
  std::vector<std::function<Expected<TimingResult>()>> timers;
  std::vector<std::optional<TimingResult> *> results;
  timers.push_back([&]() { return timeWork(o, ctx, ctx.timed, launch); });
  results.push_back(&r.ours);
  timers.push_back([&]() {
    return timeWork(o, ctx, {ctx.timed.front()}, [&]() {
      return gemmRowMajor(ctx.cublas[0], c.dtype, rows, c.n, c.k,
                          a->pointer(0), b->pointer(0),
                          cublasPartial->pointer(0), streams[0],
                          Reduction::Default);
    });
  });
  results.push_back(&r.local);

  // Weave's plain matmul of the same shape, on one member.
  std::optional<Kernel> plain;
  std::optional<LocalBuffers> plainOut;
  if (c.d == 1) {
    std::string path = o.matmulDir + "/matmul_" + dtype + "_" +
                       std::to_string(c.m) + "x" + std::to_string(c.n) + "x" +
                       std::to_string(c.k) + ".wbundle";
    Expected<Bundle> bundle = readBundleFile(path);
    Expected<Kernel> k = bundle ? examples::loadKernel(team, std::move(*bundle),
                                                       "matmul")
                                : Expected<Kernel>(bundle.error());
    Expected<LocalBuffers> buffer =
        LocalBuffers::create(team, dtype, {c.m, c.n});
    if (k && buffer) {
      plain.emplace(std::move(*k));
      plainOut.emplace(std::move(*buffer));
      timers.push_back([&]() {
        std::vector<KernelArg> plainArgs{a->args(), b->args(),
                                         plainOut->args()};
        return timeWork(o, ctx, ctx.timed, [&]() {
          return plain->launch(heap, plainArgs, streams);
        });
      });
      results.push_back(&r.plain);
    } else {
      r.plainNote = "no plain matmul: " +
                    (k ? buffer.error() : k.error()).toString();
    }
  }
#if WEAVE_BENCH_HAVE_NCCL
  if (!ctx.nccl.empty()) {
    timers.push_back([&]() {
      const NcclComms &comms = ctx.nccl.front();
      ncclDataType_t type =
          c.dtype == DType::BF16 ? ncclBfloat16 : ncclFloat16;
      auto enqueue = [&]() -> Status {
        for (size_t i = 0; i < local; ++i)
          WEAVE_TRY(gemmRowMajor(ctx.cublas[i], c.dtype, rows, c.n, c.k,
                                 a->pointer(i), b->pointer(i),
                                 cublasPartial->pointer(i), streams[i],
                                 Reduction::Default));
        ncclResult_t g = ncclGroupStart();
        for (size_t i = 0; i < local && g == ncclSuccess; ++i)
          g = ncclReduceScatter(
              reinterpret_cast<const void *>(cublasPartial->pointer(i)),
              reinterpret_cast<void *>(ncclOut->pointer(i)), c.m * c.n, type,
              ncclSum, comms[i], streams[i]);
        ncclResult_t e = ncclGroupEnd();
        if (g != ncclSuccess || e != ncclSuccess)
          return Error(ErrorCode::DriverError,
                       std::string("ncclReduceScatter failed: ") +
                           ncclGetErrorString(g != ncclSuccess ? g : e));
        return ok();
      };
      // Direct launches, not graphs: NCCL's capture of one process driving
      // every GPU is not what a tensor-parallel job does (one process per
      // GPU; torch_fused.py times that in graphs). The host-flag hold of
      // timeIterations keeps launch overhead out of the spans.
      return timeIterations(ctx.timed, [&](int) { return enqueue(); },
                            o.timing);
    });
    results.push_back(&r.nccl);
  }
#endif
  // The copy-engine design's timers: graphs over every device, captured
  // once (a capture that fails is reported and timed enqueued directly).
  std::vector<std::unique_ptr<mrs::CopyEngineDesign::Graph>> ceGraphs;
  mrs::CopyEngineDesign::Graph *copyGraph = nullptr;
  if (ce && r.ceStatus == "ok") {
    struct Timed {
      CeVariant v;
      CeParts parts;
      bool graph;
      std::optional<TimingResult> *into;
    };
    std::vector<Timed> list{
        {CeVariant::Copy, CeParts{}, true, &r.ceGraph},
        {CeVariant::Copy, CeParts{}, false, &r.ceEager},
        {CeVariant::Direct, CeParts{}, true, &r.directGraph},
        {CeVariant::Copy, CeParts{false, false, true}, true, &r.chunksOnly},
        {CeVariant::Copy, CeParts{true, false, false}, true, &r.copiesOnly}};
    for (const Timed &t : list) {
      mrs::CopyEngineDesign::Graph *graph = nullptr;
      if (t.graph && o.graphs) {
        Expected<std::unique_ptr<mrs::CopyEngineDesign::Graph>> g =
            ce->capture(t.v, t.parts);
        if (g) {
          ceGraphs.push_back(std::move(*g));
          graph = ceGraphs.back().get();
          if (t.into == &r.ceGraph)
            copyGraph = graph;
        } else if (r.ceNote.empty()) {
          r.ceNote = "graph capture failed, timed enqueued directly: " +
                     g.error().toString();
          std::fprintf(stderr, "%s: %s: %s\n", kProgram, label.c_str(),
                       r.ceNote.c_str());
        }
      }
      mrs::CopyEngineDesign *design = ce.get();
      if (graph)
        timers.push_back([&o, graph]() {
          return timeIterations(
              {graph->stream()}, [graph](int) { return graph->launch(); },
              o.timing);
        });
      else
        timers.push_back([&o, &ctx, design, t]() {
          return timeIterations(
              ctx.timed,
              [design, t](int) { return design->enqueue(t.v, t.parts); },
              o.timing);
        });
      results.push_back(t.into);
    }
  }
  // The op (--op): a replay of its graphs per iteration, or the call.
  for (size_t x = 0; x < o.ops.size(); ++x) {
    if (r.ops[x].status != "ok")
      continue;
    if (o.graphs)
      timers.push_back([&, x]() {
        return timeIterations(
            ctx.timed,
            [&, x](int) { return opGraphs[x]->launch(ctx.session.streams); },
            o.timing);
      });
    else
      timers.push_back([&, x]() {
        return timeIterations(
            ctx.timed, [&, x](int) { return opCall(x); }, o.timing);
      });
    results.push_back(&r.ops[x].time);
  }
  Expected<std::vector<TimingResult>> timings = timeInRounds(o.rounds, timers);
  if (!timings)
    return fail(timings.error());
  for (size_t t = 0; t < results.size(); ++t)
    *results[t] = (*timings)[t];

  // The timed launches must still be right: c again against the reference
  // of the last member checked is not enough, so check member 0 again.
  TRY(waitStreams(ctx.timed, o.timing.timeoutSeconds));
  TRY(out->download(0, got.data()));
  {
    uint32_t d = team.rankOf(0);
    reference(d);
    Comparison again = compare(c.dtype, got.data(), ref.data(), got.size(),
                               tolerance);
    if (!again.passed) {
      std::fprintf(stderr, "%s: %s: after the timed launches: %s\n", kProgram,
                   label.c_str(), again.summary().c_str());
      r.status = "WRONG (timed)";
    }
  }
  // The op again after its timings: one call from a poisoned c.
  for (size_t x = 0; x < o.ops.size(); ++x) {
    if (r.ops[x].status != "ok")
      continue;
    TRY(poisonOp(x));
    TRY(opCall(x));
    TRY(checkOp(x, "after the timings"));
  }
  // The copy-engine design again after its timings: three graph replays
  // back to back (when it has a graph), from poisoned buffers.
  if (ce && r.ceStatus == "ok" && copyGraph) {
    Status replayed = [&]() -> Status {
      WEAVE_TRY(ce->poison());
      for (int t = 0; t < 3; ++t)
        WEAVE_TRY(copyGraph->launch());
      WEAVE_TRY(waitStreams(ctx.timed, o.timing.timeoutSeconds));
      return checkCe("copy graph x3");
    }();
    if (!replayed) {
      r.ceStatus = "ERROR (graph replays)";
      r.ceNote = replayed.error().toString();
    }
  }
  return r;
#undef TRY
}

std::string ms(const std::optional<TimingResult> &t) {
  return t ? formatMs(t->medianMs, 4) : "-";
}

std::string ratio(const std::optional<TimingResult> &x,
                  const std::optional<TimingResult> &y, double scale = 1) {
  return x && y ? strprintf("%.3f", x->medianMs / (scale * y->medianMs)) : "-";
}

} // namespace

int main(int argc, char **argv) {
  // Never NVLink multicast (NVLS).
  ::setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0);
  Options o = parseOptions(argc, argv);
  std::vector<Case> found = findBundles(o);
  if (found.empty()) {
    // Every case is keyed by the fused kernel's bundle, --op copy_engine's
    // too (its table times the fused kernel beside the op): a folder of
    // copy-engine bundles alone is the mistake to name.
    static const std::regex ce("ce_matmul_(f16|bf16)_d[0-9]+_.*\\.wbundle");
    bool ceOnly = !findBundleFiles(o.bundleDir, ce).empty();
    std::fprintf(
        stderr,
        "%s: error: no bundles in '%s' (expected "
        "matmul_reduce_scatter_<f16|bf16>_d<D>_m<M_SHARD>.wbundle or "
        "matmul_reduce_scatter_<f16|bf16>_d<D>_mdyn_k<K>_n<N>.wbundle; "
        "`ninja weave_bench_bundles` makes the first, bench/gpu_libs.sh's "
        "op_bundle ... matmul_reduce_scatter --algorithm owner_slots the "
        "second)%s\n",
        kProgram, o.bundleDir.c_str(),
        ceOnly ? "; the folder has ce_matmul bundles, but --op copy_engine "
                 "needs the fused kernel's bundle of the same shape beside "
                 "them"
               : "");
    return 2;
  }
  if (checkCases(kProgram, found, loadCase))
    return 2;

  Expected<uint32_t> loopback = loopbackMembersFromEnvironment();
  if (!loopback) {
    std::fprintf(stderr, "%s: error: %s\n", kProgram,
                 loopback.error().toString().c_str());
    return 2;
  }
  int count = visibleGpusOrExit(kProgram, 1);
  int d = o.devices ? o.devices : (*loopback ? int(*loopback) : count);
  if ((*loopback && d != int(*loopback)) || d < 1 ||
      (!*loopback && d > count)) {
    std::fprintf(stderr,
                 "%s: error: --devices %d, %d GPUs, WEAVE_LOOPBACK_TEAM=%u\n",
                 kProgram, d, count, *loopback);
    return 2;
  }

  std::vector<Case> cases;
  for (Case &c : found) {
    bool wanted =
        c.d == d &&
        std::find(o.dtypes.begin(), o.dtypes.end(), c.dtype) !=
            o.dtypes.end() &&
        (o.mShards.empty() ||
         std::find(o.mShards.begin(), o.mShards.end(), c.m) != o.mShards.end());
    if (wanted)
      cases.push_back(std::move(c));
  }
  if (cases.empty()) {
    std::fprintf(stderr,
                 "%s: error: no bundle in '%s' for D=%d and the asked dtypes "
                 "and m_shards\n",
                 kProgram, o.bundleDir.c_str(), d);
    return 2;
  }
  // One case's slots at a time (runCase frees them).
  size_t heapBytes = 0;
  for (const Case &c : cases)
    heapBytes = std::max(heapBytes,
                         SymmetricHeap::occupiedBytes(
                             static_cast<size_t>(2 * c.d * c.m * c.n) * 2));
  // --op: each op's symmetric workspace (at most 2 x D*m_shard rows of
  // slots, owner_slots', and its semaphores), every op of a case alive at
  // once.
  heapBytes += o.ops.size() * (heapBytes + (2 << 20));

  examples::TeamRequest request;
  request.program = kProgram;
  request.allowMultiProcess = false;
  request.minDevices = request.maxDevices = static_cast<uint32_t>(d);
  request.heapBytes = heapBytes + (4 << 20);
  Expected<examples::HostSession> session = examples::createSession(request);
  if (!session)
    return examples::reportError(kProgram, session.error());
  Context ctx{std::move(*session), *loopback != 0, {}, {}, {}, {}, {}};
  Team &team = ctx.session.team;
  ctx.timed = timedStreams(team, ctx.session.streams.get());
  if (!o.ops.empty())
    ctx.comm = std::make_unique<ops::Communicator>(
        team, ctx.session.heap, ops::bundleFolder(o.bundleDir));
  Expected<std::vector<CublasHandle>> cublas = CublasHandle::forTeam(team);
  if (!cublas)
    return examples::reportError(kProgram, cublas.error());
  ctx.cublas = std::move(*cublas);
  // The NCCL baseline needs one GPU per rank: not on a loopback team or one
  // GPU.
  if (ctx.loopback || d < 2) {
    ctx.ncclNote = "cuBLAS + NCCL reduce-scatter skipped: it needs 2+ GPUs, "
                   "one per rank (this run: " +
                   std::string(ctx.loopback ? "a loopback team" : "one GPU") +
                   "); its numerics are emulated on the host";
  } else {
#if WEAVE_BENCH_HAVE_NCCL
    if (o.nccl) {
      std::vector<int> ordinals;
      for (size_t i = 0; i < team.localCount(); ++i)
        ordinals.push_back(team.device(i).ordinal());
      Expected<NcclComms> comms = NcclComms::create(ordinals);
      if (!comms)
        return examples::reportError(kProgram, comms.error());
      ctx.nccl.push_back(std::move(*comms));
      int version = 0;
      ncclGetVersion(&version);
      ctx.ncclNote = "NCCL " + std::to_string(version);
    } else {
      ctx.ncclNote = "NCCL baseline off (--no-nccl); numerics emulated";
    }
#else
    ctx.ncclNote = "built without NCCL: no NCCL baseline; numerics emulated";
#endif
  }

  std::vector<Result> results;
  for (const Case &c : cases) {
    std::fprintf(stderr, "%s: m_shard %lld %s, team of %d ...\n", kProgram,
                 static_cast<long long>(c.m), dtypeName(c.dtype), d);
    results.push_back(runCase(o, c, ctx));
  }

  // Loopback members share one GPU: ours does D members' work there.
  double share = ctx.loopback ? d : 1;
  Table times({"m_shard", "K", "N", "D", "dtype", "ours ms", "local cuBLAS ms",
               "plain matmul ms", "cuBLAS+NCCL ms", "ours/local",
               "ours/plain", "NCCL/ours", "check"});
  Table numerics({"m_shard", "K", "N", "D", "dtype", "fused rel err", "fused max |err|",
                  "NCCL-path rel err", "NCCL-path max |err|", "NCCL path",
                  "check vs cuBLAS partials"});
  int wrong = 0, wrongCe = 0;
  for (const Result &r : results) {
    const Case &c = *r.c;
    wrong += r.status != "ok";
    times.addRow({std::to_string(c.m), std::to_string(c.k), std::to_string(c.n),
                  std::to_string(c.d), dtypeName(c.dtype),
                  ms(r.ours), ms(r.local), ms(r.plain), ms(r.nccl),
                  ratio(r.ours, r.local, share), ratio(r.ours, r.plain),
                  ratio(r.nccl, r.ours), r.status});
    bool checked = r.status != "ERROR" && r.status != "not run";
    numerics.addRow(
        {std::to_string(c.m), std::to_string(c.k), std::to_string(c.n),
         std::to_string(c.d), dtypeName(c.dtype),
         checked ? strprintf("%.3e", r.fused.relFrobenius()) : "-",
         checked ? strprintf("%.3e", r.fused.maxAbs) : "-",
         checked ? strprintf("%.3e", r.viaNccl.relFrobenius()) : "-",
         checked ? strprintf("%.3e", r.viaNccl.maxAbs) : "-",
         r.ncclReal ? "NCCL" : "host ring emulation",
         checked ? r.check.summary() : "-"});
    if (!r.plainNote.empty())
      std::fprintf(stderr, "%s: m_shard %lld %s: %s\n", kProgram,
                   static_cast<long long>(c.m), dtypeName(c.dtype),
                   r.plainNote.c_str());
  }
  std::printf("\nweave matmul_reduce_scatter, team of %d%s on %s (K per "
              "member); %s\n",
              d, ctx.loopback ? " (loopback: members share the GPU)" : "",
              team.device(0).name().c_str(), ctx.ncclNote.c_str());
  if (!o.checkOnly) {
    std::printf("timing: CUDA events around each of %d back-to-back "
                "iterations (%s) after %d warm-up ones, in %d rotating round(s), "
                "the longest member, median. local cuBLAS: the partial "
                "product (D*m_shard) x K x N on member 0; plain matmul: "
                "weave's matmul of m_shard x N x K (D = 1).%s\n\n",
                o.timing.iterations,
                o.graphs ? "CUDA graph replays" : "direct launches",
                o.timing.warmup, o.rounds,
                ctx.loopback && d > 1
                    ? " ours/local divides by D local products: the members "
                      "share the GPU; not a speed claim"
                    : "");
    std::printf("%s\n", times.str().c_str());
  }
  // A design's check cell ("ok (the worst error)" or what went wrong) and
  // its note under the tables.
  auto checkCell = [](const std::string &status, const Comparison &worst) {
    return status == "ok" ? status + " (" + worst.summary() + ")" : status;
  };
  auto printNote = [](const Case &c, const std::string &who,
                      const std::string &note) {
    if (!note.empty())
      std::printf("m_shard %lld K %lld N %lld %s: %s: %s\n",
                  static_cast<long long>(c.m), static_cast<long long>(c.k),
                  static_cast<long long>(c.n), dtypeName(c.dtype), who.c_str(),
                  note.c_str());
  };
  if (o.ce) {
    Table ceTimes({"m_shard", "K", "N", "D", "dtype", "ours ms",
                   "local cuBLAS ms", "cuBLAS+NCCL ms", "CE graph ms",
                   "CE eager ms", "direct graph ms", "chunks only ms",
                   "copies only ms", "CE/local", "CE/ours", "NCCL/CE",
                   "CE check"});
    for (const Result &r : results) {
      const Case &c = *r.c;
      wrongCe += r.ceStatus != "ok";
      ceTimes.addRow(
          {std::to_string(c.m), std::to_string(c.k), std::to_string(c.n),
           std::to_string(c.d), dtypeName(c.dtype), ms(r.ours), ms(r.local),
           ms(r.nccl), ms(r.ceGraph), ms(r.ceEager), ms(r.directGraph),
           ms(r.chunksOnly), ms(r.copiesOnly), ratio(r.ceGraph, r.local, share),
           ratio(r.ceGraph, r.ours), ratio(r.nccl, r.ceGraph),
           checkCell(r.ceStatus, r.ceCheck)});
      printNote(c, "copy-engine design", r.ceNote);
    }
    std::printf(
        "copy-engine design (--ce, CopyEngine.h): CE = chunk matmuls "
        "(own last) + copy-engine copies to the owners + the owners' "
        "sum; graph: one CUDA graph over every device, launched on "
        "member 0 (the team's time); eager: enqueued directly, the "
        "longest member; direct: the chunks stored into the owners' "
        "slots by the SMs (no copy); chunks only: the D chunk "
        "matmuls alone (no copy, no sum; not a result); copies only: the "
        "D - 1 copies per member alone (not a result).\n\n%s\n",
        ceTimes.str().c_str());
  }
  int wrongOp = 0;
  if (!o.ops.empty()) {
    Table opTimes({"m_shard", "K", "N", "D", "dtype", "algorithm", "op ms",
                   "local cuBLAS ms", "cuBLAS+NCCL ms", "fused ms",
                   "CE design ms", "op/local", "NCCL/op", "op check"});
    for (const Result &r : results)
      for (const Result::OpRun &run : r.ops) {
        const Case &c = *r.c;
        wrongOp += run.status != "ok";
        opTimes.addRow(
            {std::to_string(c.m), std::to_string(c.k), std::to_string(c.n),
             std::to_string(c.d), dtypeName(c.dtype), run.algorithm,
             ms(run.time), ms(r.local), ms(r.nccl), ms(r.ours), ms(r.ceGraph),
             ratio(run.time, r.local, share), ratio(r.nccl, run.time),
             checkCell(run.status, run.check)});
        printNote(c, "op (" + run.algorithm + ")", run.note);
      }
    std::printf("the op (--op): ops::MatmulReduceScatter with the named "
                "algorithm, one call per iteration (%s), the longest member; "
                "fused: the bench's fused kernel (owner_slots' template); CE "
                "design: --ce's copy graph.\n\n%s\n",
                o.graphs ? "a replay of one CUDA graph per member"
                         : "enqueued directly",
                opTimes.str().c_str());
  }
  std::printf("numerics: error against float64 at %d sampled positions per "
              "member (rel err: ||x - exact|| / ||exact|| over the samples). "
              "fused: partials rounded to the dtype, summed in f32, rounded once. NCCL path: "
              "cuBLAS partials rounded to the dtype, summed in the dtype in "
              "ring order (rounded after every addition).\n\n%s",
              o.samples, numerics.str().c_str());
  std::printf(
      "%s: %zu case(s), %d wrong or failed%s%s\n", kProgram, results.size(),
      wrong,
      o.ce ? strprintf("; copy-engine design: %d wrong or failed", wrongCe)
                 .c_str()
           : "",
      o.ops.empty() ? ""
                    : strprintf("; op: %d wrong or failed", wrongOp).c_str());
  return wrong || wrongCe || wrongOp ? 1 : 0;
}
