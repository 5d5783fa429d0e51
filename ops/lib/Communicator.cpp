//===- Communicator.cpp - Kernels loaded once per instance ----------------===//

#include "weave/ops/Communicator.h"

namespace weave::ops {

struct Communicator::Loaded {
  Program program;
  Kernel kernel;
};

Communicator::Communicator(Team &team, SymmetricHeap &heap,
                           std::shared_ptr<KernelSource> source)
    : team_(&team), heap_(&heap), source_(std::move(source)) {}
Communicator::Communicator(Communicator &&) noexcept = default;
Communicator &Communicator::operator=(Communicator &&) noexcept = default;
Communicator::~Communicator() = default;

Expected<Kernel *> Communicator::kernel(const KernelInstance &instance) {
  std::string key = instance.key();
  auto found = kernels_.find(key);
  if (found != kernels_.end())
    return &found->second->kernel;
  if (!source_)
    return Error(ErrorCode::InvalidArgument,
                 "the communicator has no kernel source");
  Expected<Bundle> bundle = source_->bundleFor(instance);
  if (!bundle)
    return std::move(bundle).takeError().addContext(
        "building kernel instance " + key);
  WEAVE_ASSIGN_OR_RETURN(Program program,
                         Program::load(*team_, std::move(bundle).value()));
  WEAVE_ASSIGN_OR_RETURN(Kernel kernel,
                         Kernel::get(program, instance.kernelName));
  auto loaded = std::make_unique<Loaded>(
      Loaded{std::move(program), std::move(kernel)});
  Kernel *result = &loaded->kernel;
  kernels_.emplace(key, std::move(loaded));
  return result;
}

} // namespace weave::ops
