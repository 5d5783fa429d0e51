//===- CopyEngine.h - GEMM + reduce-scatter on the copy engines -*- C++ -*-===//
//
// ops::MatmulReduceScatter's algorithm "copy_engine" (issue #31; docs/OPS.md,
// "GEMM + reduce-scatter"): member r computes its partial product a @ b one
// m_shard chunk at a time, the chunks of owners r + 1, r + 2, ..., r - 1
// first and its own last, each one launch of the plain matmul (ce_matmul,
// ops/templates/matmul_reduce_scatter/ce_matmul.mlir.in) into a local
// staging chunk; a copy engine moves each finished chunk (cuMemcpyAsync on
// a copy stream of the op's, no SM time) into slot r of the symmetric
// `slots` on its owner; the own chunk is computed straight into the own
// slot; once every peer's chunk has landed, the owner sums its D slots in
// f32 in source order and rounds once into `c` (ce_sum). The members are
// ordered by stream memory operations on symmetric u32 flags, not by
// events, so the algorithm works the same for one process per GPU, one
// process driving every GPU, and a loopback team (the flags, copy streams
// and their operations are CopyEngineLanes.h's, shared with the all-gather
// matmul's copy engines; CopyEngine.cpp states this algorithm's use of
// them and why it cannot deadlock or be overtaken).
//
// Two schedules of the same chunks (schedule(), CopyEngine.cpp):
// "chunks", the D launches above, and "persistent", one launch of
// ce_matmul_all that computes every chunk in the same order and stores
// each where its launch would have, raising a per-chunk counter in device
// memory (`done`, a system-scope release after each tile's stores) that
// the copy stream waits for (cuStreamWaitValue32) instead of an event
// after each launch: no chunk pays its own last partial wave and launch.
//
// Workspace per op: staging (D - 1 chunks of m_shard x n per local member,
// plain device memory), slots (symmetric, D x m_shard x n), the lanes
// (CopyEngineLanes: 2 x D symmetric u32 flags, a copy stream and its fork
// and join events per local member), done (D u32 semaphores, zeroed by the
// heap, used by "persistent"), and D - 1 chunk events per local member.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_OPS_LIB_COPYENGINE_H
#define WEAVE_OPS_LIB_COPYENGINE_H

#include "CopyEngineLanes.h"

namespace weave::ops::detail {

class CopyEngineKernel : public OpKernel {
public:
  /// How a member's D chunks are computed: D launches of ce_matmul, an
  /// event after each releasing its copy ("chunks"), or one launch of
  /// ce_matmul_all whose per-chunk counters release the copies
  /// ("persistent").
  enum class Schedule { Chunks, Persistent };
  static const char *scheduleName(Schedule s) {
    return s == Schedule::Chunks ? "chunks" : "persistent";
  }
  /// The rule (its measurement in CopyEngine.cpp): the schedule for a
  /// team of d and this shape. The environment's WEAVE_MRS_CE_SCHEDULE
  /// (chunks | persistent), when set, overrides it in create(): a knob for
  /// measuring one against the other, as the benchmark does.
  static Schedule schedule(int64_t d, int64_t mShard, int64_t k, int64_t n);
  /// The schedule this op runs.
  Schedule scheduleInUse() const { return schedule_; }

  /// `instance`: MatmulReduceScatter::instanceFor(..., "copy_engine") (its
  /// bundle holds ce_matmul and ce_sum). Allocates the workspace (a
  /// collective call: every process of the team makes it, in the same
  /// order as its other ops).
  static Expected<std::unique_ptr<CopyEngineKernel>>
  create(Communicator &comm, KernelInstance instance, int64_t mShard,
         int64_t k, int64_t n);
  /// Gives the workspace back: destroy the op only once its last call has
  /// completed on every stream (as every op).
  ~CopyEngineKernel() override;

  const KernelInstance &instance() const override { return instance_; }
  /// tensors = {a (D x mShard x k), b (k x n), c (mShard x n)}, one per
  /// local member each; no in-place role.
  Status run(const std::vector<std::vector<TensorRef>> &tensors,
             const std::vector<CUstream> &streams,
             const std::vector<std::optional<SymmetricBuffer>> &inPlace = {})
      override;

  /// (The flags, CopyEngineLanes: ready[src] on the owner, set by src's
  /// copy stream once its chunk has landed in slot src; busy[owner] on the
  /// source, set by its copy stream before the copy into that owner,
  /// cleared by the owner once its sum has read the slot.)
  ///
  /// "persistent": the count at which counter `owner` of `done` says that
  /// owner's chunk is in staging: ce_matmul_all adds 1 per 64 rows x 256
  /// columns (a consumer's four boxes of a 128 x 256 tile).
  static uint32_t chunkSignals(int64_t mShard, int64_t n) {
    return uint32_t(mShard / 64 * ((n + 255) / 256));
  }

private:
  CopyEngineKernel() = default;
  Status checkTensors(const std::vector<std::vector<TensorRef>> &tensors,
                      const std::vector<CUstream> &streams,
                      const std::vector<std::optional<SymmetricBuffer>>
                          &inPlace) const;

  Communicator *comm_ = nullptr;
  KernelInstance instance_;
  Kernel *matmul_ = nullptr, *sum_ = nullptr;
  Kernel *matmulAll_ = nullptr; ///< "persistent" only
  Schedule schedule_ = Schedule::Chunks;
  std::string dtype_;
  int64_t d_ = 0, m_ = 0, k_ = 0, n_ = 0;
  uint64_t elementBytes_ = 2;
  std::vector<CUdeviceptr> staging_; ///< per local member, D - 1 chunks
  std::optional<SymmetricBuffer> slots_;
  std::unique_ptr<CopyEngineLanes> lanes_; ///< flags and copy streams
  std::optional<SemaphoreArray> done_; ///< "persistent" only
  /// Per local member: chunkDone_[i][t - 1] recorded after step t's matmul
  /// (t < D).
  std::vector<std::vector<CUevent>> chunkDone_;
};

inline CopyEngineKernel::Schedule
CopyEngineKernel::schedule(int64_t d, int64_t mShard, int64_t k, int64_t n) {
  // The D chunk launches everywhere, measured (4 x H100, bf16, CUDA graphs,
  // the op itself in both schedules in one call, 2026-11-27, docs/PERF.md
  // "one persistent matmul"): the persistent launch with each tile's signal
  // sent at once was slower at all 12 shapes: by 0.5-1.2% at 1024 x 4096
  // x 4096, 2.6% (D = 2) and 9.8% (D = 4, 0.8988 against 0.8189 ms) at
  // 4096 x 4096 x 4096, 3.0-7.7% at the 70B down projections, 8-21% at
  // m_shard 1536 (the fixed 128 x 256 tile: the chunk launches' chooser
  // takes 128 x 128 there) and 19-41% at 640 x 5120 x 3072, where the
  // whole product is one or two waves of tiles: every chunk then finishes
  // with the last wave and no copy overlaps the matmul. Its signals are
  // deferred since (ce_matmul.mlir.in), which is not measured yet; until it is,
  // the persistent schedule runs only when asked for (WEAVE_MRS_CE_SCHEDULE).
  (void)d;
  (void)mShard;
  (void)k;
  (void)n;
  return Schedule::Chunks;
}

} // namespace weave::ops::detail

#endif // WEAVE_OPS_LIB_COPYENGINE_H
