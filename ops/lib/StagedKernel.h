//===- StagedKernel.h - One op's kernel and its workspace -------*- C++ -*-===//
//
// What every op does, written once: the op names the kernel parameters its
// tensor roles bind (e.g. "input", "output") and whether each role is read
// or written. A role whose parameter is symmetric gets a symmetric staging
// buffer (the caller's tensor is copied in before the launch, or out after
// it; a role that is a member's block of its parameter is refused: its
// op's kernel class binds it, RingGather.h); a role whose
// parameter is a plain buffer binds the caller's pointers directly. Every
// other parameter is the op's own workspace: semaphores (zeroed counters),
// symmetric buffers, and plain device buffers per local member (zeroed
// once). A parameter with dynamic dimensions (`?`) takes the shape the op
// was created for. The kernels' protocols make the copies safe without
// host synchronization (docs/OPS.md).
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_OPS_LIB_STAGEDKERNEL_H
#define WEAVE_OPS_LIB_STAGEDKERNEL_H

#include "Bindings.h"
#include "weave/ops/Collectives.h"

#include <optional>
#include <variant>

namespace weave::ops::detail {

/// What an op runs on a call: one staged kernel (StagedKernel, below), or
/// an algorithm of several launches and copies with its own workspace
/// (CopyEngineKernel, CopyEngine.h). CollectiveOp holds one.
class OpKernel {
public:
  virtual ~OpKernel();
  /// The instance of the op's (first) kernel.
  virtual const KernelInstance &instance() const = 0;
  /// `tensors[r]`: one TensorRef per local member for role r; `inPlace[r]`,
  /// where set, a symmetric buffer role r binds instead (an algorithm
  /// without in-place roles refuses one).
  virtual Status
  run(const std::vector<std::vector<TensorRef>> &tensors,
      const std::vector<CUstream> &streams,
      const std::vector<std::optional<SymmetricBuffer>> &inPlace = {}) = 0;
};

class StagedKernel : public OpKernel {
public:
  /// `placedOnly`: roles whose symmetric parameter every call passes in
  /// place (run's inPlace), so the op allocates no staging buffer for
  /// them (an op that runs this kernel on a buffer of its own: the
  /// all-gather matmul's gathered rows, GatherMatmul.h); a call without
  /// the buffer fails.
  static Expected<std::unique_ptr<StagedKernel>>
  create(Communicator &comm, KernelInstance instance,
         std::vector<RoleSpec> roles, ParamShapes shapes = {},
         std::vector<size_t> placedOnly = {});

  /// Gives the staging buffers, semaphores and workspace back: destroy an
  /// op only once its last call has completed on every stream.
  ~StagedKernel() override;

  const KernelInstance &instance() const override { return instance_; }
  /// `inPlace[r]`, where set, is a symmetric buffer of the communicator's
  /// heap that role r's symmetric parameter binds directly (the whole
  /// parameter, e.g. the gathered rows with the member's own already in
  /// place): no staging copy, and tensors[r] is not read.
  Status run(const std::vector<std::vector<TensorRef>> &tensors,
             const std::vector<CUstream> &streams,
             const std::vector<std::optional<SymmetricBuffer>> &inPlace = {})
      override;

private:
  /// How one kernel parameter is bound: a role (with its staging buffer
  /// when the parameter is symmetric), op-owned semaphores, op-owned
  /// symmetric workspace, or op-owned device buffers (one per member).
  struct RoleBinding {
    size_t role;
    std::optional<SymmetricBuffer> staging;
    bool placedOnly = false; ///< symmetric, always passed in place
  };
  using Binding =
      std::variant<RoleBinding, SemaphoreArray, SymmetricBuffer, DeviceBuffers>;

  Status checkTensors(const std::vector<std::vector<TensorRef>> &tensors,
                      const std::vector<CUstream> &streams,
                      const std::vector<std::optional<SymmetricBuffer>> &inPlace) const;
  Status copy(uint64_t dst, uint64_t src, uint64_t bytes, size_t local,
              CUstream stream);
  /// Elements of the caller's tensor for role `r`.
  int64_t roleElements(size_t r) const;
  /// Bytes of the caller's tensor for role `r` (the parameter's, or the
  /// member's block of it).
  uint64_t roleBytes(size_t r) const;

  Communicator *comm_ = nullptr;
  Kernel *kernel_ = nullptr;
  KernelInstance instance_;
  std::vector<RoleSpec> roles_;
  /// Some role is RoleSpec::disjoint: calls check their tensors' overlap.
  bool anyDisjoint_ = false;
  std::vector<ParamInfo> params_; ///< user parameters, shapes resolved
  std::vector<size_t> roleParam_; ///< kernel parameter index of each role
  std::vector<Binding> bindings_; ///< one per user parameter
};

/// Op-owned plain memory for `param` (a LocalWorkspace parameter) on every
/// local member of `comm`'s team, zeroed once here, outside any capture;
/// its kernels keep it consistent from then on. Each pointer is recorded in
/// `buffers` as it is made, so freeLocalWorkspace gives back what a failing
/// call allocated. Errors name the parameter and `opName`.
Status allocateLocalWorkspace(Communicator &comm, const ParamInfo &param,
                              const std::string &opName,
                              DeviceBuffers &buffers);
/// Frees allocateLocalWorkspace's buffers (a warning naming `opName` where
/// the driver refuses).
void freeLocalWorkspace(Communicator &comm, const DeviceBuffers &buffers,
                        const std::string &opName);

/// A fused op's companion collective (matmulOpCompanions) run on a
/// symmetric buffer of the op's own: the all-gather matmul's "gather"
/// gathers into its rows, the GEMM + RS's "scatter" reduce-scatters from
/// its partials.
struct PlacedCollective {
  /// The op's buffer (`shape` elements of `dtype`).
  SymmetricBuffer buffer;
  /// The collective, its role `role` bound to `buffer` in place
  /// (placedOnly) where the kernel's parameter is symmetric.
  std::unique_ptr<StagedKernel> kernel;
  /// Whether it is; else each call passes the buffer's local copy as a
  /// plain tensor for that role.
  bool inPlace = true;
};
/// Loads `companion`'s kernel (its op's instance at its count for the
/// team, as opInstance chooses it), then allocates the buffer and the
/// collective's workspace, in that order (a collective call: every process
/// of the team in the same order as its other ops).
Expected<PlacedCollective> placeCollective(Communicator &comm,
                                           const CompanionOp &companion,
                                           size_t role,
                                           const std::string &dtype,
                                           std::vector<int64_t> shape);

} // namespace weave::ops::detail

#endif // WEAVE_OPS_LIB_STAGEDKERNEL_H
