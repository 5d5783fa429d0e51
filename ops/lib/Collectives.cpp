//===- Collectives.cpp - Ready-made collectives on a team -----------------===//
//
// Each op builds its kernel instance (Instances.cpp) and names the
// parameters its tensors bind; StagedKernel does the rest.
//
//===----------------------------------------------------------------------===//

#include "StagedKernel.h"

namespace weave::ops {

CollectiveOp::CollectiveOp(std::unique_ptr<detail::StagedKernel> kernel)
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

Expected<AllReduce> AllReduce::create(Communicator &comm,
                                      const std::string &dtype, int64_t count,
                                      AllReduceAlgorithm algorithm) {
  if (algorithm == AllReduceAlgorithm::Auto)
    algorithm = choose(dtype, count);
  WEAVE_ASSIGN_OR_RETURN(KernelInstance instance,
                         AllReduce::instanceFor(comm.team().size(), dtype, count,
                                             algorithm));
  WEAVE_ASSIGN_OR_RETURN(auto kernel,
                         detail::StagedKernel::create(
                             comm, std::move(instance),
                             {{"input", false}, {"output", true}}));
  AllReduce op(std::move(kernel));
  op.algorithm_ = algorithm;
  return op;
}

/// create() of the ops whose kernel instance depends on the team size,
/// dtype and one count only.
template <typename Op>
Expected<Op> createOp(Communicator &comm, const std::string &dtype,
                      int64_t count, std::vector<detail::RoleSpec> roles) {
  WEAVE_ASSIGN_OR_RETURN(KernelInstance instance,
                         Op::instanceFor(comm.team().size(), dtype, count));
  WEAVE_ASSIGN_OR_RETURN(auto kernel,
                         detail::StagedKernel::create(comm, std::move(instance),
                                                      std::move(roles)));
  return Op(std::move(kernel));
}

Expected<AllGather> AllGather::create(Communicator &comm,
                                      const std::string &dtype, int64_t count) {
  return createOp<AllGather>(comm, dtype, count,
                             {{"input", false}, {"output", true}});
}

Expected<ReduceScatter> ReduceScatter::create(Communicator &comm,
                                              const std::string &dtype,
                                              int64_t count) {
  return createOp<ReduceScatter>(comm, dtype, count,
                                 {{"input", false}, {"output", true}});
}

Expected<AllToAll> AllToAll::create(Communicator &comm,
                                    const std::string &dtype, int64_t count) {
  return createOp<AllToAll>(comm, dtype, count,
                            {{"input", false}, {"output", true}});
}

Expected<AllToAllV> AllToAllV::create(Communicator &comm,
                                      const std::string &dtype,
                                      int64_t capacity) {
  return createOp<AllToAllV>(
      comm, dtype, capacity,
      {{"input", false}, {"counts", false}, {"output", true}});
}

} // namespace weave::ops
