//===- CopyEngineGather.h - All-gather matmul on the copy engines -*- C++ -*-===//
//
// ops::AllGatherMatmul's algorithm "copy_engine" (issue #32; opt-in: not
// "auto"'s choice until measured). Member r pushes its shard into rows r
// of every peer's gathered buffer with cuMemcpyAsync on a copy stream (a
// copy engine: no SM time), and multiplies every row in one persistent
// launch (ce_all_gather_matmul,
// ops/templates/collective_matmul/ce_all_gather_matmul.mlir.in) whose
// tiles take the own shard first and wait, in the kernel, for the flag of
// the peer shard they read. The flags and the copy stream are
// CopyEngineLanes' (CopyEngineLanes.h); the protocol and why it cannot
// deadlock or let a member overtake a peer are in CopyEngineGather.cpp.
//
// Why: the ring and the SM all-gather took 1.6x local cuBLAS at D = 4,
// m_shard 640, k 8192, n 7168 (0.75x PyTorch, fifteenth session). One
// plain matmul per shard as it lands (this algorithm until the sixteenth
// session, PyTorch's design with cuBLAS) took 0.580 ms there against
// PyTorch's 0.478: each of the D launches paid a partial last round of
// tiles (docs/PERF.md, "The all-gather matmul's copy engines in one
// launch").
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_OPS_LIB_COPYENGINEGATHER_H
#define WEAVE_OPS_LIB_COPYENGINEGATHER_H

#include "CopyEngineLanes.h"
#include "GatheredRowsKernel.h"

#include <memory>
#include <optional>

namespace weave::ops::detail {

class CopyEngineGatherKernel : public GatheredRowsKernel {
public:
  /// The lanes' flags and copy streams, and the op's gathered rows
  /// (symmetric, D x mShard x k; used unless `a` is passed in place).
  /// Symmetric allocations: make it at the same point of every process's
  /// sequence of allocations.
  static Expected<std::unique_ptr<CopyEngineGatherKernel>>
  create(Communicator &comm, KernelInstance instance, int64_t mShard,
         int64_t k, int64_t n);

  Status run(const std::vector<std::vector<TensorRef>> &tensors,
             const std::vector<CUstream> &streams,
             const std::vector<std::optional<SymmetricBuffer>> &inPlace)
      override;

  /// The member `rank` of a team of d copies its shard to at its
  /// j-th copy (j = 1 .. d - 1): rank - j (mod d), the previous member
  /// first, so that member src's t-th copy goes to src - t and member r
  /// receives shard r + t (mod d) at the others' t-th copies: the order
  /// its launch walks the shards in (shardAt).
  static uint32_t copyTarget(uint32_t rank, uint32_t d, uint32_t j) {
    return (rank + d - j % d) % d;
  }

private:
  CopyEngineGatherKernel() = default;

  std::unique_ptr<CopyEngineLanes> lanes_;
  /// Members share a GPU (a loopback team): the member's stream waits for
  /// every peer's copy before the launch (run() says why).
  bool waitBeforeLaunch_ = false;
};

} // namespace weave::ops::detail

#endif // WEAVE_OPS_LIB_COPYENGINEGATHER_H
