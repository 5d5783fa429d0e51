//===- BenchCollectiveMatmul.cpp - AllGather(A) @ B against NCCL + cuBLAS -===//
//
//   weave_bench_collective_matmul [--bundles DIR] [--m-shards 1024,...]
//       [--dtype f16|bf16|all] [--devices D] [--iters N] [--warmup N]
//       [--check-only] [--no-nccl] [--seed S] [--timeout SECONDS] [--no-gate]
//       [--rounds R] [--near-wrap]
//
// One process drives D GPUs (default: every visible one; at least 2), or
// with WEAVE_LOOPBACK_TEAM=D a loopback team of D members on the visible GPUs
// (with --check-only only). For every bundle
// DIR/all_gather_matmul_<dtype>_d<D>_m<M_SHARD>.wbundle, and for every
// --m-shards value each DIR/all_gather_matmul_<dtype>_d<D>_mdyn.wbundle (a
// dynamic row count: one bundle, its m_shard bound at launch):
// random inputs per device (its A shard, its B column shard), poisoned
// outputs, one run of the kernel; every device's C is checked against
// cuBLAS on the full gathered A (built on each device with peer copies of
// every shard) and against float64 dot products at sampled positions. Then
// three timings (CUDA events around each of N back-to-back iterations,
// longest device, median; see bench/support/include/weave/bench/Timing.h;
// with --rounds R, R rounds of the three in rotated order, each median over
// all its rounds):
//   ours          the fused kernel on every device
//   NCCL+cuBLAS   ncclAllGather of the shards (one group over all devices),
//                 then cuBLAS on the gathered A on every device
//   local cuBLAS  cuBLAS of the whole (D*m_shard) x K x n_shard product on
//                 one device: the time a perfectly hidden all-gather leaves
//
// The kernel contract: kernel `all_gather_matmul`, user parameters
//   a      symmetric [D*m_shard, K]: the kernel gathers the peers' shards
//          into it; rows [rank*m_shard, (rank+1)*m_shard) are the own
//          shard's place, which the kernel neither reads nor writes (the
//          benchmark leaves them poisoned)
//   own    device buffers [m_shard, K]: this device's shard of A (a plain
//          tensor, as the op's caller passes it)
//   b      device buffers [K, n_shard] (this device's column shard)
//   c      device buffers [D*m_shard, n_shard], c = AllGather(A) @ b
//   ready  semaphores (count from the manifest), zeroed once after
//          allocation and never reset: the counters only grow
//   launches (optional) device buffers [1] of i64, zeroed once like
//          ready: the kernel counts its launches there (its epoch), so a
//          launch e waits for the counts of e + 1 launches
//   done   (optional, with launches) one semaphore, zeroed once like ready:
//          the kernel counts there which blocks of the previous device
//          have finished reading `a`
//
// Exit status: 0 when every result was correct (or "SKIP:" without 2 GPUs),
// 1 when a result was wrong or a run failed, 2 on a usage or bundle error.
//
//===----------------------------------------------------------------------===//

#include "weave/bench/Args.h"
#include "weave/bench/Cublas.h"
#include "weave/bench/Gpus.h"
#include "weave/bench/HostData.h"
#include "weave/bench/Manifest.h"
#include "weave/bench/Nccl.h"
#include "weave/bench/Table.h"
#include "weave/bench/Timing.h"
#include "weave/examples/HostSetup.h"
#include "weave/ops/FusedMatmul.h"
#include "weave/runtime/Bundle.h"
#include "weave/runtime/Kernel.h"
#include "weave/runtime/KernelArgs.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <regex>
#include <string>
#include <tuple>
#include <vector>

using namespace weave;
using namespace weave::bench;
using examples::LocalBuffers;

