//===- InputGather.cpp - GEMM + reduce-scatter by gathering inputs --------===//
//
// See InputGather.h. One call on member r's stream s (D members, its copy
// stream cs; ready[w] and busy[w] are the flags of CopyEngineLanes.h, "on
// x" is member x's copy; aStage and bStage the symmetric stages; j(r, o)
// = InputGatherKernel::stageIndex, r's place among o's peers):
//
//   s:  record forked;  cs: wait forked
//   s:  ig_matmul(a rows r, b) -> c                 (the own product)
//   cs: for t = 1 .. D - 1, o = (r + t) mod D:
//         wait   busy[o]  (on r)  == 0
//         write  busy[o]  (on r)  := 1
//         copy   b's column block 0 -> rows j(r, o) of bStage on o (peer)
//         write  ready[r] (on o)  := 1
//         for p = 0 .. P - 1 (a's m_shard rows in P parts of R rows,
//                             InputGatherKernel::partRows / partCount):
//           copy   a rows o, part p -> columns j(r, o) of aStage on o
//           write  ready[r] (on o)  := p + 2
//         for q = 1 .. Q - 1 (b's n columns in Q blocks of W, the
//                             instance's CBLOCK; Q = 1 where b is one):
//           copy   b's column block q -> rows j(r, o) of bStage on o
//           write  ready[r] (on o)  := P + 1 + q
//   s:  ig_matmul_add(aStage, bStage, own = c, ready) -> c (the peers'
//       product, the own one added in its epilogue): each block's
//       producer waits, at the first step of each unit, until ready[src]
//       (on r) reaches what its tile reads for every src != r: (the part
//       of its last row) + 2 where its last column is in block 0, P + 1 +
//       (the block of its last column) past it (on a loopback team the
//       stream waits for them first too: s: wait ready[src] == P + Q, FLUSH
//       where supported)
//   s:  write ready[src] (on r) := 0, every src != r
//   s:  write busy[r]  (on src) := 0, every src != r
//   cs: record copiesDone;  s: wait copiesDone
//
// (CopyEngineLanes: acquire = the busy wait and set, signal = the ready
// write, waitReady, finish = the clears and the join.) The protocol is the
// copy-engine GEMM + RS's (CopyEngine.cpp) with the stages in place of the
// slots and a count of parts in place of its single ready value, and its
// arguments carry over: every value is a constant (a CUDA graph replays
// the same memory operations; P and R follow from m_shard, which a graph
// fixes) and every flag is back to 0 once every member's call has
// finished: no epoch. A ready value only grows within a call (one copy
// stream writes it, in order, each write after its copy), so a wait for
// a part sees every earlier part and b landed.
//
// No deadlock: cs's busy wait of call n is for o's clear at the end of o's
// call n - 1, which waits only for copies of n - 1; s's ready wait of call
// n is for the peers' copy streams of call n, which wait for their forks
// (nothing of the peers' s after the caller's work) and busy clears of n -
// 1; the join is for the member's own cs. ig_matmul_add's blocks hold
// their SMs while they wait, but what they wait for needs none on a GPU
// of its own (copy-engine copies and stream memory operations); a
// loopback team's same-device copies might, so there the stream waits
// before the launch and the kernel finds every flag set.
//
// No overtaking: r's copies into o's stages for call n + 1 wait busy[o] ==
// 0 on r, which r set before its copies of n and only o clears, after its
// ig_matmul_add of n has read the stages (stream order on o); o clears
// ready[r] before busy[r] (same stream, barrier), so its wait of n + 1
// cannot pass on n's flag. `a` and `b` are read by cs and s, written by
// neither: the caller writes them on s before the fork or after the join.
// c is written on s only.
//
// Enqueue order (one process driving several members): every member's
// fork, own product and copies of a call before any member's ready wait,
// so what a wait needs is submitted before it.
//
//===----------------------------------------------------------------------===//

#include "InputGather.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace weave::ops::detail {

namespace {

/// `height` rows of `width` bytes from `src` to `dst` (rows `srcPitch` and
/// `dstPitch` bytes apart) on a copy engine: one plain copy where both are
/// contiguous (every pitch the width), else a pitched one.
Status copyRows(CUdeviceptr dst, uint64_t dstPitch, CUdeviceptr src,
                uint64_t srcPitch, uint64_t width, uint64_t height,
                CUstream stream, const char *what) {
  if (srcPitch == width && dstPitch == width) {
    WEAVE_CU_TRY(cuMemcpyAsync(dst, src, width * height, stream), what);
    return ok();
  }
  CUDA_MEMCPY2D copy{};
  copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.srcDevice = src;
  copy.srcPitch = srcPitch;
  copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  copy.dstDevice = dst;
  copy.dstPitch = dstPitch;
  copy.WidthInBytes = width;
  copy.Height = height;
  WEAVE_CU_TRY(cuMemcpy2DAsync(&copy, stream), what);
  return ok();
}

} // namespace

