//===- Communicator.h - What every op is created on -------------*- C++ -*-===//
//
// A team, its symmetric heap and a kernel source. The communicator loads
// each kernel instance once (a Program + Kernel per instance key) and the
// ops created on it share those kernels. It refers to the team and the heap:
// both must outlive it and its ops.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_OPS_COMMUNICATOR_H
#define WEAVE_OPS_COMMUNICATOR_H

#include "weave/ops/KernelSource.h"
#include "weave/runtime/Kernel.h"
#include "weave/runtime/SymmetricHeap.h"
#include "weave/runtime/Team.h"

#include <map>
#include <memory>
#include <string>

namespace weave::ops {

class Communicator {
public:
  Communicator(Team &team, SymmetricHeap &heap,
               std::shared_ptr<KernelSource> source);
  Communicator(Communicator &&) noexcept;
  Communicator &operator=(Communicator &&) noexcept;
  ~Communicator();

  Team &team() { return *team_; }
  SymmetricHeap &heap() { return *heap_; }
  /// The kernel of `instance`, loaded on every local member (the source is
  /// asked once per instance key).
  Expected<Kernel *> kernel(const KernelInstance &instance);
  /// Kernel `name` of the instance's bundle (loaded once per instance key,
  /// each kernel once per name).
  Expected<Kernel *> kernel(const KernelInstance &instance,
                            const std::string &name);

private:
  struct Loaded;
  Team *team_;
  SymmetricHeap *heap_;
  std::shared_ptr<KernelSource> source_;
  std::map<std::string, std::unique_ptr<Loaded>> kernels_;
};

} // namespace weave::ops

#endif // WEAVE_OPS_COMMUNICATOR_H
