//===- GatherMatmul.cpp - All-gather matmul: the all-gather and the matmul ===//
//
// See GatherMatmul.h. One call on member r's stream s (D members, its side
// stream ss; `own` is r's shard: the caller's `a`, or rows r of the
// in-place buffer; `g` the gathered buffer, the op's or the in-place one):
//
//   After:
//   s:  all_gather(own -> g)             (every member's rows into every g)
//   s:  ce_matmul(every row of g) -> c
//
//   Beside (and BesideNarrow, whose all-gather is the "narrow" one):
//   s:  record forked;  ss: wait forked
//   ss: all_gather(own -> g)
//   s:  ce_matmul(own) -> rows r of c    (beside the all-gather)
//   ss: record gathered;  s: wait gathered
//   s:  for each run of launchesAfter (the peers' shards [first, first +
//       shards)): ce_matmul(those rows of g) -> those rows of c
//
// Every launch is bound before the first is enqueued, so that a call with
// a wrong argument enqueues nothing. A loopback team runs Beside's
// launches in one chain on s too (run() says why).
//
//===----------------------------------------------------------------------===//

#include "GatherMatmul.h"

#include <optional>

namespace weave::ops::detail {

namespace {

/// What this algorithm's errors start with.
const char *kWhere = "op 'all_gather_matmul' (gather): ";

} // namespace

Expected<std::unique_ptr<GatherMatmulKernel>>
GatherMatmulKernel::create(Communicator &comm, KernelInstance instance,
                           int64_t mShard, int64_t k, int64_t n) {
  Team &team = comm.team();
  auto x = std::unique_ptr<GatherMatmulKernel>(new GatherMatmulKernel());
  WEAVE_TRY(x->init(comm, std::move(instance), mShard, k, n));
  x->schedule_ = AllGatherMatmul::gatherSchedule(team.size(), mShard, k, n);
  // The all-gather (the op's one companion, matmulOpCompanions: what a
  // folder of bundles must hold beside ce_matmul's) by the collectives' own
  // choice at its size, or "narrow" for BesideNarrow. Its output role
  // binds the gathered rows in place where the kernel's output is
  // symmetric (the bandwidth kernels); a kernel with a plain output writes
  // the member's local copy of them.
  WEAVE_ASSIGN_OR_RETURN(
      std::vector<CompanionOp> companions,
      matmulOpCompanions("all_gather_matmul", team.size(), x->dtype_,
                         {mShard, k, n}, "gather"));
  // Symmetric allocations in the same order on every process: gathered,
  // then the all-gather's.
  WEAVE_ASSIGN_OR_RETURN(PlacedCollective placed,
                         placeCollective(comm, companions.at(0), 1, x->dtype_,
                                         {x->d_ * mShard, k}));
  x->gathered_ = placed.buffer;
  x->gather_ = std::move(placed.kernel);
  x->gatherOutputSymmetric_ = placed.inPlace;
  // The side stream only where the all-gather runs beside a matmul.
  if (x->schedule_ != GatherSchedule::After) {
    WEAVE_ASSIGN_OR_RETURN(x->side_, SideStreams::create(comm, "all-gather"));
  }
  return x;
}

Status GatherMatmulKernel::run(
    const std::vector<std::vector<TensorRef>> &tensors,
    const std::vector<CUstream> &streams,
    const std::vector<std::optional<SymmetricBuffer>> &inPlace) {
  WEAVE_TRY(checkCall(kWhere, tensors, streams, inPlace));
  Team &team = comm_->team();
  SymmetricHeap &heap = comm_->heap();
  size_t locals = team.localCount();
  uint32_t d = static_cast<uint32_t>(d_);
  const SymmetricBuffer &g = gatheredRows(inPlace);
  uint64_t shardA = uint64_t(m_) * uint64_t(k_) * elementBytes_;
  uint64_t shardC = uint64_t(m_) * uint64_t(n_) * elementBytes_;

  // Every member's own shard: where the all-gather and the own matmul
  // read it.
  std::vector<uint64_t> own = ownShards(tensors, inPlace);

  // Bind every matmul launch first. A launch over `shards` shards from
  // shard `first` of the gathered rows (the same shape for every local
  // member: a launch binds one).
  std::vector<uint64_t> pb(locals);
  for (size_t i = 0; i < locals; ++i)
    pb[i] = tensors[1][i].data;
  DeviceBuffers b = tensorView(pb, dtype_, {k_, n_}, elementBytes_);
  auto bindRows = [&](const std::vector<uint64_t> &pa,
                      const std::vector<uint64_t> &pc,
                      int64_t shards) -> Expected<BoundArgs> {
    std::vector<KernelArg> args =
        matmulArgs(tensorView(pa, dtype_, {shards * m_, k_}, elementBytes_), b,
                   tensorView(pc, dtype_, {shards * m_, n_}, elementBytes_));
    return matmul_->bind(heap, args);
  };
  auto gatheredRows = [&](const std::vector<uint32_t> &first,
                          int64_t shards) -> Expected<BoundArgs> {
    std::vector<uint64_t> pa(locals), pc(locals);
    for (size_t i = 0; i < locals; ++i) {
      pa[i] = heap.localPointer(g, i) + first[i] * shardA;
      pc[i] = tensors[2][i].data + first[i] * shardC;
    }
    return bindRows(pa, pc, shards);
  };
  // The launches after the all-gather (and, beside it, the own shard's).
  // Runs of several shards only where a process drives one member: the
  // members of one process have different runs, and a launch binds one
  // shape for all of them.
  std::optional<BoundArgs> ownLaunch;
  if (schedule_ != GatherSchedule::After) {
    std::vector<uint64_t> pc(locals);
    for (size_t i = 0; i < locals; ++i)
      pc[i] = tensors[2][i].data + team.rankOf(i) * shardC;
    WEAVE_ASSIGN_OR_RETURN(ownLaunch, bindRows(own, pc, 1));
  }
  std::vector<std::vector<RowRun>> plans(locals);
  for (size_t i = 0; i < locals; ++i)
    plans[i] = launchesAfter(schedule_, team.rankOf(i), d, locals == 1);
  std::vector<BoundArgs> after;
  for (size_t j = 0; j < plans[0].size(); ++j) {
    std::vector<uint32_t> first(locals);
    for (size_t i = 0; i < locals; ++i)
      first[i] = plans[i][j].first;
    WEAVE_ASSIGN_OR_RETURN(BoundArgs launch,
                           gatheredRows(first, plans[0][j].shards));
    after.push_back(std::move(launch));
  }
  auto launchAfter = [&]() -> Status {
    for (const BoundArgs &launch : after)
      WEAVE_TRY(matmul_->launch(launch, streams));
    return ok();
  };
  // The all-gather's call: the own shard in, the gathered rows out.
  std::vector<std::vector<TensorRef>> gatherTensors(2);
  for (size_t i = 0; i < locals; ++i) {
    gatherTensors[0].push_back({own[i], dtype_, {m_ * k_}});
    gatherTensors[1].push_back(
        gatherOutputSymmetric_
            ? TensorRef{}
            : TensorRef{heap.localPointer(g, i), dtype_, {d_ * m_ * k_}});
  }
  std::vector<std::optional<SymmetricBuffer>> gatherPlaced(2);
  if (gatherOutputSymmetric_)
    gatherPlaced[1] = g;

  if (!ownLaunch || team.isLoopback()) {
    // One chain on the member's stream: the all-gather, then the matmuls.
    // A loopback team runs so whatever the schedule: with the side stream,
    // the graph replays of a loopback team of 4 and of 8 on one H100 hung
    // (every call before them passed; 4 x H100, 2026-11-27): each member's
    // graph has two branches, and how the members' branches share the
    // device's hardware queues is the driver's, so one member's spinning
    // all-gather can wait behind another's. One chain per member is what
    // the collectives' loopback runs do. A loopback team is for checking,
    // not for speed.
    WEAVE_TRY(gather_->run(gatherTensors, streams, gatherPlaced));
    if (ownLaunch)
      WEAVE_TRY(matmul_->launch(*ownLaunch, streams));
    return launchAfter();
  }
  std::vector<CUstream> side(locals);
  for (size_t i = 0; i < locals; ++i) {
    side[i] = side_->stream(i);
    WEAVE_TRY(team.device(i).makeCurrent());
    WEAVE_TRY(side_->fork(i, streams[i]));
  }
  WEAVE_TRY(gather_->run(gatherTensors, side, gatherPlaced));
  WEAVE_TRY(matmul_->launch(*ownLaunch, streams));
  for (size_t i = 0; i < locals; ++i) {
    WEAVE_TRY(team.device(i).makeCurrent());
    WEAVE_TRY(side_->join(i, streams[i]));
  }
  return launchAfter();
}

} // namespace weave::ops::detail
