//===- SymmetricAllocatorTest.cpp - The symmetric heap's allocator --------===//
//
// The logic behind SymmetricHeap::allocate/free, on the CPU: size classes,
// reuse of cached blocks, merging of large blocks, release of the cache when
// the range runs out, determinism, and the errors.
//
//===----------------------------------------------------------------------===//

#include "weave/runtime/detail/SymmetricAllocator.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

using namespace weave;

namespace {

constexpr uint64_t MiB = uint64_t(1) << 20;

uint64_t take(SymmetricAllocator &allocator, uint64_t bytes,
              uint64_t alignment = 256) {
  Expected<uint64_t> offset = allocator.allocate(bytes, alignment);
  EXPECT_TRUE(offset) << offset.error().toString();
  return offset ? *offset : ~uint64_t(0);
}

TEST(SymmetricAllocator, SizeClasses) {
  SymmetricAllocator allocator(0, 64 * MiB);
  EXPECT_EQ(allocator.blockSize(1), 256u);
  EXPECT_EQ(allocator.blockSize(256), 256u);
  EXPECT_EQ(allocator.blockSize(257), 512u);
  EXPECT_EQ(allocator.blockSize(1000), 1024u);
  EXPECT_EQ(allocator.blockSize(MiB), MiB);
  // Above 1 MiB: multiples of 2 MiB.
  EXPECT_EQ(allocator.blockSize(MiB + 1), 2 * MiB);
  EXPECT_EQ(allocator.blockSize(5 * MiB), 6 * MiB);
}

TEST(SymmetricAllocator, OffsetsStartAtTheRangeAndDoNotOverlap) {
  SymmetricAllocator allocator(65536, 65536 + 8 * MiB);
  uint64_t a = take(allocator, 100);
  uint64_t b = take(allocator, 3000);
  uint64_t c = take(allocator, 3 * MiB);
  EXPECT_EQ(a, 65536u);
  EXPECT_GE(b, a + 256);
  EXPECT_GE(c, b + 4096);
  EXPECT_LE(c + 4 * MiB, 65536 + 8 * MiB);
  EXPECT_EQ(allocator.bytesInUse(), 256 + 4096 + 4 * MiB);
}

TEST(SymmetricAllocator, FreedBlockIsReusedByItsClass) {
  SymmetricAllocator allocator(0, 4 * MiB);
  uint64_t a = take(allocator, 1000);
  uint64_t b = take(allocator, 1000);
  ASSERT_TRUE(allocator.free(a));
  EXPECT_EQ(allocator.bytesCached(), 1024u);
  // Same class (1024), any size in it: the cached block comes back.
  EXPECT_EQ(take(allocator, 600), a);
  EXPECT_EQ(allocator.bytesCached(), 0u);
  // Another class does not take it.
  ASSERT_TRUE(allocator.free(b));
  uint64_t c = take(allocator, 4000);
  EXPECT_NE(c, b);
  EXPECT_EQ(allocator.bytesCached(), 1024u);
}

TEST(SymmetricAllocator, CachedBlockKeepsTheAlignmentAsked) {
  SymmetricAllocator allocator(0, 4 * MiB);
  take(allocator, 256);                  // offset 0
  uint64_t odd = take(allocator, 256);   // offset 256: not 4096-aligned
  ASSERT_TRUE(allocator.free(odd));
  uint64_t aligned = take(allocator, 200, 4096);
  EXPECT_EQ(aligned % 4096, 0u);
  EXPECT_NE(aligned, odd);
}

TEST(SymmetricAllocator, LargeBlocksMergeWhenFreed) {
  SymmetricAllocator allocator(0, 8 * MiB);
  uint64_t a = take(allocator, 3 * MiB); // 4 MiB
  uint64_t b = take(allocator, 3 * MiB); // 4 MiB
  EXPECT_FALSE(allocator.allocate(MiB + 1, 256));
  ASSERT_TRUE(allocator.free(b));
  ASSERT_TRUE(allocator.free(a));
  EXPECT_EQ(allocator.bytesFree(), 8 * MiB);
  EXPECT_EQ(take(allocator, 7 * MiB), 0u); // one 8 MiB block again
}

TEST(SymmetricAllocator, CacheIsReleasedWhenTheRangeRunsOut) {
  SymmetricAllocator allocator(0, 4 * MiB);
  std::vector<uint64_t> blocks;
  for (int i = 0; i < 4; ++i)
    blocks.push_back(take(allocator, MiB));
  for (uint64_t block : blocks)
    ASSERT_TRUE(allocator.free(block));
  EXPECT_EQ(allocator.bytesCached(), 4 * MiB);
  // 3 MiB needs a 4 MiB block: only there once the cache is merged back.
  EXPECT_EQ(take(allocator, 3 * MiB), 0u);
  EXPECT_EQ(allocator.bytesCached(), 0u);
}

/// 20000 rounds of random allocations and frees with at most `maxLive`
/// blocks live, sizes in [1, maxBytes], in a 16 MiB range: none may fail
/// (the sizes and live counts are such that the free space always has a
/// gap that fits, see the callers), and all comes back at the end.
void churn(uint64_t minBytes, uint64_t maxBytes, size_t maxLive) {
  SymmetricAllocator allocator(0, 16 * MiB);
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint64_t> size(minBytes, maxBytes);
  std::vector<uint64_t> live;
  for (int round = 0; round < 20000; ++round) {
    if (live.size() < maxLive && rng() % 2 == 0) {
      Expected<uint64_t> offset = allocator.allocate(size(rng), 256);
      ASSERT_TRUE(offset) << "round " << round << ": "
                          << offset.error().toString();
      live.push_back(*offset);
    } else if (!live.empty()) {
      size_t victim = rng() % live.size();
      ASSERT_TRUE(allocator.free(live[victim]));
      live.erase(live.begin() + victim);
    }
  }
  for (uint64_t offset : live)
    ASSERT_TRUE(allocator.free(offset));
  EXPECT_EQ(allocator.bytesInUse(), 0u);
  allocator.releaseCached();
  EXPECT_EQ(allocator.bytesFree(), 16 * MiB);
}

TEST(SymmetricAllocator, LongRunningSmallBlocksDoNotRunOut) {
  // A bump allocator runs out within a few dozen rounds. At most 3 MiB
  // live: the free space has a gap of at least 13/4 MiB.
  churn(1, MiB, 3);
}

TEST(SymmetricAllocator, LongRunningLargeBlocksDoNotRunOut) {
  // Blocks of 2 or 4 MiB, at most 2 live: the free 8 MiB or more lies in at
  // most 3 gaps that are multiples of 2 MiB, so one holds 4 MiB.
  churn(MiB + 1, 3 * MiB, 2);
}

TEST(SymmetricAllocator, SameCallsGiveSameOffsets) {
  // What makes the offsets symmetric across the processes of a team.
  auto run = [] {
    SymmetricAllocator allocator(4096, 32 * MiB);
    std::mt19937 rng(11);
    std::vector<uint64_t> trace, live;
    for (int i = 0; i < 2000; ++i) {
      if (!live.empty() && rng() % 3 == 0) {
        size_t victim = rng() % live.size();
        EXPECT_TRUE(allocator.free(live[victim]));
        live.erase(live.begin() + victim);
      } else if (auto offset = allocator.allocate(1 + rng() % (2 * MiB), 256)) {
        trace.push_back(*offset);
        live.push_back(*offset);
      }
    }
    return trace;
  };
  EXPECT_EQ(run(), run());
}

TEST(SymmetricAllocator, Errors) {
  SymmetricAllocator allocator(0, MiB);
  uint64_t a = take(allocator, 100);
  ASSERT_TRUE(allocator.free(a));
  Status twice = allocator.free(a);
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().message().find("already freed"), std::string::npos);
  EXPECT_FALSE(allocator.free(12345));
  Expected<uint64_t> zero = allocator.allocate(0, 256);
  ASSERT_FALSE(zero);
  EXPECT_NE(zero.error().message().find("0 bytes"), std::string::npos);
  Expected<uint64_t> odd = allocator.allocate(16, 3);
  ASSERT_FALSE(odd);
  EXPECT_NE(odd.error().message().find("power of two"), std::string::npos);
  Expected<uint64_t> huge = allocator.allocate(2 * MiB, 256);
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.error().code(), ErrorCode::Exhausted);
  EXPECT_NE(huge.error().message().find("exhausted"), std::string::npos);
  // A request the range could hold, refused because live blocks fill it:
  // the same code, so a caller that keeps allocations knows that freeing
  // them may help.
  uint64_t half = take(allocator, MiB / 2);
  Expected<uint64_t> full = allocator.allocate(MiB * 3 / 4, 256);
  ASSERT_FALSE(full);
  EXPECT_EQ(full.error().code(), ErrorCode::Exhausted);
  ASSERT_TRUE(allocator.free(half));
  EXPECT_TRUE(allocator.allocate(MiB * 3 / 4, 256));
}

