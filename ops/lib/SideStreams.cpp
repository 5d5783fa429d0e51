//===- SideStreams.cpp - A second stream per local member -----------------===//
//
// See SideStreams.h.
//
//===----------------------------------------------------------------------===//

#include "SideStreams.h"

namespace weave::ops::detail {

Expected<std::unique_ptr<SideStreams>> SideStreams::create(Communicator &comm,
                                                           std::string what) {
  Team &team = comm.team();
  auto x = std::unique_ptr<SideStreams>(new SideStreams());
  x->comm_ = &comm;
  x->what_ = std::move(what);
  size_t locals = team.localCount();
  x->streams_.assign(locals, nullptr);
  x->forked_.assign(locals, nullptr);
  x->joined_.assign(locals, nullptr);
  for (size_t i = 0; i < locals; ++i) {
    WEAVE_TRY(team.device(i).makeCurrent());
    WEAVE_CU_TRY(cuStreamCreate(&x->streams_[i], CU_STREAM_NON_BLOCKING),
                 "creating the " + x->what_ + " stream");
    WEAVE_CU_TRY(cuEventCreate(&x->forked_[i], CU_EVENT_DISABLE_TIMING),
                 "creating a " + x->what_ + " event");
    WEAVE_CU_TRY(cuEventCreate(&x->joined_[i], CU_EVENT_DISABLE_TIMING),
                 "creating a " + x->what_ + " event");
  }
  return x;
}

SideStreams::~SideStreams() {
  if (!comm_)
    return;
  Team &team = comm_->team();
  for (size_t i = 0; i < streams_.size(); ++i) {
    (void)team.device(i).makeCurrent();
    if (joined_[i])
      (void)cuEventDestroy(joined_[i]);
    if (forked_[i])
      (void)cuEventDestroy(forked_[i]);
    if (streams_[i])
      (void)cuStreamDestroy(streams_[i]);
  }
}

Status SideStreams::fork(size_t local, CUstream stream) {
  WEAVE_CU_TRY(cuEventRecord(forked_[local], stream),
               "recording the " + what_ + " fork");
  WEAVE_CU_TRY(cuStreamWaitEvent(streams_[local], forked_[local], 0),
               "forking the " + what_ + " stream");
  return ok();
}

Status SideStreams::join(size_t local, CUstream stream) {
  WEAVE_CU_TRY(cuEventRecord(joined_[local], streams_[local]),
               "recording the " + what_ + " stream's end");
  WEAVE_CU_TRY(cuStreamWaitEvent(stream, joined_[local], 0),
               "joining the " + what_ + " stream");
  return ok();
}

} // namespace weave::ops::detail
