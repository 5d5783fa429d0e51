//===- main.cpp - check the fused matmul ops on a team
//---------------------===//
//
//   fused_ops --bundles DIR [--dtype bf16|f16|all] [--mrs-algorithm A|all]
//             [--agm-algorithm A|all] [--k K] [--n N]
//             [--agm-m-shards M,...] [--mrs-m-shards M,...]
//
// (--k, --n and the m_shard lists replace the default shapes below; DIR
// must then hold bundles of those shapes: bench/gpu_libs.sh
// fused_op_bundles takes them too.)
// Runs weave::ops::AllGatherMatmul (m_shard 128 and 256 from one kernel
// instance, K = 256, n = 320: a ragged column tile; every algorithm:
// "ring", the fused kernel, "gather", the collectives' all-gather into
// the op's gathered rows beside the own shard's plain matmul, then one
// matmul per peer's shard, and "copy_engine", the own shard pushed to the
// peers by the copy engines and each shard's plain matmul as it lands;
// each also with `a` passed in place, the member's rows written into the
// symmetric gathered buffer on its stream before each call) and
// weave::ops::MatmulReduceScatter (m_shard 128 and 384 from one kernel
// instance; K = 256, n = 320; every algorithm: "owner_slots", the fused
// kernel, "copy_engine", the chunk matmuls whose chunks the copy
// engines move, ordered by stream memory operations on flags, and
// "scatter", one matmul of every row and the collectives' reduce-scatter
// of m_shard x n elements, and "input_gather", the peers' rows of a and
// their b pushed by the copy engines and multiplied by the owner, the own
// product added in the epilogue) on the
// team, the way a user does: plain device tensors, one stream per member,
// the op owning its workspace. Each op is called three times with no host
// synchronization (new inputs written on the stream in between), then
// captured once in a CUDA graph per member and replayed 3 times with new
// inputs each time. The
// inputs are multiples of 1/8 (ExactInputs.h), so every f32 sum is exact:
// each output element must be the float64 reference rounded once to the
// dtype (within half an ulp); for the GEMM + reduce-scatter the reference
// is the sum of the members' partial products each rounded to the dtype
// (what its kernel sums: examples/matmul_reduce_scatter). Outputs are
// NaN-poisoned before every call. Kernels come from DIR, a folder of
// `<weave-ops key>.wbundle` made with weave-ops + weavec
// (test/gpu/run_loopback.sh --stage makes them; the GEMM
// + reduce-scatter's with `--algorithm owner_slots`, `copy_engine` and
// `scatter`, whose bundle is copy_engine's and the reduce-scatter's; the
// all-gather matmul's "gather" is the same bundle and the all-gather's of
// m_shard x K elements: bench/gpu_libs.sh fused_op_bundles), so the program
// needs the runtime only. `--mrs-algorithm A` and `--agm-algorithm A` run only
// that algorithm of the op (`none`: not the op). Runs on 2+ GPUs or a
// loopback team (WEAVE_LOOPBACK_TEAM; the all-gather matmul from 2
// members); "SKIP:" without a GPU.
//
//===----------------------------------------------------------------------===//

#include "weave/bench/Table.h"
#include "weave/examples/ExactInputs.h"
#include "weave/examples/HostSetup.h"
#include "weave/ops.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

using namespace weave;
using namespace weave::examples;

namespace {

const char *kProgram = "fused_ops";

/// The shapes the program runs (--k, --n, --agm-m-shards, --mrs-m-shards):
/// by default K = 256 and n = 320 (a ragged last column tile), m_shard 128
/// and 256 (the all-gather matmul) and 128 and 384 (the GEMM +
/// reduce-scatter), each op's from one kernel instance. ExactInputs keeps
/// every f32 sum exact up to K = 2^17.
struct Shapes {
  int64_t k = 256, n = 320;
  std::vector<int64_t> agmShards{128, 256}, mrsShards{128, 384};

