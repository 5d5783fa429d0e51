//===- CePush.cpp - The all-gather matmul with the copy engines' push -----===//
//
// See CePush.h. One iteration on member r's stream s (D members, its copy
// stream cs; ready[w] and busy[w] are words of symmetric u32 arrays, "on
// x" is member x's copy):
//
//   s:  record start
//   cs: wait start
//       for p = r - 1, r - 2, ..., r + 1 (mod D; the previous member, whose
//       walk of the shards needs r's rows first, first):
//         wait   busy[p]       (on r)  == 0
//         write  busy[p]       (on r)  := 1
//         copy   r's rows of a (on r) -> the same rows of a on p
//                (cuMemcpyAsync through the heap's mapping of p: a copy
//                engine, no SM)
//         write  ready[r * 16] (on p)  := 1
//       record copied
//   s:  the PUSH = 2 kernel: a tile of shard src != r waits (in the
//       kernel) until ready[src * 16] (on r) >= 1
//   s:  write ready[src * 16] (on r) := 0, every src != r
//   s:  write busy[r]        (on src) := 0, every src != r
//   s:  wait copied (the join)
//
// As in ops/lib/CopyEngine.cpp (GEMM + reduce-scatter): every value is a
// constant (a CUDA graph replays the same memory operations) and every flag
// is back to 0 once every member's iteration has finished, so the next
// iteration or replay starts from the same state: no epoch, and the
// kernel's wait has a constant target. Writes use the default flags (a
// memory barrier before the write), so a ready flag is seen only after the
// copy before it has landed; the kernel's wait is an acquire at system
// scope before its TMA loads of those rows.
//
// No deadlock. Every wait of iteration n is for something of iteration n
// or n - 1, and never for something after itself on its own stream:
//  - cs's wait on busy[p] == 0 (n) is for p's clear at the end of p's
//    iteration n - 1, after p's kernel n - 1, which waits only for the
//    copies of n - 1 into p, which wait for busy clears of n - 2, and so
//    on down to the zeroed start: iteration n - 1 finishes without any
//    work of iteration n.
//  - the kernel's wait on ready[src * 16] (n) is for src's copy stream of
//    n, which waits for src's start (nothing before it but src's
//    iteration n - 1) and for busy clears of n - 1 (above). The kernel
//    spins on the SMs while the copy engines work: it holds no stream that
//    a copy needs (the copies are on cs, and a copy engine, not an SM,
//    moves them).
//  - s's wait on copied (the join) is for its own cs of n.
//  Within a copy stream the copies are in order; a copy to p waiting on
//  busy[p] holds back the later peers' copies, but p's clear of n - 1
//  needs nothing of n (above), so it comes.
//
// No overtaking (a fast member's iteration n + 1 against a slow peer's n):
//  - r's copy into p's `a` for n + 1 waits busy[p] == 0 on r, which r set
//    to 1 before its copy of n and only p clears, after p's kernel n has
//    read those rows (stream order on p);
//  - p's ready[r * 16] = 1 of n + 1 comes after that clear, and p clears
//    ready[r * 16] before busy[r] (same stream, barrier): p's kernel n + 1
//    cannot see iteration n's flag;
//  - r's own rows are read by the copies and the kernel, written by
//    neither (the host writes them on s before an iteration: start orders
//    the copies after that);
//  - c is written on s only.
// So a member runs at most one iteration ahead of a peer, and only up to
// its copies into that peer.
//
// Enqueue order and shared hardware queues: one process enqueues every
// member's copies of iteration n before any member's kernel of n, and the
// clears of n - 1 before either, so every wait (a stream wait, or the
// kernel's spin) is submitted after what satisfies it: nothing it needs
// can be queued behind it on a hardware queue shared by streams. Not
// covered (as in CopyEngine.cpp): a loopback team's graph replays (one
// GPU, where how the members' graph nodes map onto queues is the
// driver's), and a loopback team's copies if the driver ran a same-device
// cuMemcpyAsync as a kernel, which would need SMs the spinning kernels
// hold. The bench replays no graphs on members sharing a GPU, and the run
// script checks loopback with a timeout.
//
//===----------------------------------------------------------------------===//
#include "CePush.h"

#include "weave/bench/Gpus.h"

