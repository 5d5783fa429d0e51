//===- main.cpp - C = AllGather(A) @ B on every GPU of a team -------------===//
//
//   collective_matmul [--m-shard N] [--k N] [--n-shard N] [--dtype f16|bf16]
//                     [--iters N] [--bundle FILE] [--time-if-wrong] [--all-shards]
//
// JIT-compiles all_gather_matmul.mlir.in for the team size and shapes with
// weave::Compiler (cached on disk; see README), or loads a bundle compiled
// ahead of time by weavec (--bundle; the only way on a machine built without
// the compiler). Creates the team (in-process over all GPUs, or one process
// per GPU when launched with WORLD_SIZE/RANK), fills random shards, runs
// once with poisoned outputs, writes a second A (each device its own shard,
// ordered on its stream only, as an application would) and runs again,
// checks sampled outputs of every row shard of the second run against
// float64 dot products, then times back-to-back launches.
// Prints "SKIP: <reason>" and exits 0 without two GPUs.
//
//===----------------------------------------------------------------------===//

#include "weave/bench/HostData.h"
#include "weave/bench/Timing.h"
#include "weave/examples/HostSetup.h"
#include "weave/runtime/Bundle.h"
#include "weave/runtime/Device.h"
#include "weave/runtime/Kernel.h"

#ifdef WEAVE_HAVE_JIT
#include "weave/Compiler.h"
#include "weave/ops/FusedMatmul.h"
#include "weave/ops/KernelSource.h"
#endif

#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace weave;
using bench::DType;

namespace {
const char *kProgram = "collective_matmul";
constexpr int64_t kTileM = 128, kTileN = 256, kTileK = 64;

struct Options {
  int64_t mShard = 1024, k = 4096, nShard = 4096;
  std::string dtype = "f16";
  int iterations = 50;
  std::string bundlePath;
  /// Time even when the check fails (to measure experimental kernels).
  bool timeIfWrong = false;
  /// Write every shard of A on every device (for kernels that skip the ring).
  bool allShards = false;
};

int usage() {
  std::fprintf(stderr,
               "usage: %s [--m-shard N] [--k N] [--n-shard N] "
               "[--dtype f16|bf16] [--iters N] [--bundle FILE] [--time-if-wrong] [--all-shards]\n",
               kProgram);
  return 2;
}

Expected<Bundle> loadKernel(const Options &options, uint32_t teamSize) {
  if (!options.bundlePath.empty())
    return readBundleFile(options.bundlePath);
#ifdef WEAVE_HAVE_JIT
  std::ifstream in(WEAVE_COLLECTIVE_MATMUL_TEMPLATE);
  if (!in)
    return Error(ErrorCode::NotFound,
                 std::string("cannot read the kernel template ") +
                     WEAVE_COLLECTIVE_MATMUL_TEMPLATE);
  std::stringstream text;
  text << in.rdbuf();
  // On the ring column tile n forwards the k steps k = n (mod column
  // tiles); at small shards every block pushes a share of the own shard.
  int64_t steps = (options.k + kTileK - 1) / kTileK;
  int64_t colTiles = (options.nShard + kTileN - 1) / kTileN;
  // Groups of 8 row tiles (for L2 reuse), kept inside a shard by the
  // template's grid_tile_segments; 16 chunk counters per shard.
  // ops::fillTemplate also refuses a placeholder left without a value.
  WEAVE_ASSIGN_OR_RETURN(std::string source, ops::fillTemplate(
      text.str(),
      {{"D", std::to_string(teamSize)},
       {"LAST", std::to_string(teamSize - 1)},
       {"M_SHARD", std::to_string(options.mShard)},
       {"ROWS", std::to_string(teamSize * options.mShard)},
       {"K", std::to_string(options.k)},
       {"N_SHARD", std::to_string(options.nShard)},
       {"DTYPE", options.dtype},
       {"GROUP_ROWS", "8"},
       {"READY", std::to_string(teamSize * 16)},
       {"LAST_K", std::to_string(steps - 1)},
       {"COL_TILES", std::to_string(colTiles)},
       // The op's choice between the ring and a push of the own shard at
       // the start (small shards); no k rotation.
       {"K_ROTATION", "0"},
       {"PUSH", ops::AllGatherMatmul::pushes(options.mShard, colTiles) ? "1"
                                                                      : "0"},
       // One kernel, 128 x 256 tiles of 4 stages (the op's instance picks
       // the column tile per m_shard: ops::AllGatherMatmul::tileN).
       {"TILE_N", std::to_string(kTileN)},
       {"STAGES", "4"},
       {"KERNEL", "all_gather_matmul"},
       {"VARIANT", ""}},
      WEAVE_COLLECTIVE_MATMUL_TEMPLATE));
  Compiler compiler;
  auto start = std::chrono::steady_clock::now();
  Expected<Bundle> bundle = compiler.compileString(source, "all_gather_matmul.mlir");
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  if (bundle)
    std::printf("%s: JIT %s in %.1f ms (cache: %s)\n", kProgram,
                compiler.lastCompileHitCache() ? "cache hit" : "compiled", ms,
                compiler.cacheDir().empty() ? "off" : compiler.cacheDir().c_str());
  return bundle;
#else
  (void)teamSize;
  return Error(ErrorCode::InvalidArgument,
               "this build has no compiler (WEAVE_ENABLE_COMPILER=OFF): pass "
               "--bundle with a bundle from weavec --emit=bundle");
#endif
}

/// Shard `s` of A (m_shard x K) and column shard `r` of B (K x n_shard):
/// every process can regenerate any of them for the reference.
/// Shard `s` of the A of launch `generation` (0 or 1).
std::vector<uint16_t> shardOfA(DType dtype, const Options &o, uint32_t s,
                               int generation) {
  return bench::randomValues(dtype, o.mShard * o.k,
                             1000 + s + 1000 * generation);
}
std::vector<uint16_t> shardOfB(DType dtype, const Options &o, uint32_t r) {
  return bench::randomValues(dtype, o.k * o.nShard, 2000 + r);
}
} // namespace

