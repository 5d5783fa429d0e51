//===- GatherMatmul.h - All-gather matmul: the gather beside the own shard ===//
//
// ops::AllGatherMatmul's algorithm "gather" (issue #32; docs/OPS.md,
// "All-gather matmul"): the all-gather and the matmul as two pieces that
// each run at their own best speed. The all-gather is the collective of
// the op's size (ops::AllGather's kernel and choice table: at these sizes
// the `direct` kernel, every block storing its chunk of the own shard
// straight into every peer's rows, one ready and one done flag per block
// and peer) of member r's shard into the op's symmetric gathered rows
// (bound in place: no staging copy); the matmul is ce_matmul of
// ops/templates/matmul_reduce_scatter/ce_matmul.mlir.in (the plain
// matmul, tile(auto), dynamic rows: the GEMM + reduce-scatter's
// copy-engine bundle, MatmulReduceScatter::instanceFor(..., "copy_engine"),
// for the same k and n). Three schedules (AllGatherMatmul::gatherSchedule):
//
//   After:  s: the all-gather, then one launch over every gathered row.
//   Beside: side: the all-gather;  s, at once: the own shard times b into
//           rows r of c;  s: join the side stream, then the peers' rows
//           (launchesAfter: their runs, or one launch per shard).
//   BesideNarrow: Beside with the all-gather's "narrow" algorithm (the
//           direct kernel on kNarrowAllGatherBlocks blocks), where b is
//           streamed from 3 members and the split costs no round of
//           tiles: the own shard's launch keeps the other SMs, and the
//           all-gather ends within it.
//
// Why: the ring (the fused kernel) forwards rows from tiles that compute,
// so where a shard is a partial wave of tiles (D = 4, m_shard 384-768, 4 x
// H100) each shard waits for the previous one's tiles and the matmul runs
// at 1.4-2.0x local cuBLAS; the SM all-gather moves 4-16 MB in 16-44 us at
// D = 4 (2.2-1.4x NCCL). Beside hides the all-gather behind the own
// shard's launch but pays that launch's round (on SMs shared with the
// all-gather's blocks); After pays the all-gather's time but runs the
// whole product as one launch, which wins where the shard is small
// (docs/PERF.md, "The all-gather matmul's gather: one launch after the
// all-gather"; AllGatherMatmul::choose and gatherSchedule hold the
// numbers).
//
// Ordering: every member's all-gather of call n + 1 starts after its
// matmuls of call n on s (Beside: on the side stream, after the fork of
// call n + 1; After: on s itself);
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
// (its flags and epochs), and for Beside a side stream and two events per
// local member.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_OPS_LIB_GATHERMATMUL_H
#define WEAVE_OPS_LIB_GATHERMATMUL_H

#include "GatheredRowsKernel.h"
#include "SideStreams.h"

#include "weave/ops/FusedMatmul.h"

#include <string>
#include <vector>

namespace weave::ops::detail {

class GatherMatmulKernel : public GatheredRowsKernel {
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

  using GatherSchedule = AllGatherMatmul::GatherSchedule;
  /// `shards` whole shards of the gathered rows from shard `first`: one
  /// launch of the plain matmul.
  struct RowRun {
    uint32_t first = 0;
    uint32_t shards = 0;
  };
  /// The launches member `rank` of a team of d makes after the all-gather:
  /// After, every row at once; Beside, the peers' rows (the own shard's
  /// launch is beside the all-gather), as the runs after and before the
  /// own shard where `runs` (one launch per run: measured 0-7% faster than
  /// per shard at D = 4, m_shard 384-1280, where the rule takes "gather"
  /// to 768; docs/PERF.md), else one launch per peer's shard,
  /// member r + 1 first (every member the same shapes, as the launches of
  /// a process driving several members must be).
  static std::vector<RowRun>
  launchesAfter(GatherSchedule schedule, uint32_t rank, uint32_t d, bool runs) {
    if (schedule == GatherSchedule::After)
      return {{0, d}};
    std::vector<RowRun> launches;
    if (!runs) {
      for (uint32_t t = 1; t < d; ++t)
        launches.push_back({shardAt(rank, d, t), 1});
      return launches;
    }
    if (rank + 1 < d)
      launches.push_back({rank + 1, d - rank - 1});
    if (rank > 0)
      launches.push_back({0, rank});
    return launches;
  }

private:
  GatherMatmulKernel() = default;

  /// The all-gather of the own shard into gathered_ (its output bound in
  /// place when symmetric).
  std::unique_ptr<StagedKernel> gather_;
  bool gatherOutputSymmetric_ = true;
  std::unique_ptr<SideStreams> side_;
  GatherSchedule schedule_ = GatherSchedule::Beside;
};

} // namespace weave::ops::detail

#endif // WEAVE_OPS_LIB_GATHERMATMUL_H