namespace weave::bench::agm {

namespace {
constexpr uint32_t kChunks = 16; // ready words per shard (the template's)
} // namespace

Expected<std::unique_ptr<CePush>>
CePush::create(Team &team, SymmetricHeap &heap,
               const std::vector<TimedStream> &timed, Kernel &kernel,
               const std::vector<KernelArg> &args, const SymmetricBuffer &a,
               const SemaphoreArray &ready, const SemaphoreArray &busy,
               uint64_t shardBytes) {
  size_t local = team.localCount();
  if (local != team.size() || timed.size() != local)
    return Error(ErrorCode::InvalidArgument,
                 "--ce-push: every member must be driven by this process (" +
                     std::to_string(local) + " of " +
                     std::to_string(team.size()) + " are)");
  auto x = std::unique_ptr<CePush>(new CePush());
  x->team_ = &team;
  x->heap_ = &heap;
  x->kernel_ = &kernel;
  x->timed_ = timed;
  x->shardBytes_ = shardBytes;
  x->d_ = team.size();
  WEAVE_ASSIGN_OR_RETURN(BoundArgs bound, kernel.bind(heap, args));
  x->bound_ = std::make_unique<BoundArgs>(std::move(bound));
  x->copyStreams_.assign(local, nullptr);
  x->start_.assign(local, nullptr);
  x->copied_.assign(local, nullptr);
  x->peerRows_.assign(local, std::vector<CUdeviceptr>(x->d_, 0));
  x->peerReady_ = x->peerBusy_ = x->peerRows_;
  for (size_t i = 0; i < local; ++i) {
    uint32_t r = team.rankOf(i);
    x->streams_.push_back(timed[i].stream);
    WEAVE_TRY(
        checkDriver(cuCtxSetCurrent(timed[i].context), "cuCtxSetCurrent"));
    WEAVE_TRY(
        checkDriver(cuStreamCreate(&x->copyStreams_[i], CU_STREAM_NON_BLOCKING),
                    "cuStreamCreate (the copy stream)"));
    for (CUevent *e : {&x->start_[i], &x->copied_[i]})
      WEAVE_TRY(checkDriver(cuEventCreate(e, CU_EVENT_DISABLE_TIMING),
                            "cuEventCreate"));
    x->ownRows_.push_back(heap.localPointer(a, i) + r * shardBytes);
    x->readyBase_.push_back(heap.localPointer(ready, i));
    x->busyBase_.push_back(heap.localPointer(busy, i));
    for (uint32_t p = 0; p < x->d_; ++p) {
      if (p == r)
        continue;
      x->peerRows_[i][p] = heap.peerPointer(a, i, p) + r * shardBytes;
      x->peerReady_[i][p] = heap.peerPointer(ready, i, p);
      x->peerBusy_[i][p] = heap.peerPointer(busy, i, p);
    }
  }
  return x;
}

CePush::~CePush() {
  for (size_t i = 0; i < timed_.size(); ++i) {
    (void)cuCtxSetCurrent(timed_[i].context);
    if (i < copyStreams_.size() && copyStreams_[i]) {
      (void)cuStreamSynchronize(copyStreams_[i]);
      (void)cuStreamDestroy(copyStreams_[i]);
    }
    for (CUevent e : {i < start_.size() ? start_[i] : nullptr,
                      i < copied_.size() ? copied_[i] : nullptr})
      if (e)
        (void)cuEventDestroy(e);
  }
}

Status CePush::enqueue() {
  size_t local = streams_.size();
  // The copies of every member first (see the top: every wait is submitted
  // after what satisfies it).
  for (size_t i = 0; i < local; ++i) {
    uint32_t r = team_->rankOf(i);
    CUstream cs = copyStreams_[i];
    WEAVE_TRY(
        checkDriver(cuCtxSetCurrent(timed_[i].context), "cuCtxSetCurrent"));
    WEAVE_TRY(checkDriver(cuEventRecord(start_[i], streams_[i]),
                          "cuEventRecord (the iteration's start)"));
    WEAVE_TRY(checkDriver(cuStreamWaitEvent(cs, start_[i], 0),
                          "cuStreamWaitEvent (the copies on the start)"));
    for (uint32_t j = 1; j < d_; ++j) {
      uint32_t p = (r + d_ - j) % d_; // the previous member first
      CUdeviceptr busy = busyBase_[i] + 4 * uint64_t(p);
      WEAVE_TRY(checkDriver(
          cuStreamWaitValue32(cs, busy, 0, CU_STREAM_WAIT_VALUE_EQ),
          "cuStreamWaitValue32 (busy: the peer's previous kernel)"));
      WEAVE_TRY(checkDriver(
          cuStreamWriteValue32(cs, busy, 1, CU_STREAM_WRITE_VALUE_DEFAULT),
          "cuStreamWriteValue32 (setting busy)"));
      WEAVE_TRY(checkDriver(
          cuMemcpyAsync(peerRows_[i][p], ownRows_[i], shardBytes_, cs),
          "cuMemcpyAsync (the own rows into a peer's a)"));
      WEAVE_TRY(checkDriver(
          cuStreamWriteValue32(cs, peerReady_[i][p] + 4 * uint64_t(r * kChunks),
                               1, CU_STREAM_WRITE_VALUE_DEFAULT),
          "cuStreamWriteValue32 (ready on the peer)"));
    }
    WEAVE_TRY(checkDriver(cuEventRecord(copied_[i], cs),
                          "cuEventRecord (the copies)"));
  }
  WEAVE_TRY(kernel_->launch(*bound_, streams_));
  for (size_t i = 0; i < local; ++i) {
    uint32_t r = team_->rankOf(i);
    CUstream s = streams_[i];
    WEAVE_TRY(
        checkDriver(cuCtxSetCurrent(timed_[i].context), "cuCtxSetCurrent"));
    for (uint32_t src = 0; src < d_; ++src)
      if (src != r)
        WEAVE_TRY(checkDriver(
            cuStreamWriteValue32(s, readyBase_[i] + 4 * uint64_t(src * kChunks),
                                 0, CU_STREAM_WRITE_VALUE_DEFAULT),
            "cuStreamWriteValue32 (clearing ready)"));
    for (uint32_t src = 0; src < d_; ++src)
      if (src != r)
        WEAVE_TRY(checkDriver(
            cuStreamWriteValue32(s, peerBusy_[i][src] + 4 * uint64_t(r), 0,
                                 CU_STREAM_WRITE_VALUE_DEFAULT),
            "cuStreamWriteValue32 (freeing a peer's busy)"));
    WEAVE_TRY(checkDriver(cuStreamWaitEvent(s, copied_[i], 0),
                          "cuStreamWaitEvent (joining the copy stream)"));
  }
  return ok();
}

} // namespace weave::bench::agm
