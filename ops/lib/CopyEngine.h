//===- CopyEngine.h - GEMM + reduce-scatter on the copy engines -*- C++ -*-===//
//
// ops::MatmulReduceScatter's algorithm "copy_engine" (issue #31; docs/OPS.md,
// "GEMM + reduce-scatter"): member r computes its partial product a @ b one
// m_shard chunk at a time, the chunks of owners r + 1, r + 2, ..., r - 1
// first and its own last, each one launch of the plain matmul (ce_matmul,
// ops/templates/matmul_reduce_scatter/ce_matmul.mlir.in) into a local
// staging chunk; a copy engine moves each finished chunk (cuMemcpyAsync on
// a copy stream of the op's, no SM time) into slot r of the symmetric
// `slots` on its owner; once every peer's chunk has landed the owner sums
// its D partials in f32 in source order and rounds once into `c`: in the
// own chunk's epilogue (ce_matmul_sum: each output box plus the peers'
// slot rows, a wait in the kernel on the ready flags) where
// MatmulReduceScatter::sumsInEpilogue and no two members share a GPU,
// else as a pass after the own chunk
// (computed into its own slot) over the D slots (ce_sum). The members are
// ordered by stream memory operations on symmetric u32 flags, not by
// events, so the algorithm works the same for one process per GPU, one
// process driving every GPU, and a loopback team (the flags, copy streams
// and their operations are CopyEngineLanes.h's, shared with the all-gather
// matmul's copy engines; CopyEngine.cpp states this algorithm's use of
// them and why it cannot deadlock or be overtaken).
//
// Each chunk is its own launch, its copy released by an event after it:
// one persistent launch of every chunk, signalling per-chunk counters, was
// slower at every measured shape (4 x H100, by 2-57% in its final form;
// docs/PERF.md, "The deferred-signal persistent schedule measured").
//
// Workspace per op: staging (D - 1 chunks of m_shard x n per local member,
// plain device memory), slots (symmetric, D x m_shard x n), the lanes
// (CopyEngineLanes: 2 x D symmetric u32 flags, a copy stream and its fork
// and join events per local member), and D - 1 chunk events per local
// member.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_OPS_LIB_COPYENGINE_H
#define WEAVE_OPS_LIB_COPYENGINE_H

#include "CopyEngineLanes.h"
#include "PlainMatmulOpKernel.h"

namespace weave::ops::detail {

class CopyEngineKernel : public PlainMatmulOpKernel {
public:
  /// `instance`: MatmulReduceScatter::instanceFor(..., "copy_engine") (its
  /// bundle holds ce_matmul, ce_matmul_sum and ce_sum). Allocates the
  /// workspace (a collective call: every process of the team makes it, in
  /// the same order as its other ops).
  static Expected<std::unique_ptr<CopyEngineKernel>>
  create(Communicator &comm, KernelInstance instance, int64_t mShard,
         int64_t k, int64_t n);
  /// Gives the workspace back: destroy the op only once its last call has
  /// completed on every stream (as every op).
  ~CopyEngineKernel() override;

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

private:
  CopyEngineKernel() = default;

  Kernel *matmulSum_ = nullptr; ///< ce_matmul_sum: the own chunk + the sum
  Kernel *sum_ = nullptr;       ///< ce_sum: the sum as a pass
  bool sumInEpilogue_ = false;  ///< MatmulReduceScatter::sumsInEpilogue
  std::vector<CUdeviceptr> staging_; ///< per local member, D - 1 chunks
  std::optional<SymmetricBuffer> slots_;
  std::unique_ptr<CopyEngineLanes> lanes_; ///< flags and copy streams
  /// Per local member: chunkDone_[i][t - 1] recorded after step t's matmul
  /// (t < D).
  std::vector<std::vector<CUevent>> chunkDone_;
};

} // namespace weave::ops::detail

#endif // WEAVE_OPS_LIB_COPYENGINE_H
