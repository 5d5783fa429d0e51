//===- SymmetricHeap.h - Memory at the same offset on every GPU -*- C++ -*-===//
//
// Each team member owns one physical allocation of the same size
// (cuMemCreate, POSIX-fd exportable). Every local device reserves a range of
// teamSize * size bytes and maps member r's allocation at r * size, so
// peerBases[r] = base + r * size on that device. Across processes the
// allocations travel as POSIX fds over the bootstrap. The first bytes form
// the signal pad (semaphores), zeroed at creation. Never uses multicast.
//
// Buffers and semaphore arrays are given back with free(): a caching
// allocator with size classes over the mapped range (SymmetricAllocator),
// so a long-running program that allocates and frees does not run out.
//
// fromExternal wraps memory another library already mapped on every member
// (PyTorch symmetric memory, an NCCL window, NVSHMEM): no allocation, no
// mapping, no exchange of handles (docs/RUNTIME.md, "External symmetric
// memory").
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_RUNTIME_SYMMETRICHEAP_H
#define WEAVE_RUNTIME_SYMMETRICHEAP_H

#include "weave/runtime/KernelArgs.h"
#include "weave/runtime/Team.h"

#include <cuda.h>
#include <memory>
#include <vector>

namespace weave {

/// Memory another library mapped on every member of a team: one buffer of
/// `bytes` bytes per member, every member's copy mapped into every local
/// member's address space.
struct ExternalSymmetricMemory {
  /// peerBases[local][rank]: where member `rank`'s copy of the buffer is
  /// mapped on local member `local`'s device (local members in the team's
  /// local order; peerBases[local][rankOf(local)] is its own copy). From
  /// PyTorch: the rendezvous handle's buffer_ptrs; NVSHMEM: nvshmem_ptr(buf,
  /// pe); an NCCL window: its LSA base plus peer times its stride.
  std::vector<std::vector<uint64_t>> peerBases;
  /// Bytes of each member's copy (the same on every member).
  uint64_t bytes = 0;
  /// signalPads[local][rank]: the signal pad of member `rank` as mapped on
  /// local member `local`, and its size (PyTorch: signal_pad_ptrs). It must
  /// sit at the same offset from the buffer on every member (kernels reach
  /// a peer's counter through the peer bases). Empty: the first
  /// `signalPadBytes` bytes of the buffer are the pad.
  std::vector<std::vector<uint64_t>> signalPads;
  uint64_t signalPadBytes = 0;
};

class SymmetricHeap {
public:
  /// Every op holds its semaphore arrays here for its life: the direct
  /// all-gather's two of 2 x D x 64 words take 4 KB at D = 4, so 64 KB,
  /// the earlier default, ran out at about 15 all-gather matmul ops of
  /// distinct shapes on one heap (fourteenth session, 4 x H100: 3 op
  /// groups x 6 shapes). 256 KB holds four times that.
  static constexpr size_t kDefaultSignalPadBytes = 256 * 1024;

  /// Allocates `bytesPerDevice` (plus the signal pad, rounded up to the
  /// allocation granularity) on every member and maps all of them into every
  /// local device. Collective over the team's processes.
  static Expected<SymmetricHeap>
  create(Team &team, size_t bytesPerDevice,
         size_t signalPadBytes = kDefaultSignalPadBytes);

  /// A heap over memory another library mapped (no allocation, no mapping,
  /// no collective): buffers are carved from `memory` with the same
  /// allocator, kernels get its peer bases. The signal pad is zeroed here
  /// (synchronously, on every local member's own copy); in a multi-process
  /// team every process must have done so before any kernel signals, which
  /// the team's barrier at the end of this call ensures when the team has
  /// Weave's bootstrap. The memory must outlive the heap; the heap never
  /// frees or unmaps it. InvalidArgument naming what does not fit.
  static Expected<SymmetricHeap>
  fromExternal(Team &team, const ExternalSymmetricMemory &memory);

  SymmetricHeap(SymmetricHeap &&) noexcept;
  SymmetricHeap &operator=(SymmetricHeap &&) noexcept;
  ~SymmetricHeap();

  /// A buffer at the same offset on every member (every process must make
  /// the same allocations and frees in the same order: the allocator is
  /// deterministic). Exhausted (ErrorCode::Exhausted) when no free range
  /// holds it: freeing buffers may make room.
  Expected<SymmetricBuffer> allocate(size_t bytes, size_t alignment = 256);
  /// Gives `buffer` back; a later allocate may hand its bytes out again, so
  /// free only what no launched kernel still reads or writes.
  Status free(const SymmetricBuffer &buffer);
  /// As allocate, typed: byte size from dtype and shape, both recorded.
  Expected<SymmetricBuffer> allocateTensor(const std::string &dtype,
                                           std::vector<int64_t> shape,
                                           size_t alignment = 256);
  /// `count` zeroed u32 counters in the signal pad; Exhausted when the pad
  /// has no room for them.
  Expected<SemaphoreArray> allocateSemaphores(uint32_t count);
  /// Gives `sems` back, zeroed on every local member (then, in a
  /// multi-process team, a barrier): the next allocateSemaphores that reuses
  /// them finds zero counters. Collective; no kernel may still use them.
  Status free(const SemaphoreArray &sems);
  /// Synchronizes every member, zeroes the whole signal pad, synchronizes
  /// again (collective). For tests and for protocols that need a reset.
  Status resetSemaphores();

  uint64_t id() const;
  /// True for a heap made by fromExternal.
  bool isExternal() const;
  /// Bytes of live buffers (rounded to their size class).
  size_t bytesInUse() const;
  /// What an allocate() of `bytes` takes of a heap: its size class (a power
  /// of two from 256 bytes up to 1 MiB), past that the next multiple of 2
  /// MiB. A caller that keeps several buffers alive sizes its heap with
  /// the sum of these, not of the requests.
  static size_t occupiedBytes(size_t bytes);
  /// Bytes of each member's allocation (granularity-rounded, pad included).
  size_t bytesPerDevice() const;
  size_t signalPadBytes() const;
  uint32_t teamSize() const;
  size_t localCount() const;
  const std::shared_ptr<detail::TeamState> &team() const;

  /// Address, on local device `local`, of its own copy of `buffer`.
  CUdeviceptr localPointer(const SymmetricBuffer &buffer, size_t local) const;
  /// Address, on local device `local`, of member `peerRank`'s copy.
  CUdeviceptr peerPointer(const SymmetricBuffer &buffer, size_t local,
                          uint32_t peerRank) const;
  CUdeviceptr localPointer(const SemaphoreArray &sems, size_t local) const;
  CUdeviceptr peerPointer(const SemaphoreArray &sems, size_t local,
                          uint32_t peerRank) const;
  /// Device memory u64[teamSize] on local device `local`: the PeerBases
  /// kernel parameter.
  CUdeviceptr peerBasesTable(size_t local) const;
  /// Host copy of that table.
  const std::vector<uint64_t> &peerBases(size_t local) const;

  struct State;

private:
  explicit SymmetricHeap(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

} // namespace weave

#endif // WEAVE_RUNTIME_SYMMETRICHEAP_H
