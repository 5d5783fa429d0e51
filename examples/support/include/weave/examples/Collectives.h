//===- Collectives.h - Buffers, inputs and checks of collective kernels -*- C++ -*-===//
//
// What a host program needs to run and check any of the collective kernels
// of the op registry (ops/templates/: all_reduce, all_gather, ...) on a
// team: buffers for every parameter the manifest lists, the inputs written
// on the members' streams, the outputs poisoned and checked
// (CollectiveCheck.h has what the kernels compute, without CUDA). Used by
// examples/collectives and bench/collectives; runtime only, no MLIR.
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

#include "weave/examples/CollectiveCheck.h"
#include "weave/examples/HostSetup.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace weave {
namespace examples {

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

  /// Gives the symmetric buffers and semaphores back to the heap (zeroed
  /// semaphores) and frees the local buffers, so that one session serves
  /// many kernels one after the other: call it once no launch still uses
  /// them (after a synchronization).
  Status release();

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
