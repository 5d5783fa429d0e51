//===- CopyEngine.cpp - GEMM + reduce-scatter on the copy engines ---------===//
//
// See CopyEngine.h. One call on member r's stream s (D members, owner
// o(t) = (r + t) mod D, its copy stream cs):
//
//   for t = 1 .. D - 1:
//     s:  ce_matmul(a rows of o(t)) -> staging[t - 1]; record chunkDone[t-1]
//     cs: wait chunkDone[t - 1]
//         wait   busy[o(t)]  (local)       == 0
//         write  busy[o(t)]  (local)       := 1
//         copy   staging[t - 1] -> slot r on o(t)   (cuMemcpyAsync, peer)
//         write  ready[r]    (on o(t))     := 1
//   where MatmulReduceScatter::sumsInEpilogue (the own chunk's tiles do
//   not wait for the last copy before a later round of them):
//   s:  ce_matmul_sum(a rows of r, slots, ready) -> c: the own chunk, each
//       thread waiting in the kernel (at its first output box) until
//       ready[src] (local) == 1 for every src != r, each box summed with
//       the peers' slot rows before it is stored
//   elsewhere:
//   s:  ce_matmul(a rows of r) -> slot r (local)
//   s:  wait ready[src] (local) == 1, every src != r (FLUSH where supported)
//   s:  ce_sum(slots) -> c
//   then:
//   s:  write ready[src] (local) := 0, every src != r
//   s:  write busy[r] (on src) := 0, every src != r
//   cs: record copiesDone;  s: wait copiesDone
//
// The flags, the copy stream, the busy wait and set, the ready signal and
// wait, the clears and the join are CopyEngineLanes' (CopyEngineLanes.h;
// the copy stream's fork and join are SideStreams').
//
// Every value is a constant (a CUDA graph replays the same memory
// operations) and every flag is back to 0 once every member's call has
// finished, so the next call or replay starts from the same state: no
// epoch. Writes use the default flags (a memory barrier before the write),
// so a flag is seen only after everything the stream did before it.
//
// No deadlock. Every wait of call n is for something of call n or n - 1,
// and never for something after itself on its own stream:
//  - cs's wait on busy[o] == 0 (call n) is for o's clear at the end of
//    o's call n - 1, which waits only for the copies of call n - 1 into o
//    (ready), which wait for busy clears of call n - 2, and so on down to
//    the zeroed start: call n - 1 finishes without any work of call n.
//  - s's (or ce_matmul_sum's) wait on ready[src] (call n) is for src's
//    copy stream of call n, which waits for src's chunk matmul of call n
//    (on src's s, before any wait of src's call n) and for busy clears of
//    call n - 1 (above). The waiting kernel holds its SMs: the peers' chunk
//    matmuls and copies must still run, which they do on their own GPUs
//    and copy engines; on a loopback team (members sharing a GPU) the sum
//    is the pass, not ce_matmul_sum (create() says why).
//  - s's wait on copiesDone (the join) is for its own cs of call n.
//  Within a copy stream the copies are in order; a copy to o(t) waiting
//  holds back the later owners' copies, not any wait they are needed for
//  first (owner o(t + 1) waits for it only in its own sum).
//
// No overtaking (a fast member's call n + 1 against a slow peer's call n):
//  - member r's copy into slot r on o for call n + 1 waits busy[o] == 0 on
//    r, which r set to 1 before its copy of call n and only o clears,
//    after o's sum of call n has read the slots (stream order on o);
//  - o's ready[r] = 1 of call n + 1 comes after that clear, and o clears
//    ready[r] before busy[r] (same stream, barrier): the sum of call n + 1
//    cannot see call n's ready (o's clears follow its ce_matmul_sum of
//    call n, which has stopped reading the flags and the slots);
//  - r's staging chunk of call n + 1 is written by r's matmul after the
//    join of call n (s waited for every copy of call n out of it);
//  - the own slot is written (where the sum is a pass) by r's own stream
//    after its previous sum; c is written on s only.
// So a member runs at most one call ahead of a peer, and only up to its
// copies into that peer.
//
// Shared hardware queues. Streams beyond the device's connections
// (CUDA_DEVICE_MAX_CONNECTIONS, 8 by default) share queues, and a blocked
// wait (or a kernel waiting in its epilogue) holds back what was submitted
// after it on its queue. One process enqueues every local member's call in
// the order above, so every wait is submitted after the operation that
// satisfies it (every member's copies of a call before any member's
// ready wait or ce_matmul_sum, a busy flag after the clears of the previous
// call): nothing a wait needs can be queued behind it. Graph replays on a
// loopback team of many members (one GPU, 2 x D streams) are not covered by
// this argument: there the replays of the members' graphs are launched one
// after the other, and how a graph's nodes map onto queues is the driver's.
//
//===----------------------------------------------------------------------===//

