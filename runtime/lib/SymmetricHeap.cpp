//===- SymmetricHeap.cpp - Memory at the same offset on every GPU ---------===//

#include "weave/runtime/SymmetricHeap.h"
#include "weave/runtime/detail/SymmetricAllocator.h"
#include "weave/runtime/detail/TeamState.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <optional>

namespace weave {

namespace {

std::atomic<uint64_t> nextHeapId{1};

size_t roundUp(size_t value, size_t to) { return (value + to - 1) / to * to; }

/// Semaphore arrays start on their own 128-byte line.
constexpr uint64_t kSemaphoreLine = 128;

void report(CUresult result, const char *what) {
  if (result == CUDA_SUCCESS)
    return;
  const char *name = "?";
  cuGetErrorName(result, &name);
  std::fprintf(stderr, "weave: warning: %s failed with %s\n", what, name);
}

} // namespace

struct SymmetricHeap::State {
  std::shared_ptr<detail::TeamState> team;
  uint64_t id = 0;
  size_t size = 0;    ///< per member, rounded (external: the buffer's bytes)
  size_t padOffset = 0; ///< the signal pad, from the base of every member
  size_t padBytes = 0;
  /// Offsets of buffers (outside the pad) and of semaphore arrays (in it).
  std::optional<SymmetricAllocator> data, pad;
  /// Made by fromExternal: nothing to unmap or release.
  bool external = false;
  /// Physical allocations this process holds (created or imported).
  std::vector<CUmemGenericAllocationHandle> handles;
  struct Local {
    CUdeviceptr base = 0;      ///< reservation of size * teamSize bytes
    uint32_t mapped = 0;       ///< members mapped so far (0..teamSize)
    bool accessSet = false;
    CUdeviceptr table = 0;     ///< u64[teamSize]
    std::vector<uint64_t> bases;
  };
  std::vector<Local> locals;

