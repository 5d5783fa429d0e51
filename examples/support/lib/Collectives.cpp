//===- Collectives.cpp - Buffers, inputs and checks of collective kernels -===//

#include "weave/examples/Collectives.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>
#include <utility>

namespace weave {
namespace examples {

Expected<CollectiveBuffers>
CollectiveBuffers::create(Team &team, SymmetricHeap &heap,
                          const CollectiveKernel &kernel, int slots) {
  CollectiveBuffers buffers;
  buffers.team_ = &team;
  buffers.heap_ = &heap;
  buffers.kernel_ = kernel;
  // Local buffers are owned by `local_`; a param refers to its args, which
  // stay valid when the vector reallocates (they are copied).
  auto local = [&](const ParamInfo &param) -> Expected<KernelArg> {
    Expected<LocalBuffers> made =
        LocalBuffers::create(team, param.dtype, param.shape);
    if (!made)
      return made.error();
    KernelArg arg = made->args();
    buffers.local_.push_back(std::move(*made));
    return arg;
  };
  auto symmetric = [&](const ParamInfo &param) -> Expected<KernelArg> {
    Expected<SymmetricBuffer> made =
        heap.allocateTensor(param.dtype, param.shape);
    if (!made)
      return made.error();
    return KernelArg(*made);
  };
  for (const ParamInfo &param : kernel.info->params) {
    using abi::ParamKind;
    if (param.kind != ParamKind::Buffer && param.kind != ParamKind::Symmetric &&
        param.kind != ParamKind::Semaphore && param.kind != ParamKind::Scalar)
      continue; // the runtime passes rank, team size and peer bases
    if (param.kind == ParamKind::Scalar)
      return Error(ErrorCode::InvalidArgument,
                   "scalar parameter '" + param.name +
                       "': the collective kernels take none");
    Param p;
    if (param.kind == ParamKind::Semaphore) {
      Expected<SemaphoreArray> sems =
          heap.allocateSemaphores(param.semaphoreCount);
      if (!sems)
        return sems.error();
      p.role = Param::Semaphores;
      p.arg = *sems;
      buffers.params_.push_back(std::move(p));
      continue;
    }
    bool isSymmetric = param.kind == ParamKind::Symmetric;
    auto make = [&]() { return isSymmetric ? symmetric(param) : local(param); };
    p.role = param.name == "input"    ? Param::Input
             : param.name == "output" ? Param::Output
             : param.name == "counts" ? Param::Counts
                                      : Param::State;
    for (int s = 0; s < (p.role == Param::Output ? slots : 1); ++s) {
      Expected<KernelArg> arg = make();
      if (!arg)
        return arg.error();
      (p.role == Param::Output ? p.slots.emplace_back(*arg) : p.arg) = *arg;
    }
    if (p.role == Param::State) // zeroed once, then the kernel's
      for (size_t i = 0; i < team.localCount(); ++i) {
        WEAVE_TRY(team.device(i).makeCurrent());
        WEAVE_CU_TRY(cuMemsetD8(buffers.pointer(p.arg, i), 0,
                                tensorBytes(param)),
                     "zeroing parameter '" + param.name + "'");
      }
    buffers.params_.push_back(std::move(p));
  }
  return buffers;
}

CUdeviceptr CollectiveBuffers::pointer(const KernelArg &arg,
                                       size_t local) const {
  if (const auto *sym = std::get_if<SymmetricBuffer>(&arg))
    return heap_->localPointer(*sym, local);
  return std::get<DeviceBuffers>(arg).pointers[local];
}

std::vector<KernelArg> CollectiveBuffers::args(int slot) const {
  std::vector<KernelArg> args;
  for (const Param &p : params_)
    args.push_back(p.role == Param::Output ? p.slots[slot] : p.arg);
  return args;
}

void CollectiveBuffers::PinnedFree::operator()(void *p) const {
  if (p && cuMemFreeHost(p) != CUDA_SUCCESS)
    std::fprintf(stderr, "weave: cannot free pinned staging memory\n");
}

Status CollectiveBuffers::write(int slot, const CollectiveData &data,
                                const LocalStreams &streams) {
  size_t members = team_->localCount();
  size_t inputBytes =
      kernel_.inputElements(team_->size()) * dtypeBytes(kernel_.dtype);
  size_t countBytes = team_->size() * sizeof(int32_t);
  size_t perMember = inputBytes + countBytes;
  if (staging_.size() <= static_cast<size_t>(slot))
    staging_.resize(slot + 1);
  if (!staging_[slot]) {
    WEAVE_TRY(team_->device(0).makeCurrent());
    void *host = nullptr;
    WEAVE_CU_TRY(cuMemHostAlloc(&host, perMember * members,
                                CU_MEMHOSTALLOC_PORTABLE),
                 "allocating pinned staging memory");
    staging_[slot].reset(static_cast<uint8_t *>(host));
  }
  for (size_t i = 0; i < members; ++i) {
    WEAVE_TRY(team_->device(i).makeCurrent());
    uint32_t rank = team_->rankOf(i);
    uint8_t *input = staging_[slot].get() + i * perMember;
    uint8_t *counts = input + inputBytes;
    std::vector<uint8_t> bytes = encodeValues(kernel_.dtype, data.inputs[rank]);
    std::memcpy(input, bytes.data(), inputBytes);
    if (!data.counts.empty())
      std::memcpy(counts, data.counts[rank].data(), countBytes);
    for (const Param &p : params_) {
      if (p.role != Param::Input && p.role != Param::Counts)
        continue;
      bool isInput = p.role == Param::Input;
      WEAVE_CU_TRY(cuMemcpyHtoDAsync(pointer(p.arg, i), isInput ? input : counts,
                                     isInput ? inputBytes : countBytes,
                                     streams[i]),
                   "writing the inputs of member " + std::to_string(i));
    }
  }
  return ok();
}

Status CollectiveBuffers::poison(int slot) const {
  int64_t elements = kernel_.outputElements(team_->size());
  for (size_t i = 0; i < team_->localCount(); ++i) {
    WEAVE_TRY(team_->device(i).makeCurrent());
    for (const Param &p : params_) {
      if (p.role != Param::Output)
        continue;
      CUdeviceptr out = pointer(p.slots[slot], i);
      if (kernel_.dtype == "bf16")
        WEAVE_CU_TRY(cuMemsetD16(out, kPoisonBf16, elements),
                     "poisoning an output");
      else
        WEAVE_CU_TRY(cuMemsetD32(out, kPoisonF32, elements),
                     "poisoning an output");
    }
  }
  return team_->synchronize();
}

CUdeviceptr CollectiveBuffers::inputPointer(size_t local) const {
  for (const Param &p : params_)
    if (p.role == Param::Input)
      return pointer(p.arg, local);
  return 0;
}

CUdeviceptr CollectiveBuffers::outputPointer(int slot, size_t local) const {
  for (const Param &p : params_)
    if (p.role == Param::Output)
      return pointer(p.slots[slot], local);
  return 0;
}

size_t CollectiveBuffers::check(int slot, const CollectiveData &data,
                                const char *program, const char *what,
                                bool anyOrder) const {
  uint32_t members = team_->size();
  size_t bytes = kernel_.outputElements(members) * dtypeBytes(kernel_.dtype);
  const KernelArg *output = nullptr;
  for (const Param &p : params_)
    if (p.role == Param::Output)
      output = &p.slots[slot];
  // One thread per local member (a 256 MB output is seconds on one core).
  std::vector<size_t> wrong(team_->localCount(), 0);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < team_->localCount(); ++i)
    threads.emplace_back([&, i] {
      uint32_t rank = team_->rankOf(i);
      std::vector<uint8_t> got(bytes);
      if (!team_->device(i).makeCurrent() ||
          cuMemcpyDtoH(got.data(), pointer(*output, i), got.size()) !=
              CUDA_SUCCESS) {
        std::fprintf(stderr, "%s: %s: cannot read the output of rank %u\n",
                     program, what, rank);
        wrong[i] = 1;
        return;
      }
      wrong[i] = checkCollectiveOutput(kernel_, data, members, rank, got,
                                       kernel_.rankOrder && !anyOrder,
                                       program, what);
    });
  for (std::thread &t : threads)
    t.join();
  size_t total = 0;
  for (size_t w : wrong)
    total += w;
  return total;
}

Status CollectiveBuffers::release() {
  for (Param &p : params_) {
    // An output's buffers are its slots; `arg` is unused (default).
    std::vector<KernelArg *> args;
    if (p.role == Param::Output)
      for (KernelArg &slot : p.slots)
        args.push_back(&slot);
    else
      args.push_back(&p.arg);
    for (KernelArg *arg : args) {
      if (const auto *sym = std::get_if<SymmetricBuffer>(arg))
        WEAVE_TRY(heap_->free(*sym));
      else if (const auto *sems = std::get_if<SemaphoreArray>(arg))
        WEAVE_TRY(heap_->free(*sems));
    }
  }
  params_.clear();
  local_.clear();
  return ok();
}

} // namespace examples
} // namespace weave
