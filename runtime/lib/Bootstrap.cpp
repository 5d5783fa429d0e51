//===- Bootstrap.cpp - Rank rendezvous over Unix-domain sockets -----------===//

#include "weave/runtime/Bootstrap.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <fcntl.h>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace weave {

namespace {

using Clock = std::chrono::steady_clock;

constexpr uint32_t kFrameMagic = 0x53425657; // "WVBS"
constexpr uint32_t kAbortMagic = 0x54524241; // "ABRT"
constexpr uint32_t kHelloMagic = 0x4f4c4548; // "HELO"
constexpr size_t kMaxFdsPerMessage = 250;    // below SCM_MAX_FD (253)
constexpr const char *kSocketName = "/bootstrap.sock";

Error systemError(const std::string &what) {
  return Error(ErrorCode::System, what + ": " + std::strerror(errno));
}

void putU64(std::vector<uint8_t> &out, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
bool getU64(const std::vector<uint8_t> &in, size_t &pos, uint64_t &v) {
  if (in.size() - pos < 8 || pos > in.size())
    return false;
  v = 0;
  for (int i = 7; i >= 0; --i)
    v = (v << 8) | in[pos + i];
  pos += 8;
  return true;
}

int remainingMs(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                  deadline - Clock::now())
                  .count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1 << 30));
}

/// Waits until `fd` has `events` or the deadline passes; false on timeout.
Expected<bool> waitFor(int fd, short events, Clock::time_point deadline) {
  while (true) {
    pollfd p{fd, events, 0};
    int n = ::poll(&p, 1, remainingMs(deadline));
    if (n > 0)
      return true;
    if (n == 0)
      return false;
    if (errno != EINTR)
      return systemError("poll");
  }
}

Status sendAll(int fd, const uint8_t *data, size_t size, int peer,
               Clock::time_point deadline) {
  while (size > 0) {
    ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      WEAVE_ASSIGN_OR_RETURN(bool ready, waitFor(fd, POLLOUT, deadline));
      if (!ready)
        return Error(ErrorCode::Timeout,
                     "timed out sending to rank " + std::to_string(peer));
      continue;
    }
    if (n < 0)
      return systemError("sending to rank " + std::to_string(peer));
    data += n;
    size -= static_cast<size_t>(n);
  }
  return ok();
}

/// Reads exactly `size` bytes, collecting any SCM_RIGHTS fds on the way.
Status recvAll(int fd, uint8_t *data, size_t size, std::vector<UniqueFd> *fds,
               int peer, Clock::time_point deadline, const char *what) {
  while (size > 0) {
    WEAVE_ASSIGN_OR_RETURN(bool ready, waitFor(fd, POLLIN, deadline));
    if (!ready)
      return Error(ErrorCode::Timeout, std::string("timed out waiting for rank ") +
                                           std::to_string(peer) + " (" + what +
                                           ")");
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFdsPerMessage)];
    iovec iov{data, size};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    ssize_t n = ::recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return systemError("receiving from rank " + std::to_string(peer));
    for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
        continue;
      size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (size_t i = 0; i < count; ++i) {
        int received;
        std::memcpy(&received, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
        if (fds)
          fds->emplace_back(received);
        else
          ::close(received);
      }
    }
    if (msg.msg_flags & MSG_CTRUNC)
      return Error(ErrorCode::System, "file descriptors from rank " +
                                          std::to_string(peer) +
                                          " were truncated");
    if (n == 0)
      return Error(ErrorCode::System,
                   "rank " + std::to_string(peer) +
                       " closed the connection (" + what + ")");
    data += n;
    size -= static_cast<size_t>(n);
  }
  return ok();
}

std::string rankList(const std::vector<int> &ranks) {
  std::string text;
  for (size_t i = 0; i < ranks.size(); ++i)
    text += (i ? ", " : "") + std::to_string(ranks[i]);
  return text;
}

