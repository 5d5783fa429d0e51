//===- CopyEngineLanes.h - The copy engines' flag protocol ------*- C++ -*-===//
//
// The flag protocol of the GEMM + reduce-scatter's "copy_engine"
// (CopyEngineKernel, CopyEngine.h) and the all-gather matmul's
// (CopyEngineGatherKernel, CopyEngineGather.h). It
// moves whole blocks between members with cuMemcpyAsync on a copy stream
// of its own (a copy engine, no SM time) and orders the members by stream
// memory operations on symmetric u32 flags, not by events, so it works the
// same for one process per GPU, one process driving every GPU, and a
// loopback team. The pieces here:
//
//  - the flags: 2 x D symmetric u32 semaphores (zeroed by the heap),
//    ready[src] (word src, on the receiver: src's block has landed) and
//    busy[dst] (word D + dst, on the sender: set by the sender's copy
//    stream before its copy into dst, cleared by dst once it has read the
//    block);
//  - per local member a copy stream (SideStreams.h), ordered after the
//    member's stream by the algorithm's own events (the GEMM + RS waits for
//    each chunk's matmul) and joined back at the end of a call;
//  - the operations of the toggle, each with a constant value (so a CUDA
//    graph replays the same memory operations and no epoch is needed):
//      sender's cs: acquire(dst)  wait busy[dst] (local) == 0; := 1
//                   (the copy)
//                   signal(dst)   ready[own rank] (on dst) := 1 (or
//                                 a count of parts landed)
//      receiver's s: waitReady(src) ready[src] (local) == 1 (FLUSH where
//                   the device can flush remote writes), or a kernel waits
//                   for it (binding flags(): the GEMM + RS's ce_matmul_sum,
//                   the all-gather matmul's ce_all_gather_matmul; a
//                   system-scope acquire load)
//                   finish()      ready[src] (local) := 0, every src;
//                                 busy[own rank] (on src) := 0, every src;
//                                 join cs into s.
//    Writes use the default flags (a memory barrier before the write), so
//    a flag is seen only after everything its stream did before it.
//
// Why the toggle cannot deadlock or let a member overtake a peer is the
// algorithm's argument (CopyEngine.cpp): it depends on what the copies
// wait for and what reads the blocks.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_OPS_LIB_COPYENGINELANES_H
#define WEAVE_OPS_LIB_COPYENGINELANES_H

#include "SideStreams.h"
#include "StagedKernel.h"

namespace weave::ops::detail {

class CopyEngineLanes {
public:
  /// Allocates the flags (a symmetric allocation: make it at the same point
  /// of every process's sequence of allocations) and, per local member, a
  /// copy stream, its join event and whether its waits can flush.
  static Expected<std::unique_ptr<CopyEngineLanes>> create(Communicator &comm);
  /// Gives the streams, events and flags back (after the op's last call
  /// has completed on every stream).
  ~CopyEngineLanes();
  CopyEngineLanes(const CopyEngineLanes &) = delete;
  CopyEngineLanes &operator=(const CopyEngineLanes &) = delete;

  /// Flag words (see the top).
  static uint32_t readyFlag(uint32_t src) { return src; }
  static uint32_t busyFlag(uint32_t teamSize, uint32_t dst) {
    return teamSize + dst;
  }
  /// The address of flag `word` on member `onRank` as local member `local`
  /// sees it (its own copy or the heap's mapping of the peer's).
  CUdeviceptr flag(size_t local, uint32_t onRank, uint32_t word) const;
  CUstream copyStream(size_t local) const { return side_->stream(local); }
  /// Every flag word (the kernels that wait for ready[src] bind them: the
  /// GEMM + RS's ce_matmul_sum, the all-gather matmul's
  /// ce_all_gather_matmul).
  const SemaphoreArray &flags() const { return *flags_; }

  /// On the copy stream: wait for everything enqueued on `stream` so far
  /// (the all-gather matmul's copy engines copy the shard the caller
  /// wrote on it; the GEMM + RS orders each copy after its chunk instead).
  Status fork(size_t local, CUstream stream) {
    return side_->fork(local, stream);
  }

  /// On local member `local`'s copy stream: wait until busy[dst] (local)
  /// is 0 (dst has read this member's previous block), then set it.
  Status acquire(size_t local, uint32_t dst);
  /// On the copy stream, after the copy: ready[own rank] (on dst) :=
  /// `value` (1; "input_gather" counts its parts landed, 1, 2, ...).
  Status signal(size_t local, uint32_t dst, uint32_t value = 1);
  /// On `stream` (the member's): wait until ready[src] (local) is `value`
  /// for every peer src (the last value its copies signal).
  Status waitReady(size_t local, CUstream stream, uint32_t value = 1);
  /// On `stream`, once every block received this call has been read:
  /// clear the own ready flags, then free every peer's busy flag for this
  /// member, then (from 2 members) join the copy stream back.
  Status finish(size_t local, CUstream stream);

private:
  CopyEngineLanes() = default;
  /// `ops` on `stream` as one cuStreamBatchMemOp: one command for the
  /// stream's front end instead of one per flag.
  Status batch(CUstream stream, std::vector<CUstreamBatchMemOpParams> ops,
               const char *what);

  Communicator *comm_ = nullptr;
  uint32_t d_ = 0;
  std::optional<SemaphoreArray> flags_;
  std::unique_ptr<SideStreams> side_; ///< the copy streams
  /// Per local member: waits with CU_STREAM_WAIT_VALUE_FLUSH
  /// (the device can flush remote writes before the wait completes).
  std::vector<bool> flush_;
};

} // namespace weave::ops::detail

#endif // WEAVE_OPS_LIB_COPYENGINELANES_H
