//===- InputGather.h - GEMM + RS from gathered inputs -----------*- C++ -*-===//
//
// ops::MatmulReduceScatter's algorithm "input_gather" (issue #31; docs/OPS.md,
// "GEMM + reduce-scatter"): member r computes its own rows of the team's
// sum itself, from the peers' inputs instead of their partial products.
// The copy engines push each member's rows of a for r (m_shard x k) and
// its b (k x n) into r's symmetric stages (cuMemcpyAsync on the copy
// stream of CopyEngineLanes, no SM time), while r multiplies its own rows
// (ig_matmul: a's own rows @ b into c); once every peer's inputs have
// landed, one launch multiplies the stages (ig_matmul_add: m_shard x (D -
// 1) k @ (D - 1) k x n) and adds the own product in its epilogue
// (ops/templates/matmul_reduce_scatter/ig_matmul.mlir.in). The copies land
// in parts, each with its own ready value: b's first column block, a's
// rows in parts, b's other blocks; each tile of the add waits only for the
// parts it reads (InputGather.cpp has the protocol).
//
// Why: a member receives (D - 1) x k x (m_shard + n) elements where the
// partial products are (D - 1) x m_shard x n, and no slot is summed after
// the matmul. At short k and large m_shard x n that is the difference
// between a link-bound and a matmul-bound call: where the copies land
// within the own product's time the call is about the team's matmul
// (docs/PERF.md, "The inputs gathered").
//
// Workspace per op: the stages (symmetric: m_shard x (D - 1) k and (D - 1)
// k x n), the lanes (CopyEngineLanes: 2 x D symmetric u32 flags, a copy
// stream per local member) and ig_matmul's `ws` (PlainMatmulOpKernel's,
// which ig_matmul_add shares: both run in order on the member's stream).
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_OPS_LIB_INPUTGATHER_H
#define WEAVE_OPS_LIB_INPUTGATHER_H

#include "CopyEngineLanes.h"
#include "PlainMatmulOpKernel.h"

namespace weave::ops::detail {

class InputGatherKernel : public PlainMatmulOpKernel {
public:
  /// `instance`: MatmulReduceScatter::instanceFor(..., "input_gather") (its
  /// bundle holds ig_matmul and ig_matmul_add). Allocates the workspace (a
  /// collective call: every process of the team makes it, in the same
  /// order as its other ops).
  static Expected<std::unique_ptr<InputGatherKernel>>
  create(Communicator &comm, KernelInstance instance, int64_t mShard,
         int64_t k, int64_t n);
  /// Gives the workspace back: destroy the op only once its last call has
  /// completed on every stream (as every op).
  ~InputGatherKernel() override;

  /// tensors = {a (D x mShard x k), b (k x n), c (mShard x n)}, one per
  /// local member each; no in-place role.
  Status run(const std::vector<std::vector<TensorRef>> &tensors,
             const std::vector<CUstream> &streams,
             const std::vector<std::optional<SymmetricBuffer>> &inPlace = {})
      override;

  /// Where member `src`'s inputs go among member `dst`'s D - 1 peers:
  /// peer j of dst is (dst + 1 + j) mod D, its rows of a at the stage's
  /// columns [j k, (j + 1) k), its b at rows [j k, (j + 1) k).
  static int64_t stageIndex(int64_t teamSize, int64_t src, int64_t dst) {
    return (src - dst + teamSize) % teamSize - 1;
  }

  /// A part's rows are whole multiples of this (a row tile of the add).
  static constexpr int64_t kPartRowQuantum = 128;
  /// R, the rows of each part but the last: ceil(mShard / parts) rounded
  /// up to kPartRowQuantum. ig_matmul_add computes the same to know which
  /// part a tile's rows are in.
  static int64_t partRows(int64_t mShard, int64_t parts) {
    int64_t per = (mShard + parts - 1) / parts;
    return (per + kPartRowQuantum - 1) / kPartRowQuantum * kPartRowQuantum;
  }
  /// How many parts mShard rows land in (ceil(mShard / R); at most parts).
  static int64_t partCount(int64_t mShard, int64_t parts) {
    int64_t rows = partRows(mShard, parts);
    return (mShard + rows - 1) / rows;
  }

private:
  InputGatherKernel() = default;

  Kernel *add_ = nullptr; ///< ig_matmul_add: the peers' product + the own
  int64_t parts_ = 1; ///< the instance's PARTS (kInputGatherRowParts)
  /// The instance's CBLOCK: b's column blocks' width (n: one block;
  /// MatmulReduceScatter::inputGatherColumnBlock).
  int64_t blockCols_ = 0;
  std::optional<SymmetricBuffer> aStage_, bStage_;
  std::unique_ptr<CopyEngineLanes> lanes_; ///< flags and copy streams
};

} // namespace weave::ops::detail

#endif // WEAVE_OPS_LIB_INPUTGATHER_H