  /// Symmetric heap bytes a member needs: the ops' staging and per-source
  /// slots hold up to D x m_shard x max(k, n) elements of at most 4 bytes,
  /// and the in-place cases' gathered `a` as much again; room for D = 8
  /// beside the 64 MB the default shapes run in (m_shard 1152 at k = n =
  /// 4096 and D = 4 took more than 64 MB).
  size_t heapBytes() const {
    int64_t rows = 0;
    for (int64_t m : agmShards)
      rows = std::max(rows, m);
    for (int64_t m : mrsShards)
      rows = std::max(rows, m);
    return (size_t(64) << 20) +
           size_t(2 * 8 * 4) * size_t(rows) * size_t(std::max(k, n));
  }
};
Shapes dims;

/// Inputs of round `round`: member d's values are exactA/B of a member
/// number no other member or round uses.
uint32_t seedOf(uint32_t rank, int round) { return rank + 16 * round; }

/// One operand per local member as host bits, uploaded on the streams.
struct HostOperand {
  std::vector<std::vector<uint16_t>> bits; ///< per local member
};

HostOperand makeA(const Team &team, int64_t rows, int round, bool bf16) {
  HostOperand h;
  for (size_t i = 0; i < team.localCount(); ++i) {
    uint32_t s = seedOf(team.rankOf(i), round);
    std::vector<uint16_t> v(rows * dims.k);
    for (int64_t e = 0; e < rows * dims.k; ++e)
      v[e] = exactBits16(exactA(s, e / dims.k, e % dims.k), bf16);
    h.bits.push_back(std::move(v));
  }
  return h;
}

HostOperand makeB(const Team &team, int round, bool bf16) {
  HostOperand h;
  for (size_t i = 0; i < team.localCount(); ++i) {
    uint32_t s = seedOf(team.rankOf(i), round);
    std::vector<uint16_t> v(dims.k * dims.n);
    for (int64_t e = 0; e < dims.k * dims.n; ++e)
      v[e] = exactBits16(exactB(s, e / dims.n, e % dims.n), bf16);
    h.bits.push_back(std::move(v));
  }
  return h;
}

/// Enqueues the host bits on each member's stream (the host vectors must
/// live until the streams are synchronized).
Status upload(const Team &team, const LocalBuffers &buffers,
              const HostOperand &host, const LocalStreams &streams) {
  for (size_t i = 0; i < team.localCount(); ++i) {
    WEAVE_TRY(team.device(i).makeCurrent());
    WEAVE_CU_TRY(cuMemcpyHtoDAsync(buffers.pointer(i), host.bits[i].data(),
                                   buffers.bytes(), streams[i]),
                 "uploading an operand");
  }
  return ok();
}

Status poison(const Team &team, const LocalBuffers &buffers,
              const LocalStreams &streams) {
  for (size_t i = 0; i < team.localCount(); ++i) {
    WEAVE_TRY(team.device(i).makeCurrent());
    WEAVE_CU_TRY(cuMemsetD16Async(buffers.pointer(i), 0xFFFF,
                                  buffers.bytes() / 2, streams[i]),
                 "poisoning an output");
  }
  return ok();
}

std::vector<ops::TensorRef> refs(const LocalBuffers &buffers,
                                 const std::string &dtype,
                                 std::vector<int64_t> shape) {
  std::vector<ops::TensorRef> out;
  for (uint64_t p : buffers.args().pointers)
    out.push_back({p, dtype, shape});
  return out;
}

/// Compares every member's output (rows x dims.n) with `expected(rank, row,
/// col)`: the exact f32 sum, which the kernel rounds once.
Status check(const Team &team, const LocalBuffers &out, int64_t rows,
             bool bf16, const std::string &what,
             const std::function<double(uint32_t, int64_t, int64_t)> &expected) {
  size_t wrong = 0;
  std::string first;
  std::vector<uint16_t> got(rows * dims.n);
  // Half an ulp of the dtype, relative (8 or 11 significant bits).
  double halfUlp = bf16 ? std::ldexp(1.0, -8) : std::ldexp(1.0, -11);
  for (size_t i = 0; i < team.localCount(); ++i) {
    uint32_t rank = team.rankOf(i);
    WEAVE_TRY(out.download(i, got.data()));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < dims.n; ++c) {
        double want = expected(rank, r, c);
        double have = float16Value(got[r * dims.n + c], bf16);
        if (std::fabs(have - want) <= std::fabs(want) * halfUlp)
          continue;
        if (wrong++ == 0)
          first = "member " + std::to_string(rank) + " (" + std::to_string(r) +
                  ", " + std::to_string(c) + "): got " + std::to_string(have) +
                  ", expected " + std::to_string(want);
      }
  }
  if (wrong)
    return Error(ErrorCode::InvalidArgument,
                 what + ": " + std::to_string(wrong) + " wrong elements, first " +
                     first);
  std::printf("%s: ok: %s\n", kProgram, what.c_str());
  return ok();
}

