//===- Nccl.h - NCCL communicators of the benchmarks' baselines -*- C++ -*-===//
//
// Header-only, so that bench/support itself needs no NCCL: a benchmark
// built with WEAVE_BENCH_HAVE_NCCL=1 (weave_bench_use_nccl in
// bench/CMakeLists.txt) gets NcclComms; without NCCL it is an empty class.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_BENCH_NCCL_H
#define WEAVE_BENCH_NCCL_H

#include "weave/runtime/Error.h"

#include <string>
#include <vector>

#if WEAVE_BENCH_HAVE_NCCL
#include <nccl.h>
#endif

namespace weave {
namespace bench {

#if WEAVE_BENCH_HAVE_NCCL
/// One NCCL communicator per local device (ncclCommInitAll), destroyed
/// together.
class NcclComms {
public:
  static Expected<NcclComms> create(const std::vector<int> &ordinals) {
    NcclComms c;
    c.comms_.resize(ordinals.size());
    ncclResult_t r = ncclCommInitAll(
        c.comms_.data(), static_cast<int>(ordinals.size()), ordinals.data());
    if (r != ncclSuccess) {
      c.comms_.clear();
      return Error(ErrorCode::DriverError,
                   std::string("ncclCommInitAll failed: ") +
                       ncclGetErrorString(r));
    }
    return c;
  }
  NcclComms(NcclComms &&other) noexcept : comms_(std::move(other.comms_)) {
    other.comms_.clear();
  }
  NcclComms(const NcclComms &) = delete;
  ~NcclComms() {
    for (ncclComm_t comm : comms_)
      ncclCommDestroy(comm);
  }
  ncclComm_t operator[](size_t i) const { return comms_[i]; }

private:
  NcclComms() = default;
  std::vector<ncclComm_t> comms_;
};
#else
class NcclComms {};
#endif

} // namespace bench
} // namespace weave

#endif // WEAVE_BENCH_NCCL_H