std::map<std::string, std::string> processEnvironment() {
  std::map<std::string, std::string> env;
  for (char **e = environ; e && *e; ++e) {
    const char *eq = std::strchr(*e, '=');
    if (eq)
      env.emplace(std::string(*e, static_cast<size_t>(eq - *e)),
                  std::string(eq + 1));
  }
  return env;
}

const std::string *lookup(const std::map<std::string, std::string> &env,
                          const std::string &name) {
  auto it = env.find(name);
  return it == env.end() || it->second.empty() ? nullptr : &it->second;
}

Expected<int> parseEnvInt(const std::map<std::string, std::string> &env,
                          const std::string &name, bool required, int fallback) {
  const std::string *value = lookup(env, name);
  if (!value) {
    if (required)
      return Error(ErrorCode::InvalidArgument,
                   "environment variable " + name + " is not set");
    return fallback;
  }
  char *end = nullptr;
  errno = 0;
  long v = std::strtol(value->c_str(), &end, 10);
  if (errno || *end || v < 0 || v > (1 << 20))
    return Error(ErrorCode::InvalidArgument,
                 "environment variable " + name +
                     " must be a non-negative integer, found '" + *value + "'");
  return static_cast<int>(v);
}

} // namespace

UniqueFd &UniqueFd::operator=(UniqueFd &&other) noexcept {
  if (this != &other)
    reset(other.release());
  return *this;
}

void UniqueFd::reset(int fd) {
  if (fd_ >= 0 && ::close(fd_) != 0)
    std::fprintf(stderr, "weave: warning: close(%d) failed: %s\n", fd_,
                 std::strerror(errno));
  fd_ = fd;
}

std::chrono::steady_clock::time_point Bootstrap::deadline() const {
  return Clock::now() + timeout_;
}

