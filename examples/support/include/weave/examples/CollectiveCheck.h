//===- CollectiveCheck.h - What the collective kernels compute --*- C++ -*-===//
//
// The host side of the collective kernels (ops/templates/), without CUDA
// (unit tested on the CPU in test/unit/examples): which collective a bundle
// holds (a kernel of weave::ops' registry, weave/ops/Registry.h), fresh random inputs (and all-to-all-v counts), their bytes in the
// kernel's dtype, and the check of a member's output against float64.
// examples/support Collectives.h adds the buffers on a team.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_EXAMPLES_COLLECTIVECHECK_H
#define WEAVE_EXAMPLES_COLLECTIVECHECK_H

#include "weave/ops/Registry.h"
#include "weave/runtime/Bundle.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace weave {
namespace examples {

/// What a collective kernel computes; member m of a team of D, n elements
/// (CollectiveKernel::n):
/// - AllReduce: out[e] = sum_r in_r[e], e < n;
/// - AllGather: out[r * n + e] = in_r[e];
/// - ReduceScatter: out[e] = sum_r in_r[m * n + e];
/// - AllToAll: out[r * n + e] = in_r[m * n + e];
/// - AllToAllV: member r sends counts_r[j] <= n elements to member j, packed
///   in destination order; member m receives them packed in source order,
///   and the rest of its output keeps its old contents.
/// Sums are taken in f32 in rank order and rounded once to the dtype.
enum class Collective { AllReduce, AllGather, ReduceScatter, AllToAll, AllToAllV };

/// What the registered collective op `op` computes (its OpSpec name), or
/// InvalidArgument: the checker's one case per op, which
/// test/unit/ops checks covers every collective of the registry.
Expected<Collective> collectiveOf(const std::string &op);

/// A collective kernel of a bundle.
struct CollectiveKernel {
  const KernelInfo *info = nullptr;
  /// The op and algorithm of the registry the kernel is.
  const ops::OpSpec *op = nullptr;
  const ops::AlgorithmSpec *algorithm = nullptr;
  Collective kind = Collective::AllReduce;
  /// "f32" or "bf16".
  std::string dtype;
  /// Elements per member (see Collective).
  int64_t n = 0;
  /// Team size the kernel was compiled for, 0 = any.
  uint32_t teamSize = 0;
  /// Sums are taken in rank order (bit for bit reproducible); false for
  /// sums by atomics, whose order depends on timing.
  bool rankOrder = true;

  bool sums() const {
    return kind == Collective::AllReduce || kind == Collective::ReduceScatter;
  }
  /// Elements of each member's input and output on a team of `members`.
  int64_t inputElements(uint32_t members) const;
  int64_t outputElements(uint32_t members) const;
  /// Symmetric heap bytes its buffers take with `slots` output copies: the
  /// symmetric parameters of its manifest (packet buffers and other state
  /// included).
  size_t heapBytes(int slots) const;
};

/// The first kernel of `bundle` that is a kernel of a collective op of the
/// registry (ops::registeredKernels(): every algorithm, the examples' own
/// variants included: one_shot_all_reduce, push_all_gather, all_gather_ll,
/// ...), with a 1-D `input` of f32 or bf16.
Expected<CollectiveKernel> findCollective(const Bundle &bundle);

/// The host side of one launch: every member's input (values of the dtype,
/// held exactly as floats) and, for all-to-all-v, every member's counts.
struct CollectiveData {
  std::vector<std::vector<float>> inputs;   ///< [rank][element]
  std::vector<std::vector<int32_t>> counts; ///< [rank][destination]
};

/// Fresh random inputs in [-1, 1); all-to-all-v counts in [0, n], about a
/// quarter of them 0.
CollectiveData randomCollectiveData(const CollectiveKernel &kernel,
                                    uint32_t members, std::mt19937 &rng);

/// The NaN every output element holds before a launch (f32, bf16); its
/// bits also mark the all-to-all-v elements no one may write.
inline constexpr uint32_t kPoisonF32 = 0x7fc00badu;
inline constexpr uint16_t kPoisonBf16 = 0x7fc1u;

/// `values` (each exactly a value of `dtype`, f32 or bf16) in the dtype's
/// bytes.
std::vector<uint8_t> encodeValues(const std::string &dtype,
                                  const std::vector<float> &values);

/// Checks member `rank`'s output (its bytes, in the kernel's dtype) on a
/// team of `members` against `data`: copies bit for bit; sums bit for bit
/// against the f32 rank-order sum rounded to the dtype (when `rankOrder`)
/// and within the rounding bound of the float64 sum (D roundings of the
/// dtype in any order otherwise); all-to-all-v's unwritten tail still the
/// poison. Prints the first five mismatches as "<program>: <what>: ..." and
/// returns their count.
size_t checkCollectiveOutput(const CollectiveKernel &kernel,
                             const CollectiveData &data, uint32_t members,
                             uint32_t rank, const std::vector<uint8_t> &output,
                             bool rankOrder, const char *program,
                             const char *what);

} // namespace examples
} // namespace weave

#endif // WEAVE_EXAMPLES_COLLECTIVECHECK_H
