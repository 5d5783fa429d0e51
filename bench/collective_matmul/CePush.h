//===- CePush.h - The all-gather matmul with the copy engines' push -*- C++ -*-//
//
// `weave_bench_collective_matmul --ce-push` (issue #32): the all-gather
// matmul whose shards the copy engines bring, as PyTorch's fused op has
// them brought, around the template's PUSH = 2 kernel
// (ops/templates/collective_matmul/all_gather_matmul.mlir.in;
// ring_variants.py cepush), which puts, forwards and signals nothing and
// waits in each peer tile until ready[shard * 16] >= 1. One process drives
// every member (or a loopback team); the members are ordered by stream
// memory operations on symmetric u32 flags, the protocol of
// ops/lib/CopyEngine.cpp (GEMM + reduce-scatter) adapted: CePush.cpp states
// it and why it can neither deadlock nor be overtaken.
//
// An experiment of the bench, no op: the op's kernel (PUSH 0 / 1) is
// unchanged and no op chooses PUSH = 2.
//
//===----------------------------------------------------------------------===//
#ifndef WEAVE_BENCH_AGM_CEPUSH_H
#define WEAVE_BENCH_AGM_CEPUSH_H

#include "weave/bench/Timing.h"
#include "weave/runtime/Kernel.h"
#include "weave/runtime/SymmetricHeap.h"
#include "weave/runtime/Team.h"

#include <cuda.h>

#include <memory>
#include <vector>

namespace weave::bench::agm {

class CePush {
public:
  /// `kernel`: the PUSH = 2 kernel; `args` its arguments (a, b, c, ready,
  /// launches, done), `a` and `ready` among them; `busy`: D symmetric u32
  /// flags. `ready` and `busy` must be zero on every member (and are again
  /// after every completed iteration). Every member must be local.
  /// `shardBytes`: one shard's rows of `a`.
  static Expected<std::unique_ptr<CePush>>
  create(Team &team, SymmetricHeap &heap, const std::vector<TimedStream> &timed,
         Kernel &kernel, const std::vector<KernelArg> &args,
         const SymmetricBuffer &a, const SemaphoreArray &ready,
         const SemaphoreArray &busy, uint64_t shardBytes);
  ~CePush();

  /// One iteration on every member's stream (its copy stream forked from
  /// it and joined back), no host synchronization. Capturable in one CUDA
  /// graph per member (examples::TeamGraphs): the fork and the join are
  /// events on the member's stream.
  Status enqueue();

private:
  CePush() = default;

  Team *team_ = nullptr;
  SymmetricHeap *heap_ = nullptr;
  Kernel *kernel_ = nullptr;
  std::unique_ptr<BoundArgs> bound_;
  std::vector<TimedStream> timed_;
  std::vector<CUstream> streams_, copyStreams_;
  /// Per local member: start_ recorded on its stream before the copies
  /// (the copies read `a` after what the stream did before the call; and
  /// the fork into a capture), copied_ on the copy stream after them.
  std::vector<CUevent> start_, copied_;
  /// Per local member: its own copy's address of `a`'s own rows, of the
  /// ready and busy words; per peer rank the peers' copies.
  std::vector<CUdeviceptr> ownRows_, readyBase_, busyBase_;
  std::vector<std::vector<CUdeviceptr>> peerRows_, peerReady_, peerBusy_;
  uint64_t shardBytes_ = 0;
  uint32_t d_ = 0;
};

} // namespace weave::bench::agm

#endif // WEAVE_BENCH_AGM_CEPUSH_H
