//===- GatherMatmul.h - All-gather matmul: the gather beside the own shard ===//
//
// ops::AllGatherMatmul's algorithm "gather" (issue #32; docs/OPS.md,
// "All-gather matmul"): the all-gather and the matmul as two pieces that
// each run at their own best speed, overlapped where they can be. Member
// r, on its stream s and a side stream (SideStreams.h):
//
//   side: the all-gather collective of the op's size (ops::AllGather's
//         kernel and choice table: at these sizes the `direct` kernel, every
//         block storing its chunk of the own shard straight into every
//         peer's rows, one ready and one done flag per block and peer) of
//         r's shard into the op's symmetric gathered rows (bound in place:
//         no staging copy);
//   s:    at once, the own shard times b (one launch of the plain matmul,
//         ce_matmul of ops/templates/matmul_reduce_scatter/ce_matmul.mlir.in,
//         tile(auto): the GEMM + reduce-scatter's copy-engine bundle, whose
//         instance is that op's, MatmulReduceScatter::instanceFor(...,
//         "copy_engine"), for the same k and n) into rows r of c;
//   s:    join the side stream, then each peer's shard times b (one launch
//         each, member r + 1 first) into its rows of c. (One launch over
//         all the peers' rows, rotate_m + walk_m, was measured slower at
//         every shape the rule gives "gather": docs/PERF.md, "The peers'
//         shards in one launch".)
//
// Why: the ring (the fused kernel) forwards rows from tiles that compute,
// so where a shard is a partial wave of tiles (D = 4, m_shard 384-768, 4 x
// H100) each shard waits for the previous one's tiles and the matmul runs at
// 1.4-2.0x local cuBLAS; the copy engines move one shard in about 30 us at
// about 100 GB/s, one copy after another (docs/PERF.md, "The copy_engine
// algorithm measured"). The SM all-gather moves 4-16 MB in 16-44 us at D =
// 4 (2.2-1.4x NCCL). Measured (4 x H100, K = N = 4096, docs/PERF.md "The
// all-gather beside the own shard's matmul"): faster than the ring where
// one shard's launch is one nearly full round of tiles (D = 4, m_shard 384
// and 512: 0.122 and 0.126 ms against 0.141 and 0.167), slower where it is
// a small part of one (256 and less) or past one (640 and more: every
// shard's launch pays its partial last round); AllGatherMatmul::choose.
//
// Ordering: every member's all-gather of call n + 1 starts on its side
// stream after the fork of call n + 1, after its matmuls of call n on s;
// the direct kernel stores into a peer's rows only after that peer's block
// has raised its ready flag in call n + 1 (the collective's own protocol,
// ops/templates/all_gather/direct_all_gather.mlir.in), so no peer
// overwrites rows a matmul of call n still reads. The matmuls wait for
// nothing on the GPU (the join is an event), so they cannot hold SMs that
// the all-gather's spinning blocks need: the all-gather always progresses.
// With `a` in place, the all-gather also stores the member's own rows onto
// themselves (the same values) while the own matmul reads them.
//
// Workspace per op: gathered (symmetric, D x m_shard x k), the all-gather's
// (its flags and epochs), a side stream and two events per local member.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_OPS_LIB_GATHERMATMUL_H
#define WEAVE_OPS_LIB_GATHERMATMUL_H

#include "SideStreams.h"
#include "StagedKernel.h"

#include "weave/ops/FusedMatmul.h"

#include <string>

namespace weave::ops::detail {

class GatherMatmulKernel : public OpKernel {
public:
  /// `instance`: AllGatherMatmul::instanceFor(..., "gather") (the bundle
  /// holding ce_matmul). Builds the all-gather's kernel
  /// (AllGather::instanceFor(D, dtype, mShard x k)) and allocates the
  /// workspace (a collective call: every process of the team makes it, in
  /// the same order as its other ops).
  static Expected<std::unique_ptr<GatherMatmulKernel>>
  create(Communicator &comm, KernelInstance instance, int64_t mShard, int64_t k,
         int64_t n);
  /// Gives the workspace back: destroy the op only once its last call has
  /// completed on every stream (as every op).
  ~GatherMatmulKernel() override;

  const KernelInstance &instance() const override { return instance_; }
  /// The all-gather's instance (for messages, tools and tests).
  const KernelInstance &gatherInstance() const { return gather_->instance(); }
  /// tensors = {a (mShard x k, the member's shard), b (k x n), c (D x
  /// mShard x n)}, one per local member each; inPlace[0], where set: a
  /// symmetric buffer of D x mShard x k of this op's heap whose rows
  /// [rank x mShard, (rank + 1) x mShard) hold the member's shard (written
  /// on its stream before the call); tensors[0] is then not read.
  Status
  run(const std::vector<std::vector<TensorRef>> &tensors,
      const std::vector<CUstream> &streams,
      const std::vector<std::optional<SymmetricBuffer>> &inPlace = {}) override;

  /// The shard member `rank` of a team of d multiplies at step t (0: its
  /// own, then the next members').
  static uint32_t shardAt(uint32_t rank, uint32_t d, uint32_t t) {
    return (rank + t) % d;
  }

private:
  GatherMatmulKernel() = default;
  Status checkTensors(
      const std::vector<std::vector<TensorRef>> &tensors,
      const std::vector<CUstream> &streams,
      const std::vector<std::optional<SymmetricBuffer>> &inPlace) const;

  Communicator *comm_ = nullptr;
  KernelInstance instance_;
  Kernel *matmul_ = nullptr;
  std::string dtype_;
  int64_t d_ = 0, m_ = 0, k_ = 0, n_ = 0;
  uint64_t elementBytes_ = 2;
  std::optional<SymmetricBuffer> gathered_;
  /// The all-gather of the own shard into gathered_ (its output bound in
  /// place when symmetric).
  std::unique_ptr<StagedKernel> gather_;
  bool gatherOutputSymmetric_ = true;
  std::unique_ptr<SideStreams> side_;
  using GatherSchedule = AllGatherMatmul::GatherSchedule;
  GatherSchedule schedule_ = GatherSchedule::Beside;
};

} // namespace weave::ops::detail

#endif // WEAVE_OPS_LIB_GATHERMATMUL_H
