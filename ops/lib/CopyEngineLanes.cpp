//===- CopyEngineLanes.cpp - The copy engines' flag protocol --------------===//
//
// See CopyEngineLanes.h.
//
//===----------------------------------------------------------------------===//

#include "CopyEngineLanes.h"

#include <cstdio>

namespace weave::ops::detail {

Expected<std::unique_ptr<CopyEngineLanes>>
CopyEngineLanes::create(Communicator &comm) {
  Team &team = comm.team();
  auto x = std::unique_ptr<CopyEngineLanes>(new CopyEngineLanes());
  x->comm_ = &comm;
  x->d_ = team.size();
  WEAVE_ASSIGN_OR_RETURN(SemaphoreArray flags,
                         comm.heap().allocateSemaphores(2 * x->d_));
  x->flags_ = flags;
  WEAVE_ASSIGN_OR_RETURN(x->side_, SideStreams::create(comm, "copy-engine"));
  size_t locals = team.localCount();
  x->flush_.assign(locals, false);
  for (size_t i = 0; i < locals; ++i) {
    const Device &device = team.device(i);
    WEAVE_TRY(device.makeCurrent());
    int canFlush = 0;
    WEAVE_CU_TRY(cuDeviceGetAttribute(
                     &canFlush, CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES,
                     device.handle()),
                 "reading CAN_FLUSH_REMOTE_WRITES");
    x->flush_[i] = canFlush != 0;
  }
  return x;
}

CopyEngineLanes::~CopyEngineLanes() {
  if (!comm_)
    return;
  side_.reset();
  if (flags_)
    if (Status status = comm_->heap().free(*flags_); !status)
      std::fprintf(stderr,
                   "weave: warning: freeing the copy-engine flags: %s\n",
                   status.error().toString().c_str());
}

CUdeviceptr CopyEngineLanes::flag(size_t local, uint32_t onRank,
                                  uint32_t word) const {
  SymmetricHeap &heap = comm_->heap();
  CUdeviceptr base = onRank == comm_->team().rankOf(local)
                         ? heap.localPointer(*flags_, local)
                         : heap.peerPointer(*flags_, local, onRank);
  return base + 4 * uint64_t(word);
}

Status CopyEngineLanes::acquire(size_t local, uint32_t dst) {
  CUstream cs = side_->stream(local);
  CUdeviceptr busy =
      flag(local, comm_->team().rankOf(local), busyFlag(d_, dst));
  WEAVE_CU_TRY(cuStreamWaitValue32(cs, busy, 0, CU_STREAM_WAIT_VALUE_EQ),
               "waiting for the owner's previous sum (busy flag)");
  WEAVE_CU_TRY(cuStreamWriteValue32(cs, busy, 1, CU_STREAM_WRITE_VALUE_DEFAULT),
               "setting a busy flag");
  return ok();
}

Status CopyEngineLanes::signal(size_t local, uint32_t dst) {
  uint32_t r = comm_->team().rankOf(local);
  WEAVE_CU_TRY(cuStreamWriteValue32(side_->stream(local),
                                    flag(local, dst, readyFlag(r)), 1,
                                    CU_STREAM_WRITE_VALUE_DEFAULT),
               "signalling a chunk to its owner (ready flag)");
  return ok();
}

Status CopyEngineLanes::waitReady(size_t local, CUstream stream, uint32_t src) {
  uint32_t r = comm_->team().rankOf(local);
  unsigned waitFlags = CU_STREAM_WAIT_VALUE_EQ |
                       (flush_[local] ? CU_STREAM_WAIT_VALUE_FLUSH : 0);
  WEAVE_CU_TRY(
      cuStreamWaitValue32(stream, flag(local, r, readyFlag(src)), 1, waitFlags),
      "waiting for a peer's chunk (ready flag)");
  return ok();
}

Status CopyEngineLanes::finish(size_t local, CUstream stream) {
  uint32_t r = comm_->team().rankOf(local);
  for (uint32_t src = 0; src < d_; ++src)
    if (src != r)
      WEAVE_CU_TRY(cuStreamWriteValue32(stream, flag(local, r, readyFlag(src)),
                                        0, CU_STREAM_WRITE_VALUE_DEFAULT),
                   "clearing a ready flag");
  for (uint32_t src = 0; src < d_; ++src)
    if (src != r)
      WEAVE_CU_TRY(cuStreamWriteValue32(stream,
                                        flag(local, src, busyFlag(d_, r)), 0,
                                        CU_STREAM_WRITE_VALUE_DEFAULT),
                   "freeing a peer's slot (busy flag)");
  if (d_ > 1) {
    // The copies are part of the call: the next call's blocks overwrite
    // what they read, and a graph capture must end with every stream it
    // forked joined back.
    WEAVE_TRY(side_->join(local, stream));
  }
  return ok();
}

} // namespace weave::ops::detail