/// A fused op under test: its call and its float64 reference for a round.
struct Case {
  std::string name;
  int64_t aRows, cRows;
  std::function<Status(const std::vector<ops::TensorRef> &,
                       const std::vector<ops::TensorRef> &,
                       const std::vector<ops::TensorRef> &,
                       const std::vector<CUstream> &)>
      call;
  /// Expected c of member `rank` at (row, col) for inputs of `round`.
  std::function<double(int, uint32_t, int64_t, int64_t)> expected;
  /// The call reads `a` (false: `a` goes in place, its shape unchecked by
  /// the op), so a wrong shape of it must be refused.
  bool readsA = true;
};

/// Three calls without host synchronization, then a graph replayed 3
/// times.
Status runCase(HostSession &s, const Case &c, const std::string &dtype) {
  Team &team = s.team;
  bool bf16 = dtype == "bf16";
  WEAVE_ASSIGN_OR_RETURN(LocalBuffers a,
                         LocalBuffers::create(team, dtype, {c.aRows, dims.k}));
  WEAVE_ASSIGN_OR_RETURN(LocalBuffers b, LocalBuffers::create(team, dtype, {dims.k, dims.n}));
  WEAVE_ASSIGN_OR_RETURN(LocalBuffers c0,
                         LocalBuffers::create(team, dtype, {c.cRows, dims.n}));
  WEAVE_ASSIGN_OR_RETURN(LocalBuffers c1,
                         LocalBuffers::create(team, dtype, {c.cRows, dims.n}));
  WEAVE_ASSIGN_OR_RETURN(LocalBuffers c2,
                         LocalBuffers::create(team, dtype, {c.cRows, dims.n}));
  const LocalBuffers *outs[] = {&c0, &c1, &c2};
  constexpr int kCalls = 3;
  auto call = [&](const LocalBuffers &out) {
    return c.call(refs(a, dtype, {c.aRows, dims.k}), refs(b, dtype, {dims.k, dims.n}),
                  refs(out, dtype, {c.cRows, dims.n}), s.streams.get());
  };
  std::string what = c.name + " " + dtype + " D=" + std::to_string(team.size());

  // A call with a wrong shape fails before anything is enqueued.
  Status refused = c.call(refs(a, dtype, {c.aRows + 1, dims.k}),
                          refs(b, dtype, {dims.k, dims.n}),
                          refs(c0, dtype, {c.cRows, dims.n}), s.streams.get());
  if (refused && c.readsA)
    return Error(ErrorCode::InvalidArgument, what + ": a wrong shape was taken");
  refused = c.call(refs(a, dtype, {c.aRows, dims.k}), refs(b, dtype, {dims.k, dims.n}),
                   refs(c0, dtype, {c.cRows + 1, dims.n}), s.streams.get());
  if (refused)
    return Error(ErrorCode::InvalidArgument,
                 what + ": a wrong shape of c was taken");

  // Three calls, new inputs in between, no host synchronization.
  std::vector<HostOperand> as, bs;
  for (int round = 0; round < kCalls; ++round) {
    as.push_back(makeA(team, c.aRows, round, bf16));
    bs.push_back(makeB(team, round, bf16));
  }
  for (const LocalBuffers *out : outs)
    WEAVE_TRY(poison(team, *out, s.streams));
  for (int round = 0; round < kCalls; ++round) {
    WEAVE_TRY(upload(team, a, as[round], s.streams));
    WEAVE_TRY(upload(team, b, bs[round], s.streams));
    WEAVE_TRY(call(*outs[round]));
  }
  WEAVE_TRY(s.streams.synchronize());
  for (int round = 0; round < kCalls; ++round)
    WEAVE_TRY(check(team, *outs[round], c.cRows, bf16,
                    what + " call " + std::to_string(round + 1),
                    [&](uint32_t r, int64_t i, int64_t j) {
                      return c.expected(round, r, i, j);
                    }));

  // One call captured per member, replayed with new inputs each time: the
  // op's counters must advance although the graph's arguments never change.
  WEAVE_ASSIGN_OR_RETURN(TeamGraphs graphs,
                         TeamGraphs::capture(team, s.streams,
                                             [&] { return call(c0); }));
  for (int replay = 0; replay < 3; ++replay) {
    int round = kCalls + replay;
    HostOperand ha = makeA(team, c.aRows, round, bf16), hb = makeB(team, round, bf16);
    WEAVE_TRY(poison(team, c0, s.streams));
    WEAVE_TRY(upload(team, a, ha, s.streams));
    WEAVE_TRY(upload(team, b, hb, s.streams));
    WEAVE_TRY(graphs.launch(s.streams));
    WEAVE_TRY(s.streams.synchronize());
    WEAVE_TRY(check(team, c0, c.cRows, bf16,
                    what + " graph replay " + std::to_string(replay + 1),
                    [&](uint32_t r, int64_t i, int64_t j) {
                      return c.expected(round, r, i, j);
                    }));
  }
  return ok();
}

