//===- CopyEngineLanes.cpp - The copy engines' flag protocol --------------===//
//
// See CopyEngineLanes.h.
//
//===----------------------------------------------------------------------===//

#include "CopyEngineLanes.h"

#include <algorithm>
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

namespace {

/// A wait of `op` for `value` at `address` (flags: CUstreamWaitValue_flags).
CUstreamBatchMemOpParams waitOp(CUdeviceptr address, uint32_t value,
                                unsigned flags) {
  CUstreamBatchMemOpParams op{};
  op.waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
  op.waitValue.address = address;
  op.waitValue.value = value;
  op.waitValue.flags = flags;
  return op;
}

/// A write of `value` to `address` after a memory barrier (everything the
/// stream did before it is visible first).
CUstreamBatchMemOpParams writeOp(CUdeviceptr address, uint32_t value) {
  CUstreamBatchMemOpParams op{};
  op.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
  op.writeValue.address = address;
  op.writeValue.value = value;
  op.writeValue.flags = CU_STREAM_WRITE_VALUE_DEFAULT;
  return op;
}

} // namespace

Status CopyEngineLanes::batch(CUstream stream,
                              std::vector<CUstreamBatchMemOpParams> ops,
                              const char *what) {
  // One command for the stream's front end instead of one per flag: 4 x
  // H100, bf16, graphs, the GEMM + RS at D = 4 (seventeenth session,
  // docs/PERF.md "The copy engines' flags in one command"), batched
  // against one cuStreamWaitValue32 / WriteValue32 per flag, ms: 512 x
  // 7168 x 8192 0.339 and 0.337 against 0.351 and 0.349; 1536 x 4096 x
  // 4096 0.316 and 0.318 against 0.327 and 0.327.
  // The driver runs them in array order, each as its own call would; it
  // takes fewer than kMaxBatchOps (the clears are 2·(D - 1)).
  constexpr size_t kMaxBatchOps = 256;
  for (size_t at = 0; at < ops.size(); at += kMaxBatchOps - 1) {
    size_t count = std::min(ops.size() - at, kMaxBatchOps - 1);
    WEAVE_CU_TRY(
        cuStreamBatchMemOp(stream, unsigned(count), ops.data() + at, 0), what);
  }
  return ok();
}

Status CopyEngineLanes::acquire(size_t local, uint32_t dst) {
  CUdeviceptr busy =
      flag(local, comm_->team().rankOf(local), busyFlag(d_, dst));
  return batch(side_->stream(local),
               {waitOp(busy, 0, CU_STREAM_WAIT_VALUE_EQ), writeOp(busy, 1)},
               "waiting for the owner's previous sum, then setting its busy "
               "flag");
}

Status CopyEngineLanes::signal(size_t local, uint32_t dst, uint32_t value) {
  uint32_t r = comm_->team().rankOf(local);
  WEAVE_CU_TRY(cuStreamWriteValue32(side_->stream(local),
                                    flag(local, dst, readyFlag(r)), value,
                                    CU_STREAM_WRITE_VALUE_DEFAULT),
               "signalling a chunk to its owner (ready flag)");
  return ok();
}

Status CopyEngineLanes::waitReady(size_t local, CUstream stream,
                                  uint32_t value) {
  uint32_t r = comm_->team().rankOf(local);
  unsigned waitFlags = CU_STREAM_WAIT_VALUE_EQ |
                       (flush_[local] ? CU_STREAM_WAIT_VALUE_FLUSH : 0);
  std::vector<CUstreamBatchMemOpParams> ops;
  for (uint32_t src = 0; src < d_; ++src)
    if (src != r)
      ops.push_back(
          waitOp(flag(local, r, readyFlag(src)), value, waitFlags));
  return batch(stream, std::move(ops),
               "waiting for the peers' chunks (ready flags)");
}

Status CopyEngineLanes::finish(size_t local, CUstream stream) {
  uint32_t r = comm_->team().rankOf(local);
  // The own ready flags first, then every peer's busy flag for this member
  // (each write after a memory barrier: a peer that sees its busy flag
  // free sees these ready flags cleared).
  std::vector<CUstreamBatchMemOpParams> ops;
  for (uint32_t src = 0; src < d_; ++src)
    if (src != r)
      ops.push_back(writeOp(flag(local, r, readyFlag(src)), 0));
  for (uint32_t src = 0; src < d_; ++src)
    if (src != r)
      ops.push_back(writeOp(flag(local, src, busyFlag(d_, r)), 0));
  WEAVE_TRY(batch(stream, std::move(ops),
                  "clearing the ready flags and freeing the peers' slots "
                  "(busy flags)"));
  if (d_ > 1) {
    // The copies are part of the call: the next call's blocks overwrite
    // what they read, and a graph capture must end with every stream it
    // forked joined back.
    WEAVE_TRY(side_->join(local, stream));
  }
  return ok();
}

} // namespace weave::ops::detail
