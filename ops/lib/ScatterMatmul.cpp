//===- ScatterMatmul.cpp - GEMM + reduce-scatter: one matmul, then the RS -===//
//
// See ScatterMatmul.h. One call on member r's stream s:
//
//   s:  ce_matmul(a, b) -> partials      (every row: D x m_shard)
//   s:  reduce_scatter(partials -> c)    (rows r of every member's partials)
//
// Every tensor is checked and the matmul bound before anything is
// enqueued; the reduce-scatter's tensors are the op's `partials` and c.
//
//===----------------------------------------------------------------------===//

#include "ScatterMatmul.h"


#include <cstdio>

namespace weave::ops::detail {

Expected<std::unique_ptr<ScatterMatmulKernel>>
ScatterMatmulKernel::create(Communicator &comm, KernelInstance instance,
                            int64_t mShard, int64_t k, int64_t n) {
  Team &team = comm.team();
  if (team.isLoopback())
    return Error(ErrorCode::InvalidArgument,
                 reduceScatterWhere("scatter") +
                     "does not run on a loopback team (one GPU): the "
                     "reduce-scatter's spinning blocks can fill it before "
                     "another member's matmul is placed; use 'copy_engine'");
  auto x = std::unique_ptr<ScatterMatmulKernel>(new ScatterMatmulKernel());
  WEAVE_TRY(x->init(comm, std::move(instance), mShard, k, n));
  // The reduce-scatter (the op's one companion, matmulOpCompanions) by the
  // collectives' own choice at its size. Its input role binds `partials`
  // in place where the kernel's input is symmetric (the pull kernel); a
  // kernel with a plain input reads the member's local copy of them.
  WEAVE_ASSIGN_OR_RETURN(
      std::vector<CompanionOp> companions,
      matmulOpCompanions("matmul_reduce_scatter", team.size(), x->dtype_,
                         {mShard, k, n}, "scatter"));
  // Symmetric allocations in the same order on every process: partials,
  // then the reduce-scatter's.
  WEAVE_ASSIGN_OR_RETURN(PlacedCollective placed,
                         placeCollective(comm, companions.at(0), 0, x->dtype_,
                                         {x->d_ * mShard, n}));
  x->partials_ = placed.buffer;
  x->scatter_ = std::move(placed.kernel);
  x->scatterInputSymmetric_ = placed.inPlace;
  return x;
}

ScatterMatmulKernel::~ScatterMatmulKernel() {
  if (!comm_)
    return;
  scatter_.reset();
  if (partials_)
    if (Status status = comm_->heap().free(*partials_); !status)
      std::fprintf(
          stderr, "weave: warning: freeing the workspace of op '%s': %s\n",
          instance_.kernelName.c_str(), status.error().toString().c_str());
}

Status ScatterMatmulKernel::run(
    const std::vector<std::vector<TensorRef>> &tensors,
    const std::vector<CUstream> &streams,
    const std::vector<std::optional<SymmetricBuffer>> &inPlace) {
  WEAVE_TRY(checkReduceScatterCall("scatter", tensors, streams, inPlace));
  size_t locals = comm_->team().localCount();

  SymmetricHeap &heap = comm_->heap();
  std::vector<uint64_t> pa(locals), pb(locals), pp(locals);
  for (size_t i = 0; i < locals; ++i) {
    pa[i] = tensors[0][i].data;
    pb[i] = tensors[1][i].data;
    pp[i] = heap.localPointer(*partials_, i);
  }
  std::vector<KernelArg> args =
      matmulArgs(tensorView(pa, dtype_, {d_ * m_, k_}, elementBytes_),
                 tensorView(pb, dtype_, {k_, n_}, elementBytes_),
                 tensorView(pp, dtype_, {d_ * m_, n_}, elementBytes_));
  WEAVE_ASSIGN_OR_RETURN(BoundArgs launch, matmul_->bind(heap, args));
  std::vector<std::vector<TensorRef>> scatterTensors(2);
  for (size_t i = 0; i < locals; ++i) {
    scatterTensors[0].push_back(
        scatterInputSymmetric_ ? TensorRef{}
                               : TensorRef{pp[i], dtype_, {d_ * m_ * n_}});
    scatterTensors[1].push_back({tensors[2][i].data, dtype_, {m_ * n_}});
  }
  std::vector<std::optional<SymmetricBuffer>> scatterPlaced(2);
  if (scatterInputSymmetric_)
    scatterPlaced[0] = *partials_;
  WEAVE_TRY(matmul_->launch(launch, streams));
  return scatter_->run(scatterTensors, streams, scatterPlaced);
}

} // namespace weave::ops::detail
