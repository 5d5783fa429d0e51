//===- HostSetup.h - Team, heap and streams for host programs ---*- C++ -*-===//
//
// What every host program that runs a Weave kernel does before its first
// launch: decide whether this machine can run it at all, build the team (in
// one process over the visible GPUs, or one GPU per process when launched
// torchrun style with RANK / WORLD_SIZE / LOCAL_RANK), create the symmetric
// heap and one stream per local GPU, load the kernel, and allocate plain
// per-device buffers.
// Used by the examples and the benchmarks; runtime only, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_EXAMPLES_HOSTSETUP_H
#define WEAVE_EXAMPLES_HOSTSETUP_H

#include "weave/runtime/Kernel.h"
#include "weave/runtime/KernelArgs.h"
#include "weave/runtime/SymmetricHeap.h"
#include "weave/runtime/Team.h"

#include <cuda.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace weave {
namespace examples {

/// What a host program needs from the machine.
struct TeamRequest {
  /// Prefix of messages, e.g. "ring_exchange".
  std::string program = "weave";
  /// Fewest GPUs the program runs on.
  uint32_t minDevices = 2;
  /// Most GPUs it runs on; 0 = no limit. In-process teams take the first
  /// min(visible, maxDevices) GPUs.
  uint32_t maxDevices = 0;
  /// Accept one process per GPU when WORLD_SIZE is set; otherwise always
  /// in-process.
  bool allowMultiProcess = true;
  /// Symmetric heap bytes per device (the signal pad comes on top).
  size_t heapBytes = 64 << 20;
  size_t signalPadBytes = SymmetricHeap::kDefaultSignalPadBytes;
  TeamOptions teamOptions;
};

/// The loopback member count: teamOptions.loopbackMembers, else
/// $WEAVE_LOOPBACK_TEAM, else 0 (no loopback).
Expected<uint32_t> loopbackMembers(const TeamRequest &request);

/// True when this process was launched as one of one-process-per-GPU ranks
/// (WORLD_SIZE set), the request accepts that and no loopback team is asked
/// for.
bool isMultiProcessLaunch(const TeamRequest &request);

/// Why this machine cannot run the program, or "" when it can: no CUDA
/// driver, or (in-process) fewer than `minDevices` visible GPUs. Print it as
/// "SKIP: <reason>" and exit 0.
std::string skipReason(const TeamRequest &request);

/// Prints "SKIP: <reason>" on stdout when skipReason gives one, and returns
/// true then: the program exits 0.
bool reportSkip(const TeamRequest &request);

/// The team: a loopback team of loopbackMembers(request) members over the
/// first visible GPUs when that is > 0; else from RANK / WORLD_SIZE /
/// LOCAL_RANK when isMultiProcessLaunch; else in-process over the first
/// visible GPUs. InvalidArgument when its size
/// is outside [minDevices, maxDevices].
Expected<Team> createTeam(const TeamRequest &request);

/// One non-blocking stream per local team member, in local member order
/// (what Kernel::launch takes). Synchronized and destroyed with the object.
class LocalStreams {
public:
  static Expected<LocalStreams> create(const Team &team);
  LocalStreams(LocalStreams &&) noexcept = default;
  LocalStreams &operator=(LocalStreams &&) noexcept;
  LocalStreams(const LocalStreams &) = delete;
  LocalStreams &operator=(const LocalStreams &) = delete;
  ~LocalStreams();

  const std::vector<CUstream> &get() const { return streams_; }
  operator const std::vector<CUstream> &() const { return streams_; }
  CUstream operator[](size_t local) const { return streams_[local]; }
  size_t size() const { return streams_.size(); }
  /// Waits for every stream.
  Status synchronize() const;

private:
  LocalStreams() = default;
  void release();
  std::shared_ptr<detail::TeamState> team_;
  std::vector<CUstream> streams_;
};

/// Plain device memory: one buffer of the same dtype and shape on every local
/// team member (a DeviceBuffers kernel argument). Freed with the object.
class LocalBuffers {
public:
  static Expected<LocalBuffers> create(const Team &team,
                                       const std::string &dtype,
                                       std::vector<int64_t> shape);
  LocalBuffers(LocalBuffers &&) noexcept = default;
  LocalBuffers &operator=(LocalBuffers &&) noexcept;
  LocalBuffers(const LocalBuffers &) = delete;
  LocalBuffers &operator=(const LocalBuffers &) = delete;
  ~LocalBuffers();