int main(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto next = [&]() -> const char * { return i + 1 < argc ? argv[++i] : nullptr; };
    const char *value = nullptr;
    if (arg == "--help" || arg == "-h") {
      usage();
      return 0;
    }
    if (arg == "--time-if-wrong") {
      options.timeIfWrong = true;
      continue;
    }
    if (arg == "--all-shards") {
      options.allShards = true;
      continue;
    }
    if (!(value = next()))
      return usage();
    if (arg == "--m-shard")
      options.mShard = std::atoll(value);
    else if (arg == "--k")
      options.k = std::atoll(value);
    else if (arg == "--n-shard")
      options.nShard = std::atoll(value);
    else if (arg == "--dtype")
      options.dtype = value;
    else if (arg == "--iters")
      options.iterations = std::atoi(value);
    else if (arg == "--bundle")
      options.bundlePath = value;
    else
      return usage();
  }
  std::optional<DType> dtype = bench::parseMatmulDType(options.dtype);
  if (!dtype || options.mShard <= 0 || options.k <= 0 || options.nShard <= 0 ||
      options.iterations <= 0)
    return usage();
  // Shards must be whole row tiles: the ring forwards and counts row tiles.
  if (options.mShard % kTileM != 0 || options.k % 8 != 0 ||
      options.nShard % 8 != 0) {
    std::fprintf(stderr,
                 "%s: error: m_shard must be a multiple of %lld (the row "
                 "tile), K and n_shard multiples of 8 (16-byte TMA rows); "
                 "got m_shard=%lld K=%lld n_shard=%lld\n",
                 kProgram, (long long)kTileM, (long long)options.mShard,
                 (long long)options.k, (long long)options.nShard);
    return 1;
  }

  examples::TeamRequest request;
  request.program = kProgram;
  if (examples::reportSkip(request))
    return 0;
  Expected<Team> team = examples::createTeam(request);
  if (!team)
    return examples::reportError(kProgram, team.error());
  uint32_t d = team->size();
  Expected<Bundle> bundle = loadKernel(options, d);
  if (!bundle)
    return examples::reportError(kProgram, bundle.error());

  int64_t rows = d * options.mShard;
  size_t aBytes = rows * options.k * 2;
  Expected<SymmetricHeap> heap = SymmetricHeap::create(*team, aBytes + (1 << 20));
  if (!heap)
    return examples::reportError(kProgram, heap.error());
  Expected<SymmetricBuffer> a = heap->allocateTensor(options.dtype, {rows, options.k});
  Expected<SemaphoreArray> ready = heap->allocateSemaphores(d);
  Expected<SemaphoreArray> done = heap->allocateSemaphores(1);
  if (!a || !ready || !done)
    return examples::reportError(
        kProgram, !a ? a.error() : !ready ? ready.error() : done.error());
  Expected<examples::LocalBuffers> b =
      examples::LocalBuffers::create(*team, options.dtype, {options.k, options.nShard});
  Expected<examples::LocalBuffers> c =
      examples::LocalBuffers::create(*team, options.dtype, {rows, options.nShard});
  // The kernel counts its launches here (its epoch; zeroed once).
  Expected<examples::LocalBuffers> launches =
      examples::LocalBuffers::create(*team, "i64", {1});
  if (!b || !c || !launches)
    return examples::reportError(
        kProgram, !b ? b.error() : !c ? c.error() : launches.error());
  Expected<examples::LocalStreams> streams = examples::LocalStreams::create(*team);
  if (!streams)
    return examples::reportError(kProgram, streams.error());
  // Experiments may compile `a` as a plain buffer (no ring): pass the heap
  // memory as device buffers then.
  bool aIsSymmetric = true;
  for (const KernelInfo &info : bundle->kernels)
    if (info.name == "all_gather_matmul" && !info.params.empty())
      aIsSymmetric = info.params[0].kind == abi::ParamKind::Symmetric;
  Expected<Kernel> kernel =
      examples::loadKernel(*team, std::move(*bundle), "all_gather_matmul");
  if (!kernel)
    return examples::reportError(kProgram, kernel.error());

  // Inputs: the own shard of A into its rows of `a`, B's column shard;
  // poison (all ones: NaN) in `c` and in the rows of `a` the ring fills.
  size_t local = team->localCount();
  size_t shardBytes = options.mShard * options.k * 2;
  std::vector<std::vector<uint16_t>> shardsA(d), shardsB(d);
  for (uint32_t s = 0; s < d; ++s) {
    shardsA[s] = shardOfA(*dtype, options, s, 0);
    shardsB[s] = shardOfB(*dtype, options, s);
  }
  for (size_t i = 0; i < local; ++i) {
    uint32_t rank = team->rankOf(i);
    (void)team->device(i).makeCurrent();
    CUdeviceptr aPtr = heap->localPointer(*a, i);
    if (cuMemsetD16(aPtr, 0xFFFF, aBytes / 2) ||
        cuMemcpyHtoD(aPtr + rank * shardBytes, shardsA[rank].data(), shardBytes) ||
        cuMemsetD16(c->pointer(i), 0xFFFF, c->bytes() / 2) ||
        cuMemsetD32(heap->localPointer(*ready, i), 0, d) ||
        cuMemsetD32(heap->localPointer(*done, i), 0, 1) ||
        cuMemsetD32(launches->pointer(i), 0, 2))
      return examples::reportError(kProgram, Error(ErrorCode::DriverError, "cannot set up inputs"));
    for (uint32_t other = 0; options.allShards && other < d; ++other)
      if (cuMemcpyHtoD(aPtr + other * shardBytes, shardsA[other].data(), shardBytes))
        return examples::reportError(kProgram, Error(ErrorCode::DriverError, "cannot set up inputs"));
    if (Status s = b->upload(i, shardsB[rank].data()); !s)
      return examples::reportError(kProgram, s.error());
  }
  if (Status s = team->synchronize(); !s)
    return examples::reportError(kProgram, s.error());

  // Experiments with a plain `a` (no ring): device memory from cuMemAlloc,
  // every shard written.
  Expected<examples::LocalBuffers> aLocal =
      examples::LocalBuffers::create(*team, options.dtype, {rows, options.k});
  if (!aLocal)
    return examples::reportError(kProgram, aLocal.error());
  for (size_t i = 0; !aIsSymmetric && i < local; ++i) {
    std::vector<uint16_t> all;
    for (uint32_t s = 0; s < d; ++s)
      all.insert(all.end(), shardsA[s].begin(), shardsA[s].end());
    if (Status s = aLocal->upload(i, all.data()); !s)
      return examples::reportError(kProgram, s.error());
  }
  const DeviceBuffers &aPlain = aLocal->args();
  // `own`: the member's own shard, which the kernel reads in its place
  // (here rows r of `a` itself, where the host wrote it; an application
  // may pass any m_shard x K buffer, the op passes the caller's tensor).
  DeviceBuffers own;
  own.dtype = options.dtype;
  own.shape = {options.mShard, options.k};
  own.bytes = shardBytes;
  for (size_t i = 0; i < local; ++i)
    own.pointers.push_back((aIsSymmetric ? heap->localPointer(*a, i)
                                         : aLocal->pointer(i)) +
                           team->rankOf(i) * shardBytes);
  auto launch = [&]() -> Status {
    if (!aIsSymmetric)
      return kernel->launch(*heap, {aPlain, own, b->args(), c->args(), *ready,
                                    launches->args(), *done},
                            streams->get());
    return kernel->launch(*heap, {*a, own, b->args(), c->args(), *ready,
                                  launches->args(), *done},
                          streams->get());
  };
  if (Status s = launch(); !s)
    return examples::reportError(kProgram, s.error());
  // A new A for the second launch: each device writes its own shard right
  // after its first launch, ordered on its own stream only. The kernel
  // keeps the peers' forwarding stores of launch 2 from overtaking the
  // reads of launch 1 (its `done` semaphore), so no host synchronization.
  if (aIsSymmetric) {
    for (uint32_t s = 0; s < d; ++s)
      shardsA[s] = shardOfA(*dtype, options, s, 1);
    for (size_t i = 0; i < local; ++i) {
      uint32_t rank = team->rankOf(i);
      (void)team->device(i).makeCurrent();
      if (cuMemcpyHtoDAsync(heap->localPointer(*a, i) + rank * shardBytes,
                            shardsA[rank].data(), shardBytes, streams->get()[i]))
        return examples::reportError(
            kProgram, Error(ErrorCode::DriverError, "cannot write the second A"));
    }
    if (Status s = launch(); !s)
      return examples::reportError(kProgram, s.error());
  }
  if (Status s = bench::waitStreams(bench::timedStreams(*team, streams->get()), 60); !s)
    return examples::reportError(kProgram, s.error());

  // Check sampled outputs of every row shard against float64 dot products.
  bool ok = true;
  for (size_t i = 0; i < local; ++i) {
    uint32_t rank = team->rankOf(i);
    std::vector<uint16_t> out(rows * options.nShard);
    if (Status s = c->download(i, out.data()); !s)
      return examples::reportError(kProgram, s.error());
    std::mt19937_64 rng(7 + rank);
    double err2 = 0, ref2 = 0;
    int nonFinite = 0;
    const int samples = 512 * d;
    for (int sample = 0; sample < samples; ++sample) {
      int64_t row = rng() % rows, col = rng() % options.nShard;
      const std::vector<uint16_t> &shard = shardsA[row / options.mShard];
      int64_t r = row % options.mShard;
      double exact = 0;
      for (int64_t kk = 0; kk < options.k; ++kk)
        exact += double(bench::toFloat(*dtype, shard[r * options.k + kk])) *
                 double(bench::toFloat(*dtype, shardsB[rank][kk * options.nShard + col]));
      double got = bench::toFloat(*dtype, out[row * options.nShard + col]);
      if (!std::isfinite(got))
        ++nonFinite;
      else
        err2 += (got - exact) * (got - exact);
      ref2 += exact * exact;
    }
    double rel = std::sqrt(err2 / ref2);
    bool good = nonFinite == 0 && rel < bench::defaultTolerance(*dtype).relFrobenius;
    std::printf("%s: rank %u: %d sampled outputs over %u row shards: relative "
                "error %.2e, %d non-finite: %s\n",
                kProgram, rank, samples, d, rel, nonFinite, good ? "ok" : "WRONG");
    ok = ok && good;
  }
  if (!ok && !options.timeIfWrong)
    return 1;

  bench::TimingOptions timing;
  timing.iterations = options.iterations;
  Expected<bench::TimingResult> result = bench::timeIterations(
      bench::timedStreams(*team, streams->get()),
      [&](int) { return launch(); }, timing);
  if (!result)
    return examples::reportError(kProgram, result.error());
  double flops = 2.0 * rows * options.k * options.nShard;
  std::printf("%s: %u GPUs, %s, m_shard=%lld K=%lld n_shard=%lld: median %.3f "
              "ms over %d back-to-back launches (%.0f TFLOP/s per GPU)\n",
              kProgram, d, options.dtype.c_str(), (long long)options.mShard,
              (long long)options.k, (long long)options.nShard, result->medianMs,
              result->iterations, flops / (result->medianMs * 1e-3) / 1e12);
  return ok ? 0 : 1;
}