namespace {

constexpr const char *kProgram = "weave_bench_collective_matmul";

struct Options : CommonOptions {
  std::vector<int64_t> mShards; ///< empty: every bundle found for D
  int devices = 0;              ///< 0: every visible GPU
  bool nccl = WEAVE_BENCH_HAVE_NCCL;
  int samplesPerDevice = 64;
  /// Start every counter at launch 2^32 - 1 (--near-wrap): the first
  /// launch's ready targets wrap to 0, the next one's done target too, and
  /// the launch count needs more than 32 bits.
  bool nearWrap = false;
};

struct Case {
  DType dtype;
  int64_t d = 0, m = 0; ///< team size, rows per shard
  std::string path;
  Bundle bundle;
  int64_t k = 0, n = 0; ///< from the manifest
  uint32_t semaphores = 0;
  bool dynamicRows = false; ///< an _mdyn bundle run at this m
  bool hasEpoch = false;    ///< the kernel counts its launches (`launches`)
  bool hasDone = false;     ///< ... and a `done` semaphore after it
};

struct Result {
  const Case *c = nullptr;
  std::string status = "not run";
  double worstRel = 0, worstAbs = 0;
  int gatheredDevices = -1; ///< devices whose `a` holds every shard after
  TimingResult ours, nccl, local;
  bool timedOurs = false, timedNccl = false, timedLocal = false;
  bool ncclGatherOk = true;
  /// The variant a dynamic bundle launched at this m_shard (its name says
  /// the range and the column tile), empty without variants.
  std::string variant;
};

void usage(FILE *out) {
  std::fprintf(
      out,
      "usage: %s [--bundles DIR] [--m-shards 1024,...] [--dtype f16|bf16|all]\n"
      "       [--devices D] [--iters N] [--warmup N] [--check-only] "
      "[--no-nccl]\n"
      "       [--seed S] [--timeout SECONDS] [--no-gate] [--rounds R]\n"
      "       [--near-wrap]\n"
      "Runs DIR/all_gather_matmul_<dtype>_d<D>_m<M_SHARD>.wbundle (default "
      "DIR: %s)\non D GPUs in one process, checks it against cuBLAS and "
      "times it against\nNCCL all-gather + cuBLAS%s and a local cuBLAS "
      "matmul.\n",
      kProgram, WEAVE_BENCH_COLLECTIVE_BUNDLE_DIR,
      WEAVE_BENCH_HAVE_NCCL ? "" : " (not in this build: no NCCL)");
}

/// Parses the command line; exits with 0 (--help) or 2 (usage error).
Options parseOptions(int argc, char **argv) {
  Options o;
  o.bundleDir = WEAVE_BENCH_COLLECTIVE_BUNDLE_DIR;
  Args args(kProgram, usage, argc, argv);
  parseCommandLine(args, o, [&](const std::string &key) {
    if (key == "--m-shards") {
      auto list = parseIntList(args.value());
      if (!list)
        args.fail("--m-shards wants 1024,2048,...");
      // The kernel traps (without a message: see the template) on a shard
      // that is not whole 128-row tiles.
      for (int64_t m : *list)
        if (m <= 0 || m % 128 != 0)
          args.fail("--m-shards: " + std::to_string(m) +
                    " is not a positive multiple of 128 (the kernel's row "
                    "tile: a shard is whole row tiles)");
      o.mShards = *list;
    } else if (key == "--devices") {
      o.devices = static_cast<int>(args.number());
    } else if (key == "--no-nccl") {
      o.nccl = false;
    } else if (key == "--near-wrap") {
      o.nearWrap = true;
    } else {
      return false;
    }
    return true;
  });
  return o;
}

/// --near-wrap: the counters as launches 0 .. E - 1 (E = 2^32 - 1) of the
/// template's protocol
/// (ops/templates/collective_matmul/all_gather_matmul.mlir.in) would have left
/// them: `launches` = E * blocks (past 32 bits), done = E * blocks and ready[s
/// * 16 + chunk] = E * (parts of the chunk) for every shard s the member
/// receives, modulo 2^32; where the kernel pushes (the op's rule,
/// ops::AllGatherMatmul::pushes), done = E * blocks * (D - 1) (every peer's
/// blocks signal it) and ready[s * 16] = E * pushers (one add per pushing block
/// of the shard's owner). Launch E then waits for ready targets that wrap to 0
/// and launch E + 1 for a done target that wraps to 0: an unsigned comparison
/// would pass early (wrong results), a 32-bit launch count would give another
/// epoch (a hang).

Status startNearWrap(const Case &c, Team &team, SymmetricHeap &heap,
                     Kernel &kernel, const SemaphoreArray &ready,
                     const SemaphoreArray &done, LocalBuffers &launches,
                     int64_t tileN) {
  constexpr uint64_t kEpoch = (uint64_t(1) << 32) - 1;
  constexpr int64_t kChunks = 16, kTileM = 128, kTileK = 64;
  if (!c.hasEpoch || !c.hasDone || c.semaphores != c.d * kChunks)
    return Error(ErrorCode::InvalidArgument,
                 "--near-wrap needs the template's counters (launches, done, "
                 "16 ready chunks per shard), got " +
                     std::to_string(c.semaphores) + " ready counters");
  uint64_t blocks = kernel.launchGrid()[0];
  int64_t tiles = c.m / kTileM, chunkRows = (tiles + kChunks - 1) / kChunks;
  // On the ring a row tile arrives in one part per column tile that
  // forwards, min(column tiles, k steps).
  int64_t steps = (c.k + kTileK - 1) / kTileK,
          colTiles = (c.n + tileN - 1) / tileN;
  bool push = ops::AllGatherMatmul::pushes(c.m, colTiles);
  int64_t parts = std::min(colTiles, steps);
  // The push's blocks: those past the own tiles (all where these fill the
  // grid), one add each.
  uint64_t ownTiles = uint64_t(tiles * colTiles);
  uint64_t pushers = ownTiles < blocks ? blocks - ownTiles : blocks;
  for (size_t i = 0; i < team.localCount(); ++i) {
    uint32_t rank = team.rankOf(i);
    std::vector<uint32_t> counters(c.semaphores, 0);
    for (int64_t s = 0; s < c.d; ++s)
      for (int64_t chunk = 0; s != rank && chunk < kChunks; ++chunk) {
        int64_t rows = std::max<int64_t>(
            0, std::min(tiles, (chunk + 1) * chunkRows) - chunk * chunkRows);
        uint64_t perLaunch = push ? (chunk == 0 ? pushers : 0) : rows * parts;
        counters[s * kChunks + chunk] = uint32_t(kEpoch * perLaunch);
      }
    uint64_t ended = kEpoch * blocks;
    uint32_t doneCount = uint32_t(push ? ended * uint64_t(c.d - 1) : ended);
    WEAVE_TRY(team.device(i).makeCurrent());
    WEAVE_TRY(checkDriver(cuMemcpyHtoD(heap.localPointer(ready, i),
                                       counters.data(), counters.size() * 4),
                          "presetting ready"));
    WEAVE_TRY(
        checkDriver(cuMemcpyHtoD(heap.localPointer(done, i), &doneCount, 4),
                    "presetting done"));
    WEAVE_TRY(checkDriver(cuMemcpyHtoD(launches.pointer(i), &ended, 8),
                          "presetting the launch count"));
  }
  return ok();
}

/// Every bundle file in the directory: (dtype, D, m_shard, path). An
/// _mdyn bundle gives one case per --m-shards value (none without it).
std::vector<Case> findBundles(const Options &o) {
  static const std::regex name(
      "all_gather_matmul_(f16|bf16)_d([0-9]+)_m([0-9]+|dyn)\\.wbundle");
  std::vector<Case> out;
  for (const BundleFile &file : findBundleFiles(o.bundleDir, name)) {
    const std::vector<std::string> &m = file.groups;
    Case c;
    c.dtype = *parseMatmulDType(m[1]);
    c.d = std::stoll(m[2]);
    c.path = file.path;
    if (m[3] != "dyn") {
      c.m = std::stoll(m[3]);
      out.push_back(std::move(c));
      continue;
    }
    c.dynamicRows = true;
    for (int64_t shard : o.mShards) {
      c.m = shard;
      out.push_back(c);
    }
  }
  std::sort(out.begin(), out.end(), [](const Case &a, const Case &b) {
    return std::make_tuple(a.d, a.dtype, a.m, a.dynamicRows) <
           std::make_tuple(b.d, b.dtype, b.m, b.dynamicRows);
  });
  return out;
}

/// Reads the bundle and checks it against the contract; fills k, n and the
/// semaphore count from the manifest.
Status loadCase(Case &c) {
  WEAVE_ASSIGN_OR_RETURN(c.bundle, readBundleFile(c.path));
  WEAVE_ASSIGN_OR_RETURN(const KernelInfo *kernel,
                         contractKernel(c.bundle, "all_gather_matmul"));
  size_t params = userParamCount(*kernel);
  c.hasEpoch = params >= 6;
  c.hasDone = params == 7;
  WEAVE_TRY(expectUserParamCount(*kernel, c.hasDone ? 7 : c.hasEpoch ? 6 : 5));
  std::string dtype = dtypeName(c.dtype);
  MatmulParams p;
  WEAVE_ASSIGN_OR_RETURN(
      p.a, contractParam(*kernel, 0, "a", abi::ParamKind::Symmetric, dtype, 2));
  WEAVE_ASSIGN_OR_RETURN(
      const ParamInfo *own,
      contractParam(*kernel, 1, "own", abi::ParamKind::Buffer, dtype, 2));
  WEAVE_ASSIGN_OR_RETURN(
      p.b, contractParam(*kernel, 2, "b", abi::ParamKind::Buffer, dtype, 2));
  WEAVE_ASSIGN_OR_RETURN(
      p.c, contractParam(*kernel, 3, "c", abi::ParamKind::Buffer, dtype, 2));
  WEAVE_ASSIGN_OR_RETURN(
      const ParamInfo *ready,
      contractParam(*kernel, 4, "ready", abi::ParamKind::Semaphore, "", -1));
  if (c.hasEpoch) {
    WEAVE_ASSIGN_OR_RETURN(const ParamInfo *launches,
                           contractParam(*kernel, 5, "launches",
                                         abi::ParamKind::Buffer, "i64", -1));
    if (launches->shape != std::vector<int64_t>{1})
      return Error(ErrorCode::InvalidBundle,
                   "parameter 'launches' must be one i64 counter");
  }
  if (c.hasDone) {
    WEAVE_ASSIGN_OR_RETURN(
        const ParamInfo *done,
        contractParam(*kernel, 6, "done", abi::ParamKind::Semaphore, "", -1));
    if (done->semaphoreCount != 1)
      return Error(ErrorCode::InvalidBundle,
                   "parameter 'done' has " +
                       std::to_string(done->semaphoreCount) +
                       " semaphores, expected 1");
  }
  c.k = p.a->shape[1];
  c.n = p.b->shape[1];
  c.semaphores = ready->semaphoreCount;
  // A dynamic row count ('?') takes D*m_shard rows at launch.
  int64_t rows = c.dynamicRows ? abi::kDynamicDim : c.d * c.m;
  int64_t shardRows = c.dynamicRows ? abi::kDynamicDim : c.m;
  if (p.a->shape[0] != rows || own->shape[0] != shardRows ||
      own->shape[1] != c.k || p.b->shape[0] != c.k || p.c->shape[0] != rows ||
      p.c->shape[1] != c.n)
    return Error(ErrorCode::InvalidBundle,
                 "shapes a " + shapeText(p.a->shape) + ", own " +
                     shapeText(own->shape) + ", b " + shapeText(p.b->shape) +
                     ", c " + shapeText(p.c->shape) +
                     " are not a [D*m_shard,K], own [m_shard,K], b [K,n], c "
                     "[D*m_shard,n] for D=" +
                     std::to_string(c.d) + ", m_shard=" +
                     (c.dynamicRows ? std::string("?") : std::to_string(c.m)));
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

/// Everything shared by the cases: the team (in-process over D GPUs), its
/// heap (sized for every case), streams, cuBLAS handles and NCCL.
struct Context {
  examples::HostSession session;
  std::vector<CublasHandle> cublas;
  std::vector<NcclComms> nccl; ///< empty: no NCCL baseline
  std::vector<TimedStream> timed;
};

/// Runs one case on every device: setup, check, timings.
Result runCase(const Options &o, const Case &c, Context &ctx) {
  Result r;
  r.c = &c;
  std::string label =
      "m_shard " + std::to_string(c.m) + (c.dynamicRows ? " (dynamic)" : "") +
      " " + dtypeName(c.dtype) + " on " + std::to_string(c.d) + " GPUs";
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
  size_t devices = team.localCount();
  std::string dtype = dtypeName(c.dtype);
  const int64_t rows = c.d * c.m;
  const size_t shardBytes = static_cast<size_t>(c.m * c.k) * 2;

  Expected<Kernel> kernel =
      examples::loadKernel(team, c.bundle, "all_gather_matmul");
  if (!kernel)
    return fail(kernel.error());

  Expected<SymmetricBuffer> a = heap.allocateTensor(dtype, {rows, c.k});
  if (!a)
    return fail(a.error());
  Expected<SemaphoreArray> ready = heap.allocateSemaphores(c.semaphores);
  if (!ready)
    return fail(ready.error());
  Expected<SemaphoreArray> done = heap.allocateSemaphores(1);
  if (!done)
    return fail(done.error());
  auto buffers = [&](std::vector<int64_t> shape) {
    return LocalBuffers::create(team, dtype, std::move(shape));
  };
  Expected<LocalBuffers> shard = buffers({c.m, c.k});
  Expected<LocalBuffers> gathered = buffers({rows, c.k});
  Expected<LocalBuffers> b = buffers({c.k, c.n});
  Expected<LocalBuffers> out = buffers({rows, c.n});
  Expected<LocalBuffers> ref = buffers({rows, c.n});
  Expected<LocalBuffers> launches = LocalBuffers::create(team, "i64", {1});
  for (auto *buf : {&shard, &gathered, &b, &out, &ref, &launches})
    if (!*buf)
      return fail(buf->error());

  // Inputs: rank r's A shard and B column shard.
  std::vector<std::vector<uint16_t>> hostShard(devices), hostB(devices);
  std::vector<const std::vector<uint16_t> *> shardOfRank(devices);
  for (size_t i = 0; i < devices; ++i) {
    uint32_t rank = team.rankOf(i);
    hostShard[i] = randomValues(c.dtype, c.m * c.k, seedFor(o, c, rank, 0));
    shardOfRank[rank] = &hostShard[i];
    hostB[i] = randomValues(c.dtype, c.k * c.n, seedFor(o, c, rank, 1));
    TRY(shard->upload(i, hostShard[i].data()));
    TRY(b->upload(i, hostB[i].data()));
  }
  TRY(team.synchronize());

  // Poison a (every row: the own shard's rows stay poisoned, the kernel
  // reads `own`), c and the reference; zero the semaphores once; gather A
  // for the reference with peer copies.
  for (size_t i = 0; i < devices; ++i) {
    TRY(team.device(i).makeCurrent());
    CUdeviceptr localA = heap.localPointer(*a, i);
    TRY(checkDriver(cuMemsetD16Async(localA, kPoison16, rows * c.k, streams[i]),
                    "poisoning a"));
    TRY(checkDriver(
        cuMemsetD16Async(out->pointer(i), kPoison16, rows * c.n, streams[i]),
        "poisoning c"));
    TRY(checkDriver(
        cuMemsetD16Async(ref->pointer(i), kPoison16, rows * c.n, streams[i]),
        "poisoning the reference"));
    TRY(checkDriver(cuMemsetD32Async(heap.localPointer(*ready, i), 0,
                                     c.semaphores, streams[i]),
                    "zeroing the semaphores"));
    TRY(checkDriver(
        cuMemsetD32Async(heap.localPointer(*done, i), 0, 1, streams[i]),
        "zeroing the semaphores"));
    TRY(checkDriver(cuMemsetD32Async(launches->pointer(i), 0, 2, streams[i]),
                    "zeroing the launch count"));
    for (size_t s = 0; s < devices; ++s)
      TRY(checkDriver(
          cuMemcpyPeerAsync(gathered->pointer(i) + team.rankOf(s) * shardBytes,
                            team.device(i).context(), shard->pointer(s),
                            team.device(s).context(), shardBytes, streams[i]),
          "gathering A for the reference"));
  }
  // No device may start before every device's poison and shard landed.
  TRY(waitStreams(ctx.timed, o.timing.timeoutSeconds));
  // The semaphore counters are never reset: the kernel counts its launches
  // in `launches` (when it takes it) and waits for that many rounds.
  auto kernelArgs = [&]() {
    std::vector<KernelArg> args = {*a, shard->args(), b->args(), out->args(),
                                   *ready};
    if (c.hasEpoch)
      args.push_back(launches->args());
    if (c.hasDone)
      args.push_back(*done);
    return args;
  };
  auto launch = [&]() -> Status {
    return kernel->launch(heap, kernelArgs(), streams);
  };
  if (!kernel->variants().empty()) {
    Expected<BoundArgs> bound = kernel->bind(heap, kernelArgs());
    if (!bound)
      return fail(bound.error());
    r.variant = bound->kernel()->info().name;
  }
  if (o.nearWrap) {
    // The column tile: the variant's (its name ends in _n<columns>), else
    // the static bundles' 256.
    int64_t tileN = 256;
    std::smatch columns;
    if (std::regex_search(r.variant, columns, std::regex("_n([0-9]+)$")))
      tileN = std::stoll(columns[1]);
    TRY(startNearWrap(c, team, heap, *kernel, *ready, *done, *launches, tileN));
  }
  TRY(launch());
  TRY(waitStreams(ctx.timed, o.timing.timeoutSeconds));
  for (size_t i = 0; i < devices; ++i)
    TRY(gemmRowMajor(ctx.cublas[i], c.dtype, rows, c.n, c.k,
                     gathered->pointer(i), b->pointer(i), ref->pointer(i),
                     streams[i], Reduction::Fp32));
  TRY(waitStreams(ctx.timed, o.timing.timeoutSeconds));

  // Check every device's result, and whether `a` ended up gathered.
  Tolerance tolerance = defaultTolerance(c.dtype);
  std::vector<uint16_t> hostOut(rows * c.n), hostRef(rows * c.n),
      hostA(rows * c.k);
  bool correct = true;
  r.gatheredDevices = 0;
  for (size_t i = 0; i < devices; ++i) {
    uint32_t rank = team.rankOf(i);
    TRY(out->download(i, hostOut.data()));
    TRY(ref->download(i, hostRef.data()));
    Comparison cmp = compare(c.dtype, hostOut.data(), hostRef.data(),
                             hostOut.size(), tolerance);
    auto shardAt = [&](int64_t row, int64_t col) {
      const std::vector<uint16_t> &owner = *shardOfRank[row / c.m];
      return toFloat(c.dtype, owner[(row % c.m) * c.k + col]);
    };
    auto matrixAt = [&](const std::vector<uint16_t> &v, int64_t cols) {
      return [&v, cols, dt = c.dtype](int64_t row, int64_t col) {
        return toFloat(dt, v[row * cols + col]);
      };
    };
    SampleCheck samples =
        checkSamples(shardAt, matrixAt(hostB[i], c.n), matrixAt(hostOut, c.n),
                     matrixAt(hostRef, c.n), rows, c.n, c.k, cmp.rmsRef,
                     tolerance, o.samplesPerDevice, seedFor(o, c, rank, 2));
    r.worstRel = std::max(r.worstRel, cmp.relFrobenius);
    r.worstAbs = std::max(r.worstAbs, cmp.maxAbsError);
    bool ok = cmp.passed && samples.badOurs == 0 && samples.badRef == 0;
    if (!ok) {
      size_t w = cmp.worstIndex;
      std::fprintf(stderr,
                   "%s: %s: rank %u: %s; worst at [%zu, %zu] (row of rank "
                   "%zu's shard): ours %g, cuBLAS %g; samples vs float64: "
                   "%d/%d ours, %d/%d cuBLAS past the bound\n",
                   kProgram, label.c_str(), rank, cmp.summary().c_str(),
                   w / c.n, w % c.n, (w / c.n) / c.m, cmp.worstOurs,
                   cmp.worstRef, samples.badOurs, samples.samples,
                   samples.badRef, samples.samples);
    }
    correct = correct && ok;
    // Gathered in place? (Informational: a kernel may read peers' shards
    // without storing them. The own shard's rows are not the kernel's.)
    TRY(team.device(i).makeCurrent());
    TRY(checkDriver(
        cuMemcpyDtoH(hostA.data(), heap.localPointer(*a, i), hostA.size() * 2),
        "reading a back"));
    bool all = true;
    for (size_t s = 0; s < devices; ++s)
      all = all && (s == i || std::memcmp(hostA.data() + team.rankOf(s) * c.m * c.k,
                               hostShard[s].data(), shardBytes) == 0);
    r.gatheredDevices += all;
  }
  r.status = correct ? "ok" : "WRONG";
  if (o.checkOnly)
    return r;

  // Timings, in o.rounds rounds that rotate the order of the three (see
  // CommonOptions::rounds). The semaphores must stay consistent across
  // iterations: the launches go back to back on each device's stream,
  // nothing resets them.
  std::vector<std::function<Expected<TimingResult>()>> timers;
  timers.push_back([&]() {
    return timeIterations(
        ctx.timed, [&](int) { return launch(); }, o.timing);
  });

#if WEAVE_BENCH_HAVE_NCCL
  std::optional<LocalBuffers> ncclA;
  if (!ctx.nccl.empty()) {
    Expected<LocalBuffers> buffer = buffers({rows, c.k});
    if (!buffer)
      return fail(buffer.error());
    ncclA.emplace(std::move(*buffer));
    timers.push_back([&]() {
      const NcclComms &comms = ctx.nccl.front();
      auto enqueue = [&](int) -> Status {
        ncclResult_t g = ncclGroupStart();
        for (size_t i = 0; i < devices && g == ncclSuccess; ++i)
          g = ncclAllGather(reinterpret_cast<const void *>(shard->pointer(i)),
                            reinterpret_cast<void *>(ncclA->pointer(i)),
                            shardBytes, ncclUint8, comms[i], streams[i]);
        ncclResult_t e = ncclGroupEnd();
        if (g != ncclSuccess || e != ncclSuccess)
          return Error(ErrorCode::DriverError,
                       std::string("ncclAllGather failed: ") +
                           ncclGetErrorString(g != ncclSuccess ? g : e));
        for (size_t i = 0; i < devices; ++i)
          WEAVE_TRY(gemmRowMajor(
              ctx.cublas[i], c.dtype, rows, c.n, c.k, ncclA->pointer(i),
              b->pointer(i), ref->pointer(i), streams[i], Reduction::Default));
        return ok();
      };
      return timeIterations(ctx.timed, enqueue, o.timing);
    });
  }
#endif

  // Local cuBLAS comes last, so that the NCCL baseline (if any) is timer 1.
  timers.push_back([&]() {
    return timeIterations(
        {ctx.timed.front()},
        [&](int) {
          return gemmRowMajor(ctx.cublas[0], c.dtype, rows, c.n, c.k,
                              gathered->pointer(0), b->pointer(0),
                              ref->pointer(0), streams[0], Reduction::Default);
        },
        o.timing);
  });

  Expected<std::vector<TimingResult>> timings = timeInRounds(o.rounds, timers);
  if (!timings)
    return fail(timings.error());
  r.ours = timings->front();
  r.timedOurs = true;
  r.local = timings->back();
  r.timedLocal = true;

#if WEAVE_BENCH_HAVE_NCCL
  if (ncclA) {
    r.nccl = (*timings)[1];
    r.timedNccl = true;
    // The baseline must have gathered the same A.
    std::vector<uint16_t> viaNccl(rows * c.k);
    for (size_t i = 0; i < devices && r.ncclGatherOk; ++i) {
      TRY(ncclA->download(i, viaNccl.data()));
      TRY(gathered->download(i, hostA.data()));
      r.ncclGatherOk = viaNccl == hostA;
    }
    if (!r.ncclGatherOk)
      std::fprintf(stderr, "%s: %s: the NCCL baseline gathered a different A\n",
                   kProgram, label.c_str());
  }
#endif
  return r;
#undef TRY
}

/// Rounds up to a multiple of `unit`.
size_t roundUp(size_t bytes, size_t unit) {
  return (bytes + unit - 1) / unit * unit;
}

} // namespace

int main(int argc, char **argv) {
  // Never NVLink multicast (NVLS): it can take the host's GPUs down.
  ::setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0);
  Options o = parseOptions(argc, argv);
  std::vector<Case> found = findBundles(o);
  if (found.empty()) {
    std::fprintf(stderr,
                 "%s: error: no bundles in '%s' (expected "
                 "all_gather_matmul_<f16|bf16>_d<D>_m<M_SHARD>.wbundle; the "
                 "build makes them with `ninja weave_bench_bundles`)\n",
                 kProgram, o.bundleDir.c_str());
    return 2;
  }