  /// The kernel argument.
  const DeviceBuffers &args() const { return buffers_; }
  operator const DeviceBuffers &() const { return buffers_; }
  CUdeviceptr pointer(size_t local) const { return buffers_.pointers[local]; }
  uint64_t bytes() const { return buffers_.bytes; }
  /// Copies `bytes()` bytes from `host` into local member `local`'s buffer.
  Status upload(size_t local, const void *host) const;
  /// Copies local member `local`'s buffer into `host` (`bytes()` bytes).
  Status download(size_t local, void *host) const;

private:
  LocalBuffers() = default;
  void release();
  std::shared_ptr<detail::TeamState> team_;
  DeviceBuffers buffers_;
};

/// Everything a launch needs: the team, its symmetric heap and one stream
/// per local member. Members are destroyed streams first, team last.
struct HostSession {
  Team team;
  SymmetricHeap heap;
  LocalStreams streams;
};

/// createTeam, then the heap and the streams.
Expected<HostSession> createSession(const TeamRequest &request);

/// The start of a host program: its session, or none and the exit code the
/// program returns instead: 0 after reportSkip, 1 after reportError.
struct SessionStart {
  std::optional<HostSession> session;
  int exitCode = 0;
};
SessionStart startSession(const TeamRequest &request);

/// Program::load, then Kernel::get: the kernel keeps the program's modules
/// loaded.
Expected<Kernel> loadKernel(Team &team, Bundle bundle, const std::string &name);

/// One CUDA graph per local team member, captured from what a callback
/// enqueues on the members' streams, and launched on them together.
/// Destroyed with the object.
class TeamGraphs {
public:
  /// Begins a capture on every member's stream, runs `enqueue` (which must
  /// put its work on those streams only), ends the captures and
  /// instantiates the graphs. Every capture ends, whatever fails.
  static Expected<TeamGraphs> capture(const Team &team,
                                      const LocalStreams &streams,
                                      const std::function<Status()> &enqueue);
  TeamGraphs(TeamGraphs &&) noexcept = default;
  TeamGraphs &operator=(TeamGraphs &&) noexcept;
  TeamGraphs(const TeamGraphs &) = delete;
  TeamGraphs &operator=(const TeamGraphs &) = delete;
  ~TeamGraphs();

  /// Launches member i's graph on streams[i], for every local member.
  Status launch(const LocalStreams &streams) const;

private:
  TeamGraphs() = default;
  void release();
  std::shared_ptr<detail::TeamState> team_;
  std::vector<CUgraph> graphs_;
  std::vector<CUgraphExec> execs_;
};

/// Captures one launch of `kernel` with `args` per local member in a CUDA
/// graph on the member's stream (after prepare(), which must not be
/// captured), replays the graphs `replays` times back to back and waits for
/// them: checks that a kernel's protocol survives replay with no reset.
Status replayInGraphs(const Team &team, const SymmetricHeap &heap,
                      Kernel &kernel, const std::vector<KernelArg> &args,
                      const LocalStreams &streams, int replays);

/// The command line of the examples that run one bundle:
/// `<program> <bundle> [--rounds N]`.
struct BundleCommandLine {
  std::string bundlePath;
  int rounds = 3;
};

/// Parses that command line into `out`. Returns the exit code when the
/// program should stop: 0 after printing the usage for -h/--help, 2 after
/// printing it on stderr for a bad command line; nothing when it should run.
std::optional<int> parseBundleCommandLine(int argc, char **argv,
                                          const std::string &program,
                                          BundleCommandLine &out);

/// Prints "<program>: error: <error>" on stderr and returns 1 (the exit code).
int reportError(const std::string &program, const Error &error);

} // namespace examples
} // namespace weave

#endif // WEAVE_EXAMPLES_HOSTSETUP_H
