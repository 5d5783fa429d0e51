//===- PlainMatmulOpKernel.h - Fused ops that launch the plain matmul -----===//
//
// What the fused matmul ops' host-driven algorithms share: each launches
// a matmul from the host, around a workspace and a protocol of its own
// (CopyEngine.h, ScatterMatmul.h, and through GatheredRowsKernel.h
// GatherMatmul.h and CopyEngineGather.h; RingGather.h too, whose fused
// kernel it loads and a StagedKernel of its counters launches). The GEMM + reduce-scatter's
// "copy_engine" and "scatter" and the all-gather matmul's "gather" launch
// ce_matmul of the copy-engine bundle
// (ops/templates/matmul_reduce_scatter/ce_matmul.mlir.in: the plain
// matmul, dynamic rows, tile(auto)); the all-gather matmul's
// "copy_engine" its own ce_all_gather_matmul
// (ops/templates/collective_matmul/ce_all_gather_matmul.mlir.in). This
// base holds the op's shape, its instance and that kernel.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_OPS_LIB_PLAINMATMULOPKERNEL_H
#define WEAVE_OPS_LIB_PLAINMATMULOPKERNEL_H

#include "StagedKernel.h"

#include <string>

namespace weave::ops::detail {

class PlainMatmulOpKernel : public OpKernel {
public:
  const KernelInstance &instance() const override { return instance_; }

protected:
  /// Records the op's shape (team size from `comm`; f16 or bf16, which
  /// the op's checkShape allowed) and loads the kernel `instance` names
  /// (its kernelName), kept as instance_.
  Status init(Communicator &comm, KernelInstance instance, int64_t mShard,
              int64_t k, int64_t n) {
    comm_ = &comm;
    dtype_ = instance.dtype;
    d_ = comm.team().size();
    m_ = mShard;
    k_ = k;
    n_ = n;
    elementBytes_ = 2;
    WEAVE_ASSIGN_OR_RETURN(matmul_, comm.kernel(instance, instance.kernelName));
    instance_ = std::move(instance);
    return ok();
  }

  Communicator *comm_ = nullptr; ///< null until init: nothing to free
  KernelInstance instance_;
  Kernel *matmul_ = nullptr;
  std::string dtype_;
  int64_t d_ = 0, m_ = 0, k_ = 0, n_ = 0;
  uint64_t elementBytes_ = 2;
};

} // namespace weave::ops::detail

#endif // WEAVE_OPS_LIB_PLAINMATMULOPKERNEL_H