/// An op made with an algorithm named must run that one (the registry's
/// name, not a fallback).
template <typename Op>
Status runsAlgorithm(const Op &op, const std::string &algorithm) {
  if (op.algorithm() != algorithm)
    return Error(ErrorCode::InvalidArgument,
                 "asked for " + algorithm + ", the op runs " + op.algorithm());
  return ok();
}

Status runAll(HostSession &s, std::shared_ptr<ops::KernelSource> source,
              const std::vector<std::string> &dtypes,
              const std::vector<std::string> &mrsAlgorithms,
              const std::vector<std::string> &agmAlgorithms) {
  Team &team = s.team;
  uint32_t d = team.size();
  ops::Communicator comm(team, s.heap, std::move(source));
  for (const std::string &dtype : dtypes) {
    // The all-gather matmul: member r's c = [A_0; ...; A_{D-1}] @ B_r.
    // Every algorithm also with `a` in place: a symmetric buffer of D x m
    // rows whose own rows each member writes on its stream before the call
    // (the kernels then read the own shard from those rows: `own`).
    for (const std::string &algorithm : agmAlgorithms)
    for (bool inPlace : {false, true})
    for (int64_t m : dims.agmShards) {
      WEAVE_ASSIGN_OR_RETURN(
          ops::AllGatherMatmul op,
          ops::AllGatherMatmul::create(comm, dtype, m, dims.k, dims.n, algorithm));
      WEAVE_TRY(runsAlgorithm(op, algorithm));
      std::optional<SymmetricBuffer> gathered;
      if (inPlace) {
        WEAVE_ASSIGN_OR_RETURN(SymmetricBuffer g,
                               s.heap.allocateTensor(dtype, {d * m, dims.k}));
        gathered = g;
      }
      Case c{"all_gather_matmul (" + algorithm +
                 (inPlace ? ", a in place" : "") +
                 ") m_shard=" + std::to_string(m),
             m, d * m,
             [&](auto &a, auto &b, auto &out, auto &streams) -> Status {
               if (!inPlace)
                 return op(a, b, out, streams);
               // The member's shard into its rows of the gathered buffer,
               // on its stream, then the call in place.
               uint64_t shard = uint64_t(m) * dims.k * 2;
               for (size_t i = 0; i < team.localCount(); ++i) {
                 WEAVE_TRY(team.device(i).makeCurrent());
                 WEAVE_CU_TRY(
                     cuMemcpyDtoDAsync(s.heap.localPointer(*gathered, i) +
                                           team.rankOf(i) * shard,
                                       a[i].data, shard, streams[i]),
                     "writing the own rows of the gathered buffer");
               }
               return op(*gathered, b, out, streams);
             },
             [&](int round, uint32_t rank, int64_t row, int64_t col) {
               uint32_t owner = static_cast<uint32_t>(row / m);
               return exactDot(seedOf(owner, round), row % m,
                               seedOf(rank, round), col, dims.k);
             },
             /*readsA=*/!inPlace};
      Status ran = runCase(s, c, dtype);
      if (gathered)
        (void)s.heap.free(*gathered);
      WEAVE_TRY(std::move(ran));
    }
    // GEMM + reduce-scatter: member r's c = rows of shard r of
    // sum_d A_d @ B_d.
    for (const std::string &algorithm : mrsAlgorithms)
    for (int64_t m : dims.mrsShards) {
      // "scatter" takes bf16 only (its reduce-scatter sums bf16 or f32)
      // and does not run on a loopback team (ops/lib/ScatterMatmul.h).
      if (algorithm == "scatter" &&
          (dtype != "bf16" || comm.team().isLoopback()))
        continue;
      WEAVE_ASSIGN_OR_RETURN(
          ops::MatmulReduceScatter op,
          ops::MatmulReduceScatter::create(comm, dtype, m, dims.k, dims.n, algorithm));
      WEAVE_TRY(runsAlgorithm(op, algorithm));
      Case c{"matmul_reduce_scatter (" + algorithm + ") m_shard=" +
                 std::to_string(m),
             d * m, m,
             [&](auto &a, auto &b, auto &out, auto &streams) {
               return op(a, b, out, streams);
             },
             [&](int round, uint32_t rank, int64_t row, int64_t col) {
               // "input_gather" rounds the own partial and the peers'
               // f32 sum (its matmul over their gathered inputs), the
               // others every member's partial.
               bool bf16 = dtype == "bf16";
               double sum = 0, peers = 0;
               for (uint32_t member = 0; member < d; ++member) {
                 double partial =
                     exactDot(seedOf(member, round), rank * m + row,
                              seedOf(member, round), col, dims.k);
                 if (algorithm == "input_gather" && member != rank)
                   peers += partial;
                 else
                   sum += roundToDtype(partial, bf16);
               }
               return algorithm == "input_gather" && d > 1
                          ? sum + roundToDtype(peers, bf16)
                          : sum;
             }};
      WEAVE_TRY(runCase(s, c, dtype));
    }
  }
  return ok();
}

