//===- AbiTestKernels.cu - Hand-written kernels following the ABI ---------===//
//
// Stand-ins for weavec output, used by the runtime's GPU tests and its
// benchmark: parameters in ABI order (user params, then rank, team_size,
// peer_bases, then TMA descriptors), extern "C" names, signal with
// red.release.sys.global.add.u32, wait with an ld.acquire.sys spin. Built
// once with `nvcc -cubin -arch=sm_90a`; the manifest is in
// lib/AbiTestKernels.cpp (keep the "Params:" comments and it in step).
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

__device__ __forceinline__ uint64_t globalTimerNs() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/// peer_bases[peer] + (local - peer_bases[rank]).
template <typename T>
__device__ __forceinline__ T *remote(T *local, const uint64_t *peerBases,
                                     uint32_t rank, uint32_t peer) {
  return reinterpret_cast<T *>(peerBases[peer] +
                               (reinterpret_cast<uint64_t>(local) -
                                peerBases[rank]));
}

/// Waits until *counter >= value (5 s cap), then subtracts value. Returns the
/// counter's value before the subtraction, or 0 on timeout.
__device__ uint32_t waitAndConsume(uint32_t *counter, uint32_t value) {
  uint64_t start = globalTimerNs();
  while (loadAcquire(counter) < value)
    if (globalTimerNs() - start > 5000000000ull)
      return 0;
  return atomicSub(counter, value);
}

__device__ __forceinline__ int32_t ringValue(uint32_t rank, uint32_t iter,
                                             uint32_t i) {
  return static_cast<int32_t>((rank << 24) ^ (iter << 16) ^ i);
}

} // namespace

/// Each device writes `n` words into its right neighbour's `buf`, signals
/// it, waits for its left neighbour, and counts wrong words in errors[0]
/// (errors[1]: timeouts).
/// Params: symmetric buf i32[4096], semaphore sems count=1,
///         buffer errors i32[2], scalar iter u32, rank, team_size, peer_bases.
extern "C" __global__ void ring_exchange(int32_t *buf, uint32_t *sems,
                                         int32_t *errors, uint32_t iter,
                                         uint32_t rank, uint32_t teamSize,
                                         const uint64_t *peerBases) {
  const uint32_t n = 4096;
  uint32_t right = (rank + 1) % teamSize;
  uint32_t left = (rank + teamSize - 1) % teamSize;
  int32_t *dst = remote(buf, peerBases, rank, right);
  for (uint32_t i = threadIdx.x; i < n; i += blockDim.x)
    dst[i] = ringValue(rank, iter, i);
  __syncthreads();
  __shared__ int timedOut;
  if (threadIdx.x == 0) {
    signalAdd(remote(sems, peerBases, rank, right), 1);
    timedOut = waitAndConsume(sems, 1) == 0;
    if (timedOut)
      atomicAdd(&errors[1], 1);
  }
  __syncthreads();
  if (timedOut)
    return;
  int bad = 0;
  for (uint32_t i = threadIdx.x; i < n; i += blockDim.x)
    bad += reinterpret_cast<volatile int32_t *>(buf)[i] !=
           ringValue(left, iter, i);
  if (bad)
    atomicAdd(&errors[0], bad);
}

/// `rounds` ping-pongs between ranks 0 and 1. Each message carries the round
/// number in the receiver's mailbox. errors[0]: lost signals (timeouts),
/// errors[1]: duplicated signals (counter > 1 when consumed), errors[2]:
/// wrong mailbox value (ordering), errors[3]: rounds completed.
/// Params: semaphore sems count=2, symmetric mailbox u32[2],
///         buffer errors i32[4], scalar rounds u32, rank, team_size,
///         peer_bases.
extern "C" __global__ void ping_pong(uint32_t *sems, uint32_t *mailbox,
                                     int32_t *errors, uint32_t rounds,
                                     uint32_t rank, uint32_t teamSize,
                                     const uint64_t *peerBases) {
  if (threadIdx.x != 0 || rank > 1 || teamSize < 2)
    return;
  uint32_t peer = rank ^ 1;
  uint32_t *peerSems = remote(sems, peerBases, rank, peer);
  volatile uint32_t *peerMailbox = remote(mailbox, peerBases, rank, peer);
  volatile uint32_t *myMailbox = mailbox;
  for (uint32_t r = 0; r < rounds; ++r) {
    if (rank == 0) {
      peerMailbox[0] = r;
      signalAdd(&peerSems[0], 1);
    }
    uint32_t slot = rank == 0 ? 1 : 0;
    uint32_t before = waitAndConsume(&sems[slot], 1);
    if (before == 0) {
      atomicAdd(&errors[0], 1);
      return;
    }
    if (before != 1)
      atomicAdd(&errors[1], 1);
    if (myMailbox[slot] != r)
      atomicAdd(&errors[2], 1);
    if (rank == 1) {
      peerMailbox[1] = r;
      signalAdd(&peerSems[1], 1);
    }
    errors[3] = static_cast<int32_t>(r + 1);
  }
}

#include <cuda.h>

/// Loads the whole [8 x 32] f32 `src` of the peer (rank + 1) through a TMA
/// peer view into shared memory and copies it to `out`.
/// Params: symmetric src f32[8,32], buffer out f32[8,32], rank, team_size,
///         peer_bases, tma src_peer source=0 box=32,8 view=peer offset=1.
extern "C" __global__ void tma_peek(const float *src, float *out,
                                    uint32_t rank, uint32_t teamSize,
                                    const uint64_t *peerBases,
                                    const __grid_constant__ CUtensorMap srcPeer) {
  __shared__ alignas(128) float tile[8 * 32];
  __shared__ alignas(8) uint64_t barrier;
  uint32_t bar = static_cast<uint32_t>(__cvta_generic_to_shared(&barrier));
  uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar)
                 : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile(
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
        "r"(static_cast<uint32_t>(sizeof(tile)))
        : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
                 "complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
                 "l"(&srcPeer), "r"(0), "r"(0), "r"(bar)
                 : "memory");
    uint32_t done = 0;
    while (!done)
      asm volatile("{ .reg .pred p;\n"
                   "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n"
                   "selp.u32 %0, 1, 0, p; }"
                   : "=r"(done)
                   : "r"(bar)
                   : "memory");
  }
  __syncthreads();
  for (uint32_t i = threadIdx.x; i < 8 * 32; i += blockDim.x)
    out[i] = tile[i];
}

//===----------------------------------------------------------------------===//
// Benchmark kernels (bench/runtime)
//===----------------------------------------------------------------------===//

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
