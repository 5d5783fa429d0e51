//===- Bootstrap.h - Rank rendezvous over Unix-domain sockets ---*- C++ -*-===//
//
// The multi-process bootstrap: rank 0 listens on a Unix-domain socket in a
// private rendezvous directory, the other ranks connect (a star). On top of
// it: allGather of byte payloads, allGather of file descriptors (SCM_RIGHTS,
// used for cuMemExportToShareableHandle POSIX fds) and a barrier. Every wait
// has a deadline; a rank that never shows gives ErrorCode::Timeout naming it.
// No CUDA here (library WeaveRuntimeHost), so it is unit-tested with fork().
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_RUNTIME_BOOTSTRAP_H
#define WEAVE_RUNTIME_BOOTSTRAP_H

#include "weave/runtime/Error.h"

#include <chrono>
#include <cstdint>
#include <map>
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

/// Where and how ranks meet.
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

/// The connections of one rank to the others. Move-only.
class Bootstrap {
public:
  /// Rendezvous: rank 0 listens, others connect, all before the deadline.
  static Expected<Bootstrap> connect(const BootstrapOptions &options);

  Bootstrap(Bootstrap &&) = default;
  Bootstrap &operator=(Bootstrap &&) = default;
  ~Bootstrap() = default;

  int rank() const { return rank_; }
  int worldSize() const { return worldSize_; }

  /// Every rank's payload, indexed by rank (sizes may differ).
  Expected<std::vector<std::vector<uint8_t>>>
  allGather(const std::vector<uint8_t> &mine);
  /// Every rank's file descriptors, indexed by rank; the returned fds are new
  /// descriptors owned by the caller (this rank's own are dup()ed).
  Expected<std::vector<std::vector<UniqueFd>>>
  allGatherFds(const std::vector<int> &mine);
  /// Returns when every rank has entered the barrier.
  Status barrier();

private:
  Bootstrap() = default;
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

} // namespace weave

#endif // WEAVE_RUNTIME_BOOTSTRAP_H
