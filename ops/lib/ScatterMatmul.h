//===- ScatterMatmul.h - GEMM + reduce-scatter: one matmul, then the RS ---===//
//
// ops::MatmulReduceScatter's algorithm "scatter" (issue #31, fourteenth
// session; docs/OPS.md, "GEMM + reduce-scatter"): member r's whole partial
// product a @ b (D x m_shard rows) in one launch of the plain matmul
// (ce_matmul, the copy-engine algorithm's bundle: the same instance) into
// the op's symmetric `partials`, rounded to the dtype once; then the
// collectives' reduce-scatter of those rows (ops::ReduceScatter's kernel
// and choice table at m_shard x n elements) into c: the owner's f32 sum in
// rank order, rounded once. The numerics of the other algorithms (each
// member's partial rounded once, the owner's f32 sum rounded once).
//
// Why: "copy_engine" launches one matmul per owner's chunk, so where a
// chunk is a partial round of tiles every chunk pays that round, and every
// chunk streams all of b again from memory (70B's down projection at TP 4,
// 512 tokens: m_shard 128, b 7168 x 8192 = 117 MB, four passes). One
// launch over every row makes whole rounds and reads b once; the
// reduce-scatter after it moves what the copies would have, on the SMs
// (MatmulReduceScatter::choose holds the measurements).
//
// Ordering: both launches on the member's stream. The reduce-scatter's
// kernel keeps every member's input unchanged until all have read it (its
// protocol: ops/templates/reduce_scatter/), so the next call's matmul may
// write `partials` right after it; the matmul waits for nothing on the GPU.
//
// Not on a loopback team: its members share one GPU, and a member's
// reduce-scatter, whose blocks spin until every member's partials are
// there, can take every SM before another member's matmul is placed (the
// packet kernel's 240 blocks at D = 2, m_shard 384, n 320: graph replays
// hung on one H100, fourteenth session). "auto" takes the copy engines
// there (Collectives.cpp); asking for "scatter" is an error.
//
// Workspace per op: partials (symmetric, D x m_shard x n) and the
// reduce-scatter's own (its flags or scratch).
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_OPS_LIB_SCATTERMATMUL_H
#define WEAVE_OPS_LIB_SCATTERMATMUL_H

#include "PlainMatmulOpKernel.h"

#include "weave/ops/FusedMatmul.h"

#include <string>
#include <vector>

namespace weave::ops::detail {

class ScatterMatmulKernel : public PlainMatmulOpKernel {
public:
  /// `instance`: MatmulReduceScatter::instanceFor(..., "scatter") (the
  /// bundle holding ce_matmul). Builds the reduce-scatter's kernel
  /// (ReduceScatter::instanceFor(D, dtype, mShard x n)) and allocates the
  /// workspace (a collective call: every process of the team makes it, in
  /// the same order as its other ops).
  static Expected<std::unique_ptr<ScatterMatmulKernel>>
  create(Communicator &comm, KernelInstance instance, int64_t mShard, int64_t k,
         int64_t n);
  /// Gives the workspace back: destroy the op only once its last call has
  /// completed on every stream (as every op).
  ~ScatterMatmulKernel() override;

  /// tensors = {a (D x mShard x k), b (k x n), c (mShard x n)}, one per
  /// local member each; no in-place role.
  Status
  run(const std::vector<std::vector<TensorRef>> &tensors,
      const std::vector<CUstream> &streams,
      const std::vector<std::optional<SymmetricBuffer>> &inPlace = {}) override;

private:
  ScatterMatmulKernel() = default;

  std::optional<SymmetricBuffer> partials_;
  /// The reduce-scatter of partials_ into c (its input bound in place
  /// where symmetric).
  std::unique_ptr<StagedKernel> scatter_;
  bool scatterInputSymmetric_ = true;
};

} // namespace weave::ops::detail

#endif // WEAVE_OPS_LIB_SCATTERMATMUL_H
