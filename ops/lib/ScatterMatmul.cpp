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

#include "weave/ops/Collectives.h"

#include <cstdio>

namespace weave::ops::detail {

namespace {

/// What this algorithm's errors start with.
const char *kWhere = "op 'matmul_reduce_scatter' (scatter): ";

} // namespace

Expected<std::unique_ptr<ScatterMatmulKernel>>
ScatterMatmulKernel::create(Communicator &comm, KernelInstance instance,
                            int64_t mShard, int64_t k, int64_t n) {
  Team &team = comm.team();
  if (team.isLoopback())
    return Error(ErrorCode::InvalidArgument,
                 std::string(kWhere) +
                     "does not run on a loopback team (one GPU): the "
                     "reduce-scatter's spinning blocks can fill it before "
                     "another member's matmul is placed; use 'copy_engine'");
  auto x = std::unique_ptr<ScatterMatmulKernel>(new ScatterMatmulKernel());
  x->comm_ = &comm;
  x->dtype_ = instance.dtype;
  x->d_ = team.size();
  x->m_ = mShard;
  x->k_ = k;
  x->n_ = n;
  x->elementBytes_ = 2; // f16 or bf16 (checkShape)
  WEAVE_ASSIGN_OR_RETURN(x->matmul_, comm.kernel(instance, "ce_matmul"));
  x->instance_ = std::move(instance);
  // The reduce-scatter (the op's one companion, matmulOpCompanions) by the
  // collectives' own choice at its size. Its input role binds `partials`
  // in place where the kernel's input is symmetric (the pull kernel); a
  // kernel with a plain input reads the member's local copy of them.
  WEAVE_ASSIGN_OR_RETURN(
      std::vector<CompanionOp> companions,
      matmulOpCompanions("matmul_reduce_scatter", team.size(), x->dtype_,
                         {mShard, k, n}, "scatter"));
  WEAVE_ASSIGN_OR_RETURN(KernelInstance scatter,
                         ReduceScatter::instanceFor(team.size(), x->dtype_,
                                                    companions.at(0).count));
  std::vector<RoleSpec> roles = opRoles("reduce_scatter");
  WEAVE_ASSIGN_OR_RETURN(Kernel * scatterKernel, comm.kernel(scatter));
  for (const ParamInfo &param : scatterKernel->info().params)
    if (param.name == roles[0].param)
      x->scatterInputSymmetric_ = param.kind == abi::ParamKind::Symmetric;
  // Symmetric allocations in the same order on every process: partials,
  // then the reduce-scatter's.
  WEAVE_ASSIGN_OR_RETURN(
      SymmetricBuffer partials,
      comm.heap().allocateTensor(x->dtype_, {x->d_ * mShard, n}));
  x->partials_ = partials;
  std::vector<size_t> placed;
  if (x->scatterInputSymmetric_)
    placed.push_back(0);
  WEAVE_ASSIGN_OR_RETURN(x->scatter_,
                         StagedKernel::create(comm, std::move(scatter),
                                              std::move(roles), {}, placed));
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
  size_t locals = comm_->team().localCount();
  auto fail = [&](const std::string &what) {
    return Error(ErrorCode::InvalidArgument, kWhere + what);
  };
  for (const auto &placed : inPlace)
    if (placed)
      return fail("no tensor of this op can be passed as a symmetric buffer");
  std::string wrong = callCountsMismatch(
      streams.size(), tensors.size(), inPlace.size(), locals, {"a", "b", "c"});
  // 16 bytes: the matmul's tensor maps and the reduce-scatter's vectors.
  std::vector<RoleExpectation> roles{
      RoleExpectation::matrix("a", dtype_, d_ * m_, k_),
      RoleExpectation::matrix("b", dtype_, k_, n_),
      RoleExpectation::matrix("c", dtype_, m_, n_)};
  for (size_t r = 0; r < roles.size() && wrong.empty(); ++r)
    wrong = roleTensorsMismatch(tensors[r], roles[r], locals, 16);
  if (!wrong.empty())
    return fail(wrong);

  SymmetricHeap &heap = comm_->heap();
  std::vector<uint64_t> pa(locals), pb(locals), pp(locals);
  for (size_t i = 0; i < locals; ++i) {
    pa[i] = tensors[0][i].data;
    pb[i] = tensors[1][i].data;
    pp[i] = heap.localPointer(*partials_, i);
  }
  std::vector<KernelArg> args{
      tensorView(pa, dtype_, {d_ * m_, k_}, elementBytes_),
      tensorView(pb, dtype_, {k_, n_}, elementBytes_),
      tensorView(pp, dtype_, {d_ * m_, n_}, elementBytes_)};
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
