//===- StagedKernel.cpp - One op's kernel and its symmetric staging -------===//

#include "StagedKernel.h"

#include <algorithm>
#include <cstdio>

namespace weave::ops::detail {

namespace {

int64_t elementCount(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text;
  for (int64_t d : shape)
    text += (text.empty() ? "" : "x") + std::to_string(d);
  return text.empty() ? "scalar" : text;
}

} // namespace

Expected<std::unique_ptr<StagedKernel>>
StagedKernel::create(Communicator &comm, KernelInstance instance,
                     std::vector<RoleSpec> roles) {
  auto staged = std::unique_ptr<StagedKernel>(new StagedKernel());
  staged->comm_ = &comm;
  WEAVE_ASSIGN_OR_RETURN(staged->kernel_, comm.kernel(instance));
  staged->instance_ = std::move(instance);
  staged->roles_ = std::move(roles);
  const KernelInfo &info = staged->kernel_->info();
  size_t users = userParamCount(info);
  staged->roleParam_.assign(staged->roles_.size(), SIZE_MAX);
  SymmetricHeap &heap = comm.heap();
  for (size_t p = 0; p < users; ++p) {
    const ParamInfo &param = info.params[p];
    auto role = std::find_if(
        staged->roles_.begin(), staged->roles_.end(),
        [&](const RoleSpec &r) { return r.param == param.name; });
    if (role != staged->roles_.end()) {
      size_t r = role - staged->roles_.begin();
      staged->roleParam_[r] = p;
      RoleBinding binding{r, std::nullopt};
      if (param.kind == abi::ParamKind::Symmetric) {
        WEAVE_ASSIGN_OR_RETURN(binding.staging,
                               heap.allocateTensor(param.dtype, param.shape));
      }
      staged->bindings_.push_back(binding);
    } else if (param.kind == abi::ParamKind::Semaphore) {
      WEAVE_ASSIGN_OR_RETURN(SemaphoreArray sems,
                             heap.allocateSemaphores(param.semaphoreCount));
      staged->bindings_.push_back(sems);
    } else if (param.kind == abi::ParamKind::Symmetric) {
      // Workspace the kernel keeps to itself (e.g. all-to-all-v's table of
      // counts). The heap hands out zeroed memory only for semaphores, and
      // the kernels write workspace before reading it.
      WEAVE_ASSIGN_OR_RETURN(SymmetricBuffer workspace,
                             heap.allocateTensor(param.dtype, param.shape));
      staged->bindings_.push_back(workspace);
    } else {
      return Error(ErrorCode::InvalidArgument,
                   "kernel '" + info.name + "' of template '" +
                       staged->instance_.templateName + "': parameter '" +
                       param.name + "' is bound by no role of the op");
    }
  }
  for (size_t r = 0; r < staged->roles_.size(); ++r)
    if (staged->roleParam_[r] == SIZE_MAX)
      return Error(ErrorCode::InvalidArgument,
                   "kernel '" + info.name + "' has no parameter '" +
                       staged->roles_[r].param + "'");
  return staged;
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
    } else {
      report(heap.free(std::get<SymmetricBuffer>(binding)));
    }
  }
}

Status StagedKernel::checkTensors(
    const std::vector<std::vector<TensorRef>> &tensors,
    const std::vector<CUstream> &streams) const {
  const KernelInfo &info = kernel_->info();
  size_t locals = comm_->team().localCount();
  auto fail = [&](const std::string &what) {
    return Error(ErrorCode::InvalidArgument, "op '" + info.name + "': " + what);
  };
  if (streams.size() != locals)
    return fail("expected one stream per local member (" +
                std::to_string(locals) + "), got " +
                std::to_string(streams.size()));
  if (tensors.size() != roles_.size())
    return fail("expected " + std::to_string(roles_.size()) +
                " tensor arguments, got " + std::to_string(tensors.size()));
  for (size_t r = 0; r < roles_.size(); ++r) {
    const ParamInfo &param = info.params[roleParam_[r]];
    const std::string &name = roles_[r].param;
    if (tensors[r].size() != locals)
      return fail("'" + name + "': expected one tensor per local member (" +
                  std::to_string(locals) + "), got " +
                  std::to_string(tensors[r].size()));
    for (size_t local = 0; local < locals; ++local) {
      const TensorRef &t = tensors[r][local];
      std::string where = "'" + name + "' of local member " +
                          std::to_string(local) + ": ";
      if (t.data == 0)
        return fail(where + "null pointer");
      if (t.dtype != param.dtype)
        return fail(where + "expected dtype " + param.dtype + ", got '" +
                    t.dtype + "'");
      if (elementCount(t.shape) != elementCount(param.shape))
        return fail(where + "expected " +
                    std::to_string(elementCount(param.shape)) +
                    " elements (the op was created for " +
                    shapeText(param.shape) + "), got " + shapeText(t.shape));
    }
  }
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

Status StagedKernel::run(const std::vector<std::vector<TensorRef>> &tensors,
                         const std::vector<CUstream> &streams) {
  WEAVE_TRY(checkTensors(tensors, streams));
  const KernelInfo &info = kernel_->info();
  SymmetricHeap &heap = comm_->heap();
  size_t locals = comm_->team().localCount();
  auto bytesOf = [&](size_t param) {
    return tensorBytes(info.params[param]);
  };

  std::vector<KernelArg> args;
  for (size_t p = 0; p < bindings_.size(); ++p) {
    const Binding &binding = bindings_[p];
    if (const auto *role = std::get_if<RoleBinding>(&binding)) {
      if (role->staging) {
        args.push_back(*role->staging);
        continue;
      }
      DeviceBuffers buffers;
      for (const TensorRef &t : tensors[role->role])
        buffers.pointers.push_back(t.data);
      buffers.dtype = info.params[p].dtype;
      buffers.shape = info.params[p].shape;
      buffers.bytes = bytesOf(p);
      args.push_back(std::move(buffers));
    } else if (const auto *sems = std::get_if<SemaphoreArray>(&binding)) {
      args.push_back(*sems);
    } else {
      args.push_back(std::get<SymmetricBuffer>(binding));
    }
  }
  // Check everything (arguments, launch limits) before the first copy, so
  // that a failing call changes nothing.
  WEAVE_TRY(kernel_->prepare(heap, args));

  for (size_t p = 0; p < bindings_.size(); ++p)
    if (const auto *role = std::get_if<RoleBinding>(&bindings_[p]))
      if (role->staging && !roles_[role->role].written)
        for (size_t local = 0; local < locals; ++local)
          WEAVE_TRY(copy(heap.localPointer(*role->staging, local),
                         tensors[role->role][local].data, bytesOf(p), local,
                         streams[local]));
  WEAVE_TRY(kernel_->launch(heap, args, streams));
  for (size_t p = 0; p < bindings_.size(); ++p)
    if (const auto *role = std::get_if<RoleBinding>(&bindings_[p]))
      if (role->staging && roles_[role->role].written)
        for (size_t local = 0; local < locals; ++local)
          WEAVE_TRY(copy(tensors[role->role][local].data,
                         heap.localPointer(*role->staging, local), bytesOf(p),
                         local, streams[local]));
  return ok();
}

} // namespace weave::ops::detail