TEST(SymmetricAllocator, RangeOfTheBlockSizesHoldsTheRequests) {
  // What SymmetricHeap::occupiedBytes promises (the static form with the
  // default smallest block): a range of the sum holds every request at
  // once, and no less would for the large ones.
  std::vector<uint64_t> sizes{15 * MiB, 45 * MiB, 60 * MiB, 3000, 100};
  uint64_t total = 0;
  constexpr uint64_t kMin = SymmetricAllocator::kMinBlock;
  for (uint64_t bytes : sizes) {
    EXPECT_EQ(SymmetricAllocator::blockSize(bytes, kMin),
              SymmetricAllocator(0, MiB).blockSize(bytes));
    total += SymmetricAllocator::blockSize(bytes, kMin);
  }
  EXPECT_EQ(total, (16 + 46 + 60) * MiB + 4096 + 256);
  SymmetricAllocator exact(0, total);
  for (uint64_t bytes : sizes)
    take(exact, bytes);
  EXPECT_EQ(exact.bytesInUse(), total);
  SymmetricAllocator requested(0, 120 * MiB + 3100);
  take(requested, 15 * MiB);
  take(requested, 45 * MiB);
  EXPECT_FALSE(requested.allocate(60 * MiB, 256));
}

TEST(SymmetricAllocator, SmallMinimumBlockForThePad) {
  // The signal pad hands out 128-byte lines.
  SymmetricAllocator pad(0, 1024, 128);
  EXPECT_EQ(take(pad, 8, 128), 0u);
  EXPECT_EQ(take(pad, 4, 128), 128u);
  EXPECT_EQ(pad.blockSize(4), 128u);
}

} // namespace