Expected<std::unique_ptr<InputGatherKernel>>
InputGatherKernel::create(Communicator &comm, KernelInstance instance,
                          int64_t mShard, int64_t k, int64_t n) {
  auto x = std::unique_ptr<InputGatherKernel>(new InputGatherKernel());
  WEAVE_TRY(x->init(comm, std::move(instance), mShard, k, n));
  WEAVE_ASSIGN_OR_RETURN(x->add_, comm.kernel(x->instance_, "ig_matmul_add"));
  // The parts the add's kernel was built for (its @PARTS@ and @CBLOCK@).
  x->blockCols_ = n;
  for (const auto &[name, value] : x->instance_.values()) {
    if (name == "PARTS")
      x->parts_ = std::stoll(value);
    if (name == "CBLOCK")
      x->blockCols_ = std::max<int64_t>(std::stoll(value), 1);
  }
  if (x->d_ < 2)
    return x; // the own product is the whole sum
  // Symmetric allocations first, in the same order on every process: the
  // stages, then the lanes' flags.
  SymmetricHeap &heap = comm.heap();
  int64_t peersK = (x->d_ - 1) * k;
  WEAVE_ASSIGN_OR_RETURN(SymmetricBuffer aStage,
                         heap.allocateTensor(x->dtype_, {mShard, peersK}));
  x->aStage_ = aStage;
  WEAVE_ASSIGN_OR_RETURN(SymmetricBuffer bStage,
                         heap.allocateTensor(x->dtype_, {peersK, n}));
  x->bStage_ = bStage;
  WEAVE_ASSIGN_OR_RETURN(x->lanes_, CopyEngineLanes::create(comm));
  return x;
}

InputGatherKernel::~InputGatherKernel() {
  if (!comm_)
    return;
  lanes_.reset();
  SymmetricHeap &heap = comm_->heap();
  for (const std::optional<SymmetricBuffer> *stage : {&aStage_, &bStage_}) {
    if (!*stage)
      continue;
    Status status = heap.free(**stage);
    if (!status)
      std::fprintf(
          stderr, "weave: warning: freeing the workspace of op '%s': %s\n",
          instance_.kernelName.c_str(), status.error().toString().c_str());
  }
}

