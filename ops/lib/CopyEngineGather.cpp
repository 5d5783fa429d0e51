//===- CopyEngineGather.cpp - All-gather matmul on the copy engines -------===//
//
// See CopyEngineGather.h. One call on member r's stream s (D members, its
// copy stream cs; ready[w] and busy[w] are the flags of CopyEngineLanes.h,
// "on x" is member x's copy; `own` is r's shard: the caller's `a`, or rows
// r of the in-place buffer; `g` the gathered buffer, the op's or the
// in-place one):
//
//   s:  record forked;  cs: wait forked
//   cs: for j = 1 .. D - 1, p = r - j (mod D; the previous member first):
//         wait   busy[p]    (on r)  == 0
//         write  busy[p]    (on r)  := 1
//         copy   own -> rows r of g on p   (cuMemcpyAsync, peer)
//         write  ready[r]   (on p)  := 1
//   s:  ce_all_gather_matmul(every row of g; rows r from own) -> c: a
//       tile of shard src != r waits in the kernel, before its first k
//       step, for ready[src] (on r) >= 1; the own shard's tiles go first
//       and read `own` itself (the pipeline's lhs_rows), so rows r of g
//       are never written (in place they are `own`)
//   s:  write ready[src] (on r) := 0, every src != r
//   s:  write busy[r]  (on src) := 0, every src != r
//   cs: record copiesDone;  s: wait copiesDone
//
// (CopyEngineLanes: acquire = the busy wait and set, signal = the ready
// write, finish = the clears and the join.) As for the GEMM +
// reduce-scatter's copy engines (CopyEngine.cpp): every value is a
// constant (a CUDA graph replays the same memory operations) and every
// flag is back to 0 once every member's call has finished, so the next
// call or replay starts from the same state: no epoch. Writes use the
// default flags (a memory barrier before the write), so ready[r] on p is
// seen only after the copy before it on cs has landed (the kernel's wait
// is an acquire at system scope), and busy[r] on src only after r's
// kernel of the call (before it on s) has read rows src.
//
// No deadlock. Every wait of call n is for something of call n or n - 1,
// and never for something after itself on its own stream:
//  - cs's wait on busy[p] == 0 (call n) is for p's clear at the end of p's
//    call n - 1, after p's kernel of n - 1, which waits only for the
//    copies of n - 1 into p, which wait for busy clears of n - 2, and so
//    on down to the zeroed start: call n - 1 finishes without any work of
//    call n.
//  - the kernel's waits on ready[src] (call n) are for src's copy stream
//    of call n, which waits for src's fork (nothing before it on src's s
//    but src's call n - 1 and what the caller enqueued) and for busy
//    clears of n - 1 (above). The kernel holds SMs while it waits, but
//    what it waits for needs none: copies on a copy engine and stream
//    memory operations.
//  - s's wait on copiesDone (the join) is for its own cs of call n.
//  Within a copy stream the copies are in order; a copy to p waiting on
//  busy[p] holds back the later peers' copies, but p's clear of n - 1
//  needs nothing of n (above), so it comes.
//
// No overtaking (a fast member's call n + 1 against a slow peer's n):
//  - r's copy into rows r of g on p for n + 1 waits busy[p] == 0 on r,
//    which r set to 1 before its copy of n and only p clears, after p's
//    kernel of n has read those rows (stream order on p);
//  - p's ready[r] = 1 of n + 1 comes after that clear, and p clears
//    ready[r] before busy[r] (same stream, barrier): p's kernel of n + 1
//    cannot pass on n's flag;
//  - r's own shard is read by the copies and r's kernel, written by
//    neither; the caller writes it on s, before the fork (the copies and
//    the kernel of call n + 1 read what it wrote) or after the join of
//    call n (the copies and the kernel of call n have read it);
//  - c is written on s only.
// So a member runs at most one call ahead of a peer, and only up to its
// copies into that peer.
//
// Enqueue order and shared hardware queues: one process enqueues every
// local member's fork and copies of call n before any member's kernel of
// n, and the clears of n - 1 before either, so the copies a kernel waits
// for are submitted before it. Not covered (as in CopyEngine.cpp): graph
// replays of a loopback team of many members, where how the members'
// graph nodes map onto queues is the driver's. A loopback team's copies
// are same-device copies; if the driver ran one as a kernel it would need
// SMs, which the waiting kernels of the team may hold: there the member's
// stream waits for ready[src] of every peer before the launch (run()), so
// the kernel finds every flag set.
//
//===----------------------------------------------------------------------===//

