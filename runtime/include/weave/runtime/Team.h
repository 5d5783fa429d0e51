//===- Team.h - The GPUs running one kernel together ------------*- C++ -*-===//
//
// In-process: one process drives N GPUs (primary contexts, nothing enabled
// globally). Multi-process: one GPU per process, ranks from torchrun-style
// RANK / WORLD_SIZE / LOCAL_RANK, joined through a Bootstrap (the Unix-socket
// rendezvous by default, or any implementation the caller gives, e.g. a
// StoreBootstrap), heap handles exchanged by a HandleExchange strategy.
// Loopback: one process drives D members on P <= D GPUs (several members per
// GPU), to test multi-GPU protocols for correctness on one GPU
// (docs/RUNTIME.md, "Loopback teams").
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_RUNTIME_TEAM_H
#define WEAVE_RUNTIME_TEAM_H

#include "weave/runtime/Bootstrap.h"
#include "weave/runtime/Device.h"
#include "weave/runtime/HandleExchange.h"

#include <chrono>
#include <memory>
#include <optional>
#include <vector>

namespace weave {

struct TeamOptions {
  /// Empty: rendezvousDirFromEnvironment().
  std::string rendezvousDir;
  /// Deadline of the rendezvous and of every bootstrap collective.
  std::chrono::milliseconds timeout{60000};
  /// When > 0, createFromEnvironment builds a loopback team of this many
  /// members in this process over the visible GPUs (createLoopback) instead
  /// of reading RANK / WORLD_SIZE. 0: $WEAVE_LOOPBACK_TEAM decides
  /// (loopbackMembersFromEnvironment), unset means no loopback.
  uint32_t loopbackMembers = 0;
  /// Multi-process: how heap handles travel. Null: defaultHandleExchange
  /// (the socket bootstrap's connections, else Unix datagram sockets).
  std::shared_ptr<HandleExchange> handleExchange;
};

namespace detail {
/// What a Team shares with the heaps and kernels created from it
/// (weave/runtime/detail/TeamState.h, internal).
struct TeamState;
} // namespace detail

/// Move-only handle to a team.
class Team {
public:
  /// One process, the given device ordinals; member i has rank i. Each
  /// device is listed once.
  static Expected<Team> createInProcess(std::vector<int> deviceOrdinals);
  /// A loopback team: `members` members in this process, member i on
  /// deviceOrdinals[i % P]. Each member has its own symmetric heap
  /// allocation, signal pad and stream, so the kernels see exactly what they
  /// see across GPUs; on one GPU they run concurrently and share its SMs.
  static Expected<Team> createLoopback(uint32_t members,
                                       std::vector<int> deviceOrdinals = {0});
  /// One GPU per process: RANK, WORLD_SIZE, LOCAL_RANK (device ordinal =
  /// LOCAL_RANK, or 0 when only one device is visible). With
  /// options.loopbackMembers or $WEAVE_LOOPBACK_TEAM set: createLoopback
  /// over the first min(members, visible) GPUs instead.
  static Expected<Team> createFromEnvironment(const TeamOptions &options = {});
  /// As createFromEnvironment with explicit values: joins through a
  /// SocketBootstrap in options.rendezvousDir.
  static Expected<Team> createMultiProcess(const LaunchEnvironment &launch,
                                           const TeamOptions &options);
  /// One GPU per process (device `deviceOrdinal`) joined by `bootstrap`,
  /// any implementation (its rank and world size are the team's); the team
  /// keeps it and uses it for every later collective (heaps, barriers).
  /// options.rendezvousDir and options.timeout are not used here.
  static Expected<Team> createMultiProcess(std::shared_ptr<Bootstrap> bootstrap,
                                           int deviceOrdinal,
                                           const TeamOptions &options = {});

  Team(Team &&) = default;
  Team &operator=(Team &&) = default;
  Team(const Team &) = delete;
  Team &operator=(const Team &) = delete;

  /// Number of devices in the team (all processes).
  uint32_t size() const;
  /// Number of members driven by this process.
  size_t localCount() const;
  /// Team rank of local member `local`.
  uint32_t rankOf(size_t local) const;
  const Device &device(size_t local) const;
  bool isMultiProcess() const;
  /// True when some GPU hosts more than one member of this process.
  bool isLoopback() const;
  /// How many local members (local member `local` included) run on the GPU
  /// of local member `local`: they share its SMs.
  uint32_t membersOnDevice(size_t local) const;
  /// The bootstrap (multi-process teams), else null.
  Bootstrap *bootstrap();
  /// How heap handles travel (multi-process teams), else null.
  HandleExchange *handleExchange();
  /// Synchronizes every local context, then (multi-process) a bootstrap
  /// barrier.
  Status synchronize();

  /// The state heaps and kernels keep alive (opaque outside the runtime).
  const std::shared_ptr<detail::TeamState> &state() const { return state_; }

private:
  /// One member per listed ordinal (repeats allowed), checks VMM support and
  /// peer access between distinct devices.
  static Expected<Team> createOnDevices(std::vector<int> deviceOrdinals);
  explicit Team(std::shared_ptr<detail::TeamState> state)
      : state_(std::move(state)) {}
  std::shared_ptr<detail::TeamState> state_;
};

} // namespace weave

#endif // WEAVE_RUNTIME_TEAM_H
