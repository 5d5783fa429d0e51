//===- Team.cpp - The GPUs running one kernel together --------------------===//

#include "weave/runtime/Team.h"
#include "weave/runtime/detail/TeamState.h"

#include <algorithm>
#include <cstring>
#include <set>

namespace weave {

namespace {

Status checkVmmSupport(const Device &device) {
  int vmm = 0;
  WEAVE_CU_TRY(cuDeviceGetAttribute(
                   &vmm,
                   CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
                   device.handle()),
               "querying virtual memory management support");
  if (!vmm)
    return Error(ErrorCode::PeerAccess,
                 "device " + std::to_string(device.ordinal()) +
                     " does not support virtual memory management "
                     "(cuMemCreate/cuMemMap)");
  return ok();
}

Status checkPeerAccess(CUdevice from, int fromOrdinal, CUdevice to,
                       int toOrdinal) {
  int can = 0;
  WEAVE_CU_TRY(cuDeviceCanAccessPeer(&can, from, to),
               "checking peer access between devices");
  if (!can)
    return Error(ErrorCode::PeerAccess,
                 "device " + std::to_string(fromOrdinal) +
                     " cannot access the memory of device " +
                     std::to_string(toOrdinal) + " (no P2P path)");
  return ok();
}

/// A device one process of a multi-process team can use: VMM, and memory
/// exportable as POSIX file descriptors (what the handle exchanges move).
Status checkMultiProcessDevice(const Device &device) {
  WEAVE_TRY(checkVmmSupport(device));
  WEAVE_ASSIGN_OR_RETURN(bool fdHandles, device.supportsFdHandles());
  if (!fdHandles)
    return Error(ErrorCode::PeerAccess,
                 "device " + std::to_string(device.ordinal()) +
                     " cannot export memory as POSIX file descriptors");
  return ok();
}

} // namespace

Expected<Team> Team::createInProcess(std::vector<int> deviceOrdinals) {
  if (deviceOrdinals.empty())
    return Error(ErrorCode::InvalidArgument, "a team needs at least 1 device");
  std::set<int> unique(deviceOrdinals.begin(), deviceOrdinals.end());
  if (unique.size() != deviceOrdinals.size())
    return Error(ErrorCode::InvalidArgument,
                 "a team lists the same device twice (for several members "
                 "on one GPU use Team::createLoopback)");
  return createOnDevices(std::move(deviceOrdinals));
}

Expected<Team> Team::createOnDevices(std::vector<int> deviceOrdinals) {
  auto state = std::make_shared<detail::TeamState>();
  state->size = static_cast<uint32_t>(deviceOrdinals.size());
  for (size_t i = 0; i < deviceOrdinals.size(); ++i) {
    WEAVE_ASSIGN_OR_RETURN(Device device, Device::open(deviceOrdinals[i]));
    WEAVE_TRY(checkVmmSupport(device));
    state->devices.push_back(std::move(device));
    state->ranks.push_back(static_cast<uint32_t>(i));
  }
  for (const Device &a : state->devices)
    for (const Device &b : state->devices)
      if (a.ordinal() != b.ordinal())
        WEAVE_TRY(
            checkPeerAccess(a.handle(), a.ordinal(), b.handle(), b.ordinal()));
  return Team(std::move(state));
}

Expected<Team> Team::createLoopback(uint32_t members,
                                    std::vector<int> deviceOrdinals) {
  if (members == 0 || members > kMaxLoopbackMembers)
    return Error(ErrorCode::InvalidArgument,
                 "a loopback team has 1 to " +
                     std::to_string(kMaxLoopbackMembers) + " members, not " +
                     std::to_string(members));
  if (deviceOrdinals.empty())
    return Error(ErrorCode::InvalidArgument,
                 "a loopback team needs at least 1 device");
  std::set<int> unique(deviceOrdinals.begin(), deviceOrdinals.end());
  if (unique.size() != deviceOrdinals.size())
    return Error(ErrorCode::InvalidArgument,
                 "a loopback team lists the same device twice (members are "
                 "spread over the listed devices)");
  if (deviceOrdinals.size() > members)
    deviceOrdinals.resize(members);
  std::vector<int> placement;
  for (uint32_t i = 0; i < members; ++i)
    placement.push_back(deviceOrdinals[i % deviceOrdinals.size()]);
  return createOnDevices(std::move(placement));
}

Expected<Team> Team::createFromEnvironment(const TeamOptions &options) {
  uint32_t loopback = options.loopbackMembers;
  if (loopback == 0) {
    WEAVE_ASSIGN_OR_RETURN(loopback, loopbackMembersFromEnvironment());
  }
  if (loopback > 0) {
    WEAVE_ASSIGN_OR_RETURN(int count, deviceCount());
    std::vector<int> ordinals;
    for (int i = 0; i < count && i < static_cast<int>(loopback); ++i)
      ordinals.push_back(i);
    return createLoopback(loopback, std::move(ordinals));
  }
  WEAVE_ASSIGN_OR_RETURN(LaunchEnvironment launch, launchEnvironment());
  return createMultiProcess(launch, options);
}

Expected<Team> Team::createMultiProcess(const LaunchEnvironment &launch,
                                        const TeamOptions &options) {
  BootstrapOptions boot;
  boot.rank = launch.rank;
  boot.worldSize = launch.worldSize;
  boot.timeout = options.timeout;
  boot.rendezvousDir = options.rendezvousDir;
  if (boot.rendezvousDir.empty() && launch.worldSize > 1) {
    WEAVE_ASSIGN_OR_RETURN(boot.rendezvousDir, rendezvousDirFromEnvironment());
  }
  WEAVE_ASSIGN_OR_RETURN(int count, deviceCount());
  int ordinal = count == 1 ? 0 : launch.localRank;
  // The device is checked before the rendezvous, so that a rank without a
  // usable GPU fails at once (its peers then time out naming it).
  WEAVE_ASSIGN_OR_RETURN(Device device, Device::open(ordinal));
  WEAVE_TRY(checkMultiProcessDevice(device));
  WEAVE_ASSIGN_OR_RETURN(std::unique_ptr<SocketBootstrap> bootstrap,
                         SocketBootstrap::connect(boot));
  return createMultiProcess(std::shared_ptr<Bootstrap>(std::move(bootstrap)),
                            ordinal, options);
}

Expected<Team> Team::createMultiProcess(std::shared_ptr<Bootstrap> bootstrap,
                                        int deviceOrdinal,
                                        const TeamOptions &options) {
  if (!bootstrap)
    return Error(ErrorCode::InvalidArgument,
                 "a multi-process team needs a bootstrap");
  int rank = bootstrap->rank(), worldSize = bootstrap->worldSize();
  WEAVE_ASSIGN_OR_RETURN(Device device, Device::open(deviceOrdinal));
  WEAVE_TRY(checkMultiProcessDevice(device));

  auto state = std::make_shared<detail::TeamState>();
  state->size = static_cast<uint32_t>(worldSize);
  state->ranks.push_back(static_cast<uint32_t>(rank));
  // Every rank learns every rank's device (by PCI bus id) and checks that
  // its device can reach each of them.
  std::vector<uint8_t> mine(device.pciBusId().begin(), device.pciBusId().end());
  WEAVE_ASSIGN_OR_RETURN(auto busIds, bootstrap->allGather(mine));
  for (int r = 0; r < worldSize; ++r) {
    std::string bus(busIds[r].begin(), busIds[r].end());
    if (r != rank && bus == device.pciBusId())
      return Error(ErrorCode::InvalidArgument,
                   "ranks " + std::to_string(rank) + " and " +
                       std::to_string(r) + " both use device " + bus);
    CUdevice peer;
    if (r != rank && cuDeviceGetByPCIBusId(&peer, bus.c_str()) == CUDA_SUCCESS)
      WEAVE_TRY(checkPeerAccess(device.handle(), deviceOrdinal, peer, -1));
  }
  state->devices.push_back(std::move(device));
  state->handleExchange =
      options.handleExchange
          ? options.handleExchange
          : std::shared_ptr<HandleExchange>(
                defaultHandleExchange(*bootstrap, options.timeout));
  state->bootstrap = std::move(bootstrap);
  return Team(std::move(state));
}

bool Team::isLoopback() const {
  for (size_t i = 0; i < localCount(); ++i)
    if (membersOnDevice(i) > 1)
      return true;
  return false;
}

uint32_t Team::membersOnDevice(size_t local) const {
  return state_->membersOnDevice(local);
}

uint32_t Team::size() const { return state_->size; }
size_t Team::localCount() const { return state_->devices.size(); }
uint32_t Team::rankOf(size_t local) const { return state_->ranks[local]; }
const Device &Team::device(size_t local) const {
  return state_->devices[local];
}
bool Team::isMultiProcess() const { return state_->bootstrap != nullptr; }
Bootstrap *Team::bootstrap() { return state_->bootstrap.get(); }
HandleExchange *Team::handleExchange() {
  return state_->handleExchange.get();
}

uint32_t detail::TeamState::membersOnDevice(size_t local) const {
  uint32_t count = 0;
  for (const Device &device : devices)
    count += device.ordinal() == devices[local].ordinal();
  return count;
}

Status Team::synchronize() {
  for (const Device &device : state_->devices) {
    WEAVE_TRY(device.makeCurrent());
    WEAVE_CU_TRY(cuCtxSynchronize(), "synchronizing device " +
                                         std::to_string(device.ordinal()));
  }
  if (state_->bootstrap)
    WEAVE_TRY(state_->bootstrap->barrier());
  return ok();
}

} // namespace weave
