//===- SymmetricHeap.h - Memory at the same offset on every GPU -*- C++ -*-===//
//
// Each team member owns one physical allocation of the same size
// (cuMemCreate, POSIX-fd exportable). Every local device reserves a range of
// teamSize * size bytes and maps member r's allocation at r * size, so
// peerBases[r] = base + r * size on that device. Across processes the
// allocations travel as POSIX fds over the bootstrap. The first bytes form
// the signal pad (semaphores), zeroed at creation. Never uses multicast.
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

class SymmetricHeap {
public:
  static constexpr size_t kDefaultSignalPadBytes = 64 * 1024;

  /// Allocates `bytesPerDevice` (plus the signal pad, rounded up to the
  /// allocation granularity) on every member and maps all of them into every
  /// local device. Collective over the team's processes.
  static Expected<SymmetricHeap>
  create(Team &team, size_t bytesPerDevice,
         size_t signalPadBytes = kDefaultSignalPadBytes);

  SymmetricHeap(SymmetricHeap &&) noexcept;
  SymmetricHeap &operator=(SymmetricHeap &&) noexcept;
  ~SymmetricHeap();

  /// A buffer at the same offset on every member (bump allocation; every
  /// process must make the same allocations in the same order).
  Expected<SymmetricBuffer> allocate(size_t bytes, size_t alignment = 256);
  /// As allocate, typed: byte size from dtype and shape, both recorded.
  Expected<SymmetricBuffer> allocateTensor(const std::string &dtype,
                                           std::vector<int64_t> shape,
                                           size_t alignment = 256);
  /// `count` zeroed u32 counters in the signal pad.
  Expected<SemaphoreArray> allocateSemaphores(uint32_t count);
  /// Synchronizes every member, zeroes the whole signal pad, synchronizes
  /// again (collective). For tests and for protocols that need a reset.
  Status resetSemaphores();

  uint64_t id() const;
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
