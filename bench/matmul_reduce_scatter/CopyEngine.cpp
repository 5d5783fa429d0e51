//===- CopyEngine.cpp - GEMM + reduce-scatter on the copy engines ---------===//
//
// See CopyEngine.h.
//
//===----------------------------------------------------------------------===//
#include "CopyEngine.h"

#include "weave/bench/Gpus.h"
#include "weave/bench/HostData.h"
#include "weave/runtime/Team.h"

#include <cstdio>
#include <unordered_set>

namespace weave::bench::mrs {

namespace {

DeviceBuffers view(const std::vector<uint64_t> &pointers, DType dtype,
                   std::vector<int64_t> shape) {
  DeviceBuffers v;
  v.pointers = pointers;
  v.dtype = dtypeName(dtype);
  v.shape = std::move(shape);
  v.bytes = 2;
  for (int64_t s : v.shape)
    v.bytes *= static_cast<uint64_t>(s);
  return v;
}

} // namespace

const char *ceVariantName(CeVariant v) {
  return v == CeVariant::Copy ? "copy" : "direct";
}

Expected<std::unique_ptr<CopyEngineDesign>> CopyEngineDesign::create(
    Team &team, SymmetricHeap &heap, const std::vector<TimedStream> &timed,
    Bundle bundle, DType dtype, int64_t d, int64_t m, int64_t k, int64_t n,
    const DeviceBuffers &a, const DeviceBuffers &b) {
  size_t local = team.localCount();
  if (local != static_cast<size_t>(d) || d < 1)
    return Error(ErrorCode::InvalidArgument,
                 "copy-engine design: every member must be driven by this "
                 "process (" +
                     std::to_string(local) + " of " + std::to_string(d) +
                     " are)");
  auto x = std::unique_ptr<CopyEngineDesign>(new CopyEngineDesign());
  x->team_ = &team;
  x->timed_ = timed;
  x->dtype_ = dtype;
  x->d_ = d;
  x->m_ = m;
  x->k_ = k;
  x->n_ = n;
  x->localOf_.assign(d, 0);
  for (size_t i = 0; i < local; ++i) {
    x->rank_.push_back(team.rankOf(i));
    x->localOf_[team.rankOf(i)] = i;
    x->streams_.push_back(timed[i].stream);
  }
  WEAVE_ASSIGN_OR_RETURN(Program program,
                         Program::load(team, std::move(bundle)));
  WEAVE_ASSIGN_OR_RETURN(Kernel mm, Kernel::get(program, "ce_matmul"));
  x->matmul_ = std::make_unique<Kernel>(std::move(mm));
  WEAVE_ASSIGN_OR_RETURN(Kernel s, Kernel::get(program, "ce_sum"));
  x->sum_ = std::make_unique<Kernel>(std::move(s));
  std::string dt = dtypeName(dtype);
  WEAVE_ASSIGN_OR_RETURN(examples::LocalBuffers stage,
                         examples::LocalBuffers::create(team, dt, {d * m, n}));
  WEAVE_ASSIGN_OR_RETURN(examples::LocalBuffers slots,
                         examples::LocalBuffers::create(team, dt, {d * m, n}));
  WEAVE_ASSIGN_OR_RETURN(examples::LocalBuffers out,
                         examples::LocalBuffers::create(team, dt, {m, n}));
  // ce_matmul's workspace where its template has one ("ws": the tail
  // split's partials and counters), zeroed once (every launch leaves the
  // counters zero; a member's launches are on one stream).
  for (const ParamInfo &p : x->matmul_->info().params) {
    if (p.kind != abi::ParamKind::Buffer || p.name != "ws")
      continue;
    WEAVE_ASSIGN_OR_RETURN(examples::LocalBuffers ws,
                           examples::LocalBuffers::create(team, p.dtype,
                                                          p.shape));
    for (size_t i = 0; i < local; ++i) {
      WEAVE_TRY(checkDriver(cuCtxSetCurrent(timed[i].context),
                            "cuCtxSetCurrent"));
      WEAVE_TRY(checkDriver(cuMemsetD32(ws.pointer(i), 0, ws.bytes() / 4),
                            "cuMemsetD32"));
    }
    x->ws_ = std::make_unique<examples::LocalBuffers>(std::move(ws));
  }
  x->stage_ = std::make_unique<examples::LocalBuffers>(std::move(stage));
  x->slots_ = std::make_unique<examples::LocalBuffers>(std::move(slots));
  x->out_ = std::make_unique<examples::LocalBuffers>(std::move(out));

  // Peer access (the direct variant's TMA stores into a peer's slots, and
  // the copies' peer-to-peer path), streams and events per member.
  x->matmulDone_.assign(local, {});
  x->copyDone_.assign(local, {});
  x->sumDone_.assign(local, nullptr);
  x->join_.assign(local, nullptr);
  x->copyStreams_.assign(local, nullptr);
  for (size_t i = 0; i < local; ++i) {
    CUcontext ctx = timed[i].context;
    WEAVE_TRY(checkDriver(cuCtxSetCurrent(ctx), "cuCtxSetCurrent"));
    for (size_t j = 0; j < local; ++j) {
      if (timed[j].context == ctx)
        continue;
      CUresult r = cuCtxEnablePeerAccess(timed[j].context, 0);
      if (r != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
        WEAVE_TRY(checkDriver(r, "cuCtxEnablePeerAccess"));
    }
    WEAVE_TRY(
        checkDriver(cuStreamCreate(&x->copyStreams_[i], CU_STREAM_NON_BLOCKING),
                    "cuStreamCreate"));
    auto event = [&](CUevent *e) {
      return checkDriver(cuEventCreate(e, CU_EVENT_DISABLE_TIMING),
                         "cuEventCreate");
    };
    x->matmulDone_[i].assign(d, nullptr);
    x->copyDone_[i].assign(d, nullptr);
    for (int64_t t = 0; t < d; ++t) {
      WEAVE_TRY(event(&x->matmulDone_[i][t]));
      WEAVE_TRY(event(&x->copyDone_[i][t]));
    }
    WEAVE_TRY(event(&x->sumDone_[i]));
    WEAVE_TRY(event(&x->join_[i]));
    if (i == 0)
      WEAVE_TRY(event(&x->fork_));
  }
  WEAVE_TRY(x->bindAll(heap, a, b));
  // Once per process: what the driver says to a cross-device event wait,
  // on an event never recorded and on a recorded one (the design's
  // ordering; printed for the record).
  static bool probed = false;
  if (!probed && local > 1) {
    probed = true;
    CUevent e = nullptr;
    const char *never = "?", *recorded = "?";
    if (cuCtxSetCurrent(timed[1].context) == CUDA_SUCCESS &&
        cuEventCreate(&e, CU_EVENT_DISABLE_TIMING) == CUDA_SUCCESS) {
      (void)cuCtxSetCurrent(timed[0].context);
      cuGetErrorName(cuStreamWaitEvent(timed[0].stream, e, 0), &never);
      (void)cuCtxSetCurrent(timed[1].context);
      (void)cuEventRecord(e, timed[1].stream);
      (void)cuCtxSetCurrent(timed[0].context);
      cuGetErrorName(cuStreamWaitEvent(timed[0].stream, e, 0), &recorded);
      (void)cuStreamSynchronize(timed[0].stream);
      (void)cuEventDestroy(e);
    }
    std::fprintf(stderr,
                 "copy-engine design: probe: a cross-device event wait on an "
                 "event never recorded: %s; on a recorded one: %s\n",
                 never, recorded);
  }
  return x;
}

CopyEngineDesign::~CopyEngineDesign() {
  for (size_t i = 0; i < timed_.size(); ++i) {
    (void)cuCtxSetCurrent(timed_[i].context);
    (void)cuStreamSynchronize(timed_[i].stream);
    if (i < copyStreams_.size() && copyStreams_[i]) {
      (void)cuStreamSynchronize(copyStreams_[i]);
      (void)cuStreamDestroy(copyStreams_[i]);
    }
    auto destroy = [](CUevent e) {
      if (e)
        (void)cuEventDestroy(e);
    };
    if (i < matmulDone_.size())
      for (CUevent e : matmulDone_[i])
        destroy(e);
    if (i < copyDone_.size())
      for (CUevent e : copyDone_[i])
        destroy(e);
    if (i < sumDone_.size())
      destroy(sumDone_[i]);
    if (i < join_.size())
      destroy(join_[i]);
    if (i == 0)
      destroy(fork_);
  }
}

Status CopyEngineDesign::bindAll(SymmetricHeap &heap, const DeviceBuffers &a,
                                 const DeviceBuffers &b) {
  size_t local = streams_.size();
  uint64_t chunkA = static_cast<uint64_t>(m_ * k_) * 2;
  uint64_t chunkC = static_cast<uint64_t>(m_ * n_) * 2;
  bound_.assign(2, {});
  for (CeVariant v : {CeVariant::Copy, CeVariant::Direct}) {
    for (int64_t t = 1; t <= d_; ++t) {
      std::vector<uint64_t> pa(local), pc(local);
      for (size_t i = 0; i < local; ++i) {
        int64_t r = rank_[i];
        int64_t j = (r + t) % d_; // the chunk's owner
        pa[i] = a.pointers[i] + j * chunkA;
        if (j == r || v == CeVariant::Direct)
          pc[i] = slots_->pointer(localOf_[j]) + r * chunkC; // slot r on j
        else
          pc[i] = stage_->pointer(i) + j * chunkC;
      }
      std::vector<KernelArg> args{view(pa, dtype_, {m_, k_}), b,
                                  view(pc, dtype_, {m_, n_})};
      if (ws_)
        args.push_back(ws_->args());
      WEAVE_ASSIGN_OR_RETURN(BoundArgs bound, matmul_->bind(heap, args));
      bound_[static_cast<int>(v)].push_back(std::move(bound));
    }
  }
  std::vector<KernelArg> sumArgs{slots_->args(), out_->args()};
  WEAVE_ASSIGN_OR_RETURN(BoundArgs s, sum_->bind(heap, sumArgs));
  sumBound_ = std::make_unique<BoundArgs>(std::move(s));
  return ok();
}

Status CopyEngineDesign::poison() {
  for (size_t i = 0; i < streams_.size(); ++i) {
    WEAVE_TRY(
        checkDriver(cuCtxSetCurrent(timed_[i].context), "cuCtxSetCurrent"));
    for (const examples::LocalBuffers *buf :
         {stage_.get(), slots_.get(), out_.get()})
      WEAVE_TRY(checkDriver(cuMemsetD16Async(buf->pointer(i), kPoison16,
                                             buf->bytes() / 2, streams_[i]),
                            "cuMemsetD16Async"));
    WEAVE_TRY(
        checkDriver(cuStreamSynchronize(streams_[i]), "cuStreamSynchronize"));
  }
  return ok();
}

Status CopyEngineDesign::record(CUevent event, CUstream stream,
                                const char *what) {
  WEAVE_TRY(checkDriver(cuEventRecord(event, stream), what));
  recorded_.insert(event);
  return ok();
}

Status CopyEngineDesign::wait(CUstream stream, CUevent event,
                              const char *what) {
  // An event never recorded is not waited for. (The first version waited
  // on such events and one of its cuStreamWaitEvent calls failed with
  // CUDA_ERROR_INVALID_VALUE on 4 x H200; the probe in create() found a
  // cross-device wait on a fresh event fine, so which call failed and why
  // is not established. Skipping them also keeps an eager wait off an
  // event whose last record was captured into a graph.)
  if (!recorded_.count(event))
    return ok();
  return checkDriver(cuStreamWaitEvent(stream, event, 0), what);
}

Status CopyEngineDesign::enqueue(CeVariant variant, CeParts parts,
                                 bool captured) {
  size_t local = streams_.size();
  bool copies = variant == CeVariant::Copy && parts.copies;
  uint64_t chunkC = static_cast<uint64_t>(m_ * n_) * 2;
  const std::vector<BoundArgs> &steps = bound_[static_cast<int>(variant)];
  for (int64_t t = 1; t <= d_; ++t) {
    // A direct store into a peer's slot must not land before that owner
    // has summed the previous iteration's slots (eager iterations overlap
    // across members; graph replays do not).
    if (variant == CeVariant::Direct && !captured && parts.sum && t < d_)
      for (size_t i = 0; i < local; ++i) {
        size_t owner = localOf_[(rank_[i] + t) % d_];
        WEAVE_TRY(
            checkDriver(cuCtxSetCurrent(timed_[i].context), "cuCtxSetCurrent"));
        WEAVE_TRY(wait(streams_[i], sumDone_[owner],
                       "cuStreamWaitEvent (a direct chunk on the owner's "
                       "previous sum)"));
      }
    if (parts.matmuls)
      WEAVE_TRY(matmul_->launch(steps[t - 1], streams_));
    for (size_t i = 0; i < local; ++i) {
      WEAVE_TRY(
          checkDriver(cuCtxSetCurrent(timed_[i].context), "cuCtxSetCurrent"));
      WEAVE_TRY(record(matmulDone_[i][t - 1], streams_[i],
                       "cuEventRecord (a chunk)"));
      if (!copies || t == d_)
        continue;
      int64_t r = rank_[i];
      size_t owner = localOf_[(r + t) % d_];
      CUstream cs = copyStreams_[i];
      WEAVE_TRY(wait(cs, matmulDone_[i][t - 1],
                     "cuStreamWaitEvent (a copy on its chunk)"));
      // The copy into the owner's slot r waits for the owner's sum of the
      // previous iteration (which reads that slot).
      if (!captured && parts.sum)
        WEAVE_TRY(wait(cs, sumDone_[owner],
                       "cuStreamWaitEvent (a copy on the owner's previous "
                       "sum)"));
      // A plain cuMemcpyAsync between two devices' pointers (unified
      // addressing), as PyTorch's symmetric-memory copies are: a copy
      // engine moves it peer to peer, no SM is used.
      WEAVE_TRY(checkDriver(
          cuMemcpyAsync(slots_->pointer(owner) + r * chunkC,
                        stage_->pointer(i) + ((r + t) % d_) * chunkC, chunkC,
                        cs),
          "cuMemcpyAsync (peer)"));
      WEAVE_TRY(record(copyDone_[i][t - 1], cs, "cuEventRecord (a copy)"));
    }
  }
  // Each owner waits for its peers' chunks: from source s, the one s made
  // at step t = (owner - s) mod D.
  // (The breakdown without copies waits for nothing: its sums are wrong.)
  bool waits = parts.sum && (copies || variant == CeVariant::Direct);
  for (size_t i = 0; waits && i < local; ++i) {
    WEAVE_TRY(
        checkDriver(cuCtxSetCurrent(timed_[i].context), "cuCtxSetCurrent"));
    for (size_t s = 0; s < local; ++s) {
      if (s == i)
        continue;
      int64_t t = ((int64_t(rank_[i]) - rank_[s]) % d_ + d_) % d_;
      CUevent e = copies ? copyDone_[s][t - 1] : matmulDone_[s][t - 1];
      WEAVE_TRY(wait(streams_[i], e,
                     "cuStreamWaitEvent (the sum on a peer's chunk)"));
    }
  }
  if (parts.sum)
    WEAVE_TRY(sum_->launch(*sumBound_, streams_));
  for (size_t i = 0; i < local; ++i) {
    WEAVE_TRY(
        checkDriver(cuCtxSetCurrent(timed_[i].context), "cuCtxSetCurrent"));
    if (parts.sum)
      WEAVE_TRY(record(sumDone_[i], streams_[i], "cuEventRecord (a sum)"));
    // This member's copies are part of its iteration (and the next
    // iteration's chunks reuse the staging buffer they read).
    if (copies && d_ > 1)
      WEAVE_TRY(wait(streams_[i], copyDone_[i][d_ - 2],
                     "cuStreamWaitEvent (the member on its last copy)"));
  }
  return ok();
}

CopyEngineDesign::Graph::~Graph() {
  if (exec_) {
    (void)cuCtxSetCurrent(stream_.context);
    (void)cuGraphExecDestroy(exec_);
  }
}

Status CopyEngineDesign::Graph::launch() const {
  WEAVE_TRY(checkDriver(cuCtxSetCurrent(stream_.context), "cuCtxSetCurrent"));
  return checkDriver(cuGraphLaunch(exec_, stream_.stream), "cuGraphLaunch");
}

Expected<std::unique_ptr<CopyEngineDesign::Graph>>
CopyEngineDesign::capture(CeVariant variant, CeParts parts) {
  size_t local = streams_.size();
  WEAVE_TRY(checkDriver(cuCtxSetCurrent(timed_[0].context), "cuCtxSetCurrent"));
  // Inside the capture only events recorded in it are waited for, and after
  // it none of those (an eager wait on a captured record is not one).
  recorded_.clear();
  WEAVE_TRY(checkDriver(
      cuStreamBeginCapture(streams_[0], CU_STREAM_CAPTURE_MODE_RELAXED),
      "cuStreamBeginCapture"));
  Status enqueued = [&]() -> Status {
    WEAVE_TRY(record(fork_, streams_[0], "cuEventRecord (fork)"));
    for (size_t i = 1; i < local; ++i) {
      WEAVE_TRY(
          checkDriver(cuCtxSetCurrent(timed_[i].context), "cuCtxSetCurrent"));
      WEAVE_TRY(wait(streams_[i], fork_, "cuStreamWaitEvent (fork)"));
    }
    WEAVE_TRY(enqueue(variant, parts, /*captured=*/true));
    for (size_t i = 1; i < local; ++i) {
      WEAVE_TRY(
          checkDriver(cuCtxSetCurrent(timed_[i].context), "cuCtxSetCurrent"));
      WEAVE_TRY(record(join_[i], streams_[i], "cuEventRecord (join)"));
      WEAVE_TRY(
          checkDriver(cuCtxSetCurrent(timed_[0].context), "cuCtxSetCurrent"));
      WEAVE_TRY(wait(streams_[0], join_[i], "cuStreamWaitEvent (join)"));
    }
    return ok();
  }();
  (void)cuCtxSetCurrent(timed_[0].context);
  CUgraph graph = nullptr;
  CUresult ended = cuStreamEndCapture(streams_[0], &graph);
  recorded_.clear();
  if (!enqueued) {
    if (graph)
      (void)cuGraphDestroy(graph);
    return enqueued.error();
  }
  WEAVE_TRY(
      checkDriver(ended, "cuStreamEndCapture (a graph over every device)"));
  auto g = std::unique_ptr<Graph>(new Graph());
  g->stream_ = timed_[0];
  CUresult made = cuGraphInstantiate(&g->exec_, graph, 0);
  (void)cuGraphDestroy(graph);
  WEAVE_TRY(
      checkDriver(made, "cuGraphInstantiate (a graph over every device)"));
  return g;
}

} // namespace weave::bench::mrs
