//===- Bootstrap.h - How the processes of a team meet -----------*- C++ -*-===//
//
// `Bootstrap` is the seam: rank, world size, an all-gather of byte payloads
// and a barrier, with a deadline on every wait. Two implementations:
//   SocketBootstrap  rank 0 listens on a Unix-domain socket in a private
//                    rendezvous directory, the other ranks connect (a star);
//                    it can also pass file descriptors (SCM_RIGHTS), which
//                    the fd-passing HandleExchange uses.
//   StoreBootstrap   over a key-value Store (set / get-with-wait / add, what
//                    torch.distributed's Store offers): weave/runtime/Store.h.
// How exported memory handles travel is a separate strategy
// (weave/runtime/HandleExchange.h). A rank that never shows gives
// ErrorCode::Timeout naming it. No CUDA here (library WeaveRuntimeHost), so
// it is unit-tested with threads and fork().
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_RUNTIME_BOOTSTRAP_H
#define WEAVE_RUNTIME_BOOTSTRAP_H

#include "weave/runtime/Error.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace weave {

/// An owned POSIX file descriptor; closes on destruction. Move-only.
class UniqueFd {
public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd &&other) noexcept : fd_(other.release()) {}
  UniqueFd &operator=(UniqueFd &&other) noexcept;
  UniqueFd(const UniqueFd &) = delete;
  UniqueFd &operator=(const UniqueFd &) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset(int fd = -1);

private:
  int fd_ = -1;
};

/// Where and how ranks meet through the Unix-socket rendezvous
/// (SocketBootstrap::connect).
struct BootstrapOptions {
  /// Private directory holding the rendezvous socket (see
  /// prepareRendezvousDir); its path + "/bootstrap.sock" must fit in
  /// sockaddr_un (107 bytes).
  std::string rendezvousDir;
  int rank = 0;
  int worldSize = 1;
  /// Deadline for connecting, and for every collective.
  std::chrono::milliseconds timeout{60000};
};

/// The processes of one team: who this is, how many there are, and the two
/// collectives the runtime needs while it sets a team up. Every rank calls
/// the collectives in the same order; each returns or fails within the
/// bootstrap's deadline. Not thread-safe: one caller at a time.
class Bootstrap {
public:
  virtual ~Bootstrap();

  virtual int rank() const = 0;
  virtual int worldSize() const = 0;
  /// What this bootstrap is, for messages ("unix-socket", "store").
  virtual const char *name() const = 0;

  /// Every rank's payload, indexed by rank (sizes may differ).
  virtual Expected<std::vector<std::vector<uint8_t>>>
  allGather(const std::vector<uint8_t> &mine) = 0;
  /// Returns when every rank has entered the barrier (by default an
  /// allGather of nothing).
  virtual Status barrier();

  /// Every rank's value, indexed by rank: an allGather of 8 bytes each
  /// (what the heap's size and the persistent grid agree on).
  Expected<std::vector<uint64_t>> allGatherU64(uint64_t mine);

protected:
  /// The check every implementation's connect makes first: `rank` lies in
  /// [0, worldSize) and worldSize >= 1; `what` names it in the error.
  static Status checkRank(const std::string &what, int rank, int worldSize);
};

/// The Unix-socket rendezvous: the connections of one rank to the others.
class SocketBootstrap final : public Bootstrap {
public:
  /// Rendezvous: rank 0 listens, others connect, all before the deadline.
  static Expected<std::unique_ptr<SocketBootstrap>>
  connect(const BootstrapOptions &options);

  ~SocketBootstrap() override = default;

  int rank() const override { return rank_; }
  int worldSize() const override { return worldSize_; }
  const char *name() const override { return "unix-socket"; }

  Expected<std::vector<std::vector<uint8_t>>>
  allGather(const std::vector<uint8_t> &mine) override;
  /// Every rank's file descriptors, indexed by rank; the returned fds are new
  /// descriptors owned by the caller (this rank's own are dup()ed).
  Expected<std::vector<std::vector<UniqueFd>>>
  allGatherFds(const std::vector<int> &mine);

private:
  SocketBootstrap() = default;
  struct Message {
    std::vector<uint8_t> payload;
    std::vector<UniqueFd> fds;
  };
  Status send(int peer, const std::vector<uint8_t> &payload,
              const std::vector<int> &fds);
  Expected<Message> receive(int peer);
  std::chrono::steady_clock::time_point deadline() const;
  /// Rank 0: tells every other rank that the current collective failed.
  void abortCollective(const Error &error);

  int rank_ = 0;
  int worldSize_ = 1;
  std::chrono::milliseconds timeout_{60000};
  /// Rank 0: one socket per other rank (index = rank). Others: [0] = root.
  std::vector<UniqueFd> sockets_;
};

/// Creates `path` with mode 0700 if missing, then checks that it is a real
/// directory (not a symlink) owned by the effective user and not accessible
/// by group or others. System/InvalidArgument errors otherwise.
Status prepareRendezvousDir(const std::string &path);

/// The rendezvous directory from the environment: $WEAVE_RENDEZVOUS_DIR, else
/// /tmp/weave-<uid>-<job>, with job from $WEAVE_JOB_ID, else $MASTER_PORT.
/// InvalidArgument when none is set. `env` maps names to values (tests);
/// the overload without it reads the process environment.
Expected<std::string>
rendezvousDirFromEnvironment(const std::map<std::string, std::string> &env);
Expected<std::string> rendezvousDirFromEnvironment();

/// RANK, WORLD_SIZE and LOCAL_RANK, parsed and checked.
struct LaunchEnvironment {
  int rank = 0;
  int worldSize = 1;
  int localRank = 0;
};
Expected<LaunchEnvironment>
launchEnvironment(const std::map<std::string, std::string> &env);
Expected<LaunchEnvironment> launchEnvironment();

/// The most members a loopback team (Team::createLoopback) may have: the
/// widest mesh a kernel is tested at, with room.
constexpr uint32_t kMaxLoopbackMembers = 64;

/// WEAVE_LOOPBACK_TEAM: 0 when unset or empty, else the member count of a
/// loopback team (InvalidArgument unless an integer in [1,
/// kMaxLoopbackMembers]).
Expected<uint32_t>
loopbackMembersFromEnvironment(const std::map<std::string, std::string> &env);
Expected<uint32_t> loopbackMembersFromEnvironment();

/// The hardware queues per context (CUDA_DEVICE_MAX_CONNECTIONS) that
/// initDriver sets for a loopback team of `members` (WEAVE_LOOPBACK_TEAM)
/// before the driver initializes, when it reads it: CUDA's default of 8 is
/// too few where members share a GPU and wait on each other's stream
/// operations (a blocked stream wait holds back what shares its queue: a
/// loopback team of 8 on one H100 replaying the copy-engine GEMM +
/// reduce-scatter's graphs, 2 streams a member, hung with 8 and passed with
/// 32, 2026-11-27). Empty where there is nothing to set: one member, or the
/// variable present in `env` (the user's, even empty: setenv keeps it).
std::optional<std::string>
loopbackConnections(uint32_t members,
                    const std::map<std::string, std::string> &env);
std::optional<std::string> loopbackConnections(uint32_t members);

/// The most hardware queues a CUDA context takes.
constexpr uint32_t kMaxDeviceConnections = 32;

} // namespace weave

#endif // WEAVE_RUNTIME_BOOTSTRAP_H