  // Every bundle is checked against the contract before any GPU work, so
  // a bad one is reported on a machine without GPUs too.
  if (checkCases(kProgram, found, loadCase))
    return 2;

  // A loopback team (WEAVE_LOOPBACK_TEAM=D) runs its D members on the
  // visible GPUs, one is enough: for checking only.
  Expected<uint32_t> loopback = loopbackMembersFromEnvironment();
  if (!loopback) {
    std::fprintf(stderr, "%s: error: %s\n", kProgram,
                 loopback.error().toString().c_str());
    return 2;
  }
  if (*loopback && !o.checkOnly) {
    std::fprintf(stderr,
                 "%s: error: WEAVE_LOOPBACK_TEAM=%u runs only with "
                 "--check-only: members sharing a GPU give no speed to claim, "
                 "and NCCL takes one GPU per rank\n",
                 kProgram, *loopback);
    return 2;
  }
  int count = visibleGpusOrExit(kProgram, *loopback ? 1 : 2);
  int d = o.devices ? o.devices : (*loopback ? int(*loopback) : count);
  if (*loopback && d != int(*loopback)) {
    std::fprintf(stderr, "%s: error: --devices %d, WEAVE_LOOPBACK_TEAM=%u\n",
                 kProgram, d, *loopback);
    return 2;
  }
  if (d < 2 || (!*loopback && d > count)) {
    std::fprintf(stderr, "%s: error: --devices %d, this machine has %d GPUs\n",
                 kProgram, d, count);
    return 2;
  }

