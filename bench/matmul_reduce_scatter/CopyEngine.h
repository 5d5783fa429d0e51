//===- CopyEngine.h - GEMM + reduce-scatter on the copy engines -*- C++ -*-===//
//
// The decomposition PyTorch's fused_matmul_reduce_scatter uses, built from
// Weave's own kernels (issue #31, `weave_bench_matmul_reduce_scatter --ce`):
// member r computes its partial product one m_shard chunk at a time, in the
// order r + 1, r + 2, ..., r (its own rows last), each chunk a launch of
// Weave's plain matmul (`?` rows, the compiler's configuration per range of
// rows); each
// finished chunk of another owner's rows goes to its slot on the owner by
// a copy engine (cuMemcpyAsync between the two devices' pointers, on a second
// stream, ordered by events),
// so no SM stores over NVLink; the own chunk is written into the owner's
// own slot; once every peer's copy into it has landed, the owner sums its
// D slots in f32 in source order and rounds once: the numerics of the
// fused kernel. Both kernels are the op's (ops::MatmulReduceScatter's
// algorithm "copy_engine", which orders the members by flags instead of
// events: ops/lib/CopyEngine.h), from its template
// ops/templates/matmul_reduce_scatter/ce_matmul.mlir.in: one bundle.
//
// Variants:
//   copy    as above (the chunk into a local staging buffer, then the copy
//           engine);
//   direct  each chunk's matmul stores straight into its slot on the owner
//           (a peer pointer: the SMs' TMA stores cross NVLink, as the fused
//           kernel's do), no copy; the comparison the copies are for.
// The team is driven from one process (every member local), so the
// owner's wait for its peers' copies is a cross-device event wait.
//
//===----------------------------------------------------------------------===//
#ifndef WEAVE_BENCH_MRS_COPYENGINE_H
#define WEAVE_BENCH_MRS_COPYENGINE_H

#include "weave/bench/Timing.h"
#include "weave/examples/HostSetup.h"
#include "weave/runtime/Bundle.h"
#include "weave/runtime/Kernel.h"

#include <cuda.h>

#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

namespace weave::bench::mrs {

enum class CeVariant { Copy, Direct };
const char *ceVariantName(CeVariant v);

/// What one iteration enqueues (the parts are for the breakdown: a run
/// without the copies or the sum computes wrong outputs on purpose).
struct CeParts {
  bool copies = true;   ///< the copy engines' moves (variant copy)
  bool sum = true;      ///< the owner's sum
  bool matmuls = true;  ///< the chunk matmuls
};

class CopyEngineDesign {
public:
  /// `bundle`: the op's instance of ops/templates/matmul_reduce_scatter/
  /// ce_matmul.mlir.in for this D, dtype, K and N (kernels `ce_matmul`: a
  /// [? x K], b [K x N], c [? x N] of the dtype; `ce_sum`).
  /// `a` [D*m, K] and `b` [K, N] are the members' inputs (read in place).
  static Expected<std::unique_ptr<CopyEngineDesign>>
  create(Team &team, SymmetricHeap &heap, const std::vector<TimedStream> &timed,
         Bundle bundle, DType dtype, int64_t d, int64_t m, int64_t k,
         int64_t n, const DeviceBuffers &a, const DeviceBuffers &b);
  ~CopyEngineDesign();

  /// NaN into the staging buffers, the slots and the outputs (so a missing
  /// copy or chunk cannot pass on an earlier variant's values).
  Status poison();
  /// Enqueues one iteration on the members' streams (and their copy
  /// streams), no host synchronization. `captured`: inside the capture of
  /// capture() (no wait on the previous iteration's sums: graph replays on
  /// one stream do not overlap).
  Status enqueue(CeVariant variant, CeParts parts, bool captured = false);

  /// One CUDA graph over every member's devices (begun on member 0's
  /// stream, the others forked from it and joined back), launched on
  /// member 0's stream: an iteration's time is the whole team's.
  class Graph {
  public:
    ~Graph();
    Status launch() const;
    TimedStream stream() const { return stream_; }

  private:
    friend class CopyEngineDesign;
    TimedStream stream_;
    CUgraphExec exec_ = nullptr;
  };
  Expected<std::unique_ptr<Graph>> capture(CeVariant variant, CeParts parts);

  const examples::LocalBuffers &out() const { return *out_; }

private:
  CopyEngineDesign() = default;
  Status bindAll(SymmetricHeap &heap, const DeviceBuffers &a,
                 const DeviceBuffers &b);
  Status record(CUevent event, CUstream stream, const char *what);
  Status wait(CUstream stream, CUevent event, const char *what);

  Team *team_ = nullptr;
  std::vector<TimedStream> timed_;
  std::vector<CUstream> streams_, copyStreams_;
  DType dtype_{};
  int64_t d_ = 0, m_ = 0, k_ = 0, n_ = 0;
  std::vector<uint32_t> rank_;  ///< by local index
  std::vector<size_t> localOf_; ///< by rank
  std::unique_ptr<Kernel> matmul_, sum_;
  std::unique_ptr<examples::LocalBuffers> stage_, slots_, out_;
  std::unique_ptr<examples::LocalBuffers> ws_; ///< ce_matmul's, if any
  /// bound_[variant][t - 1]: step t's matmul (chunk (rank + t) mod D).
  std::vector<std::vector<BoundArgs>> bound_;
  std::unique_ptr<BoundArgs> sumBound_;
  /// Events, created in the recording stream's context: per local member
  /// matmulDone_[i][t - 1], copyDone_[i][t - 1] (t < D), sumDone_[i],
  /// fork_ (member 0), join_[i].
  std::vector<std::vector<CUevent>> matmulDone_, copyDone_;
  std::vector<CUevent> sumDone_, join_;
  CUevent fork_ = nullptr;
  std::unordered_set<CUevent> recorded_; ///< events recorded at least once
};

} // namespace weave::bench::mrs

#endif // WEAVE_BENCH_MRS_COPYENGINE_H
