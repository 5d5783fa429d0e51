//===- Collectives.h - Buffers, inputs and checks of collective kernels -*- C++ -*-===//
//
// What a host program needs to run and check any of the collective kernels
// of examples/ (all_reduce, all_gather, reduce_scatter, all_to_all): which
// collective a bundle holds (from its kernel name and manifest), buffers
// for every parameter its manifest lists, fresh random inputs (and
// all-to-all-v counts), and the check of every member's output against a
// float64 reference. Used by examples/collectives and bench/collectives;
// runtime only, no MLIR.
//
// The kernels' parameters are found by name: `input`, `output` (one copy
// per output slot, so that back-to-back launches can be checked apart),
// `counts` (i32, all-to-all-v); any other buffer (symmetric or not) is
// state the kernel keeps across launches, and is zeroed once, as the
// semaphores are.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_EXAMPLES_COLLECTIVES_H
#define WEAVE_EXAMPLES_COLLECTIVES_H

#include "weave/examples/HostSetup.h"
#include "weave/runtime/Bundle.h"

#include <cstdint>
#include <memory>
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

/// A collective kernel of a bundle.
struct CollectiveKernel {
  const KernelInfo *info = nullptr;
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

/// The first kernel of `bundle` whose name is a collective of examples/
/// (one_shot_all_reduce, two_shot_all_reduce, atomic_all_reduce,
/// all_gather, all_gather_flags, all_gather_ll, reduce_scatter, all_to_all,
/// all_to_all_v)
/// with a 1-D `input` of f32 or bf16.
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

/// Every parameter of a collective kernel on a team, and its arguments.
class CollectiveBuffers {
public:
  /// Allocates what the manifest lists, `slots` copies of the output.
  static Expected<CollectiveBuffers> create(Team &team,
                                            SymmetricHeap &heap,
                                            const CollectiveKernel &kernel,
                                            int slots);

  /// The kernel arguments that write output slot `slot`.
  std::vector<KernelArg> args(int slot) const;
  /// Writes `data`'s inputs (and counts) of each local member on its
  /// stream, through pinned staging memory of slot `slot`, so that the host
  /// does not wait for the stream: the staging of a slot may be written
  /// again only once the streams have passed its last copy.
  Status write(int slot, const CollectiveData &data,
               const LocalStreams &streams);
  /// Fills output slot `slot` of every local member with NaNs and waits.
  Status poison(int slot) const;
  /// Checks output slot `slot` of every local member against `data`:
  /// copies bit for bit; sums bit for bit against the f32 rank-order sum
  /// rounded to the dtype (unless !rankOrder) and within the rounding
  /// bound of the float64 sum;
  /// all-to-all-v's unwritten tail still the poison. Prints the first
  /// mismatches as "<program>: <what>: ..." and returns their count.
  /// With `anyOrder`, sums are checked as if !kernel.rankOrder (for a
  /// library that writes the same slot, e.g. NCCL).
  size_t check(int slot, const CollectiveData &data, const char *program,
               const char *what, bool anyOrder = false) const;

  /// Local member `local`'s input, and its output of slot `slot`: for a
  /// library collective to read and write the same memory.
  CUdeviceptr inputPointer(size_t local) const;
  CUdeviceptr outputPointer(int slot, size_t local) const;

private:
  struct Param {
    enum Role { Input, Output, Counts, State, Semaphores } role;
    KernelArg arg;                 // all but Output
    std::vector<KernelArg> slots;  // Output
  };
  struct PinnedFree {
    void operator()(void *p) const;
  };
  using Pinned = std::unique_ptr<uint8_t, PinnedFree>;
  CollectiveBuffers() = default;
  CUdeviceptr pointer(const KernelArg &arg, size_t local) const;
  Team *team_ = nullptr;
  SymmetricHeap *heap_ = nullptr;
  CollectiveKernel kernel_;
  std::vector<Param> params_;
  std::vector<LocalBuffers> local_; // owns the non-symmetric buffers
  std::vector<Pinned> staging_;       // [slot]: every member's inputs, counts
};

} // namespace examples
} // namespace weave

#endif // WEAVE_EXAMPLES_COLLECTIVES_H
