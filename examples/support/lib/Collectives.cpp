//===- Collectives.cpp - Buffers, inputs and checks of collective kernels -===//

#include "weave/examples/Collectives.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

namespace weave {
namespace examples {

namespace {

/// The NaN each output element is filled with before a launch (its bits
/// also mark all-to-all-v elements no one may write).
constexpr uint32_t kPoisonF32 = 0x7fc00badu;
constexpr uint16_t kPoisonBf16 = 0x7fc1u;

uint16_t toBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if (std::isnan(value))
    return 0x7fc0u;
  bits += 0x7fffu + ((bits >> 16) & 1u); // round to nearest even
  return static_cast<uint16_t>(bits >> 16);
}

float fromBf16(uint16_t half) {
  uint32_t bits = uint32_t(half) << 16;
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

bool isBf16(const std::string &dtype) { return dtype == "bf16"; }

/// `value` rounded to `dtype` (to nearest even), as a float.
float roundTo(const std::string &dtype, float value) {
  return isBf16(dtype) ? fromBf16(toBf16(value)) : value;
}

/// `values` in `dtype`'s bytes.
std::vector<uint8_t> encode(const std::string &dtype,
                            const std::vector<float> &values) {
  std::vector<uint8_t> bytes(values.size() * dtypeBytes(dtype));
  for (size_t i = 0; i < values.size(); ++i) {
    if (isBf16(dtype)) {
      uint16_t h = toBf16(values[i]);
      std::memcpy(&bytes[2 * i], &h, 2);
    } else {
      std::memcpy(&bytes[4 * i], &values[i], 4);
    }
  }
  return bytes;
}

/// Element `i` of `bytes` as a float, and whether its bits are the poison.
std::pair<float, bool> decode(const std::string &dtype,
                              const std::vector<uint8_t> &bytes, size_t i) {
  if (isBf16(dtype)) {
    uint16_t h;
    std::memcpy(&h, &bytes[2 * i], 2);
    return {fromBf16(h), h == kPoisonBf16};
  }
  uint32_t bits;
  float value;
  std::memcpy(&bits, &bytes[4 * i], 4);
  std::memcpy(&value, &bits, 4);
  return {value, bits == kPoisonF32};
}

struct KnownKernel {
  const char *name;
  Collective kind;
  bool rankOrder = true;
};
constexpr KnownKernel kKnownKernels[] = {
    {"one_shot_all_reduce", Collective::AllReduce},
    {"two_shot_all_reduce", Collective::AllReduce},
    {"atomic_all_reduce", Collective::AllReduce, /*rankOrder=*/false},
    {"all_gather", Collective::AllGather},
    {"all_gather_flags", Collective::AllGather},
    {"all_gather_ll", Collective::AllGather},
    {"reduce_scatter", Collective::ReduceScatter},
    {"all_to_all", Collective::AllToAll},
    {"all_to_all_v", Collective::AllToAllV},
};

/// The input elements output element `e` of member `m` is made of, in
/// rank order, as (rank, index) pairs: one for a copy, D for a sum, none
/// for an all-to-all-v element no one writes.
class Sources {
public:
  Sources(const CollectiveKernel &kernel, const CollectiveData &data,
          uint32_t members, uint32_t m)
      : kernel_(kernel), members_(members), m_(m) {
    if (kernel.kind != Collective::AllToAllV)
      return;
    for (uint32_t s = 0; s < members; ++s) {
      int64_t offset = 0;
      for (uint32_t k = 0; k < m; ++k)
        offset += data.counts[s][k];
      for (int32_t t = 0; t < data.counts[s][m]; ++t)
        received_.push_back({s, offset + t});
    }
  }

  template <typename Fn> void forEach(int64_t e, Fn fn) const {
    int64_t n = kernel_.n;
    switch (kernel_.kind) {
    case Collective::AllReduce:
      for (uint32_t r = 0; r < members_; ++r)
        fn(r, e);
      return;
    case Collective::ReduceScatter:
      for (uint32_t r = 0; r < members_; ++r)
        fn(r, m_ * n + e);
      return;
    case Collective::AllGather:
      return fn(static_cast<uint32_t>(e / n), e % n);
    case Collective::AllToAll:
      return fn(static_cast<uint32_t>(e / n), m_ * n + e % n);
    case Collective::AllToAllV:
      if (e < static_cast<int64_t>(received_.size()))
        fn(received_[e].first, received_[e].second);
      return;
    }
  }

private:
  const CollectiveKernel &kernel_;
  uint32_t members_, m_;
  std::vector<std::pair<uint32_t, int64_t>> received_;
};

} // namespace

int64_t CollectiveKernel::inputElements(uint32_t members) const {
  // A part of n elements per member: reduce-scatter and all-to-all inputs.
  bool perMember = kind == Collective::ReduceScatter ||
                   kind == Collective::AllToAll || kind == Collective::AllToAllV;
  return n * (perMember ? members : 1);
}

int64_t CollectiveKernel::outputElements(uint32_t members) const {
  // A part of n elements per member: all-gather and all-to-all outputs.
  bool perMember = kind == Collective::AllGather ||
                   kind == Collective::AllToAll || kind == Collective::AllToAllV;
  return n * (perMember ? members : 1);
}

size_t CollectiveKernel::heapBytes(int slots) const {
  // Every symmetric parameter of the manifest (the output `slots` times),
  // each rounded up to 2 MiB: no size class of the heap's allocator is
  // larger (small buffers take a power of two up to 1 MiB, large ones whole
  // 2 MiB granules), so they fit whatever the order of allocation.
  const size_t granule = size_t(2) << 20;
  size_t bytes = granule;
  for (const ParamInfo &param : info->params)
    if (param.kind == abi::ParamKind::Symmetric)
      bytes += (tensorBytes(param) + granule - 1) / granule * granule *
               (param.name == "output" ? slots : 1);
  return bytes;
}

Expected<CollectiveKernel> findCollective(const Bundle &bundle) {
  for (const KnownKernel &known : kKnownKernels) {
    const KernelInfo *info = findKernel(bundle, known.name);
    if (!info)
      continue;
    CollectiveKernel kernel;
    kernel.info = info;
    kernel.kind = known.kind;
    kernel.rankOrder = known.rankOrder;
    kernel.teamSize = info->teamSize;
    const ParamInfo *input = nullptr;
    for (const ParamInfo &param : info->params)
      if (param.name == "input")
        input = &param;
    if (!input || input->shape.size() != 1 ||
        (input->dtype != "f32" && input->dtype != "bf16"))
      return Error(ErrorCode::InvalidArgument,
                   std::string(known.name) +
                       " has no 1-D f32 or bf16 parameter named 'input'");
    kernel.dtype = input->dtype;
    // Inputs of D x n elements need the team size in the manifest.
    kernel.n = input->shape[0];
    if (kernel.inputElements(2) != kernel.n) {
      if (!info->teamSize || kernel.n % info->teamSize)
        return Error(ErrorCode::InvalidArgument,
                     std::string(known.name) +
                         " must be compiled for one team size, with an "
                         "input of team size x n elements");
      kernel.n /= info->teamSize;
    }
    return kernel;
  }
  return Error(ErrorCode::InvalidArgument,
               "the bundle holds none of the collective kernels of examples/");
}

CollectiveData randomCollectiveData(const CollectiveKernel &kernel,
                                    uint32_t members, std::mt19937 &rng) {
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  CollectiveData data;
  data.inputs.assign(members,
                     std::vector<float>(kernel.inputElements(members)));
  for (auto &member : data.inputs)
    for (float &x : member)
      x = roundTo(kernel.dtype, value(rng));
  if (kernel.kind == Collective::AllToAllV) {
    std::uniform_int_distribution<int32_t> count(0, int32_t(kernel.n));
    std::uniform_int_distribution<int> quarter(0, 3);
    data.counts.assign(members, std::vector<int32_t>(members));
    for (auto &member : data.counts)
      for (int32_t &c : member)
        c = quarter(rng) == 0 ? 0 : count(rng);
  }
  return data;
}

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
    std::vector<uint8_t> bytes = encode(kernel_.dtype, data.inputs[rank]);
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
      if (isBf16(kernel_.dtype))
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
  bool rankOrder = kernel_.rankOrder && !anyOrder;
  uint32_t members = team_->size();
  int64_t elements = kernel_.outputElements(members);
  const std::string &dtype = kernel_.dtype;
  const KernelArg *output = nullptr;
  for (const Param &p : params_)
    if (p.role == Param::Output)
      output = &p.slots[slot];
  size_t wrong = 0;
  for (size_t i = 0; i < team_->localCount(); ++i) {
    uint32_t m = team_->rankOf(i);
    std::vector<uint8_t> got(elements * dtypeBytes(dtype));
    if (!team_->device(i).makeCurrent() ||
        cuMemcpyDtoH(got.data(), pointer(*output, i), got.size()) !=
            CUDA_SUCCESS) {
      std::fprintf(stderr, "%s: %s: cannot read the output of rank %u\n",
                   program, what, m);
      return wrong + 1;
    }
    Sources sources(kernel_, data, members, m);
    for (int64_t e = 0; e < elements; ++e) {
      float sum = 0.0f;
      double exact = 0.0, magnitude = 0.0;
      int terms = 0;
      sources.forEach(e, [&](uint32_t r, int64_t index) {
        float x = data.inputs[r][index];
        sum += x;
        exact += x;
        magnitude += std::fabs(x);
        ++terms;
      });
      auto [value, poisoned] = decode(dtype, got, e);
      bool good;
      float expected = roundTo(dtype, sum);
      if (terms == 0) {
        good = poisoned; // no one may write there
      } else {
        // f32 rank-order sum (terms - 1 roundings of at most 2^-24 of the
        // magnitude), then one rounding to the dtype (2^-8 for bf16). In
        // another order, each partial sum may be rounded to the dtype.
        double f32Error = terms * std::ldexp(magnitude, -24);
        double bound =
            !isBf16(dtype)      ? f32Error
            : rankOrder ? f32Error + std::ldexp(std::fabs(exact) + f32Error, -8)
                        : terms * std::ldexp(magnitude, -8);
        good = (!rankOrder ||
                std::memcmp(&value, &expected, 4) == 0) &&
               std::fabs(double(value) - exact) <= bound;
      }
      if (!good && wrong++ < 5)
        std::fprintf(stderr,
                     "%s: %s: rank %u output[%lld] = %.9g, expected %s "
                     "(float64 %.9g)\n",
                     program, what, m, static_cast<long long>(e), value,
                     terms ? std::to_string(expected).c_str()
                           : "the poison (no one writes there)",
                     exact);
    }
  }
  return wrong;
}

} // namespace examples
} // namespace weave
