//===- SymmetricAllocator.cpp - Offsets in a symmetric range --------------===//

#include "weave/runtime/detail/SymmetricAllocator.h"

#include <string>

namespace weave {

namespace {

uint64_t alignUp(uint64_t value, uint64_t to) {
  return (value + to - 1) / to * to;
}

bool isPowerOfTwo(uint64_t value) {
  return value != 0 && (value & (value - 1)) == 0;
}

} // namespace

SymmetricAllocator::SymmetricAllocator(uint64_t begin, uint64_t end,
                                       uint64_t minBlock)
    : begin_(begin), end_(end < begin ? begin : end),
      minBlock_(isPowerOfTwo(minBlock) ? minBlock : kMinBlock) {
  if (end_ > begin_)
    free_[begin_] = end_ - begin_;
}

uint64_t SymmetricAllocator::blockSize(uint64_t bytes, uint64_t minBlock) {
  if (bytes > kLargeThreshold)
    return alignUp(bytes, kLargeGranule);
  uint64_t size = minBlock;
  while (size < bytes)
    size <<= 1;
  return size;
}

uint64_t SymmetricAllocator::bytesFree() const {
  uint64_t total = 0;
  for (const auto &[offset, size] : free_)
    total += size;
  return total;
}

Expected<uint64_t> SymmetricAllocator::carve(uint64_t size,
                                             uint64_t alignment) {
  // First fit: the lowest range that holds an aligned block of `size`.
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    uint64_t start = it->first, length = it->second;
    uint64_t offset = alignUp(start, alignment);
    if (offset < start || offset - start > length ||
        size > length - (offset - start))
      continue;
    free_.erase(it);
    if (offset > start)
      free_[start] = offset - start;
    uint64_t tail = start + length - (offset + size);
    if (tail > 0)
      free_[offset + size] = tail;
    return offset;
  }
  return Error(ErrorCode::InvalidArgument, "no room");
}

void SymmetricAllocator::giveBack(uint64_t offset, uint64_t size) {
  auto next = free_.lower_bound(offset);
  if (next != free_.end() && offset + size == next->first) {
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      prev->second += size;
      return;
    }
  }
  free_[offset] = size;
}

Error SymmetricAllocator::exhausted(uint64_t bytes) const {
  return Error(ErrorCode::Exhausted,
               "symmetric heap exhausted: " + std::to_string(bytes) +
                   " bytes requested; " + std::to_string(inUse_) +
                   " bytes in use, " + std::to_string(bytesFree()) +
                   " free (largest ranges may be too small or misaligned) "
                   "in a range of " +
                   std::to_string(end_ - begin_) + " bytes");
}

Expected<uint64_t> SymmetricAllocator::allocate(uint64_t bytes,
                                                uint64_t alignment) {
  if (bytes == 0)
    return Error(ErrorCode::InvalidArgument, "cannot allocate 0 bytes");
  if (!isPowerOfTwo(alignment))
    return Error(ErrorCode::InvalidArgument,
                 "alignment " + std::to_string(alignment) +
                     " is not a power of two");
  if (bytes > end_ - begin_)
    return exhausted(bytes);
  uint64_t size = blockSize(bytes);
  bool small = bytes <= kLargeThreshold;
  if (small) {
    // The most recently freed block of the class that has the alignment.
    auto cached = cache_.find(size);
    if (cached != cache_.end()) {
      std::vector<uint64_t> &blocks = cached->second;
      for (size_t i = blocks.size(); i-- > 0;) {
        if (blocks[i] % alignment != 0)
          continue;
        uint64_t offset = blocks[i];
        blocks.erase(blocks.begin() + static_cast<std::ptrdiff_t>(i));
        cached_ -= size;
        live_[offset] = size;
        inUse_ += size;
        return offset;
      }
    }
  }
  Expected<uint64_t> offset = carve(size, alignment);
  if (!offset && cached_ > 0) {
    releaseCached();
    offset = carve(size, alignment);
  }
  if (!offset)
    return exhausted(bytes);
  live_[*offset] = size;
  inUse_ += size;
  return *offset;
}

Status SymmetricAllocator::free(uint64_t offset) {
  auto it = live_.find(offset);
  if (it == live_.end())
    return Error(ErrorCode::InvalidArgument,
                 "no symmetric block starts at offset " +
                     std::to_string(offset) +
                     " (never allocated, or already freed)");
  uint64_t size = it->second;
  live_.erase(it);
  inUse_ -= size;
  if (size <= kLargeThreshold && size >= minBlock_) {
    cache_[size].push_back(offset);
    cached_ += size;
  } else {
    giveBack(offset, size);
  }
  return ok();
}

void SymmetricAllocator::releaseCached() {
  for (auto &[size, blocks] : cache_)
    for (uint64_t offset : blocks)
      giveBack(offset, size);
  cache_.clear();
  cached_ = 0;
}

} // namespace weave