int usage() {
  std::fprintf(stderr,
               "usage: %s --bundles DIR [--dtype bf16|f16|all] "
               "[--mrs-algorithm "
               "owner_slots|copy_engine|scatter|input_gather|all|none] "
               "[--agm-algorithm ring|gather|copy_engine|all|none] "
               "[--k K] [--n N] [--agm-m-shards M,...] "
               "[--mrs-m-shards M,...]\n",
               kProgram);
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  // One line at a time even into a file: a run cut by a time limit (a
  // loopback team of 8 on one GPU, 2026-11-27) otherwise leaves an empty
  // log, and says nothing of how far it got.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::string bundles, dtype = "all", mrs = "all", agm = "all";
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 >= argc)
      return usage();
    if (arg == "--bundles")
      bundles = argv[++i];
    else if (arg == "--dtype")
      dtype = argv[++i];
    else if (arg == "--mrs-algorithm")
      mrs = argv[++i];
    else if (arg == "--agm-algorithm")
      agm = argv[++i];
    else if (arg == "--k" || arg == "--n") {
      std::optional<std::vector<int64_t>> v = bench::parseIntList(argv[++i]);
      if (!v || v->size() != 1 || v->front() > (int64_t(1) << 17))
        return usage();
      (arg == "--k" ? dims.k : dims.n) = v->front();
    } else if (arg == "--agm-m-shards" || arg == "--mrs-m-shards") {
      std::optional<std::vector<int64_t>> shards =
          bench::parseIntList(argv[++i]);
      if (!shards)
        return usage();
      (arg == "--agm-m-shards" ? dims.agmShards : dims.mrsShards) = *shards;
    } else
      return usage();
  }
  auto algorithms = [](const std::string &named,
                       std::vector<std::string> all) {
    return named == "all"    ? all
           : named == "none" ? std::vector<std::string>{}
                             : std::vector<std::string>{named};
  };
  std::vector<std::string> mrsAlgorithms =
      algorithms(mrs, {"owner_slots", "copy_engine", "scatter",
                       "input_gather"});
  std::vector<std::string> agmAlgorithms =
      algorithms(agm, {"ring", "gather", "copy_engine"});
  std::vector<std::string> dtypes =
      dtype == "all" ? std::vector<std::string>{"bf16", "f16"}
                     : std::vector<std::string>{dtype};
  if (dtype != "all" && dtype != "bf16" && dtype != "f16")
    return usage();
  if (bundles.empty())
    return usage();
  std::shared_ptr<ops::KernelSource> source = ops::bundleFolder(bundles);
  TeamRequest request;
  request.program = kProgram;
  request.minDevices = 1;
  request.heapBytes = dims.heapBytes();
  SessionStart start = startSession(request);
  if (!start.session)
    return start.exitCode;
  // The all-gather matmul needs a ring of 2 or more.
  if (start.session->team.size() < 2)
    agmAlgorithms.clear();
  if (Status s = runAll(*start.session, std::move(source), dtypes,
                       mrsAlgorithms, agmAlgorithms);
      !s)
    return reportError(kProgram, s.error());
  std::printf("%s: PASS: D=%u\n", kProgram, start.session->team.size());
  return 0;
}
