//===- StagedKernel.cpp - One op's kernel and its workspace ---------------===//

#include "StagedKernel.h"

#include <algorithm>
#include <cstdio>

namespace weave::ops::detail {

OpKernel::~OpKernel() = default;

Expected<std::unique_ptr<StagedKernel>>
StagedKernel::create(Communicator &comm, KernelInstance instance,
                     std::vector<RoleSpec> roles, ParamShapes shapes,
                     std::vector<size_t> placedOnly) {
  auto staged = std::unique_ptr<StagedKernel>(new StagedKernel());
  staged->comm_ = &comm;
  WEAVE_ASSIGN_OR_RETURN(staged->kernel_, comm.kernel(instance));
  staged->instance_ = std::move(instance);
  staged->roles_ = std::move(roles);
  for (const RoleSpec &role : staged->roles_)
    staged->anyDisjoint_ |= role.disjoint;
  const KernelInfo &info = staged->kernel_->info();
  WEAVE_ASSIGN_OR_RETURN(staged->params_, resolveParamShapes(info, shapes));
  // A member's block of a symmetric parameter (the all-gather matmul's
  // `a`) is bound by its op's kernel class, which reads the block where
  // the caller has it (RingGather.h, CopyEngineGather.h): nothing stages
  // one.
  for (const RoleSpec &role : staged->roles_)
    if (role.memberBlock)
      return Error(ErrorCode::InvalidArgument,
                   "kernel '" + info.name + "': role '" + role.param +
                       "' is a member's block of its parameter, which a "
                       "staged kernel does not bind");
  WEAVE_ASSIGN_OR_RETURN(
      std::vector<ParamBinding> plan,
      planBindings(info, staged->instance_.templateName, staged->roles_));
  staged->roleParam_.assign(staged->roles_.size(), SIZE_MAX);
  SymmetricHeap &heap = comm.heap();
  // Every allocation is recorded in bindings_ as it is made, so that the
  // destructor gives back what a failing create() allocated.
  for (size_t p = 0; p < plan.size(); ++p) {
    const ParamInfo &param = staged->params_[p];
    switch (plan[p].kind) {
    case ParamBinding::Role: {
      size_t r = plan[p].role;
      staged->roleParam_[r] = p;
      bool placed = std::find(placedOnly.begin(), placedOnly.end(), r) !=
                    placedOnly.end();
      if (placed && param.kind != abi::ParamKind::Symmetric)
        return Error(ErrorCode::InvalidArgument,
                     "kernel '" + info.name + "': parameter '" + param.name +
                         "' is not symmetric: it cannot be bound in place");
      staged->bindings_.push_back(RoleBinding{r, std::nullopt, placed});
      if (param.kind == abi::ParamKind::Symmetric && !placed) {
        WEAVE_ASSIGN_OR_RETURN(
            SymmetricBuffer staging,
            heap.allocateTensor(param.dtype, param.shape));
        std::get<RoleBinding>(staged->bindings_.back()).staging = staging;
      }
      break;
    }
    case ParamBinding::Semaphores: {
      WEAVE_ASSIGN_OR_RETURN(SemaphoreArray sems,
                             heap.allocateSemaphores(param.semaphoreCount));
      staged->bindings_.push_back(sems);
      break;
    }
    case ParamBinding::SymmetricWorkspace: {
      // Workspace the kernel keeps to itself (e.g. all-to-all-v's table of
      // counts, the GEMM + reduce-scatter's accumulator). The heap hands out
      // zeroed memory only for semaphores, and the kernels write workspace
      // before reading it.
      WEAVE_ASSIGN_OR_RETURN(SymmetricBuffer workspace,
                             heap.allocateTensor(param.dtype, param.shape));
      staged->bindings_.push_back(workspace);
      break;
    }
    case ParamBinding::LocalWorkspace: {
      staged->bindings_.push_back(DeviceBuffers{});
      WEAVE_TRY(allocateLocalWorkspace(
          comm, param, staged->instance_.kernelName,
          std::get<DeviceBuffers>(staged->bindings_.back())));
      break;
    }
    }
  }
  return staged;
}

Status allocateLocalWorkspace(Communicator &comm, const ParamInfo &param,
                              const std::string &opName,
                              DeviceBuffers &buffers) {
  // Plain memory of each local member (e.g. the all-gather matmul's launch
  // count, which must start at zero; ce_matmul's split counters).
  Team &team = comm.team();
  buffers.dtype = param.dtype;
  buffers.shape = param.shape;
  buffers.bytes = tensorBytes(param);
  for (size_t local = 0; local < team.localCount(); ++local) {
    WEAVE_TRY(team.device(local).makeCurrent());
    CUdeviceptr pointer = 0;
    WEAVE_CU_TRY(cuMemAlloc(&pointer, buffers.bytes),
                 "allocating workspace '" + param.name + "' of op '" +
                     opName + "'");
    buffers.pointers.push_back(pointer);
    WEAVE_CU_TRY(cuMemsetD8(pointer, 0, buffers.bytes),
                 "zeroing workspace '" + param.name + "'");
    WEAVE_CU_TRY(cuCtxSynchronize(), "zeroing workspace '" + param.name + "'");
  }
  return ok();
}

void freeLocalWorkspace(Communicator &comm, const DeviceBuffers &buffers,
                        const std::string &opName) {
  for (size_t i = 0; i < buffers.pointers.size(); ++i) {
    (void)comm.team().device(i).makeCurrent();
    if (CUresult result = cuMemFree(buffers.pointers[i]))
      std::fprintf(stderr,
                   "weave: warning: freeing the workspace of op '%s': "
                   "cuMemFree returned %d\n",
                   opName.c_str(), int(result));
  }
}

StagedKernel::~StagedKernel() {
  if (!comm_)
    return;
  SymmetricHeap &heap = comm_->heap();
  auto report = [&](const Status &status) {
    if (!status)
      std::fprintf(stderr, "weave: warning: freeing the workspace of op '%s': %s\n",
                   instance_.kernelName.c_str(),
                   status.error().toString().c_str());
  };
  for (const Binding &binding : bindings_) {
    if (const auto *role = std::get_if<RoleBinding>(&binding)) {
      if (role->staging)
        report(heap.free(*role->staging));
    } else if (const auto *sems = std::get_if<SemaphoreArray>(&binding)) {
      report(heap.free(*sems));
    } else if (const auto *buffer = std::get_if<SymmetricBuffer>(&binding)) {
      report(heap.free(*buffer));
    } else {
      freeLocalWorkspace(*comm_, std::get<DeviceBuffers>(binding),
                         instance_.kernelName);
    }
  }
}

int64_t StagedKernel::roleElements(size_t r) const {
  return elementCount(params_[roleParam_[r]].shape);
}

uint64_t StagedKernel::roleBytes(size_t r) const {
  return tensorBytes(params_[roleParam_[r]]);
}

Status StagedKernel::checkTensors(
    const std::vector<std::vector<TensorRef>> &tensors,
    const std::vector<CUstream> &streams,
    const std::vector<std::optional<SymmetricBuffer>> &inPlace) const {
  const KernelInfo &info = kernel_->info();
  size_t locals = comm_->team().localCount();
  auto fail = [&](const std::string &what) {
    return Error(ErrorCode::InvalidArgument, "op '" + info.name + "': " + what);
  };
  std::vector<std::string> names;
  for (const RoleSpec &role : roles_)
    names.push_back(role.param);
  if (std::string wrong = callCountsMismatch(streams.size(), tensors.size(),
                                             inPlace.size(), locals, names);
      !wrong.empty())
    return fail(wrong);
  for (size_t r = 0; r < roles_.size(); ++r) {
    const ParamInfo &param = params_[roleParam_[r]];
    const std::string &name = roles_[r].param;
    std::string wrong;
    if (!inPlace.empty() && inPlace[r]) {
      // The whole parameter, in this op's heap, of its dtype and size.
      const auto *role = std::get_if<RoleBinding>(&bindings_[roleParam_[r]]);
      if (!role || (!role->staging && !role->placedOnly))
        return fail("'" + name + "' is not a symmetric parameter: it cannot "
                    "be passed as a symmetric buffer");
      wrong = inPlaceMismatch(*inPlace[r], comm_->heap().id(),
                              {name, param.dtype, elementCount(param.shape),
                               shapeText(param.shape)});
    } else if (std::get<RoleBinding>(bindings_[roleParam_[r]]).placedOnly) {
      return fail("'" + name +
                  "' is bound in place only: pass its "
                  "symmetric buffer");
    } else {
      wrong = roleTensorsMismatch(
          tensors[r],
          {name, param.dtype, roleElements(r), shapeText(param.shape)},
          locals);
    }
    if (!wrong.empty())
      return fail(wrong);
  }
  // The tensors of roles the kernel reads as noalias share no memory with
  // the call's others (a symmetric buffer passed in place is the op's own).
  if (!anyDisjoint_)
    return ok();
  std::vector<uint64_t> bytes(roles_.size());
  std::vector<bool> caller(roles_.size());
  for (size_t r = 0; r < roles_.size(); ++r) {
    caller[r] = inPlace.empty() || !inPlace[r];
    bytes[r] = roleBytes(r);
  }
  if (std::string wrong =
          overlappingTensors(roles_, tensors, bytes, caller, locals);
      !wrong.empty())
    return fail(wrong);
  return ok();
}

Status StagedKernel::copy(uint64_t dst, uint64_t src, uint64_t bytes,
                          size_t local, CUstream stream) {
  if (bytes == 0)
    return ok();
  WEAVE_TRY(comm_->team().device(local).makeCurrent());
  WEAVE_CU_TRY(cuMemcpyDtoDAsync(dst, src, bytes, stream),
               "staging a tensor of op '" + kernel_->info().name + "'");
  return ok();
}

Status StagedKernel::run(
    const std::vector<std::vector<TensorRef>> &tensors,
    const std::vector<CUstream> &streams,
    const std::vector<std::optional<SymmetricBuffer>> &inPlace) {
  WEAVE_TRY(checkTensors(tensors, streams, inPlace));
  auto placed = [&](size_t r) -> const SymmetricBuffer * {
    return inPlace.empty() || !inPlace[r] ? nullptr : &*inPlace[r];
  };
  SymmetricHeap &heap = comm_->heap();
  Team &team = comm_->team();
  size_t locals = team.localCount();

  std::vector<KernelArg> args;
  for (size_t p = 0; p < bindings_.size(); ++p) {
    const Binding &binding = bindings_[p];
    if (const auto *role = std::get_if<RoleBinding>(&binding)) {
      if (const SymmetricBuffer *given = placed(role->role)) {
        SymmetricBuffer buffer = *given;
        buffer.shape = params_[p].shape;
        args.push_back(std::move(buffer));
        continue;
      }
      if (role->staging) {
        args.push_back(*role->staging);
        continue;
      }
      DeviceBuffers buffers;
      for (const TensorRef &t : tensors[role->role])
        buffers.pointers.push_back(t.data);
      buffers.dtype = params_[p].dtype;
      buffers.shape = params_[p].shape;
      buffers.bytes = tensorBytes(params_[p]);
      args.push_back(std::move(buffers));
    } else if (const auto *sems = std::get_if<SemaphoreArray>(&binding)) {
      args.push_back(*sems);
    } else if (const auto *buffer = std::get_if<SymmetricBuffer>(&binding)) {
      args.push_back(*buffer);
    } else {
      args.push_back(std::get<DeviceBuffers>(binding));
    }
  }
  // Check and bind everything (arguments, launch limits, tensor maps) once,
  // before the first copy, so that a failing call enqueues nothing.
  WEAVE_ASSIGN_OR_RETURN(BoundArgs bound, kernel_->bind(heap, args));

  // The staging buffer of role r for local member `local`.
  auto staged = [&](size_t p, size_t r, size_t local, uint64_t &at,
                    uint64_t &bytes) {
    const RoleBinding &role = std::get<RoleBinding>(bindings_[p]);
    at = heap.localPointer(*role.staging, local);
    bytes = roleBytes(r);
  };
  for (size_t p = 0; p < bindings_.size(); ++p)
    if (const auto *role = std::get_if<RoleBinding>(&bindings_[p]))
      if (role->staging && !roles_[role->role].written && !placed(role->role))
        for (size_t local = 0; local < locals; ++local) {
          uint64_t at = 0, bytes = 0;
          staged(p, role->role, local, at, bytes);
          WEAVE_TRY(copy(at, tensors[role->role][local].data, bytes, local,
                         streams[local]));
        }
  WEAVE_TRY(kernel_->launch(bound, streams));
  for (size_t p = 0; p < bindings_.size(); ++p)
    if (const auto *role = std::get_if<RoleBinding>(&bindings_[p]))
      if (role->staging && roles_[role->role].written && !placed(role->role))
        for (size_t local = 0; local < locals; ++local) {
          uint64_t at = 0, bytes = 0;
          staged(p, role->role, local, at, bytes);
          WEAVE_TRY(copy(tensors[role->role][local].data, at, bytes, local,
                         streams[local]));
        }
  return ok();
}

Expected<PlacedCollective> placeCollective(Communicator &comm,
                                           const CompanionOp &companion,
                                           size_t role,
                                           const std::string &dtype,
                                           std::vector<int64_t> shape) {
  PlacedCollective placed;
  WEAVE_ASSIGN_OR_RETURN(KernelInstance instance,
                         opInstance(companion.op, comm.team().size(), dtype,
                                    companion.count, companion.algorithm));
  std::vector<RoleSpec> roles = opRoles(companion.op);
  WEAVE_ASSIGN_OR_RETURN(Kernel * kernel, comm.kernel(instance));
  for (const ParamInfo &param : kernel->info().params)
    if (param.name == roles.at(role).param)
      placed.inPlace = param.kind == abi::ParamKind::Symmetric;
  WEAVE_ASSIGN_OR_RETURN(placed.buffer,
                         comm.heap().allocateTensor(dtype, std::move(shape)));
  std::vector<size_t> placedOnly;
  if (placed.inPlace)
    placedOnly.push_back(role);
  Expected<std::unique_ptr<StagedKernel>> staged = StagedKernel::create(
      comm, std::move(instance), std::move(roles), {}, placedOnly);
  if (!staged) {
    (void)comm.heap().free(placed.buffer);
    return staged.error();
  }
  placed.kernel = std::move(*staged);
  return placed;
}

} // namespace weave::ops::detail