Expected<Bootstrap> Bootstrap::connect(const BootstrapOptions &options) {
  if (options.worldSize < 1 || options.rank < 0 ||
      options.rank >= options.worldSize)
    return Error(ErrorCode::InvalidArgument,
                 "bootstrap: rank " + std::to_string(options.rank) +
                     " is not in [0, world size " +
                     std::to_string(options.worldSize) + ")");
  Bootstrap boot;
  boot.rank_ = options.rank;
  boot.worldSize_ = options.worldSize;
  boot.timeout_ = options.timeout;
  if (options.worldSize == 1)
    return boot;

  std::string path = options.rendezvousDir + kSocketName;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (options.rendezvousDir.empty() || path.size() >= sizeof(addr.sun_path))
    return Error(ErrorCode::InvalidArgument,
                 "bootstrap: rendezvous socket path '" + path +
                     "' is empty or longer than " +
                     std::to_string(sizeof(addr.sun_path) - 1) + " bytes");
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  auto until = boot.deadline();
  std::string timeoutText = std::to_string(options.timeout.count()) + " ms";

  if (options.rank == 0) {
    WEAVE_TRY(prepareRendezvousDir(options.rendezvousDir));
    UniqueFd listener(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!listener.valid())
      return systemError("bootstrap: socket");
    ::unlink(path.c_str()); // a stale socket from an earlier run
    if (::bind(listener.get(), reinterpret_cast<sockaddr *>(&addr),
               sizeof(addr)) != 0)
      return systemError("bootstrap: bind '" + path + "'");
    if (::listen(listener.get(), options.worldSize) != 0)
      return systemError("bootstrap: listen");
    boot.sockets_.resize(options.worldSize);
    int connected = 1;
    while (connected < options.worldSize) {
      auto ready = waitFor(listener.get(), POLLIN, until);
      if (!ready || !*ready) {
        ::unlink(path.c_str());
        if (!ready)
          return std::move(ready).takeError();
        std::vector<int> missing;
        for (int r = 1; r < options.worldSize; ++r)
          if (!boot.sockets_[r].valid())
            missing.push_back(r);
        std::string message = "bootstrap: rank(s) " + rankList(missing) +
                              " did not connect to '" + path + "' within " +
                              timeoutText;
        // Tell the ranks that did come why the rendezvous failed.
        std::vector<uint8_t> nack(1, 0);
        uint32_t length = static_cast<uint32_t>(message.size());
        nack.insert(nack.end(), reinterpret_cast<uint8_t *>(&length),
                    reinterpret_cast<uint8_t *>(&length) + 4);
        nack.insert(nack.end(), message.begin(), message.end());
        auto shortly = Clock::now() + std::chrono::milliseconds(200);
        for (int r = 1; r < options.worldSize; ++r)
          if (boot.sockets_[r].valid())
            (void)sendAll(boot.sockets_[r].get(), nack.data(), nack.size(), r,
                          shortly);
        return Error(ErrorCode::Timeout, message);
      }
      UniqueFd conn(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
      if (!conn.valid()) {
        if (errno == EINTR || errno == ECONNABORTED)
          continue;
        return systemError("bootstrap: accept");
      }
      uint32_t hello[3];
      Status got = recvAll(conn.get(), reinterpret_cast<uint8_t *>(hello),
                           sizeof(hello), nullptr, -1, until, "hello");
      if (!got) {
        std::fprintf(stderr, "weave: bootstrap: ignoring a connection: %s\n",
                     got.error().message().c_str());
        continue;
      }
      int peer = static_cast<int>(hello[1]);
      if (hello[0] != kHelloMagic ||
          hello[2] != static_cast<uint32_t>(options.worldSize) || peer < 1 ||
          peer >= options.worldSize || boot.sockets_[peer].valid()) {
        ::unlink(path.c_str());
        return Error(ErrorCode::InvalidArgument,
                     "bootstrap: a peer announced rank " +
                         std::to_string(peer) + " of world size " +
                         std::to_string(hello[2]) + ", expected a new rank in "
                         "[1, " + std::to_string(options.worldSize) +
                         ") of world size " +
                         std::to_string(options.worldSize));
      }
      boot.sockets_[peer] = std::move(conn);
      ++connected;
    }
    ::unlink(path.c_str());
    // Tell everyone the team is complete.
    const uint8_t ack = 1;
    for (int r = 1; r < options.worldSize; ++r)
      WEAVE_TRY(sendAll(boot.sockets_[r].get(), &ack, 1, r, until));
    return boot;
  }

  // Non-root: connect (rank 0 may not be listening yet), announce, wait.
  UniqueFd sock;
  while (true) {
    sock.reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!sock.valid())
      return systemError("bootstrap: socket");
    if (::connect(sock.get(), reinterpret_cast<sockaddr *>(&addr),
                  sizeof(addr)) == 0)
      break;
    if (errno != ENOENT && errno != ECONNREFUSED && errno != EINTR &&
        errno != EAGAIN)
      return systemError("bootstrap: connect to '" + path + "'");
    if (Clock::now() >= until)
      return Error(ErrorCode::Timeout,
                   "bootstrap: rank 0 did not listen on '" + path +
                       "' within " + timeoutText);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  uint32_t hello[3] = {kHelloMagic, static_cast<uint32_t>(options.rank),
                       static_cast<uint32_t>(options.worldSize)};
  WEAVE_TRY(sendAll(sock.get(), reinterpret_cast<uint8_t *>(hello),
                    sizeof(hello), 0, until));
  uint8_t ack = 0;
  Status got = recvAll(sock.get(), &ack, 1, nullptr, 0, until,
                       "rendezvous: rank 0 waits for the other ranks");
  if (!got)
    return std::move(got).takeError().addContext(
        "bootstrap: rank " + std::to_string(options.rank));
  if (ack != 1) {
    uint32_t length = 0;
    std::string reason(1024, '\0');
    Status why = recvAll(sock.get(), reinterpret_cast<uint8_t *>(&length), 4,
                         nullptr, 0, until, "rendezvous failure reason");
    if (why && length <= reason.size()) {
      reason.resize(length);
      why = recvAll(sock.get(), reinterpret_cast<uint8_t *>(&reason[0]),
                    length, nullptr, 0, until, "rendezvous failure reason");
    }
    return Error(ErrorCode::Timeout,
                 "bootstrap: rank " + std::to_string(options.rank) +
                     ": rank 0 gave up: " +
                     (why ? reason : std::string("no reason received")));
  }
  boot.sockets_.push_back(std::move(sock));
  return boot;
}

Status Bootstrap::send(int peer, const std::vector<uint8_t> &payload,
                       const std::vector<int> &fds) {
  if (fds.size() > kMaxFdsPerMessage)
    return Error(ErrorCode::InvalidArgument,
                 "bootstrap: cannot pass " + std::to_string(fds.size()) +
                     " file descriptors in one message (limit " +
                     std::to_string(kMaxFdsPerMessage) + ")");
  int fd = sockets_[rank_ == 0 ? peer : 0].get();
  auto until = deadline();
  uint8_t header[16];
  uint32_t words[2] = {kFrameMagic, static_cast<uint32_t>(fds.size())};
  uint64_t length = payload.size();
  std::memcpy(header, words, 8);
  std::memcpy(header + 8, &length, 8);
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFdsPerMessage)];
  iovec iov{header, sizeof(header)};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (!fds.empty()) {
    msg.msg_control = control;
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
    cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  }
  ssize_t n;
  do {
    n = ::sendmsg(fd, &msg, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  if (n < 0)
    return systemError("bootstrap: sending to rank " + std::to_string(peer));
  WEAVE_TRY(sendAll(fd, header + n, sizeof(header) - n, peer, until));
  return sendAll(fd, payload.data(), payload.size(), peer, until);
}

Expected<Bootstrap::Message> Bootstrap::receive(int peer) {
  int fd = sockets_[rank_ == 0 ? peer : 0].get();
  // Other ranks wait a little longer than rank 0, so that rank 0's verdict
  // (which rank is missing) reaches them before their own deadline.
  auto until = deadline();
  if (rank_ != 0)
    until += timeout_ / 4 + std::chrono::milliseconds(100);
  Message message;
  uint8_t header[16];
  WEAVE_TRY(recvAll(fd, header, sizeof(header), &message.fds, peer, until,
                    "collective"));
  uint32_t words[2];
  uint64_t length;
  std::memcpy(words, header, 8);
  std::memcpy(&length, header + 8, 8);
  if (words[0] == kAbortMagic && rank_ != 0 && length <= 4096) {
    // Rank 0 gave up on this collective and says why.
    std::vector<uint8_t> reason(length);
    WEAVE_TRY(recvAll(fd, reason.data(), length, nullptr, peer, until,
                      "abort reason"));
    ErrorCode code = words[1] == static_cast<uint32_t>(ErrorCode::Timeout)
                         ? ErrorCode::Timeout
                         : ErrorCode::System;
    return Error(code, "rank 0 aborted the collective: " +
                           std::string(reason.begin(), reason.end()));
  }
  if (words[0] != kFrameMagic || length > (uint64_t(1) << 32))
    return Error(ErrorCode::System, "bootstrap: malformed frame from rank " +
                                        std::to_string(peer));
  if (message.fds.size() != words[1])
    return Error(ErrorCode::System,
                 "bootstrap: rank " + std::to_string(peer) + " sent " +
                     std::to_string(words[1]) + " file descriptors, received " +
                     std::to_string(message.fds.size()));
  message.payload.resize(length);
  WEAVE_TRY(recvAll(fd, message.payload.data(), length, nullptr, peer, until,
                    "collective payload"));
  return message;
}

void Bootstrap::abortCollective(const Error &error) {
  if (rank_ != 0)
    return;
  std::string reason = error.message().substr(0, 4096);
  uint8_t header[16];
  uint32_t words[2] = {kAbortMagic, static_cast<uint32_t>(error.code())};
  uint64_t length = reason.size();
  std::memcpy(header, words, 8);
  std::memcpy(header + 8, &length, 8);
  auto shortly = Clock::now() + std::chrono::milliseconds(200);
  for (int r = 1; r < worldSize_; ++r) {
    if (!sockets_[r].valid())
      continue;
    (void)sendAll(sockets_[r].get(), header, sizeof(header), r, shortly);
    (void)sendAll(sockets_[r].get(),
                  reinterpret_cast<const uint8_t *>(reason.data()),
                  reason.size(), r, shortly);
  }
}

Expected<std::vector<std::vector<uint8_t>>>
Bootstrap::allGather(const std::vector<uint8_t> &mine) {
  std::vector<std::vector<uint8_t>> all(worldSize_);
  if (worldSize_ == 1) {
    all[0] = mine;
    return all;
  }
  if (rank_ != 0) {
    WEAVE_TRY(send(0, mine, {}));
    WEAVE_ASSIGN_OR_RETURN(Message gathered, receive(0));
    size_t pos = 0;
    for (int r = 0; r < worldSize_; ++r) {
      uint64_t len;
      if (!getU64(gathered.payload, pos, len) ||
          len > gathered.payload.size() - pos)
        return Error(ErrorCode::System, "bootstrap: malformed allGather reply");
      all[r].assign(gathered.payload.begin() + pos,
                    gathered.payload.begin() + pos + len);
      pos += len;
    }
    return all;
  }
  all[0] = mine;
  for (int r = 1; r < worldSize_; ++r) {
    auto message = receive(r);
    if (!message) {
      Error error =
          std::move(message).takeError().addContext("bootstrap allGather");
      abortCollective(error);
      return error;
    }
    all[r] = std::move(message->payload);
  }
  std::vector<uint8_t> packed;
  for (const auto &payload : all) {
    putU64(packed, payload.size());
    packed.insert(packed.end(), payload.begin(), payload.end());
  }
  for (int r = 1; r < worldSize_; ++r)
    WEAVE_TRY(send(r, packed, {}));
  return all;
}

Expected<std::vector<std::vector<UniqueFd>>>
Bootstrap::allGatherFds(const std::vector<int> &mine) {
  std::vector<std::vector<UniqueFd>> all(worldSize_);
  auto dupAll = [&](std::vector<UniqueFd> &out) -> Status {
    for (int fd : mine) {
      UniqueFd copy(::fcntl(fd, F_DUPFD_CLOEXEC, 0));
      if (!copy.valid())
        return systemError("bootstrap: dup of fd " + std::to_string(fd));
      out.push_back(std::move(copy));
    }
    return ok();
  };
  if (worldSize_ == 1) {
    WEAVE_TRY(dupAll(all[0]));
    return all;
  }
  if (rank_ != 0) {
    WEAVE_TRY(send(0, {}, mine));
    WEAVE_ASSIGN_OR_RETURN(Message gathered, receive(0));
    size_t pos = 0, next = 0;
    for (int r = 0; r < worldSize_; ++r) {
      uint64_t count;
      if (!getU64(gathered.payload, pos, count) ||
          count > gathered.fds.size() - next)
        return Error(ErrorCode::System,
                     "bootstrap: malformed allGatherFds reply");
      for (uint64_t i = 0; i < count; ++i)
        all[r].push_back(std::move(gathered.fds[next++]));
    }
    return all;
  }
  WEAVE_TRY(dupAll(all[0]));
  for (int r = 1; r < worldSize_; ++r) {
    auto message = receive(r);
    if (!message) {
      Error error =
          std::move(message).takeError().addContext("bootstrap allGatherFds");
      abortCollective(error);
      return error;
    }
    all[r] = std::move(message->fds);
  }
  std::vector<uint8_t> counts;
  std::vector<int> flat;
  for (const auto &fds : all) {
    putU64(counts, fds.size());
    for (const UniqueFd &fd : fds)
      flat.push_back(fd.get());
  }
  for (int r = 1; r < worldSize_; ++r)
    WEAVE_TRY(send(r, counts, flat));
  return all;
}

Status Bootstrap::barrier() {
  auto gathered = allGather({});
  if (!gathered)
    return std::move(gathered).takeError().addContext("bootstrap barrier");
  return ok();
}

Status prepareRendezvousDir(const std::string &path) {
  if (path.empty())
    return Error(ErrorCode::InvalidArgument, "rendezvous directory is empty");
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
    return systemError("creating rendezvous directory '" + path + "'");
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0)
    return systemError("checking rendezvous directory '" + path + "'");
  if (S_ISLNK(st.st_mode))
    return Error(ErrorCode::InvalidArgument,
                 "rendezvous directory '" + path + "' is a symbolic link");
  if (!S_ISDIR(st.st_mode))
    return Error(ErrorCode::InvalidArgument,
                 "rendezvous path '" + path + "' is not a directory");
  if (st.st_uid != ::geteuid())
    return Error(ErrorCode::InvalidArgument,
                 "rendezvous directory '" + path + "' is owned by uid " +
                     std::to_string(st.st_uid) + ", expected uid " +
                     std::to_string(::geteuid()));
  if (st.st_mode & 077) {
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%04o", st.st_mode & 07777);
    return Error(ErrorCode::InvalidArgument,
                 "rendezvous directory '" + path +
                     "' is accessible by group or others (mode " + mode +
                     "), expected 0700");
  }
  return ok();
}

