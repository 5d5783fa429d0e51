//===- RingGather.cpp - All-gather matmul: the ring in one kernel ---------===//
//
// See RingGather.h. The protocol (who writes which rows of `a`, the
// counters, why a member cannot overtake a peer) is the kernel's, in its
// template; the host's part is only the binding: a call of the op is one
// launch on each member's stream.
//
// Why the caller may rewrite `a` after the call without synchronizing: the
// kernel reads `own` (its tiles' loads, and a push's puts) before it ends,
// so the caller's later writes on the same stream come after those reads.
// The peers' stores into this member's gathered rows are ordered by the
// kernel's `done` counter, as before.
//
//===----------------------------------------------------------------------===//

#include "RingGather.h"

namespace weave::ops::detail {

namespace {

/// What this algorithm's errors start with.
const char *kWhere = "op 'all_gather_matmul' (ring): ";

/// The kernel's tensor parameters, in the order run() passes them.
enum RingRole : size_t { kGathered, kOwn, kB, kC, kRoles };

} // namespace

Expected<std::unique_ptr<RingGatherKernel>>
RingGatherKernel::create(Communicator &comm, KernelInstance instance,
                         int64_t mShard, int64_t k, int64_t n) {
  auto x = std::unique_ptr<RingGatherKernel>(new RingGatherKernel());
  WEAVE_TRY(x->init(comm, instance, mShard, k, n));
  // Symmetric allocations in the same order on every process: gathered,
  // then the kernel's semaphores (in its parameter order).
  WEAVE_ASSIGN_OR_RETURN(
      SymmetricBuffer gathered,
      comm.heap().allocateTensor(x->dtype_, {x->d_ * mShard, k}));
  x->gathered_ = gathered;
  std::vector<RoleSpec> roles{
      {"a", false}, {"own", false}, {"b", false}, {"c", true}};
  WEAVE_ASSIGN_OR_RETURN(
      x->ring_,
      StagedKernel::create(comm, std::move(instance), std::move(roles),
                           matmulParamShapes("all_gather_matmul",
                                             comm.team().size(),
                                             {mShard, k, n}),
                           /*placedOnly=*/{kGathered}));
  return x;
}

Status RingGatherKernel::run(
    const std::vector<std::vector<TensorRef>> &tensors,
    const std::vector<CUstream> &streams,
    const std::vector<std::optional<SymmetricBuffer>> &inPlace) {
  WEAVE_TRY(checkCall(kWhere, tensors, streams, inPlace));
  size_t locals = comm_->team().localCount();
  std::vector<uint64_t> own = ownShards(tensors, inPlace);
  std::vector<std::vector<TensorRef>> kernelTensors(kRoles);
  for (size_t i = 0; i < locals; ++i) {
    // (The gathered rows' entry is not read: they are bound in place.)
    kernelTensors[kGathered].push_back({});
    kernelTensors[kOwn].push_back({own[i], dtype_, {m_, k_}});
    kernelTensors[kB].push_back(tensors[1][i]);
    kernelTensors[kC].push_back(tensors[2][i]);
  }
  std::vector<std::optional<SymmetricBuffer>> placed(kRoles);
  placed[kGathered] = gatheredRows(inPlace);
  return ring_->run(kernelTensors, streams, placed);
}

} // namespace weave::ops::detail