  // The cases for this team size.
  std::vector<Case> cases;
  std::vector<int64_t> teamSizes;
  for (Case &c : found) {
    teamSizes.push_back(c.d);
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
    std::sort(teamSizes.begin(), teamSizes.end());
    teamSizes.erase(std::unique(teamSizes.begin(), teamSizes.end()),
                    teamSizes.end());
    std::string have;
    for (int64_t t : teamSizes)
      have += (have.empty() ? "" : ", ") + std::to_string(t);
    std::fprintf(stderr,
                 "%s: error: no bundle in '%s' for D=%d and the asked dtypes "
                 "and m_shards (bundles exist for D = %s)\n",
                 kProgram, o.bundleDir.c_str(), d, have.c_str());
    return 2;
  }
  size_t heapBytes = 0, padBytes = 0;
  // Every case's `a` stays allocated to the end, each a block of the heap's
  // allocator, which takes more than the request (SymmetricHeap::
  // occupiedBytes). Rounded to 1 MiB instead, 384 + 1152 + 1536 rows at k
  // 5120 on 4 GPUs (15 + 45 + 60 MiB, taking 16 + 46 + 60) left the last
  // case short of its 60 MiB (4 x H200, 2026-11-28).
  for (const Case &c : cases) {
    heapBytes += SymmetricHeap::occupiedBytes(
        static_cast<size_t>(c.d * c.m * c.k) * 2);
    padBytes += roundUp(c.semaphores * 4u, 256);
  }