Expected<std::string>
rendezvousDirFromEnvironment(const std::map<std::string, std::string> &env) {
  if (const std::string *dir = lookup(env, "WEAVE_RENDEZVOUS_DIR"))
    return *dir;
  const std::string *job = lookup(env, "WEAVE_JOB_ID");
  if (!job)
    job = lookup(env, "MASTER_PORT");
  if (!job)
    return Error(ErrorCode::InvalidArgument,
                 "no rendezvous directory: set WEAVE_RENDEZVOUS_DIR, or "
                 "WEAVE_JOB_ID / MASTER_PORT to name the job");
  for (char c : *job)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
          c == '-' || c == '.'))
      return Error(ErrorCode::InvalidArgument,
                   "job id '" + *job +
                       "' may only contain letters, digits, '_', '-', '.'");
  return "/tmp/weave-" + std::to_string(::geteuid()) + "-" + *job;
}

Expected<std::string> rendezvousDirFromEnvironment() {
  return rendezvousDirFromEnvironment(processEnvironment());
}

Expected<LaunchEnvironment>
launchEnvironment(const std::map<std::string, std::string> &env) {
  LaunchEnvironment launch;
  WEAVE_ASSIGN_OR_RETURN(launch.rank, parseEnvInt(env, "RANK", true, 0));
  WEAVE_ASSIGN_OR_RETURN(launch.worldSize,
                         parseEnvInt(env, "WORLD_SIZE", true, 1));
  WEAVE_ASSIGN_OR_RETURN(launch.localRank,
                         parseEnvInt(env, "LOCAL_RANK", false, launch.rank));
  if (launch.worldSize < 1 || launch.rank >= launch.worldSize)
    return Error(ErrorCode::InvalidArgument,
                 "RANK=" + std::to_string(launch.rank) +
                     " is not in [0, WORLD_SIZE=" +
                     std::to_string(launch.worldSize) + ")");
  return launch;
}

Expected<LaunchEnvironment> launchEnvironment() {
  return launchEnvironment(processEnvironment());
}

Expected<uint32_t>
loopbackMembersFromEnvironment(const std::map<std::string, std::string> &env) {
  const std::string *value = lookup(env, "WEAVE_LOOPBACK_TEAM");
  if (!value || value->empty())
    return 0u;
  Expected<int> members = parseEnvInt(env, "WEAVE_LOOPBACK_TEAM", true, 0);
  if (!members || *members < 1 ||
      *members > static_cast<int>(kMaxLoopbackMembers))
    return Error(ErrorCode::InvalidArgument,
                 "WEAVE_LOOPBACK_TEAM='" + *value +
                     "': expected a member count from 1 to " +
                     std::to_string(kMaxLoopbackMembers));
  return static_cast<uint32_t>(*members);
}

Expected<uint32_t> loopbackMembersFromEnvironment() {
  return loopbackMembersFromEnvironment(processEnvironment());
}

} // namespace weave