#include "CopyEngineGather.h"

namespace weave::ops::detail {

namespace {

/// What this algorithm's errors start with.
const char *kWhere = "op 'all_gather_matmul' (copy_engine): ";

} // namespace

Expected<std::unique_ptr<CopyEngineGatherKernel>>
CopyEngineGatherKernel::create(Communicator &comm, KernelInstance instance,
                               int64_t mShard, int64_t k, int64_t n) {
  auto x =
      std::unique_ptr<CopyEngineGatherKernel>(new CopyEngineGatherKernel());
  WEAVE_TRY(x->init(comm, std::move(instance), mShard, k, n));
  // Symmetric allocations first, in the same order on every process:
  // gathered, the lanes' flags.
  WEAVE_ASSIGN_OR_RETURN(
      SymmetricBuffer gathered,
      comm.heap().allocateTensor(x->dtype_, {x->d_ * mShard, k}));
  x->gathered_ = gathered;
  WEAVE_ASSIGN_OR_RETURN(x->lanes_, CopyEngineLanes::create(comm));
  x->waitBeforeLaunch_ = comm.team().isLoopback();
  return x;
}

Status CopyEngineGatherKernel::run(
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

  // Every member's own shard: where the copies and its own tiles read it
  // (a tensor map's base: checkCall wants the caller's `a` 16-byte
  // aligned, and rows r of a placed one start at a whole shard).
  std::vector<uint64_t> own = ownShards(tensors, inPlace);

  // Bind the launch first, so that a failing call enqueues nothing.
  std::vector<uint64_t> pb(locals), pc(locals);
  for (size_t i = 0; i < locals; ++i) {
    pb[i] = tensors[1][i].data;
    pc[i] = tensors[2][i].data;
  }
  std::vector<KernelArg> args{
      g, tensorView(own, dtype_, {m_, k_}, elementBytes_),
      tensorView(pb, dtype_, {k_, n_}, elementBytes_),
      tensorView(pc, dtype_, {d_ * m_, n_}, elementBytes_), lanes_->flags()};
  WEAVE_ASSIGN_OR_RETURN(BoundArgs bound, matmul_->bind(heap, args));

  // The fork and every member's copies first (the header comment: the
  // copies a kernel waits for are submitted before it).
  for (size_t i = 0; i < locals; ++i) {
    WEAVE_TRY(team.device(i).makeCurrent());
    uint32_t r = team.rankOf(i);
    CUstream cs = lanes_->copyStream(i);
    WEAVE_TRY(lanes_->fork(i, streams[i]));
    for (uint32_t j = 1; j < d; ++j) {
      uint32_t p = copyTarget(r, d, j);
      WEAVE_TRY(lanes_->acquire(i, p));
      // The own shard into the same rows of p's gathered `a`, through the
      // heap's mapping of it: a copy engine moves it peer to peer.
      WEAVE_CU_TRY(cuMemcpyAsync(heap.peerPointer(g, i, p) + r * shardA,
                                 own[i], shardA, cs),
                   "copying the own shard into a peer's gathered rows");
      WEAVE_TRY(lanes_->signal(i, p));
    }
  }
  // On a loopback team the kernel waits for no copy: its stream does,
  // before the launch (then every flag the kernel reads is already set).
  // The copies there are same-device copies, which may need SMs that the
  // members' waiting kernels hold: the GEMM + reduce-scatter's sum in its
  // kernel hung there (CopyEngine.cpp, docs/PERF.md).
  if (waitBeforeLaunch_)
    for (size_t i = 0; i < locals; ++i) {
      WEAVE_TRY(team.device(i).makeCurrent());
      WEAVE_TRY(lanes_->waitReady(i, streams[i]));
    }
  WEAVE_TRY(matmul_->launch(bound, streams));
  for (size_t i = 0; i < locals; ++i) {
    WEAVE_TRY(team.device(i).makeCurrent());
    WEAVE_TRY(lanes_->finish(i, streams[i]));
  }
  return ok();
}

} // namespace weave::ops::detail