Status InputGatherKernel::run(
    const std::vector<std::vector<TensorRef>> &tensors,
    const std::vector<CUstream> &streams,
    const std::vector<std::optional<SymmetricBuffer>> &inPlace) {
  WEAVE_TRY(checkReduceScatterCall("input_gather", tensors, streams, inPlace));
  Team &team = comm_->team();
  SymmetricHeap &heap = comm_->heap();
  size_t locals = team.localCount();
  uint64_t rowBytes = uint64_t(k_) * elementBytes_;
  uint64_t chunkA = uint64_t(m_) * rowBytes;
  uint64_t bytesB = uint64_t(k_) * uint64_t(n_) * elementBytes_;

  // Bind both launches first, so that a failing call enqueues nothing.
  std::vector<uint64_t> pa(locals), pb(locals), pc(locals);
  for (size_t i = 0; i < locals; ++i) {
    pa[i] = tensors[0][i].data + team.rankOf(i) * chunkA;
    pb[i] = tensors[1][i].data;
    pc[i] = tensors[2][i].data;
  }
  DeviceBuffers c = tensorView(pc, dtype_, {m_, n_}, elementBytes_);
  WEAVE_ASSIGN_OR_RETURN(
      BoundArgs own,
      matmul_->bind(heap,
                    matmulArgs(tensorView(pa, dtype_, {m_, k_}, elementBytes_),
                               tensorView(pb, dtype_, {k_, n_}, elementBytes_),
                               c)));
  if (d_ < 2)
    return matmul_->launch(own, streams);
  int64_t peersK = (d_ - 1) * k_;
  int64_t rowsPerPart = partRows(m_, parts_);
  int64_t parts = partCount(m_, parts_);
  int64_t blocks = (n_ + blockCols_ - 1) / blockCols_;
  uint64_t stagePitch = uint64_t(peersK) * elementBytes_; // aStage's rows
  uint64_t bPitch = uint64_t(n_) * elementBytes_;         // b's rows
  std::vector<uint64_t> psa(locals), psb(locals);
  for (size_t i = 0; i < locals; ++i) {
    psa[i] = heap.localPointer(*aStage_, i);
    psb[i] = heap.localPointer(*bStage_, i);
  }
  std::vector<KernelArg> addArgs{
      tensorView(psa, dtype_, {m_, peersK}, elementBytes_),
      tensorView(psb, dtype_, {peersK, n_}, elementBytes_), c, c,
      lanes_->flags()};
  if (workspace())
    addArgs.push_back(*workspace());
  WEAVE_ASSIGN_OR_RETURN(BoundArgs peers, add_->bind(heap, addArgs));

  // Every member's fork, own product and copies before any ready wait (the
  // header comment's enqueue order).
  for (size_t i = 0; i < locals; ++i) {
    WEAVE_TRY(team.device(i).makeCurrent());
    WEAVE_TRY(lanes_->fork(i, streams[i]));
  }
  WEAVE_TRY(matmul_->launch(own, streams));
  for (size_t i = 0; i < locals; ++i) {
    WEAVE_TRY(team.device(i).makeCurrent());
    int64_t r = team.rankOf(i);
    CUstream cs = lanes_->copyStream(i);
    for (int64_t t = 1; t < d_; ++t) {
      uint32_t o = uint32_t((r + t) % d_);
      uint64_t j = uint64_t(stageIndex(d_, r, o));
      WEAVE_TRY(lanes_->acquire(i, o));
      // Through the heap's mapping of o's stages: a copy engine moves
      // them peer to peer. b's first column block first (every tile of the
      // add's first run reads it), then a's rows for o in parts, then b's
      // other blocks, each followed by its ready value (1, p + 2 after
      // part p, P + 1 + q after block q): the add's tiles wait only for
      // the parts they read. copyRows makes one plain copy of what is
      // contiguous: b where it is one block, a's part at D = 2; a block of
      // b's columns, and a's part in a column block of the stage from 3
      // members, are pitched copies.
      CUdeviceptr bDst = heap.peerPointer(*bStage_, i, o) + j * bytesB;
      auto copyBlock = [&](int64_t q) -> Status {
        int64_t first = q * blockCols_;
        uint64_t offset = uint64_t(first) * elementBytes_;
        return copyRows(
            bDst + offset, bPitch, tensors[1][i].data + offset, bPitch,
            uint64_t(std::min(blockCols_, n_ - first)) * elementBytes_,
            uint64_t(k_), cs, "copying b's columns into a peer's stage");
      };
      WEAVE_TRY(copyBlock(0));
      WEAVE_TRY(lanes_->signal(i, o, 1));
      for (int64_t p = 0; p < parts; ++p) {
        int64_t first = p * rowsPerPart;
        uint64_t rows = uint64_t(std::min(rowsPerPart, m_ - first));
        CUdeviceptr aDst = heap.peerPointer(*aStage_, i, o) + j * rowBytes +
                           uint64_t(first) * stagePitch;
        CUdeviceptr aSrc = tensors[0][i].data + uint64_t(o) * chunkA +
                           uint64_t(first) * rowBytes;
        WEAVE_TRY(copyRows(aDst, stagePitch, aSrc, rowBytes, rowBytes, rows,
                           cs, "copying a's rows into their owner's stage"));
        WEAVE_TRY(lanes_->signal(i, o, uint32_t(p + 2)));
      }
      for (int64_t q = 1; q < blocks; ++q) {
        WEAVE_TRY(copyBlock(q));
        WEAVE_TRY(lanes_->signal(i, o, uint32_t(parts + 1 + q)));
      }
    }
  }
  // ig_matmul_add waits for the ready flags itself (before its first
  // load), right behind ig_matmul. On a loopback team the stream waits
  // too: there a same-device copy might need the SMs that the waiting
  // kernels hold (CopyEngineGather.cpp, the same reason).
  if (team.isLoopback())
    for (size_t i = 0; i < locals; ++i) {
      WEAVE_TRY(team.device(i).makeCurrent());
      WEAVE_TRY(
          lanes_->waitReady(i, streams[i], uint32_t(parts + blocks)));
    }
  WEAVE_TRY(add_->launch(peers, streams));
  for (size_t i = 0; i < locals; ++i) {
    WEAVE_TRY(team.device(i).makeCurrent());
    WEAVE_TRY(lanes_->finish(i, streams[i]));
  }
  return ok();
}

} // namespace weave::ops::detail
