//===- Communicator.cpp - Kernels loaded once per instance ----------------===//

#include "weave/ops/Communicator.h"

namespace weave::ops {

struct Communicator::Loaded {
  Program program;
  /// The kernels loaded from it, by name (an instance's bundle may hold
  /// several: the copy-engine GEMM + reduce-scatter's ce_matmul and ce_sum).
  std::map<std::string, std::unique_ptr<Kernel>> kernels;
};

Communicator::Communicator(Team &team, SymmetricHeap &heap,
                           std::shared_ptr<KernelSource> source)
    : team_(&team), heap_(&heap), source_(std::move(source)) {}
Communicator::Communicator(Communicator &&) noexcept = default;
Communicator &Communicator::operator=(Communicator &&) noexcept = default;
Communicator::~Communicator() = default;

Expected<Kernel *> Communicator::kernel(const KernelInstance &instance) {
  return kernel(instance, instance.kernelName);
}

Expected<Kernel *> Communicator::kernel(const KernelInstance &instance,
                                        const std::string &name) {
  std::string key = instance.key();
  auto found = kernels_.find(key);
  if (found == kernels_.end()) {
    if (!source_)
      return Error(ErrorCode::InvalidArgument,
                   "the communicator has no kernel source");
    Expected<Bundle> bundle = source_->bundleFor(instance);
    if (!bundle)
      return std::move(bundle).takeError().addContext(
          "building kernel instance " + key);
    WEAVE_ASSIGN_OR_RETURN(Program program,
                           Program::load(*team_, std::move(bundle).value()));
    found = kernels_
                .emplace(key, std::make_unique<Loaded>(
                                  Loaded{std::move(program), {}}))
                .first;
  }
  Loaded &loaded = *found->second;
  auto known = loaded.kernels.find(name);
  if (known != loaded.kernels.end())
    return known->second.get();
  WEAVE_ASSIGN_OR_RETURN(Kernel kernel, Kernel::get(loaded.program, name));
  auto made = std::make_unique<Kernel>(std::move(kernel));
  Kernel *result = made.get();
  loaded.kernels.emplace(name, std::move(made));
  return result;
}

} // namespace weave::ops
