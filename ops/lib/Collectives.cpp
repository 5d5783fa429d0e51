//===- Collectives.cpp - Ready-made collectives on a team -----------------===//
//
// Each op builds its kernel instance (Instances.cpp); the parameters its
// tensors bind are its registry entry's roles (Registry.cpp); StagedKernel
// does the rest.
//
//===----------------------------------------------------------------------===//

#include "CopyEngine.h"
#include "CopyEngineGather.h"
#include "GatherMatmul.h"
#include "InputGather.h"
#include "RingGather.h"
#include "ScatterMatmul.h"
#include "StagedKernel.h"
#include "weave/ops/FusedMatmul.h"

namespace weave::ops {

CollectiveOp::CollectiveOp(std::unique_ptr<detail::OpKernel> kernel)
    : kernel_(std::move(kernel)) {}
CollectiveOp::CollectiveOp(CollectiveOp &&) noexcept = default;
CollectiveOp &CollectiveOp::operator=(CollectiveOp &&) noexcept = default;
CollectiveOp::~CollectiveOp() = default;

const KernelInstance &CollectiveOp::instance() const {
  return kernel_->instance();
}

Status CollectiveOp::run(const std::vector<std::vector<TensorRef>> &tensors,
                         const std::vector<CUstream> &streams) {
  return kernel_->run(tensors, streams);
}

Status CollectiveOp::runInPlace(size_t role, const SymmetricBuffer &buffer,
                                const std::vector<std::vector<TensorRef>> &tensors,
                                const std::vector<CUstream> &streams) {
  std::vector<std::optional<SymmetricBuffer>> inPlace(tensors.size());
  if (role >= inPlace.size())
    return Error(ErrorCode::InvalidArgument,
                 "in-place role " + std::to_string(role) + " of " +
                     std::to_string(inPlace.size()));
  inPlace[role] = buffer;
  return kernel_->run(tensors, streams, inPlace);
}

Expected<AllReduce> AllReduce::create(Communicator &comm,
                                      const std::string &dtype, int64_t count,
                                      AllReduceAlgorithm algorithm) {
  if (algorithm == AllReduceAlgorithm::Auto)
    algorithm = choose(comm.team().size(), dtype, count);
  WEAVE_ASSIGN_OR_RETURN(KernelInstance instance,
                         AllReduce::instanceFor(comm.team().size(), dtype, count,
                                             algorithm));
  WEAVE_ASSIGN_OR_RETURN(auto kernel,
                         detail::StagedKernel::create(
                             comm, std::move(instance),
                             detail::opRoles("all_reduce")));
  AllReduce op(std::move(kernel));
  op.algorithm_ = algorithm;
  return op;
}

/// create() of the ops whose kernel instance depends on the team size,
/// dtype and one count only.
template <typename Op>
Expected<Op> createOp(Communicator &comm, const std::string &dtype,
                      int64_t count, const std::string &name,
                      const std::string &algorithm) {
  WEAVE_ASSIGN_OR_RETURN(KernelInstance instance,
                         Op::instanceFor(comm.team().size(), dtype, count,
                                         algorithm));
  WEAVE_ASSIGN_OR_RETURN(auto kernel,
                         detail::StagedKernel::create(comm, std::move(instance),
                                                      detail::opRoles(name)));
  return Op(std::move(kernel));
}

Expected<AllGather> AllGather::create(Communicator &comm,
                                      const std::string &dtype, int64_t count,
                                const std::string &algorithm) {
  return createOp<AllGather>(comm, dtype, count, "all_gather", algorithm);
}

Expected<ReduceScatter> ReduceScatter::create(Communicator &comm,
                                              const std::string &dtype,
                                              int64_t count,
                                const std::string &algorithm) {
  return createOp<ReduceScatter>(comm, dtype, count, "reduce_scatter", algorithm);
}

Expected<AllToAll> AllToAll::create(Communicator &comm,
                                    const std::string &dtype, int64_t count,
                                const std::string &algorithm) {
  return createOp<AllToAll>(comm, dtype, count, "all_to_all", algorithm);
}

Expected<AllToAllV> AllToAllV::create(Communicator &comm,
                                      const std::string &dtype,
                                      int64_t capacity,
                                      const std::string &algorithm,
                                      int64_t rowElements) {
  WEAVE_ASSIGN_OR_RETURN(KernelInstance instance,
                         instanceFor(comm.team().size(), dtype, capacity,
                                     algorithm, rowElements));
  WEAVE_ASSIGN_OR_RETURN(auto kernel,
                         detail::StagedKernel::create(
                             comm, std::move(instance),
                             detail::opRoles("all_to_all_v")));
  return AllToAllV(std::move(kernel));
}

namespace {

/// The all-gather matmul's algorithm for `algorithm` ("auto" resolved by
/// choose() at this shape).
std::string agmAlgorithm(Communicator &comm, const std::string &dtype,
                         int64_t mShard, int64_t k, int64_t n,
                         const std::string &algorithm) {
  return matmulOpAlgorithm("all_gather_matmul", comm.team().size(), dtype,
                           {mShard, k, n}, algorithm);
}

/// The all-gather matmul's kernel for `chosen` (agmAlgorithm's): the ring,
/// the all-gather beside the own shard's matmul, or the copy engines, each
/// with its own workspace. The one place both AllGatherMatmul and
/// RegisteredOp::createMatmul make it.
Expected<std::unique_ptr<detail::OpKernel>>
makeAllGatherMatmul(Communicator &comm, const std::string &dtype,
                    int64_t mShard, int64_t k, int64_t n,
                    const std::string &chosen) {
  uint32_t d = comm.team().size();
  WEAVE_TRY(AllGatherMatmul::checkShape(d, dtype, mShard, k, n));
  WEAVE_ASSIGN_OR_RETURN(KernelInstance instance,
                         AllGatherMatmul::instanceFor(d, dtype, k, n, chosen));
  if (chosen == "gather") {
    WEAVE_ASSIGN_OR_RETURN(auto kernel,
                           detail::GatherMatmulKernel::create(
                               comm, std::move(instance), mShard, k, n));
    return std::unique_ptr<detail::OpKernel>(std::move(kernel));
  }
  if (chosen == "copy_engine") {
    WEAVE_ASSIGN_OR_RETURN(auto kernel,
                           detail::CopyEngineGatherKernel::create(
                               comm, std::move(instance), mShard, k, n));
    return std::unique_ptr<detail::OpKernel>(std::move(kernel));
  }
  WEAVE_ASSIGN_OR_RETURN(auto kernel,
                         detail::RingGatherKernel::create(
                             comm, std::move(instance), mShard, k, n));
  return std::unique_ptr<detail::OpKernel>(std::move(kernel));
}

} // namespace

Expected<AllGatherMatmul> AllGatherMatmul::create(Communicator &comm,
                                                  const std::string &dtype,
                                                  int64_t mShard, int64_t k,
                                                  int64_t n,
                                                  const std::string &algorithm) {
  std::string chosen = agmAlgorithm(comm, dtype, mShard, k, n, algorithm);
  WEAVE_ASSIGN_OR_RETURN(
      auto kernel, makeAllGatherMatmul(comm, dtype, mShard, k, n, chosen));
  AllGatherMatmul op(std::move(kernel));
  op.algorithm_ = chosen;
  return op;
}

namespace {

/// The GEMM + reduce-scatter's algorithm on `comm`'s team:
/// matmulOpAlgorithm's, except that "auto" keeps the copy engines on a
/// loopback team, where "scatter" does not run (ScatterMatmul.h).
std::string mrsAlgorithm(Communicator &comm, const std::string &dtype,
                         int64_t mShard, int64_t k, int64_t n,
                         const std::string &algorithm) {
  Team &team = comm.team();
  std::string chosen = matmulOpAlgorithm("matmul_reduce_scatter", team.size(),
                                         dtype, {mShard, k, n}, algorithm);
  if (algorithm == "auto" && chosen == "scatter" && team.isLoopback())
    return "copy_engine";
  return chosen;
}

/// The GEMM + reduce-scatter's kernel for `chosen` (mrsAlgorithm's): the
/// fused kernel staged as every op's, or the copy-engine or scatter
/// algorithm with its own workspace. The one place both
/// MatmulReduceScatter and RegisteredOp::createMatmul make it.
Expected<std::unique_ptr<detail::OpKernel>>
makeMatmulReduceScatter(Communicator &comm, const std::string &dtype,
                        int64_t mShard, int64_t k, int64_t n,
                        const std::string &chosen) {
  uint32_t d = comm.team().size();
  WEAVE_TRY(MatmulReduceScatter::checkShape(d, dtype, mShard, k, n));
  WEAVE_ASSIGN_OR_RETURN(
      KernelInstance instance,
      MatmulReduceScatter::instanceFor(d, dtype, k, n, chosen, mShard));
  if (chosen == "copy_engine") {
    WEAVE_ASSIGN_OR_RETURN(auto kernel,
                           detail::CopyEngineKernel::create(
                               comm, std::move(instance), mShard, k, n));
    return std::unique_ptr<detail::OpKernel>(std::move(kernel));
  }
  if (chosen == "input_gather") {
    WEAVE_ASSIGN_OR_RETURN(auto kernel,
                           detail::InputGatherKernel::create(
                               comm, std::move(instance), mShard, k, n));
    return std::unique_ptr<detail::OpKernel>(std::move(kernel));
  }
  if (chosen == "scatter") {
    WEAVE_ASSIGN_OR_RETURN(auto kernel,
                           detail::ScatterMatmulKernel::create(
                               comm, std::move(instance), mShard, k, n));
    return std::unique_ptr<detail::OpKernel>(std::move(kernel));
  }
  // `slots` (symmetric, 2 x D slots of mShard rows: the template says
  // why), `partial` (the pipeline's operand, whose stores the epilogue
  // replaces), `launches` (the kernel's epoch) and the barrier are the
  // op's, zeroed once.
  WEAVE_ASSIGN_OR_RETURN(
      auto kernel, detail::StagedKernel::create(
                       comm, std::move(instance),
                       detail::opRoles("matmul_reduce_scatter"),
                       detail::matmulParamShapes("matmul_reduce_scatter", d,
                                                 {mShard, k, n})));
  return std::unique_ptr<detail::OpKernel>(std::move(kernel));
}

} // namespace

Expected<MatmulReduceScatter>
MatmulReduceScatter::create(Communicator &comm, const std::string &dtype,
                            int64_t mShard, int64_t k, int64_t n,
                            const std::string &algorithm) {
  std::string chosen = mrsAlgorithm(comm, dtype, mShard, k, n, algorithm);
  WEAVE_ASSIGN_OR_RETURN(
      auto kernel, makeMatmulReduceScatter(comm, dtype, mShard, k, n, chosen));
  MatmulReduceScatter op(std::move(kernel));
  op.algorithm_ = chosen;
  return op;
}

RegisteredOp::RegisteredOp(std::unique_ptr<detail::OpKernel> kernel,
                           const OpSpec *spec)
    : CollectiveOp(std::move(kernel)), spec_(spec) {}

Expected<RegisteredOp> RegisteredOp::create(Communicator &comm,
                                            const std::string &op,
                                            const std::string &dtype,
                                            int64_t count,
                                            const std::string &algorithm,
                                            int64_t rowElements) {
  WEAVE_ASSIGN_OR_RETURN(KernelInstance instance,
                         opInstance(op, comm.team().size(), dtype, count,
                                    algorithm, rowElements));
  const OpSpec *spec = findOp(op); // found: opInstance succeeded
  WEAVE_ASSIGN_OR_RETURN(auto kernel, detail::StagedKernel::create(
                                          comm, std::move(instance),
                                          spec->roles));
  return RegisteredOp(std::move(kernel), spec);
}

Expected<RegisteredOp> RegisteredOp::createMatmul(Communicator &comm,
                                                  const std::string &op,
                                                  const std::string &dtype,
                                                  const MatmulShape &shape,
                                                  const std::string &algorithm) {
  uint32_t d = comm.team().size();
  const OpSpec *spec = findOp(op);
  if (spec && op == "matmul_reduce_scatter") {
    WEAVE_ASSIGN_OR_RETURN(
        auto kernel,
        makeMatmulReduceScatter(comm, dtype, shape.mShard, shape.k, shape.n,
                                mrsAlgorithm(comm, dtype, shape.mShard,
                                             shape.k, shape.n, algorithm)));
    return RegisteredOp(std::move(kernel), spec);
  }
  if (spec && op == "all_gather_matmul") {
    WEAVE_ASSIGN_OR_RETURN(
        auto kernel,
        makeAllGatherMatmul(comm, dtype, shape.mShard, shape.k, shape.n,
                            agmAlgorithm(comm, dtype, shape.mShard, shape.k,
                                         shape.n, algorithm)));
    return RegisteredOp(std::move(kernel), spec);
  }
  WEAVE_ASSIGN_OR_RETURN(KernelInstance instance,
                         matmulOpInstance(op, d, dtype, shape, algorithm));
  WEAVE_ASSIGN_OR_RETURN(
      auto kernel, detail::StagedKernel::create(
                       comm, std::move(instance), spec->roles,
                       spec->matmulParamShapes(d, shape)));
  return RegisteredOp(std::move(kernel), spec);
}

} // namespace weave::ops
