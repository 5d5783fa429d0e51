//===- StagedKernel.h - One op's kernel and its symmetric staging -*- C++ -*-//
//
// What every collective op does, written once: the op names the kernel
// parameters its tensor roles bind (e.g. "input", "output") and whether each
// role is read or written. A role whose parameter is symmetric gets a
// symmetric staging buffer (the caller's tensor is copied in before the
// launch, or out after it); a role whose parameter is a plain buffer binds
// the caller's pointers directly. Semaphore parameters get zeroed counters
// and other symmetric parameters zeroed workspace, owned by the op. The
// kernels' protocols make the copies safe without host synchronization
// (docs/OPS.md).
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_OPS_LIB_STAGEDKERNEL_H
#define WEAVE_OPS_LIB_STAGEDKERNEL_H

#include "weave/ops/Collectives.h"

#include <variant>

namespace weave::ops::detail {

struct RoleSpec {
  std::string param; ///< the kernel parameter the role binds
  bool written;      ///< the kernel writes it (copied out when staged)
};

class StagedKernel {
public:
  static Expected<std::unique_ptr<StagedKernel>>
  create(Communicator &comm, KernelInstance instance,
         std::vector<RoleSpec> roles);

  /// Gives the staging buffers, semaphores and workspace back to the heap:
  /// destroy an op only once its last call has completed on every stream.
  ~StagedKernel();

  const KernelInstance &instance() const { return instance_; }
  Status run(const std::vector<std::vector<TensorRef>> &tensors,
             const std::vector<CUstream> &streams);

private:
  /// How one kernel parameter is bound: a role (with its staging buffer
  /// when the parameter is symmetric), op-owned semaphores, or op-owned
  /// symmetric workspace.
  struct RoleBinding {
    size_t role;
    std::optional<SymmetricBuffer> staging;
  };
  using Binding = std::variant<RoleBinding, SemaphoreArray, SymmetricBuffer>;

  Status checkTensors(const std::vector<std::vector<TensorRef>> &tensors,
                      const std::vector<CUstream> &streams) const;
  Status copy(uint64_t dst, uint64_t src, uint64_t bytes, size_t local,
              CUstream stream);

  Communicator *comm_ = nullptr;
  Kernel *kernel_ = nullptr;
  KernelInstance instance_;
  std::vector<RoleSpec> roles_;
  std::vector<size_t> roleParam_; ///< kernel parameter index of each role
  std::vector<Binding> bindings_; ///< one per user parameter
};

} // namespace weave::ops::detail

#endif // WEAVE_OPS_LIB_STAGEDKERNEL_H
