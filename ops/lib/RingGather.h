//===- RingGather.h - All-gather matmul: the ring in one kernel -*- C++ -*-===//
//
// ops::AllGatherMatmul's algorithm "ring" (the fused kernel of
// ops/templates/collective_matmul/all_gather_matmul.mlir.in, whose header
// holds the protocol): one persistent launch that multiplies every row
// while its tiles forward the rows they loaded to the previous member, or,
// for small shards, push the own shard to every peer first.
//
// What the host does: bind the gathered rows (`a`: the op's symmetric
// buffer, or `a` passed in place), the member's own shard (`own`: the
// caller's `a`, or in place rows r of the buffer), b, c and the kernel's
// counters, and launch. The kernel reads the own shard from `own` (the
// pipeline's lhs_rows) and never touches rows r of the gathered rows, so
// nothing is copied before the launch. (Until the eighteenth session the
// op staged `a`: a copy of the own shard into the symmetric rows, on the
// critical path since the own shard's tiles go first.)
//
// The counters (`ready`, `done`: semaphores; `launches`: one i64 a member)
// are zeroed once when the op is made and only grow: the kernel counts its
// launches itself, so calls, back-to-back launches and graph replays need
// no host work between them.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_OPS_LIB_RINGGATHER_H
#define WEAVE_OPS_LIB_RINGGATHER_H

#include "GatheredRowsKernel.h"

#include <memory>

namespace weave::ops::detail {

class RingGatherKernel : public GatheredRowsKernel {
public:
  /// `instance`: AllGatherMatmul::instanceFor(..., "ring"). Allocates the
  /// gathered rows (symmetric, D x mShard x k) and the kernel's counters,
  /// in that order (a collective call: every process of the team makes
  /// it at the same point of its sequence of allocations).
  static Expected<std::unique_ptr<RingGatherKernel>>
  create(Communicator &comm, KernelInstance instance, int64_t mShard,
         int64_t k, int64_t n);

  Status run(const std::vector<std::vector<TensorRef>> &tensors,
             const std::vector<CUstream> &streams,
             const std::vector<std::optional<SymmetricBuffer>> &inPlace)
      override;

private:
  RingGatherKernel() = default;

  /// The kernel with its counters, as a staged kernel whose roles are the
  /// kernel's tensors: `a` always bound in place (the gathered rows), `own`,
  /// `b` and `c` plain (the caller's pointers: nothing staged).
  std::unique_ptr<StagedKernel> ring_;
};

} // namespace weave::ops::detail

#endif // WEAVE_OPS_LIB_RINGGATHER_H
