//===- HostSetup.cpp - Team, heap and streams for host programs -----------===//

#include "weave/examples/HostSetup.h"

#include "weave/runtime/Device.h"
#include "weave/runtime/detail/TeamState.h"

#include <cstdio>
#include <cstdlib>
#include <new>

namespace weave {
namespace examples {

namespace {
/// "2 GPUs", "2 to 4 GPUs", "2 or more GPUs".
std::string gpuRange(const TeamRequest &request) {
  std::string min = std::to_string(request.minDevices);
  if (request.maxDevices == request.minDevices)
    return min + " GPUs";
  if (request.maxDevices)
    return min + " to " + std::to_string(request.maxDevices) + " GPUs";
  return min + " or more GPUs";
}

/// The move assignment of LocalStreams and LocalBuffers, as llvm::Expected
/// does it: the destructor releases what `self` holds, the move constructor
/// takes what `other` holds and leaves it nothing to release.
template <typename T> T &moveAssign(T &self, T &other) {
  if (&self != &other) {
    self.~T();
    new (&self) T(std::move(other));
  }
  return self;
}
} // namespace

Expected<uint32_t> loopbackMembers(const TeamRequest &request) {
  if (request.teamOptions.loopbackMembers)
    return request.teamOptions.loopbackMembers;
  return loopbackMembersFromEnvironment();
}

bool isMultiProcessLaunch(const TeamRequest &request) {
  Expected<uint32_t> loopback = loopbackMembers(request);
  return request.allowMultiProcess && std::getenv("WORLD_SIZE") != nullptr &&
         loopback && *loopback == 0;
}

std::string skipReason(const TeamRequest &request) {
  if (Status init = initDriver(); !init)
    return "no CUDA driver here (" + init.error().toString() + ")";
  if (isMultiProcessLaunch(request))
    return ""; // the launcher chose the GPUs; createTeam checks the count
  Expected<int> count = deviceCount();
  if (!count)
    return "cannot count the GPUs (" + count.error().toString() + ")";
  Expected<uint32_t> loopback = loopbackMembers(request);
  if (!loopback)
    return ""; // createTeam reports the bad value
  if (*loopback > 0) // members share the GPUs: one is enough
    return *count >= 1 ? "" : request.program + " needs a GPU, found none";
  if (*count < static_cast<int>(request.minDevices))
    return request.program + " runs on " + gpuRange(request) +
           ", this machine has " + std::to_string(*count);
  return "";
}

bool reportSkip(const TeamRequest &request) {
  std::string why = skipReason(request);
  if (why.empty())
    return false;
  std::printf("SKIP: %s\n", why.c_str());
  return true;
}

Expected<Team> createTeam(const TeamRequest &request) {
  WEAVE_TRY(initDriver());
  auto checkSize = [&](uint32_t size) -> Status {
    if (size < request.minDevices ||
        (request.maxDevices && size > request.maxDevices))
      return Error(ErrorCode::InvalidArgument,
                   request.program + " runs on " + gpuRange(request) +
                       ", the team has " + std::to_string(size));
    return ok();
  };
  if (isMultiProcessLaunch(request)) {
    WEAVE_ASSIGN_OR_RETURN(Team team,
                           Team::createFromEnvironment(request.teamOptions));
    WEAVE_TRY(checkSize(team.size()));
    return team;
  }
  WEAVE_ASSIGN_OR_RETURN(int count, deviceCount());
  WEAVE_ASSIGN_OR_RETURN(uint32_t loopback, loopbackMembers(request));
  if (loopback > 0) {
    WEAVE_TRY(checkSize(loopback));
    std::vector<int> ordinals;
    for (int i = 0; i < count && i < static_cast<int>(loopback); ++i)
      ordinals.push_back(i);
    return Team::createLoopback(loopback, ordinals);
  }
  if (request.maxDevices && count > static_cast<int>(request.maxDevices))
    count = static_cast<int>(request.maxDevices);
  WEAVE_TRY(checkSize(static_cast<uint32_t>(count)));
  std::vector<int> ordinals;
  for (int i = 0; i < count; ++i)
    ordinals.push_back(i);
  return Team::createInProcess(ordinals);
}

//===----------------------------------------------------------------------===//
// LocalStreams
//===----------------------------------------------------------------------===//

Expected<LocalStreams> LocalStreams::create(const Team &team) {
  LocalStreams s;
  s.team_ = team.state();
  for (size_t i = 0; i < team.localCount(); ++i) {
    WEAVE_TRY(team.device(i).makeCurrent());
    CUstream stream = nullptr;
    WEAVE_CU_TRY(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
                 "creating a stream on device " +
                     std::to_string(team.device(i).ordinal()));
    s.streams_.push_back(stream);
  }
  return s;
}

LocalStreams &LocalStreams::operator=(LocalStreams &&other) noexcept {
  return moveAssign(*this, other);
}

LocalStreams::~LocalStreams() { release(); }

Status LocalStreams::synchronize() const {
  for (size_t i = 0; i < streams_.size(); ++i) {
    WEAVE_TRY(team_->devices[i].makeCurrent());
    WEAVE_CU_TRY(cuStreamSynchronize(streams_[i]),
                 "synchronizing the stream of device " +
                     std::to_string(team_->devices[i].ordinal()));
  }
  return ok();
}

void LocalStreams::release() {
  for (size_t i = 0; i < streams_.size(); ++i) {
    if (!team_->devices[i].makeCurrent())
      continue;
    cuStreamSynchronize(streams_[i]);
    if (cuStreamDestroy(streams_[i]) != CUDA_SUCCESS)
      std::fprintf(stderr,
                   "weave: warning: cuStreamDestroy failed on device "
                   "%d\n",
                   team_->devices[i].ordinal());
  }
  streams_.clear();
}

//===----------------------------------------------------------------------===//
// LocalBuffers
//===----------------------------------------------------------------------===//

Expected<LocalBuffers> LocalBuffers::create(const Team &team,
                                            const std::string &dtype,
                                            std::vector<int64_t> shape) {
  uint32_t elementBytes = dtypeBytes(dtype);
  if (!elementBytes)
    return Error(ErrorCode::InvalidArgument, "unknown dtype '" + dtype + "'");
  uint64_t elements = 1;
  for (int64_t d : shape) {
    if (d <= 0)
      return Error(ErrorCode::InvalidArgument,
                   "buffer dimensions must be positive");
    elements *= static_cast<uint64_t>(d);
  }
  LocalBuffers b;
  b.team_ = team.state();
  b.buffers_.dtype = dtype;
  b.buffers_.shape = std::move(shape);
  b.buffers_.bytes = elements * elementBytes;
  for (size_t i = 0; i < team.localCount(); ++i) {
    WEAVE_TRY(team.device(i).makeCurrent());
    CUdeviceptr ptr = 0;
    WEAVE_CU_TRY(cuMemAlloc(&ptr, b.buffers_.bytes),
                 "allocating " + std::to_string(b.buffers_.bytes) +
                     " bytes on device " +
                     std::to_string(team.device(i).ordinal()));
    b.buffers_.pointers.push_back(ptr);
  }
  return b;
}

LocalBuffers &LocalBuffers::operator=(LocalBuffers &&other) noexcept {
  return moveAssign(*this, other);
}

LocalBuffers::~LocalBuffers() { release(); }

Status LocalBuffers::upload(size_t local, const void *host) const {
  WEAVE_TRY(team_->devices[local].makeCurrent());
  WEAVE_CU_TRY(cuMemcpyHtoD(buffers_.pointers[local], host, buffers_.bytes),
               "uploading a buffer to device " +
                   std::to_string(team_->devices[local].ordinal()));
  return ok();
}

Status LocalBuffers::download(size_t local, void *host) const {
  WEAVE_TRY(team_->devices[local].makeCurrent());
  WEAVE_CU_TRY(cuMemcpyDtoH(host, buffers_.pointers[local], buffers_.bytes),
               "downloading a buffer from device " +
                   std::to_string(team_->devices[local].ordinal()));
  return ok();
}

void LocalBuffers::release() {
  for (size_t i = 0; i < buffers_.pointers.size(); ++i) {
    if (!team_->devices[i].makeCurrent())
      continue;
    if (cuMemFree(buffers_.pointers[i]) != CUDA_SUCCESS)
      std::fprintf(stderr, "weave: warning: cuMemFree failed on device %d\n",
                   team_->devices[i].ordinal());
  }
  buffers_.pointers.clear();
}

//===----------------------------------------------------------------------===//
// Sessions
//===----------------------------------------------------------------------===//

Expected<HostSession> createSession(const TeamRequest &request) {
  WEAVE_ASSIGN_OR_RETURN(Team team, createTeam(request));
  WEAVE_ASSIGN_OR_RETURN(
      SymmetricHeap heap,
      SymmetricHeap::create(team, request.heapBytes, request.signalPadBytes));
  WEAVE_ASSIGN_OR_RETURN(LocalStreams streams, LocalStreams::create(team));
  return HostSession{std::move(team), std::move(heap), std::move(streams)};
}

SessionStart startSession(const TeamRequest &request) {
  SessionStart start;
  if (reportSkip(request))
    return start;
  Expected<HostSession> session = createSession(request);
  if (session)
    start.session.emplace(std::move(*session));
  else
    start.exitCode = reportError(request.program, session.error());
  return start;
}

Expected<Kernel> loadKernel(Team &team, Bundle bundle,
                            const std::string &name) {
  WEAVE_ASSIGN_OR_RETURN(Program program,
                         Program::load(team, std::move(bundle)));
  return Kernel::get(program, name);
}

int reportError(const std::string &program, const Error &error) {
  std::fprintf(stderr, "%s: error: %s\n", program.c_str(),
               error.toString().c_str());
  return 1;
}

//===----------------------------------------------------------------------===//
// Graphs
//===----------------------------------------------------------------------===//

Expected<TeamGraphs>
TeamGraphs::capture(const Team &team, const LocalStreams &streams,
                    const std::function<Status()> &enqueue) {
  size_t members = team.localCount();
  TeamGraphs g;
  g.team_ = team.state();
  g.graphs_.assign(members, nullptr);
  g.execs_.assign(members, nullptr);
  size_t begun = 0;
  auto run = [&]() -> Status {
    for (; begun < members; ++begun) {
      WEAVE_TRY(team.device(begun).makeCurrent());
      WEAVE_CU_TRY(cuStreamBeginCapture(streams[begun],
                                        CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                   "capturing the work of member " + std::to_string(begun));
    }
    return enqueue();
  };
  Status captured = run();
  // Every capture that began ends, whatever failed in between.
  bool ended = true;
  for (size_t i = 0; i < begun; ++i) {
    (void)team.device(i).makeCurrent();
    ended = cuStreamEndCapture(streams[i], &g.graphs_[i]) == CUDA_SUCCESS &&
            ended;
  }
  WEAVE_TRY(std::move(captured));
  if (!ended)
    return Error(ErrorCode::DriverError,
                 "cuStreamEndCapture failed: the captured work was invalid");
  for (size_t i = 0; i < members; ++i) {
    WEAVE_TRY(team.device(i).makeCurrent());
    WEAVE_CU_TRY(cuGraphInstantiate(&g.execs_[i], g.graphs_[i], 0),
                 "instantiating the graph of member " + std::to_string(i));
  }
  return g;
}

TeamGraphs &TeamGraphs::operator=(TeamGraphs &&other) noexcept {
  return moveAssign(*this, other);
}

TeamGraphs::~TeamGraphs() { release(); }

Status TeamGraphs::launch(const LocalStreams &streams) const {
  for (size_t i = 0; i < execs_.size(); ++i) {
    WEAVE_TRY(team_->devices[i].makeCurrent());
    WEAVE_CU_TRY(cuGraphLaunch(execs_[i], streams[i]),
                 "launching the graph of member " + std::to_string(i));
  }
  return ok();
}

void TeamGraphs::release() {
  for (size_t i = 0; i < graphs_.size(); ++i) {
    if (!team_->devices[i].makeCurrent())
      continue;
    if (execs_[i] && cuGraphExecDestroy(execs_[i]) != CUDA_SUCCESS)
      std::fprintf(stderr, "weave: warning: cuGraphExecDestroy failed\n");
    if (graphs_[i] && cuGraphDestroy(graphs_[i]) != CUDA_SUCCESS)
      std::fprintf(stderr, "weave: warning: cuGraphDestroy failed\n");
  }
  graphs_.clear();
  execs_.clear();
}

Status replayInGraphs(const Team &team, const SymmetricHeap &heap,
                      Kernel &kernel, const std::vector<KernelArg> &args,
                      const LocalStreams &streams, int replays) {
  WEAVE_TRY(kernel.prepare(heap, args));
  WEAVE_ASSIGN_OR_RETURN(TeamGraphs graphs,
                         TeamGraphs::capture(team, streams, [&] {
                           return kernel.launch(heap, args, streams);
                         }));
  for (int replay = 0; replay < replays; ++replay)
    WEAVE_TRY(graphs.launch(streams));
  return streams.synchronize();
}

std::optional<int> parseBundleCommandLine(int argc, char **argv,
                                          const std::string &program,
                                          BundleCommandLine &out) {
  auto usage = [&](FILE *to) {
    std::fprintf(to, "usage: %s <bundle> [--rounds N]\n", program.c_str());
  };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--rounds" && i + 1 < argc) {
      out.rounds = std::atoi(argv[++i]);
    } else if (arg == "-h" || arg == "--help") {
      usage(stdout);
      return 0;
    } else if (out.bundlePath.empty() && !arg.empty() && arg[0] != '-') {
      out.bundlePath = arg;
    } else {
      usage(stderr);
      return 2;
    }
  }
  if (out.bundlePath.empty() || out.rounds < 1) {
    usage(stderr);
    return 2;
  }
  return std::nullopt;
}

} // namespace examples
} // namespace weave
