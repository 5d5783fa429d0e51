//===- TeamState.h - What a team shares with its heaps and kernels -*- C++ -*-//
//
// Internal: a Team, the heaps and the kernels created from it hold it by
// shared_ptr, so that moving the Team handle never invalidates them.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_RUNTIME_DETAIL_TEAMSTATE_H
#define WEAVE_RUNTIME_DETAIL_TEAMSTATE_H

#include "weave/runtime/Bootstrap.h"
#include "weave/runtime/Device.h"
#include "weave/runtime/HandleExchange.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace weave {
namespace detail {
/// Shared by a Team and the heaps/kernels created from it, so that moving
/// the Team handle never invalidates them.
struct TeamState {
  uint32_t size = 0;
  std::vector<Device> devices;   ///< local members
  std::vector<uint32_t> ranks;   ///< team rank of each local member
  std::shared_ptr<Bootstrap> bootstrap; ///< multi-process only
  /// How exported heap handles travel (multi-process only).
  std::shared_ptr<HandleExchange> handleExchange;

  /// Local members on the GPU of local member `local` (itself included).
  uint32_t membersOnDevice(size_t local) const;
};
} // namespace detail
} // namespace weave

#endif // WEAVE_RUNTIME_DETAIL_TEAMSTATE_H
