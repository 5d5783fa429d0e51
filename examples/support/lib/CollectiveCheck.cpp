//===- CollectiveCheck.cpp - What the collective kernels compute ----------===//

#include "weave/examples/CollectiveCheck.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <utility>

namespace weave {
namespace examples {

namespace {

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

} // namespace

std::vector<uint8_t> encodeValues(const std::string &dtype,
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

namespace {

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

Expected<Collective> collectiveOf(const std::string &op) {
  static const std::pair<const char *, Collective> kOps[] = {
      {"all_reduce", Collective::AllReduce},
      {"all_gather", Collective::AllGather},
      {"reduce_scatter", Collective::ReduceScatter},
      {"all_to_all", Collective::AllToAll},
      {"all_to_all_v", Collective::AllToAllV}};
  for (const auto &[name, kind] : kOps)
    if (op == name)
      return kind;
  return Error(ErrorCode::InvalidArgument,
               "the collectives' check has no case for op '" + op +
                   "' (examples/support/lib/CollectiveCheck.cpp)");
}

namespace {

/// Elements of the op's role `param` for n per member: its registry
/// extent (n, or a block of n per member). Without an op (a kernel
/// described by hand), the registry's op of `kind`.
int64_t roleElements(const ops::OpSpec *op, Collective kind,
                     const char *param, int64_t n, uint32_t members) {
  for (const ops::OpSpec &spec : ops::opRegistry()) {
    if (op)
      break;
    if (spec.family != ops::OpFamily::Collective)
      continue;
    Expected<Collective> of = collectiveOf(spec.name);
    if (of && *of == kind)
      op = &spec;
  }
  if (op)
    for (const ops::RoleSpec &role : op->roles)
      if (role.param == param)
        return role.extent == ops::RoleExtent::TeamTimesCount ? n * members
                                                              : n;
  return n;
}

} // namespace

int64_t CollectiveKernel::inputElements(uint32_t members) const {
  return roleElements(op, kind, "input", n, members);
}

int64_t CollectiveKernel::outputElements(uint32_t members) const {
  return roleElements(op, kind, "output", n, members);
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
  for (const ops::RegisteredKernel &known : ops::registeredKernels()) {
    if (known.op->family != ops::OpFamily::Collective)
      continue;
    const std::string &name = known.algorithm->kernel;
    const KernelInfo *info = findKernel(bundle, name);
    if (!info)
      continue;
    CollectiveKernel kernel;
    WEAVE_ASSIGN_OR_RETURN(kernel.kind, collectiveOf(known.op->name));
    kernel.info = info;
    kernel.op = known.op;
    kernel.algorithm = known.algorithm;
    kernel.rankOrder = known.algorithm->rankOrder;
    kernel.teamSize = info->teamSize;
    const ParamInfo *input = nullptr;
    for (const ParamInfo &param : info->params)
      if (param.name == "input")
        input = &param;
    if (!input || input->shape.size() != 1 ||
        (input->dtype != "f32" && input->dtype != "bf16"))
      return Error(ErrorCode::InvalidArgument,
                   name + " has no 1-D f32 or bf16 parameter named 'input'");
    kernel.dtype = input->dtype;
    // Inputs of D x n elements need the team size in the manifest.
    kernel.n = input->shape[0];
    if (kernel.inputElements(2) != kernel.n) {
      if (!info->teamSize || kernel.n % info->teamSize)
        return Error(ErrorCode::InvalidArgument,
                     name + " must be compiled for one team size, with an "
                            "input of team size x n elements");
      kernel.n /= info->teamSize;
    }
    return kernel;
  }
  return Error(ErrorCode::InvalidArgument,
               "the bundle holds none of the collective kernels of the op "
               "registry (weave-ops kernels lists them)");
}

CollectiveData randomCollectiveData(const CollectiveKernel &kernel,
                                    uint32_t members, std::mt19937 &rng) {
  CollectiveData data;
  data.inputs.assign(members,
                     std::vector<float>(kernel.inputElements(members)));
  // One generator per member, seeded from `rng`, each on its own thread:
  // a 256 MB message is 128 M elements per member (seconds on one core).
  std::vector<uint32_t> seeds(members);
  for (uint32_t &seed : seeds)
    seed = rng();
  std::vector<std::thread> threads;
  for (uint32_t m = 0; m < members; ++m)
    threads.emplace_back([&, m] {
      std::mt19937 own(seeds[m]);
      std::uniform_real_distribution<float> value(-1.0f, 1.0f);
      for (float &x : data.inputs[m])
        x = roundTo(kernel.dtype, value(own));
    });
  for (std::thread &t : threads)
    t.join();
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

size_t checkCollectiveOutput(const CollectiveKernel &kernel,
                             const CollectiveData &data, uint32_t members,
                             uint32_t rank, const std::vector<uint8_t> &output,
                             bool rankOrder, const char *program,
                             const char *what) {
  const std::string &dtype = kernel.dtype;
  int64_t elements = kernel.outputElements(members);
  if (output.size() != size_t(elements) * dtypeBytes(dtype)) {
    std::fprintf(stderr, "%s: %s: rank %u output has %zu bytes, expected %lld\n",
                 program, what, rank, output.size(),
                 static_cast<long long>(elements * dtypeBytes(dtype)));
    return 1;
  }
  Sources sources(kernel, data, members, rank);
  // Elements [begin, end): the wrong ones counted, the first 5 described.
  auto checkRange = [&](int64_t begin, int64_t end,
                        std::vector<std::string> &messages) {
    size_t wrong = 0;
    for (int64_t e = begin; e < end; ++e) {
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
      auto [value, poisoned] = decode(dtype, output, e);
      bool good;
      // A copy is the element itself (-0.0 included); a sum starts from
      // +0.0, as the kernels' accumulators do.
      float expected = roundTo(dtype, sum);
      if (!kernel.sums() && terms == 1)
        sources.forEach(e, [&](uint32_t r, int64_t index) {
          expected = data.inputs[r][index];
        });
      if (terms == 0) {
        good = poisoned; // no one may write there
      } else {
        // f32 rank-order sum (terms - 1 roundings of at most 2^-24 of the
        // magnitude), then one rounding to the dtype (2^-8 for bf16). In
        // another order, each partial sum may be rounded to the dtype.
        double f32Error = terms * std::ldexp(magnitude, -24);
        double bound =
            !isBf16(dtype) ? f32Error
            : rankOrder    ? f32Error + std::ldexp(std::fabs(exact) + f32Error, -8)
                           : terms * std::ldexp(magnitude, -8);
        good = (!rankOrder || std::memcmp(&value, &expected, 4) == 0) &&
               std::fabs(double(value) - exact) <= bound;
      }
      if (!good && wrong++ < 5) {
        char line[256];
        std::snprintf(line, sizeof line,
                      "%s: %s: rank %u output[%lld] = %.9g, expected %s "
                      "(float64 %.9g)\n",
                      program, what, rank, static_cast<long long>(e), value,
                      terms ? std::to_string(expected).c_str()
                            : "the poison (no one writes there)",
                      exact);
        messages.push_back(line);
      }
    }
    return wrong;
  };
  // Large outputs in chunks on several threads (a 256 MB message is
  // seconds per member on one core; the callers already run one thread per
  // member, so each takes its share of the cores). The first 5 wrong
  // elements are reported in element order.
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  int64_t share = std::max<int64_t>(2, cores / std::max(1u, members));
  int64_t chunks =
      std::clamp<int64_t>(std::min<int64_t>(share, elements >> 20), 1, 16);
  std::vector<size_t> wrongs(chunks, 0);
  std::vector<std::vector<std::string>> messages(chunks);
  std::vector<std::thread> threads;
  for (int64_t c = 0; c < chunks; ++c) {
    int64_t begin = elements * c / chunks, end = elements * (c + 1) / chunks;
    if (chunks == 1)
      wrongs[c] = checkRange(begin, end, messages[c]);
    else
      threads.emplace_back([&, c, begin, end] {
        wrongs[c] = checkRange(begin, end, messages[c]);
      });
  }
  for (std::thread &t : threads)
    t.join();
  size_t wrong = 0, printed = 0;
  for (int64_t c = 0; c < chunks; ++c) {
    wrong += wrongs[c];
    for (const std::string &line : messages[c])
      if (printed++ < 5)
        std::fputs(line.c_str(), stderr);
  }
  return wrong;
}

} // namespace examples
} // namespace weave
