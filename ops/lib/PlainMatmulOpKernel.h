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
// base holds the op's shape, its instance and that kernel, and the
// kernel's workspace where it has one (a Buffer parameter named "ws",
// ce_matmul's: its tail split's and split-K's partials and counters),
// one per local member, zeroed once: every launch leaves the counters
// zero, and an op's launches of the kernel on one member are on one
// stream, in order, so they never use it at once.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_OPS_LIB_PLAINMATMULOPKERNEL_H
#define WEAVE_OPS_LIB_PLAINMATMULOPKERNEL_H

#include "StagedKernel.h"

#include <optional>
#include <string>

namespace weave::ops::detail {

class PlainMatmulOpKernel : public OpKernel {
public:
  const KernelInstance &instance() const override { return instance_; }
  ~PlainMatmulOpKernel() override { freeWorkspace(); }

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
    return allocateWorkspace();
  }

  /// The matmul's arguments: a, b, c, then its workspace where it has one.
  std::vector<KernelArg> matmulArgs(DeviceBuffers a, DeviceBuffers b,
                                    DeviceBuffers c) const {
    std::vector<KernelArg> args{std::move(a), std::move(b), std::move(c)};
    if (workspace_)
      args.push_back(*workspace_);
    return args;
  }

  /// What the errors of the GEMM + reduce-scatter's host-driven algorithm
  /// `algorithm` start with: "op 'matmul_reduce_scatter' (ALGORITHM): ".
  static std::string reduceScatterWhere(const char *algorithm) {
    return std::string("op 'matmul_reduce_scatter' (") + algorithm + "): ";
  }

  /// The call check of the GEMM + reduce-scatter's host-driven algorithms,
  /// which bind nothing in place ("copy_engine", "scatter",
  /// "input_gather"): matmulReduceScatterCallMismatch against this op's
  /// shape, an InvalidArgument naming `algorithm` where it finds something.
  Status checkReduceScatterCall(
      const char *algorithm, const std::vector<std::vector<TensorRef>> &tensors,
      const std::vector<CUstream> &streams,
      const std::vector<std::optional<SymmetricBuffer>> &inPlace) const {
    std::string wrong = matmulReduceScatterCallMismatch(
        tensors, streams.size(), inPlace, comm_->team().localCount(), dtype_,
        d_, m_, k_, n_);
    if (!wrong.empty())
      return Error(ErrorCode::InvalidArgument,
                   reduceScatterWhere(algorithm) + wrong);
    return ok();
  }

  /// The kernel's workspace (see the top), if it has one: another kernel
  /// of the instance with the same "ws" parameter may share it where its
  /// launches are on the same stream as the matmul's.
  const std::optional<DeviceBuffers> &workspace() const { return workspace_; }

  Communicator *comm_ = nullptr; ///< null until init: nothing to free
  KernelInstance instance_;
  Kernel *matmul_ = nullptr;
  std::string dtype_;
  int64_t d_ = 0, m_ = 0, k_ = 0, n_ = 0;
  uint64_t elementBytes_ = 2;

private:
  /// The kernel's "ws" parameter (the registry's LocalWorkspace of
  /// ce_matmul), if it has one: allocateLocalWorkspace's zeroed memory of
  /// its manifest shape on every local member.
  Status allocateWorkspace() {
    for (const ParamInfo &p : matmul_->info().params) {
      if (p.kind != abi::ParamKind::Buffer || p.name != "ws")
        continue;
      workspace_.emplace();
      return allocateLocalWorkspace(*comm_, p, instance_.kernelName,
                                    *workspace_);
    }
    return ok();
  }
  void freeWorkspace() {
    if (comm_ && workspace_)
      freeLocalWorkspace(*comm_, *workspace_, instance_.kernelName);
  }

  std::optional<DeviceBuffers> workspace_;
};

} // namespace weave::ops::detail

#endif // WEAVE_OPS_LIB_PLAINMATMULOPKERNEL_H
