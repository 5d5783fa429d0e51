//===- SideStreams.h - A second stream per local member ----------*- C++
//-*-===//
//
// The ops' algorithms that run work beside the caller's stream (the GEMM +
// reduce-scatter's copy engines, CopyEngineLanes.h; the all-gather
// matmul's all-gather beside its own shard's matmul, GatherMatmul.h): per
// local member a non-blocking stream, forked from the member's stream at
// the start of a call (so it sees what the caller wrote before the call,
// and a CUDA graph capture follows it) and joined back before the call
// ends (the next call overwrites what it read, and a capture must end
// with every forked stream joined). Events only: no device memory.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_OPS_LIB_SIDESTREAMS_H
#define WEAVE_OPS_LIB_SIDESTREAMS_H

#include "weave/ops/Communicator.h"

#include <cuda.h>

#include <memory>
#include <vector>

namespace weave::ops::detail {

class SideStreams {
public:
  /// One stream and its fork and join events per local member of the
  /// communicator's team; `what` names them in errors ("copy-engine").
  static Expected<std::unique_ptr<SideStreams>> create(Communicator &comm,
                                                       std::string what);
  ~SideStreams();
  SideStreams(const SideStreams &) = delete;
  SideStreams &operator=(const SideStreams &) = delete;

  CUstream stream(size_t local) const { return streams_[local]; }
  /// The side stream of local member `local` after everything enqueued on
  /// `stream` (the member's) so far.
  Status fork(size_t local, CUstream stream);
  /// `stream` (the member's) after everything enqueued on the side stream
  /// so far.
  Status join(size_t local, CUstream stream);

private:
  SideStreams() = default;

  Communicator *comm_ = nullptr;
  std::string what_;
  std::vector<CUstream> streams_; ///< per local member
  std::vector<CUevent> forked_;   ///< recorded on the member's stream
  std::vector<CUevent> joined_;   ///< recorded on the side stream
};

} // namespace weave::ops::detail

#endif // WEAVE_OPS_LIB_SIDESTREAMS_H
