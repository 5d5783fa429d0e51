//===- GatheredRowsKernel.h - The all-gather matmul's host algorithms -----===//
//
// What the all-gather matmul's host-driven algorithms, "gather"
// (GatherMatmul.h) and "copy_engine" (CopyEngineGather.h), share beyond
// PlainMatmulOpKernel: the gathered rows (D x m_shard x k, symmetric: the
// op's own workspace, or `a` passed in place with every member's rows
// written), the one check of a call (allGatherMatmulCallMismatch), each
// member's own shard, and the order of the shards.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_OPS_LIB_GATHEREDROWSKERNEL_H
#define WEAVE_OPS_LIB_GATHEREDROWSKERNEL_H

#include "Bindings.h"
#include "PlainMatmulOpKernel.h"

#include <cstdio>
#include <optional>
#include <vector>

namespace weave::ops::detail {

class GatheredRowsKernel : public PlainMatmulOpKernel {
public:
  /// The shard member `rank` of a team of d multiplies at step t (0: its
  /// own, then the next members').
  static uint32_t shardAt(uint32_t rank, uint32_t d, uint32_t t) {
    return (rank + t) % d;
  }

protected:
  /// Frees the op's gathered rows, after the derived class's members (its
  /// collective, streams and flags) are gone.
  ~GatheredRowsKernel() override {
    if (!comm_ || !gathered_)
      return;
    if (Status status = comm_->heap().free(*gathered_); !status)
      std::fprintf(
          stderr, "weave: warning: freeing the workspace of op '%s': %s\n",
          instance_.kernelName.c_str(), status.error().toString().c_str());
  }

  /// A call's tensors, streams and in-place buffers checked
  /// (allGatherMatmulCallMismatch); the error starts with `where`.
  Status
  checkCall(const char *where,
            const std::vector<std::vector<TensorRef>> &tensors,
            const std::vector<CUstream> &streams,
            const std::vector<std::optional<SymmetricBuffer>> &inPlace) const {
    std::string wrong = allGatherMatmulCallMismatch(
        tensors, streams.size(), inPlace, comm_->team().localCount(),
        comm_->heap().id(), dtype_, d_, m_, k_, n_);
    if (!wrong.empty())
      return Error(ErrorCode::InvalidArgument, where + wrong);
    return ok();
  }

  /// Whether a call passes `a` in place (its gathered rows are then the
  /// caller's symmetric buffer, the own shard among them).
  static bool
  passedInPlace(const std::vector<std::optional<SymmetricBuffer>> &inPlace) {
    return !inPlace.empty() && inPlace[0];
  }

  /// The gathered rows a call uses: `a` passed in place, or the op's.
  const SymmetricBuffer &
  gatheredRows(const std::vector<std::optional<SymmetricBuffer>> &inPlace)
      const {
    return passedInPlace(inPlace) ? *inPlace[0] : *gathered_;
  }

  /// Per local member, the address of its own shard: rows r of `a` passed
  /// in place, or the caller's `a`.
  std::vector<uint64_t>
  ownShards(const std::vector<std::vector<TensorRef>> &tensors,
            const std::vector<std::optional<SymmetricBuffer>> &inPlace) const {
    Team &team = comm_->team();
    bool placed = passedInPlace(inPlace);
    uint64_t shardA = uint64_t(m_) * uint64_t(k_) * elementBytes_;
    std::vector<uint64_t> own(team.localCount());
    for (size_t i = 0; i < own.size(); ++i)
      own[i] = placed ? comm_->heap().localPointer(*inPlace[0], i) +
                            team.rankOf(i) * shardA
                      : tensors[0][i].data;
    return own;
  }

  /// The op's gathered rows (freed with it).
  std::optional<SymmetricBuffer> gathered_;
};

} // namespace weave::ops::detail

#endif // WEAVE_OPS_LIB_GATHEREDROWSKERNEL_H
