//===- CopyEngineGather.h - All-gather matmul on the copy engines -*- C++ -*-===//
//
// ops::AllGatherMatmul's algorithm "copy_engine" (issue #32; docs/OPS.md,
// "All-gather matmul"), opt-in: the op's default stays the ring until a GPU
// has measured this one (AllGatherMatmul::choose). PyTorch's
// fused_all_gather_matmul decomposed the same way: member r's copy stream
// moves r's shard (cuMemcpyAsync through the symmetric heap's mapping: a
// copy engine, no SM time) into rows [r x m_shard, (r + 1) x m_shard) of
// every peer's gathered `a`, the previous member first; meanwhile r's
// stream multiplies its own shard (one launch of the plain matmul,
// ce_matmul of ops/templates/matmul_reduce_scatter/ce_matmul.mlir.in, the
// GEMM + reduce-scatter's copy-engine bundle: its instance is that op's,
// MatmulReduceScatter::instanceFor(..., "copy_engine"), for the same k and
// n), then each peer's shard as it lands (a stream wait on its ready flag,
// one launch each, the next member's shard first: every member's first
// copy goes to its previous member). The members are ordered by the flag
// protocol of CopyEngineLanes.h (the GEMM + reduce-scatter's); this
// algorithm's use of it and why it can neither deadlock nor be overtaken
// is in CopyEngineGather.cpp.
//
// No staging copy: the own shard's matmul and copies read the caller's `a`
// where it is; with `a` passed in place (the op's gathered symmetric
// buffer, the member's rows already written) they read those rows.
//
// Workspace per op: gathered (symmetric, D x m_shard x k: the peers' rows
// land there) and the lanes (2 x D symmetric u32 flags, a copy stream and
// its fork and join events per local member).
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_OPS_LIB_COPYENGINEGATHER_H
#define WEAVE_OPS_LIB_COPYENGINEGATHER_H

#include "CopyEngineLanes.h"

namespace weave::ops::detail {

class CopyEngineGatherKernel : public OpKernel {
public:
  /// `instance`: AllGatherMatmul::instanceFor(..., "copy_engine") (the
  /// bundle of ce_matmul). Allocates the workspace (a collective call:
  /// every process of the team makes it, in the same order as its other
  /// ops).
  static Expected<std::unique_ptr<CopyEngineGatherKernel>>
  create(Communicator &comm, KernelInstance instance, int64_t mShard,
         int64_t k, int64_t n);
  /// Gives the workspace back: destroy the op only once its last call has
  /// completed on every stream (as every op).
  ~CopyEngineGatherKernel() override;

  const KernelInstance &instance() const override { return instance_; }
  /// tensors = {a (mShard x k, the member's shard), b (k x n), c (D x
  /// mShard x n)}, one per local member each; inPlace[0], where set: a
  /// symmetric buffer of D x mShard x k of this op's heap whose rows
  /// [rank x mShard, (rank + 1) x mShard) hold the member's shard (written
  /// on its stream before the call); tensors[0] is then not read.
  Status run(const std::vector<std::vector<TensorRef>> &tensors,
             const std::vector<CUstream> &streams,
             const std::vector<std::optional<SymmetricBuffer>> &inPlace = {})
      override;

  /// The shard member `rank` of a team of d multiplies at step t (0: its
  /// own; t = 1 .. d - 1 in the order the shards arrive: member rank + t,
  /// whose t-th copy is to rank).
  static uint32_t shardAt(uint32_t rank, uint32_t d, uint32_t t) {
    return (rank + t) % d;
  }
  /// The peer member `rank` copies its shard into at copy j = 1 .. d - 1
  /// (the previous member first).
  static uint32_t copyTarget(uint32_t rank, uint32_t d, uint32_t j) {
    return (rank + d - j) % d;
  }

private:
  CopyEngineGatherKernel() = default;
  Status checkTensors(const std::vector<std::vector<TensorRef>> &tensors,
                      const std::vector<CUstream> &streams,
                      const std::vector<std::optional<SymmetricBuffer>>
                          &inPlace) const;

  Communicator *comm_ = nullptr;
  KernelInstance instance_;
  Kernel *matmul_ = nullptr;
  std::string dtype_;
  int64_t d_ = 0, m_ = 0, k_ = 0, n_ = 0;
  uint64_t elementBytes_ = 2;
  std::optional<SymmetricBuffer> gathered_;
  std::unique_ptr<CopyEngineLanes> lanes_;
};

} // namespace weave::ops::detail

#endif // WEAVE_OPS_LIB_COPYENGINEGATHER_H