#include "CopyEngine.h"

#include <algorithm>
#include <cstdio>

namespace weave::ops::detail {

Expected<std::unique_ptr<CopyEngineKernel>>
CopyEngineKernel::create(Communicator &comm, KernelInstance instance,
                         int64_t mShard, int64_t k, int64_t n) {
  Team &team = comm.team();
  auto x = std::unique_ptr<CopyEngineKernel>(new CopyEngineKernel());
  WEAVE_TRY(x->init(comm, std::move(instance), mShard, k, n));
  WEAVE_ASSIGN_OR_RETURN(x->matmulSum_,
                         comm.kernel(x->instance_, "ce_matmul_sum"));
  WEAVE_ASSIGN_OR_RETURN(x->sum_, comm.kernel(x->instance_, "ce_sum"));
  // Not where members share a GPU (a loopback team): there a copy into a
  // slot on the same device may need SMs, which the members' waiting
  // own-chunk kernels can hold (both persistent grids together fill the
  // GPU). Measured: loopback D = 2, m_shard 768, k 7168, n 4096 (132
  // tiles of 128 x 192 a member) hung in 4 of 7 fresh runs on one H200,
  // the pass passes (docs/PERF.md). The flags are the same either way, so
  // members may differ in this.
  x->sumInEpilogue_ =
      !team.isLoopback() &&
      MatmulReduceScatter::sumsInEpilogue(uint32_t(x->d_), mShard, k, n);
  SymmetricHeap &heap = comm.heap();
  // Symmetric allocations first, in the same order on every process:
  // slots, then the lanes' flags.
  WEAVE_ASSIGN_OR_RETURN(SymmetricBuffer slots,
                         heap.allocateTensor(x->dtype_, {x->d_ * mShard, n}));
  x->slots_ = slots;
  WEAVE_ASSIGN_OR_RETURN(x->lanes_, CopyEngineLanes::create(comm));
  uint64_t chunk = uint64_t(mShard) * uint64_t(n) * x->elementBytes_;
  size_t locals = team.localCount();
  x->staging_.assign(locals, 0);
  x->chunkDone_.assign(locals, {});
  for (size_t i = 0; i < locals; ++i) {
    const Device &device = team.device(i);
    WEAVE_TRY(device.makeCurrent());
    if (x->d_ > 1)
      WEAVE_CU_TRY(cuMemAlloc(&x->staging_[i], chunk * uint64_t(x->d_ - 1)),
                   "allocating the copy-engine staging chunks");
    x->chunkDone_[i].assign(std::max<int64_t>(x->d_ - 1, 0), nullptr);
    for (CUevent &e : x->chunkDone_[i])
      WEAVE_CU_TRY(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING),
                   "creating a copy-engine event");
  }
  return x;
}

CopyEngineKernel::~CopyEngineKernel() {
  if (!comm_)
    return;
  Team &team = comm_->team();
  for (size_t i = 0; i < staging_.size(); ++i) {
    (void)team.device(i).makeCurrent();
    if (staging_[i])
      (void)cuMemFree(staging_[i]);
    for (CUevent e : chunkDone_[i])
      if (e)
        (void)cuEventDestroy(e);
  }
  // The lanes (copy streams, their events and the flags).
  lanes_.reset();
  SymmetricHeap &heap = comm_->heap();
  auto report = [&](const Status &status) {
    if (!status)
      std::fprintf(
          stderr, "weave: warning: freeing the workspace of op '%s': %s\n",
          instance_.kernelName.c_str(), status.error().toString().c_str());
  };
  if (slots_)
    report(heap.free(*slots_));
}