  examples::TeamRequest request;
  request.program = kProgram;
  request.allowMultiProcess = false;
  request.minDevices = request.maxDevices = static_cast<uint32_t>(d);
  request.heapBytes = heapBytes + (1 << 20);
  request.signalPadBytes = std::max<size_t>(
      SymmetricHeap::kDefaultSignalPadBytes, roundUp(padBytes + 4096, 4096));
  Expected<examples::HostSession> session = examples::createSession(request);
  if (!session)
    return examples::reportError(kProgram, session.error());
  Context ctx{std::move(*session), {}, {}, {}};
  Team &team = ctx.session.team;
  ctx.timed = timedStreams(team, ctx.session.streams.get());
  Expected<std::vector<CublasHandle>> cublas = CublasHandle::forTeam(team);
  if (!cublas)
    return examples::reportError(kProgram, cublas.error());
  ctx.cublas = std::move(*cublas);
  std::string ncclNote;
#if WEAVE_BENCH_HAVE_NCCL
  if (o.nccl && !o.checkOnly) {
    std::vector<int> ordinals;
    for (size_t i = 0; i < team.localCount(); ++i)
      ordinals.push_back(team.device(i).ordinal());
    Expected<NcclComms> comms = NcclComms::create(ordinals);
    if (!comms)
      return examples::reportError(kProgram, comms.error());
    ctx.nccl.push_back(std::move(*comms));
    int version = 0;
    ncclGetVersion(&version);
    ncclNote = "NCCL " + std::to_string(version);
  } else {
    ncclNote = "NCCL baseline off (--no-nccl)";
  }
#else
  ncclNote = "built without NCCL: no NCCL baseline";
#endif

