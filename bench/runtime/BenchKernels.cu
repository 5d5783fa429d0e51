//===- BenchKernels.cu - Kernels for the runtime primitive benchmarks -----===//
//
// ABI-following stand-ins for weavec output (see test/gpu/runtime for the
// conventions). Built with `nvcc -cubin -arch=sm_90a`.
//
//===----------------------------------------------------------------------===//

#include <cstdint>

namespace {

__device__ __forceinline__ void signalAdd(uint32_t *counter, uint32_t value) {
  asm volatile("red.release.sys.global.add.u32 [%0], %1;" ::"l"(counter),
               "r"(value)
               : "memory");
}

__device__ __forceinline__ uint32_t loadAcquire(const uint32_t *counter) {
  uint32_t value;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];"
               : "=r"(value)
               : "l"(counter)
               : "memory");
  return value;
}

template <typename T>
__device__ __forceinline__ T *remote(T *local, const uint64_t *peerBases,
                                     uint32_t rank, uint32_t peer) {
  return reinterpret_cast<T *>(peerBases[peer] +
                               (reinterpret_cast<uint64_t>(local) -
                                peerBases[rank]));
}

} // namespace

/// Ping-pong with weave semaphores: signal = red.release.sys add, wait =
/// ld.acquire.sys spin until the monotonic counter reaches the round.
/// Params: semaphore sems count=2, scalar rounds u32, rank, team_size,
///         peer_bases.
extern "C" __global__ void bench_ping_pong_sem(uint32_t *sems, uint32_t rounds,
                                               uint32_t rank, uint32_t teamSize,
                                               const uint64_t *peerBases) {
  if (threadIdx.x != 0 || rank > 1 || teamSize < 2)
    return;
  uint32_t *peer = remote(sems, peerBases, rank, rank ^ 1);
  for (uint32_t r = 1; r <= rounds; ++r) {
    if (rank == 0) {
      signalAdd(&peer[0], 1);
      while (loadAcquire(&sems[1]) < r) {
      }
    } else {
      while (loadAcquire(&sems[0]) < r) {
      }
      signalAdd(&peer[1], 1);
    }
  }
}

/// The reference: raw volatile flag stores and loads, no ordering.
/// Params: semaphore flags count=2, scalar rounds u32, rank, team_size,
///         peer_bases.
extern "C" __global__ void bench_ping_pong_flag(uint32_t *flags,
                                                uint32_t rounds, uint32_t rank,
                                                uint32_t teamSize,
                                                const uint64_t *peerBases) {
  if (threadIdx.x != 0 || rank > 1 || teamSize < 2)
    return;
  volatile uint32_t *peer = remote(flags, peerBases, rank, rank ^ 1);
  volatile uint32_t *mine = flags;
  for (uint32_t r = 1; r <= rounds; ++r) {
    if (rank == 0) {
      peer[0] = r;
      while (mine[1] != r) {
      }
    } else {
      while (mine[0] != r) {
      }
      peer[1] = r;
    }
  }
}

/// Block-cooperative put: 16-byte vector stores of local `src` into the
/// peer's `dst` (peer = rank ^ 1), on the ranks whose bit is in `active`.
/// Params: symmetric src i32[N], symmetric dst i32[N], scalar active u32,
///         rank, team_size, peer_bases.
extern "C" __global__ void bench_put(const int4 *src, int4 *dst,
                                     uint32_t active, uint32_t rank,
                                     uint32_t teamSize,
                                     const uint64_t *peerBases) {
  if (!((active >> rank) & 1) || teamSize < 2)
    return;
  constexpr uint64_t kVectors = (uint64_t(32) << 20) / 4; // N / 4
  int4 *out = remote(dst, peerBases, rank, rank ^ 1);
  uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < kVectors; i += 4 * stride) {
    int4 a = src[i], b = src[i + stride], c = src[i + 2 * stride],
         d = src[i + 3 * stride];
    out[i] = a;
    out[i + stride] = b;
    out[i + 2 * stride] = c;
    out[i + 3 * stride] = d;
  }
  for (; i < kVectors; i += stride)
    out[i] = src[i];
}