Status CopyEngineKernel::run(
    const std::vector<std::vector<TensorRef>> &tensors,
    const std::vector<CUstream> &streams,
    const std::vector<std::optional<SymmetricBuffer>> &inPlace) {
  WEAVE_TRY(checkReduceScatterCall("copy_engine", tensors, streams, inPlace));
  Team &team = comm_->team();
  SymmetricHeap &heap = comm_->heap();
  size_t locals = team.localCount();
  uint64_t chunkA = uint64_t(m_) * uint64_t(k_) * elementBytes_;
  uint64_t chunkC = uint64_t(m_) * uint64_t(n_) * elementBytes_;

  // Bind every launch first (step t = 1 .. D: the chunk of owner (r + t)
  // mod D, the last one the member's own), so that a failing call enqueues
  // nothing.
  std::vector<uint64_t> pb(locals);
  for (size_t i = 0; i < locals; ++i)
    pb[i] = tensors[1][i].data;
  DeviceBuffers b = tensorView(pb, dtype_, {k_, n_}, elementBytes_);
  // (The own chunk, t = D, is a step only where the sum is a pass.)
  int64_t chunkSteps = sumInEpilogue_ ? d_ - 1 : d_;
  std::vector<BoundArgs> steps;
  for (int64_t t = 1; t <= chunkSteps; ++t) {
    std::vector<uint64_t> pa(locals), pc(locals);
    for (size_t i = 0; i < locals; ++i) {
      uint32_t r = team.rankOf(i);
      uint32_t owner = uint32_t((r + t) % d_);
      pa[i] = tensors[0][i].data + owner * chunkA;
      pc[i] = t == d_ ? heap.localPointer(*slots_, i) + r * chunkC
                      : staging_[i] + uint64_t(t - 1) * chunkC;
    }
    std::vector<KernelArg> args =
        matmulArgs(tensorView(pa, dtype_, {m_, k_}, elementBytes_), b,
                   tensorView(pc, dtype_, {m_, n_}, elementBytes_));
    WEAVE_ASSIGN_OR_RETURN(BoundArgs bound, matmul_->bind(heap, args));
    steps.push_back(std::move(bound));
  }
  std::vector<uint64_t> ps(locals), pout(locals);
  for (size_t i = 0; i < locals; ++i) {
    ps[i] = heap.localPointer(*slots_, i);
    pout[i] = tensors[2][i].data;
  }
  DeviceBuffers slots = tensorView(ps, dtype_, {d_ * m_, n_}, elementBytes_);
  DeviceBuffers c = tensorView(pout, dtype_, {m_, n_}, elementBytes_);
  // The sum: in the own chunk's epilogue (a's own rows, b, c, slots, ready,
  // ws: ce_matmul's workspace, shared, the two run in order on the
  // member's stream), or the pass over the slots.
  std::vector<KernelArg> sumArgs{slots, c};
  Kernel *sumKernel = sum_;
  if (sumInEpilogue_) {
    std::vector<uint64_t> pown(locals);
    for (size_t i = 0; i < locals; ++i)
      pown[i] = tensors[0][i].data + team.rankOf(i) * chunkA;
    sumArgs = {tensorView(pown, dtype_, {m_, k_}, elementBytes_), b, c, slots,
               lanes_->flags()};
    if (workspace())
      sumArgs.push_back(*workspace());
    sumKernel = matmulSum_;
  }
  WEAVE_ASSIGN_OR_RETURN(BoundArgs sum, sumKernel->bind(heap, sumArgs));

  for (int64_t t = 1; t <= chunkSteps; ++t) {
    WEAVE_TRY(matmul_->launch(steps[t - 1], streams));
    if (t == d_)
      break;
    for (size_t i = 0; i < locals; ++i) {
      WEAVE_TRY(team.device(i).makeCurrent());
      uint32_t r = team.rankOf(i);
      uint32_t owner = uint32_t((r + t) % d_);
      CUstream cs = lanes_->copyStream(i);
      CUevent done = chunkDone_[i][t - 1];
      WEAVE_CU_TRY(cuEventRecord(done, streams[i]),
                   "recording a copy-engine chunk");
      WEAVE_CU_TRY(cuStreamWaitEvent(cs, done, 0),
                   "ordering a copy after its chunk");
      WEAVE_TRY(lanes_->acquire(i, owner));
      // A plain copy between this device's staging and the owner's slot
      // through the symmetric heap's mapping of it: a copy engine moves
      // it peer to peer.
      CUdeviceptr slot = heap.peerPointer(*slots_, i, owner) + r * chunkC;
      WEAVE_CU_TRY(cuMemcpyAsync(slot, staging_[i] + uint64_t(t - 1) * chunkC,
                                 chunkC, cs),
                   "copying a chunk into its owner's slot");
      WEAVE_TRY(lanes_->signal(i, owner));
    }
  }
  if (!sumInEpilogue_)
    for (size_t i = 0; i < locals; ++i) {
      WEAVE_TRY(team.device(i).makeCurrent());
      WEAVE_TRY(lanes_->waitReady(i, streams[i]));
    }
  WEAVE_TRY(sumKernel->launch(sum, streams));
  for (size_t i = 0; i < locals; ++i) {
    WEAVE_TRY(team.device(i).makeCurrent());
    WEAVE_TRY(lanes_->finish(i, streams[i]));
  }
  return ok();
}

} // namespace weave::ops::detail