  ~State() { destroy(); }
  void destroy();
  Status zeroPad();
  /// Zeroes [offset, offset + bytes) of every local member's own copy.
  Status zero(size_t offset, size_t bytes);
};

void SymmetricHeap::State::destroy() {
  for (size_t i = locals.size(); i-- > 0;) {
    Local &local = locals[i];
    if (team && i < team->devices.size())
      report(cuCtxSetCurrent(team->devices[i].context()),
             "making a device current to free the symmetric heap");
    report(cuCtxSynchronize(), "synchronizing before freeing the heap");
    if (local.table)
      report(cuMemFree(local.table), "freeing the peer bases table");
    if (external)
      continue;
    for (uint32_t r = local.mapped; r-- > 0;)
      report(cuMemUnmap(local.base + r * size, size),
             "unmapping a symmetric heap member");
    if (local.base)
      report(cuMemAddressFree(local.base, size * team->size),
             "freeing the symmetric heap address range");
  }
  locals.clear();
  for (size_t h = handles.size(); h-- > 0;)
    report(cuMemRelease(handles[h]), "releasing a symmetric heap allocation");
  handles.clear();
}

Status SymmetricHeap::State::zeroPad() { return zero(padOffset, padBytes); }

Status SymmetricHeap::State::zero(size_t offset, size_t bytes) {
  for (size_t i = 0; i < locals.size(); ++i) {
    const Device &device = team->devices[i];
    WEAVE_TRY(device.makeCurrent());
    CUdeviceptr own = locals[i].bases[team->ranks[i]] + offset;
    WEAVE_CU_TRY(cuMemsetD32(own, 0, bytes / 4),
                 "zeroing the signal pad on device " +
                     std::to_string(device.ordinal()));
    WEAVE_CU_TRY(cuCtxSynchronize(), "zeroing the signal pad on device " +
                                         std::to_string(device.ordinal()));
  }
  return ok();
}

Expected<SymmetricHeap> SymmetricHeap::create(Team &team,
                                              size_t bytesPerDevice,
                                              size_t signalPadBytes) {
  auto state = std::make_unique<State>();
  state->team = team.state();
  state->id = nextHeapId++;
  uint32_t teamSize = team.size();
  size_t localCount = team.localCount();
  state->padBytes = roundUp(std::max<size_t>(signalPadBytes, 256), 256);
  Bootstrap *boot = team.bootstrap();

  // Properties and granularity (the largest of all members).
  std::vector<CUmemAllocationProp> props(localCount);
  size_t granularity = 1;
  for (size_t i = 0; i < localCount; ++i) {
    const Device &device = team.device(i);
    WEAVE_ASSIGN_OR_RETURN(bool fdHandles, device.supportsFdHandles());
    CUmemAllocationProp &prop = props[i];
    prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device.ordinal();
    prop.requestedHandleTypes =
        fdHandles ? CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
                  : CU_MEM_HANDLE_TYPE_NONE;
    size_t g = 0;
    WEAVE_CU_TRY(cuMemGetAllocationGranularity(
                     &g, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED),
                 "querying the allocation granularity");
    granularity = std::max(granularity, g);
  }
  size_t size = roundUp(bytesPerDevice + state->padBytes, granularity);
  if (boot) {
    WEAVE_ASSIGN_OR_RETURN(std::vector<uint64_t> sizes,
                           boot->allGatherU64(size));
    for (uint64_t v : sizes)
      size = std::max<size_t>(size, v);
  }
  state->size = size;
  state->pad.emplace(0, state->padBytes, kSemaphoreLine);
  state->data.emplace(state->padBytes, size);

  // Physical memory: handles[r] is member r's allocation.
  std::vector<CUmemGenericAllocationHandle> byRank(teamSize, 0);
  for (size_t i = 0; i < localCount; ++i) {
    CUmemGenericAllocationHandle handle;
    WEAVE_CU_TRY(cuMemCreate(&handle, size, &props[i], 0),
                 "allocating " + std::to_string(size) +
                     " symmetric heap bytes on device " +
                     std::to_string(team.device(i).ordinal()));
    state->handles.push_back(handle);
    byRank[team.rankOf(i)] = handle;
  }
  if (boot) {
    int fd = -1;
    WEAVE_CU_TRY(cuMemExportToShareableHandle(
                     &fd, state->handles[0],
                     CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
                 "exporting the symmetric heap as a POSIX fd");
    UniqueFd exported(fd);
    WEAVE_ASSIGN_OR_RETURN(
        std::vector<UniqueFd> fds,
        team.state()->handleExchange->allGatherFd(*boot, exported.get()));
    for (uint32_t r = 0; r < teamSize; ++r) {
      if (r == team.rankOf(0))
        continue;
      CUmemGenericAllocationHandle imported;
      WEAVE_CU_TRY(cuMemImportFromShareableHandle(
                       &imported,
                       reinterpret_cast<void *>(
                           static_cast<uintptr_t>(fds[r].get())),
                       CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
                   "importing rank " + std::to_string(r) + "'s heap");
      state->handles.push_back(imported);
      byRank[r] = imported;
    }
  }

  // Map every member into every local device.
  state->locals.resize(localCount);
  for (size_t i = 0; i < localCount; ++i) {
    const Device &device = team.device(i);
    State::Local &local = state->locals[i];
    std::string on = " on device " + std::to_string(device.ordinal());
    WEAVE_TRY(device.makeCurrent());
    WEAVE_CU_TRY(cuMemAddressReserve(&local.base, size * teamSize,
                                     granularity, 0, 0),
                 "reserving the symmetric heap address range" + on);
    for (uint32_t r = 0; r < teamSize; ++r) {
      WEAVE_CU_TRY(cuMemMap(local.base + size_t(r) * size, size, 0,
                            byRank[r], 0),
                   "mapping rank " + std::to_string(r) + "'s heap" + on);
      local.mapped = r + 1;
    }
    CUmemAccessDesc access = {};
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = device.ordinal();
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CUresult result = cuMemSetAccess(local.base, size * teamSize, &access, 1);
    if (result == CUDA_ERROR_INVALID_DEVICE || result == CUDA_ERROR_NOT_SUPPORTED)
      return Error(ErrorCode::PeerAccess,
                   "device " + std::to_string(device.ordinal()) +
                       " cannot be given access to its peers' heaps "
                       "(cuMemSetAccess failed)");
    WEAVE_CU_TRY(result, "granting access to the symmetric heap" + on);
    local.accessSet = true;
    local.bases.resize(teamSize);
    for (uint32_t r = 0; r < teamSize; ++r)
      local.bases[r] = local.base + size_t(r) * size;
    WEAVE_CU_TRY(cuMemAlloc(&local.table, sizeof(uint64_t) * teamSize),
                 "allocating the peer bases table" + on);
    WEAVE_CU_TRY(cuMemcpyHtoD(local.table, local.bases.data(),
                              sizeof(uint64_t) * teamSize),
                 "writing the peer bases table" + on);
  }
  WEAVE_TRY(state->zeroPad());
  // No member may signal before every pad is zero.
  if (boot)
    WEAVE_TRY(boot->barrier());
  return SymmetricHeap(std::move(state));
}

Expected<SymmetricHeap>
SymmetricHeap::fromExternal(Team &team, const ExternalSymmetricMemory &memory) {
  uint32_t teamSize = team.size();
  size_t localCount = team.localCount();
  auto invalid = [](const std::string &what) {
    return Error(ErrorCode::InvalidArgument, "external symmetric memory: " + what);
  };
  if (memory.peerBases.size() != localCount)
    return invalid("expected peer bases for " + std::to_string(localCount) +
                   " local members, found " +
                   std::to_string(memory.peerBases.size()));
  for (size_t i = 0; i < localCount; ++i) {
    if (memory.peerBases[i].size() != teamSize)
      return invalid("local member " + std::to_string(i) + " has " +
                     std::to_string(memory.peerBases[i].size()) +
                     " peer bases, expected one per member (" +
                     std::to_string(teamSize) + ")");
    for (uint32_t r = 0; r < teamSize; ++r)
      if (memory.peerBases[i][r] == 0)
        return invalid("local member " + std::to_string(i) +
                       " has no base for member " + std::to_string(r));
  }
  if (memory.bytes == 0)
    return invalid("the buffer has 0 bytes");
  if (memory.signalPadBytes < 4 || memory.signalPadBytes % 4 != 0)
    return invalid("expected a signal pad of a positive multiple of 4 "
                   "bytes, found " + std::to_string(memory.signalPadBytes));

  // Where the pad is, relative to the buffer: the same distance on every
  // member as seen from every local member, since a kernel reaches a peer's
  // counter at peer_bases[peer] + (counter - peer_bases[rank]). The heap's
  // bases are the lower of the two, so that every offset is positive.
  std::vector<std::vector<uint64_t>> bases = memory.peerBases;
  uint64_t dataBegin = 0, padBegin = 0;
  if (memory.signalPads.empty()) {
    if (memory.signalPadBytes >= memory.bytes)
      return invalid("the signal pad (" +
                     std::to_string(memory.signalPadBytes) +
                     " bytes) does not leave room in a buffer of " +
                     std::to_string(memory.bytes) + " bytes");
    dataBegin = memory.signalPadBytes; // the buffer's first bytes
  } else {
    if (memory.signalPads.size() != localCount)
      return invalid("expected signal pads for " + std::to_string(localCount) +
                     " local members, found " +
                     std::to_string(memory.signalPads.size()));
    // pad - buffer, as a two's complement distance.
    uint64_t distance = 0;
    for (size_t i = 0; i < localCount; ++i) {
      if (memory.signalPads[i].size() != teamSize)
        return invalid("local member " + std::to_string(i) + " has " +
                       std::to_string(memory.signalPads[i].size()) +
                       " signal pads, expected " + std::to_string(teamSize));
      for (uint32_t r = 0; r < teamSize; ++r) {
        uint64_t d = memory.signalPads[i][r] - memory.peerBases[i][r];
        if (i == 0 && r == 0)
          distance = d;
        else if (d != distance)
          return invalid("member " + std::to_string(r) +
                         "'s signal pad is not at the same distance from its "
                         "buffer (on local member " + std::to_string(i) +
                         ") as member 0's: the pad must sit at the same "
                         "offset from the buffer on every member");
      }
    }
    bool above = static_cast<int64_t>(distance) >= 0;
    uint64_t gap = above ? distance : uint64_t(0) - distance;
    if (above ? gap < memory.bytes : gap < memory.signalPadBytes)
      return invalid("the signal pad overlaps the buffer (they are " +
                     std::to_string(gap) + " bytes apart): give a pad "
                     "outside the buffer, or none (the buffer's first bytes "
                     "then become the pad)");
    if (above) {
      padBegin = gap;
    } else {
      dataBegin = gap;
      bases = memory.signalPads;
    }
  }
  uint64_t dataEnd = dataBegin + memory.bytes -
                     (memory.signalPads.empty() ? memory.signalPadBytes : 0);
  uint64_t padEnd = padBegin + memory.signalPadBytes;

  auto state = std::make_unique<State>();
  state->team = team.state();
  state->id = nextHeapId++;
  state->external = true;
  state->size = std::max(dataEnd, padEnd);
  state->padOffset = padBegin;
  state->padBytes = memory.signalPadBytes;
  state->pad.emplace(padBegin, padEnd, kSemaphoreLine);
  state->data.emplace(dataBegin, dataEnd);
  state->locals.resize(localCount);
  for (size_t i = 0; i < localCount; ++i) {
    const Device &device = team.device(i);
    State::Local &local = state->locals[i];
    std::string on = " on device " + std::to_string(device.ordinal());
    WEAVE_TRY(device.makeCurrent());
    local.bases = bases[i];
    WEAVE_CU_TRY(cuMemAlloc(&local.table, sizeof(uint64_t) * teamSize),
                 "allocating the peer bases table" + on);
    WEAVE_CU_TRY(cuMemcpyHtoD(local.table, local.bases.data(),
                              sizeof(uint64_t) * teamSize),
                 "writing the peer bases table" + on);
  }
  WEAVE_TRY(state->zeroPad());
  if (Bootstrap *boot = team.bootstrap())
    WEAVE_TRY(boot->barrier());
  return SymmetricHeap(std::move(state));
}

SymmetricHeap::SymmetricHeap(std::unique_ptr<State> state)
    : state_(std::move(state)) {}
SymmetricHeap::SymmetricHeap(SymmetricHeap &&) noexcept = default;
SymmetricHeap &SymmetricHeap::operator=(SymmetricHeap &&) noexcept = default;
SymmetricHeap::~SymmetricHeap() = default;

Expected<SymmetricBuffer> SymmetricHeap::allocate(size_t bytes,
                                                  size_t alignment) {
  alignment = std::max<size_t>(alignment, 16);
  WEAVE_ASSIGN_OR_RETURN(uint64_t offset,
                         state_->data->allocate(bytes, alignment));
  SymmetricBuffer buffer;
  buffer.heapId = state_->id;
  buffer.offset = offset;
  buffer.bytes = bytes;
  return buffer;
}

Status SymmetricHeap::free(const SymmetricBuffer &buffer) {
  if (buffer.heapId != state_->id)
    return Error(ErrorCode::InvalidArgument,
                 "cannot free a buffer of heap " +
                     std::to_string(buffer.heapId) + " in heap " +
                     std::to_string(state_->id));
  return state_->data->free(buffer.offset);
}

Expected<SymmetricBuffer>
SymmetricHeap::allocateTensor(const std::string &dtype,
                              std::vector<int64_t> shape, size_t alignment) {
  Expected<DType> known = parseDType(dtype);
  if (!known)
    return std::move(known).takeError().addContext("cannot allocate a tensor");
  ParamInfo probe;
  probe.kind = abi::ParamKind::Symmetric;
  probe.dtype = dtype;
  probe.shape = shape;
  uint64_t bytes = tensorBytes(probe);
  if (bytes == 0)
    return Error(ErrorCode::InvalidArgument,
                 "cannot allocate a tensor of dtype '" + dtype +
                     "' with an empty or non-positive shape");
  WEAVE_ASSIGN_OR_RETURN(SymmetricBuffer buffer, allocate(bytes, alignment));
  buffer.dtype = dtype;
  buffer.shape = std::move(shape);
  return buffer;
}

Expected<SemaphoreArray> SymmetricHeap::allocateSemaphores(uint32_t count) {
  if (count == 0)
    return Error(ErrorCode::InvalidArgument, "cannot allocate 0 semaphores");
  // Each array starts on its own 128-byte line.
  size_t bytes = size_t(count) * sizeof(abi::SemaphoreWord);
  Expected<uint64_t> offset = state_->pad->allocate(bytes, kSemaphoreLine);
  if (!offset)
    return Error(ErrorCode::Exhausted,
                 "signal pad exhausted: " + std::to_string(count) +
                     " semaphores requested, pad is " +
                     std::to_string(state_->padBytes) + " bytes (" +
                     std::to_string(state_->pad->bytesInUse()) +
                     " in use; every op holds its semaphores for its life: "
                     "free ops, or make the heap with a larger pad, "
                     "SymmetricHeap::create's signalPadBytes, Python's "
                     "SymmetricMemory(..., signal_pad_bytes=))");
  return SemaphoreArray{state_->id, *offset, count};
}

Status SymmetricHeap::free(const SemaphoreArray &sems) {
  if (sems.heapId != state_->id)
    return Error(ErrorCode::InvalidArgument,
                 "cannot free semaphores of heap " +
                     std::to_string(sems.heapId) + " in heap " +
                     std::to_string(state_->id));
  // Zeroed before they can be handed out again; the barrier keeps a process
  // that reuses them from signalling a member that has not zeroed yet.
  WEAVE_TRY(state_->pad->free(sems.offset));
  WEAVE_TRY(state_->zero(sems.offset,
                         size_t(sems.count) * sizeof(abi::SemaphoreWord)));
  if (state_->team->bootstrap)
    WEAVE_TRY(state_->team->bootstrap->barrier());
  return ok();
}

Status SymmetricHeap::resetSemaphores() {
  Bootstrap *boot = state_->team->bootstrap.get();
  for (const Device &device : state_->team->devices) {
    WEAVE_TRY(device.makeCurrent());
    WEAVE_CU_TRY(cuCtxSynchronize(), "synchronizing before a semaphore reset");
  }
  if (boot)
    WEAVE_TRY(boot->barrier());
  WEAVE_TRY(state_->zeroPad());
  if (boot)
    WEAVE_TRY(boot->barrier());
  return ok();
}

uint64_t SymmetricHeap::id() const { return state_->id; }
bool SymmetricHeap::isExternal() const { return state_->external; }
size_t SymmetricHeap::bytesInUse() const { return state_->data->bytesInUse(); }

size_t SymmetricHeap::occupiedBytes(size_t bytes) {
  // The data range's allocator keeps the default smallest block (create()
  // and fromExternal()).
  return SymmetricAllocator::blockSize(bytes, SymmetricAllocator::kMinBlock);
}

size_t SymmetricHeap::bytesPerDevice() const { return state_->size; }
size_t SymmetricHeap::signalPadBytes() const { return state_->padBytes; }
uint32_t SymmetricHeap::teamSize() const { return state_->team->size; }
size_t SymmetricHeap::localCount() const { return state_->locals.size(); }
const std::shared_ptr<detail::TeamState> &SymmetricHeap::team() const {
  return state_->team;
}

CUdeviceptr SymmetricHeap::localPointer(const SymmetricBuffer &buffer,
                                        size_t local) const {
  return peerPointer(buffer, local, state_->team->ranks[local]);
}

CUdeviceptr SymmetricHeap::peerPointer(const SymmetricBuffer &buffer,
                                       size_t local, uint32_t peerRank) const {
  return state_->locals[local].bases[peerRank] + buffer.offset;
}

CUdeviceptr SymmetricHeap::localPointer(const SemaphoreArray &sems,
                                        size_t local) const {
  return peerPointer(sems, local, state_->team->ranks[local]);
}

CUdeviceptr SymmetricHeap::peerPointer(const SemaphoreArray &sems,
                                       size_t local, uint32_t peerRank) const {
  return state_->locals[local].bases[peerRank] + sems.offset;
}

CUdeviceptr SymmetricHeap::peerBasesTable(size_t local) const {
  return state_->locals[local].table;
}

const std::vector<uint64_t> &SymmetricHeap::peerBases(size_t local) const {
  return state_->locals[local].bases;
}

} // namespace weave