  std::vector<Result> results;
  for (const Case &c : cases) {
    std::fprintf(stderr, "%s: m_shard %lld%s %s on %d GPUs ...\n", kProgram,
                 static_cast<long long>(c.m), c.dynamicRows ? " (dynamic)" : "",
                 dtypeName(c.dtype), d);
    results.push_back(runCase(o, c, ctx));
  }

  Table table({"m_shard", "D", "dtype", "M=D*m_shard", "ours ms",
               "NCCL+cuBLAS ms", "local cuBLAS ms", "speed-up vs NCCL+cuBLAS",
               "ours/local", "ours TFLOP/s/GPU", "rel err (worst GPU)",
               "a gathered", "check"});
  int wrong = 0;
  bool gated = true;
  for (const Result &r : results) {
    const Case &c = *r.c;
    wrong += r.status != "ok";
    gated = gated && (!r.timedOurs || r.ours.gated) &&
            (!r.timedNccl || r.nccl.gated) && (!r.timedLocal || r.local.gated);
    double flop = 2.0 * c.d * c.m * c.n * c.k;
    bool checked = r.status == "ok" || r.status == "WRONG";
    table.addRow(
        {std::to_string(c.m) + (c.dynamicRows ? " (dyn)" : "") +
             (r.variant.empty() ? "" : " [" + r.variant + "]"),
         std::to_string(c.d), dtypeName(c.dtype), std::to_string(c.d * c.m),
         r.timedOurs ? formatMs(r.ours.medianMs, 4) : "-",
         r.timedNccl ? formatMs(r.nccl.medianMs, 4) +
                           (r.ncclGatherOk ? "" : " (wrong gather!)")
                     : "-",
         r.timedLocal ? formatMs(r.local.medianMs, 4) : "-",
         r.timedOurs && r.timedNccl
             ? strprintf("%.3f", r.nccl.medianMs / r.ours.medianMs)
             : "-",
         r.timedOurs && r.timedLocal
             ? strprintf("%.3f", r.ours.medianMs / r.local.medianMs)
             : "-",
         r.timedOurs ? strprintf("%.1f", flop / (r.ours.medianMs * 1e-3) / 1e12)
                     : "-",
         checked ? strprintf("%.2e", r.worstRel) : "-",
         r.gatheredDevices >= 0
             ? std::to_string(r.gatheredDevices) + "/" + std::to_string(c.d)
             : "-",
         r.status});
  }
  std::printf("\nweave all_gather_matmul vs NCCL all-gather + cuBLAS, %d x %s, "
              "one process; K=%lld, n_shard=%lld; %s\n",
              d, team.device(0).name().c_str(),
              static_cast<long long>(cases.front().k),
              static_cast<long long>(cases.front().n), ncclNote.c_str());
  if (!o.checkOnly)
    std::printf("timing: CUDA events around each of %d back-to-back "
                "iterations on every GPU after %d warm-up ones, in %d "
                "rotating round(s), the longest GPU, median; streams %s. "
                "local cuBLAS: the whole "
                "(D*m_shard) x K x n_shard product on GPU 0 (the lower bound "
                "when the all-gather is fully hidden)\n",
                o.timing.iterations, o.timing.warmup, o.rounds,
                gated ? "held until all launches were enqueued"
                      : "not held (launch overhead may show)");
  std::printf("check: every GPU's c vs cuBLAS on the gathered A: "
              "||ours-ref||/||ref|| < %.0e and every |ours-ref| <= "
              "4u*(|ref|+rms(ref)); %d sampled elements per GPU vs float64. "
              "'a gathered': GPUs whose a holds every shard afterwards "
              "(informational)\n\n",
              defaultTolerance(DType::F16).relFrobenius, o.samplesPerDevice);
  std::printf("%s", table.str().c_str());
  std::printf("%s: %zu case(s), %d wrong or failed\n", kProgram, results.size(),
              wrong);
  return wrong ? 1 : 0;
}
