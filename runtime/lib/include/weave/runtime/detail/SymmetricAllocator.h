//===- SymmetricAllocator.h - Offsets in a symmetric range ------*- C++ -*-===//
//
// The allocator behind SymmetricHeap::allocate/free, apart from any CUDA
// mapping so that its logic is unit-tested on the CPU. It hands out offsets
// in [begin, end) and is deterministic: the same calls in the same order
// give the same offsets, which is what makes an offset symmetric (every
// process of a team makes the same calls).
//
// A caching allocator with size classes. Requests up to kLargeThreshold are
// rounded up to a size class (powers of two from kMinBlock); a freed block
// stays cached in its class and the next request of that class (and
// alignment) takes it back, so a long-running program that allocates and
// frees the same shapes neither fragments the range nor runs out. Larger
// requests are rounded to kLargeGranule and placed first-fit in the free
// ranges; freeing one returns it to the ranges, merged with its neighbours.
// When a request finds no room, the cached blocks go back to the ranges
// (merged) and the request is tried once more, so caching never makes an
// allocation fail that would fit.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_RUNTIME_DETAIL_SYMMETRICALLOCATOR_H
#define WEAVE_RUNTIME_DETAIL_SYMMETRICALLOCATOR_H

#include "weave/runtime/Error.h"

#include <cstdint>
#include <map>
#include <vector>

namespace weave {

class SymmetricAllocator {
public:
  /// The smallest block (and the default alignment).
  static constexpr uint64_t kMinBlock = 256;
  /// Requests above this are "large": rounded to kLargeGranule, not cached.
  static constexpr uint64_t kLargeThreshold = uint64_t(1) << 20;
  static constexpr uint64_t kLargeGranule = uint64_t(2) << 20;

  /// Offsets in [begin, end). `minBlock` (a power of two) replaces kMinBlock
  /// for ranges of small objects (the signal pad's semaphore arrays).
  SymmetricAllocator(uint64_t begin, uint64_t end,
                     uint64_t minBlock = kMinBlock);

  /// An offset of `bytes` (> 0) bytes aligned to `alignment` (a power of
  /// two). InvalidArgument for a bad request or when the range has no room
  /// (the message says how much is in use, cached and free).
  Expected<uint64_t> allocate(uint64_t bytes, uint64_t alignment);
  /// Gives back the block at `offset`. InvalidArgument when no block starts
  /// there (never allocated, or already freed).
  Status free(uint64_t offset);
  /// Returns every cached block to the free ranges.
  void releaseCached();

  /// The size a request of `bytes` occupies (its class, or the large
  /// granule multiple).
  uint64_t blockSize(uint64_t bytes) const {
    return blockSize(bytes, minBlock_);
  }
  /// The same for an allocator whose smallest block is `minBlock`.
  static uint64_t blockSize(uint64_t bytes, uint64_t minBlock);
  /// Bytes of live blocks, of cached blocks, and of the free ranges.
  uint64_t bytesInUse() const { return inUse_; }
  uint64_t bytesCached() const { return cached_; }
  uint64_t bytesFree() const;
  size_t liveBlocks() const { return live_.size(); }

private:
  Expected<uint64_t> carve(uint64_t size, uint64_t alignment);
  void giveBack(uint64_t offset, uint64_t size);
  Error exhausted(uint64_t bytes) const;

  uint64_t begin_, end_, minBlock_;
  /// Free ranges: offset -> size, merged (no two touch).
  std::map<uint64_t, uint64_t> free_;
  /// Live blocks: offset -> block size.
  std::map<uint64_t, uint64_t> live_;
  /// Cached blocks per class size, most recently freed last.
  std::map<uint64_t, std::vector<uint64_t>> cache_;
  uint64_t inUse_ = 0, cached_ = 0;
};

} // namespace weave

#endif // WEAVE_RUNTIME_DETAIL_SYMMETRICALLOCATOR_H
