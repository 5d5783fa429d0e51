//===- Bootstrap.cpp - The bootstrap seam; the Unix-socket rendezvous -----===//

#include "weave/runtime/Bootstrap.h"

#include <array>
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
constexpr uint32_t kReadyMagic = 0x59444552; // "REDY"
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

//===----------------------------------------------------------------------===//
// The framing codec: every message on a bootstrap socket
//===----------------------------------------------------------------------===//
//
// A 16-byte header -- magic, one 32-bit word, the 64-bit payload length --
// then the payload:
//   Data  "WVBS"  word = file descriptors passed with the header (SCM_RIGHTS)
//   Hello "HELO"  a rank joining: word = its rank, length = its world size,
//                 no payload
//   Ready "REDY"  rank 0 to each rank: the team is complete, no payload
//   Abort "ABRT"  rank 0 gave up (on the rendezvous or on a collective):
//                 word = its ErrorCode, payload = the reason
// Rendezvous failures and collective failures reach the other ranks the
// same way (one abort format).

struct Frame {
  uint32_t magic = 0;
  uint32_t word = 0;
  uint64_t length = 0;
};
constexpr size_t kFrameHeaderBytes = 16;
/// The longest abort reason sent or accepted.
constexpr uint64_t kMaxAbortReason = 4096;

std::array<uint8_t, kFrameHeaderBytes> encodeFrame(const Frame &frame) {
  std::array<uint8_t, kFrameHeaderBytes> header;
  uint32_t words[2] = {frame.magic, frame.word};
  std::memcpy(header.data(), words, 8);
  std::memcpy(header.data() + 8, &frame.length, 8);
  return header;
}

Frame decodeFrame(const uint8_t *header) {
  Frame frame;
  uint32_t words[2];
  std::memcpy(words, header, 8);
  std::memcpy(&frame.length, header + 8, 8);
  frame.magic = words[0];
  frame.word = words[1];
  return frame;
}

/// Sends a frame without file descriptors: the header, then `frame.length`
/// bytes of `payload` (none for a null payload: Hello's length is a value).
Status sendFrame(int fd, const Frame &frame, const uint8_t *payload, int peer,
                 Clock::time_point deadline) {
  auto header = encodeFrame(frame);
  WEAVE_TRY(sendAll(fd, header.data(), header.size(), peer, deadline));
  if (!payload)
    return ok();
  return sendAll(fd, payload, frame.length, peer, deadline);
}

/// Receives a frame header (and the descriptors sent with it, into `fds`).
Expected<Frame> recvFrame(int fd, std::vector<UniqueFd> *fds, int peer,
                          Clock::time_point deadline, const char *what) {
  uint8_t header[kFrameHeaderBytes];
  WEAVE_TRY(recvAll(fd, header, sizeof(header), fds, peer, deadline, what));
  return decodeFrame(header);
}

/// Rank 0 to `peer`: this rendezvous or collective failed with `error`.
/// Best effort, for at most 200 ms: the peer may be gone.
void sendAbort(int fd, const Error &error, int peer) {
  std::string reason = error.message().substr(0, kMaxAbortReason);
  Frame frame{kAbortMagic, static_cast<uint32_t>(error.code()), reason.size()};
  (void)sendFrame(fd, frame, reinterpret_cast<const uint8_t *>(reason.data()),
                  peer, Clock::now() + std::chrono::milliseconds(200));
}

/// Reads the reason of an Abort frame: the error `prefix + reason`, with
/// rank 0's code (Timeout, else System).
Error receiveAbort(int fd, const Frame &frame, int peer,
                   Clock::time_point deadline, const std::string &prefix) {
  ErrorCode code = frame.word == static_cast<uint32_t>(ErrorCode::Timeout)
                       ? ErrorCode::Timeout
                       : ErrorCode::System;
  if (frame.length > kMaxAbortReason)
    return Error(code, prefix + "(a reason of " +
                           std::to_string(frame.length) + " bytes, not read)");
  std::string reason(frame.length, '\0');
  Status got = recvAll(fd, reinterpret_cast<uint8_t *>(&reason[0]),
                       reason.size(), nullptr, peer, deadline, "abort reason");
  return Error(code, prefix + (got ? reason : "no reason received"));
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

//===----------------------------------------------------------------------===//
// Bootstrap: what every implementation shares
//===----------------------------------------------------------------------===//

Bootstrap::~Bootstrap() = default;

Status Bootstrap::checkRank(const std::string &what, int rank, int worldSize) {
  if (worldSize < 1 || rank < 0 || rank >= worldSize)
    return Error(ErrorCode::InvalidArgument,
                 what + ": rank " + std::to_string(rank) +
                     " is not in [0, world size " + std::to_string(worldSize) +
                     ")");
  return ok();
}

Status Bootstrap::barrier() {
  auto gathered = allGather({});
  if (!gathered)
    return std::move(gathered).takeError().addContext(
        std::string(name()) + " bootstrap barrier");
  return ok();
}

Expected<std::vector<uint64_t>> Bootstrap::allGatherU64(uint64_t mine) {
  std::vector<uint8_t> bytes;
  putU64(bytes, mine);
  WEAVE_ASSIGN_OR_RETURN(auto all, allGather(bytes));
  std::vector<uint64_t> values(all.size());
  for (size_t r = 0; r < all.size(); ++r) {
    size_t pos = 0;
    if (all[r].size() != 8 || !getU64(all[r], pos, values[r]))
      return Error(ErrorCode::System,
                   std::string(name()) + " bootstrap: rank " +
                       std::to_string(r) + " sent " +
                       std::to_string(all[r].size()) +
                       " bytes to a 64-bit all-gather, expected 8");
  }
  return values;
}

//===----------------------------------------------------------------------===//
// SocketBootstrap
//===----------------------------------------------------------------------===//

std::chrono::steady_clock::time_point SocketBootstrap::deadline() const {
  return Clock::now() + timeout_;
}

namespace {

//===----------------------------------------------------------------------===//
// The rendezvous, step by step
//===----------------------------------------------------------------------===//

/// The socket address of the rendezvous in `dir`.
Expected<sockaddr_un> rendezvousAddress(const std::string &dir) {
  std::string path = dir + kSocketName;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (dir.empty() || path.size() >= sizeof(addr.sun_path))
    return Error(ErrorCode::InvalidArgument,
                 "bootstrap: rendezvous socket path '" + path +
                     "' is empty or longer than " +
                     std::to_string(sizeof(addr.sun_path) - 1) + " bytes");
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return addr;
}

/// Rank 0: a socket listening at `addr` (a stale one from an earlier run is
/// replaced).
Expected<UniqueFd> listenAt(const BootstrapOptions &options,
                            const sockaddr_un &addr) {
  WEAVE_TRY(prepareRendezvousDir(options.rendezvousDir));
  UniqueFd listener(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!listener.valid())
    return systemError("bootstrap: socket");
  ::unlink(addr.sun_path);
  if (::bind(listener.get(), reinterpret_cast<const sockaddr *>(&addr),
             sizeof(addr)) != 0)
    return systemError(std::string("bootstrap: bind '") + addr.sun_path + "'");
  if (::listen(listener.get(), options.worldSize) != 0)
    return systemError("bootstrap: listen");
  return listener;
}

/// Rank 0: accepts one connection and reads its Hello. Returns the rank it
/// announced (its socket stored in `sockets`), -1 for a connection to
/// ignore, or an error for a rank that does not fit the team.
Expected<int> acceptRank(int listener, const BootstrapOptions &options,
                         std::vector<UniqueFd> &sockets,
                         Clock::time_point until) {
  UniqueFd conn(::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC));
  if (!conn.valid()) {
    if (errno == EINTR || errno == ECONNABORTED)
      return -1;
    return systemError("bootstrap: accept");
  }
  Expected<Frame> hello = recvFrame(conn.get(), nullptr, -1, until, "hello");
  if (!hello) {
    std::fprintf(stderr, "weave: bootstrap: ignoring a connection: %s\n",
                 hello.error().message().c_str());
    return -1;
  }
  int peer = static_cast<int>(hello->word);
  if (hello->magic != kHelloMagic ||
      hello->length != static_cast<uint64_t>(options.worldSize) || peer < 1 ||
      peer >= options.worldSize || sockets[peer].valid())
    return Error(ErrorCode::InvalidArgument,
                 "bootstrap: a peer announced rank " + std::to_string(peer) +
                     " of world size " + std::to_string(hello->length) +
                     ", expected a new rank in [1, " +
                     std::to_string(options.worldSize) + ") of world size " +
                     std::to_string(options.worldSize));
  sockets[peer] = std::move(conn);
  return peer;
}

/// Rank 0: the error for ranks that did not connect in time, also sent to
/// those that did (an Abort frame), so that they know which rank is missing.
Error abortRendezvous(const BootstrapOptions &options,
                      std::vector<UniqueFd> &sockets, const std::string &path) {
  std::vector<int> missing;
  for (int r = 1; r < options.worldSize; ++r)
    if (!sockets[r].valid())
      missing.push_back(r);
  Error error(ErrorCode::Timeout,
              "bootstrap: rank(s) " + rankList(missing) +
                  " did not connect to '" + path + "' within " +
                  std::to_string(options.timeout.count()) + " ms");
  for (int r = 1; r < options.worldSize; ++r)
    if (sockets[r].valid())
      sendAbort(sockets[r].get(), error, r);
  return error;
}

/// Rank 0: listens, accepts every other rank before the deadline, then
/// sends each a Ready frame. sockets[r] is rank r's connection.
Status acceptRanks(const BootstrapOptions &options, const sockaddr_un &addr,
                   Clock::time_point until, std::vector<UniqueFd> &sockets) {
  WEAVE_ASSIGN_OR_RETURN(UniqueFd listener, listenAt(options, addr));
  std::string path = addr.sun_path;
  // The socket file goes as soon as the team is complete or has failed.
  struct Unlinker {
    const std::string &path;
    ~Unlinker() { ::unlink(path.c_str()); }
  } unlinker{path};
  sockets.resize(options.worldSize);
  for (int connected = 1; connected < options.worldSize;) {
    WEAVE_ASSIGN_OR_RETURN(bool ready, waitFor(listener.get(), POLLIN, until));
    if (!ready)
      return abortRendezvous(options, sockets, path);
    WEAVE_ASSIGN_OR_RETURN(int peer,
                           acceptRank(listener.get(), options, sockets, until));
    if (peer > 0)
      ++connected;
  }
  for (int r = 1; r < options.worldSize; ++r)
    WEAVE_TRY(sendFrame(sockets[r].get(), Frame{kReadyMagic, 0, 0}, nullptr, r,
                        until));
  return ok();
}

/// Ranks other than 0: connects to rank 0 (which may not be listening
/// yet), sends Hello, waits for Ready (or rank 0's Abort).
Expected<UniqueFd> joinRoot(const BootstrapOptions &options,
                            const sockaddr_un &addr, Clock::time_point until) {
  std::string path = addr.sun_path;
  UniqueFd sock;
  while (true) {
    sock.reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!sock.valid())
      return systemError("bootstrap: socket");
    if (::connect(sock.get(), reinterpret_cast<const sockaddr *>(&addr),
                  sizeof(addr)) == 0)
      break;
    if (errno != ENOENT && errno != ECONNREFUSED && errno != EINTR &&
        errno != EAGAIN)
      return systemError("bootstrap: connect to '" + path + "'");
    if (Clock::now() >= until)
      return Error(ErrorCode::Timeout,
                   "bootstrap: rank 0 did not listen on '" + path +
                       "' within " + std::to_string(options.timeout.count()) +
                       " ms");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  Frame hello{kHelloMagic, static_cast<uint32_t>(options.rank),
              static_cast<uint64_t>(options.worldSize)};
  WEAVE_TRY(sendFrame(sock.get(), hello, nullptr, 0, until));
  // Wait a little longer than rank 0, so that its verdict (which rank is
  // missing) arrives before this rank's own deadline.
  auto verdict = until + options.timeout / 4 + std::chrono::milliseconds(100);
  std::string prefix = "bootstrap: rank " + std::to_string(options.rank);
  Expected<Frame> reply =
      recvFrame(sock.get(), nullptr, 0, verdict,
                "rendezvous: rank 0 waits for the other ranks");
  if (!reply)
    return std::move(reply).takeError().addContext(prefix);
  if (reply->magic == kAbortMagic)
    return receiveAbort(sock.get(), *reply, 0, verdict,
                        prefix + ": rank 0 gave up: ");
  if (reply->magic != kReadyMagic || reply->length != 0)
    return Error(ErrorCode::System,
                 prefix + ": malformed rendezvous reply from rank 0");
  return sock;
}

} // namespace

Expected<std::unique_ptr<SocketBootstrap>>
SocketBootstrap::connect(const BootstrapOptions &options) {
  WEAVE_TRY(checkRank("bootstrap", options.rank, options.worldSize));
  std::unique_ptr<SocketBootstrap> boot(new SocketBootstrap());
  boot->rank_ = options.rank;
  boot->worldSize_ = options.worldSize;
  boot->timeout_ = options.timeout;
  if (options.worldSize == 1)
    return boot;
  WEAVE_ASSIGN_OR_RETURN(sockaddr_un addr,
                         rendezvousAddress(options.rendezvousDir));
  auto until = boot->deadline();
  if (options.rank == 0) {
    WEAVE_TRY(acceptRanks(options, addr, until, boot->sockets_));
    return boot;
  }
  WEAVE_ASSIGN_OR_RETURN(UniqueFd root, joinRoot(options, addr, until));
  boot->sockets_.push_back(std::move(root));
  return boot;
}

Status SocketBootstrap::send(int peer, const std::vector<uint8_t> &payload,
                       const std::vector<int> &fds) {
  if (fds.size() > kMaxFdsPerMessage)
    return Error(ErrorCode::InvalidArgument,
                 "bootstrap: cannot pass " + std::to_string(fds.size()) +
                     " file descriptors in one message (limit " +
                     std::to_string(kMaxFdsPerMessage) + ")");
  int fd = sockets_[rank_ == 0 ? peer : 0].get();
  auto until = deadline();
  auto header = encodeFrame(
      Frame{kFrameMagic, static_cast<uint32_t>(fds.size()), payload.size()});
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFdsPerMessage)];
  iovec iov{header.data(), header.size()};
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
  WEAVE_TRY(sendAll(fd, header.data() + n, header.size() - n, peer, until));
  return sendAll(fd, payload.data(), payload.size(), peer, until);
}

Expected<SocketBootstrap::Message> SocketBootstrap::receive(int peer) {
  int fd = sockets_[rank_ == 0 ? peer : 0].get();
  // Other ranks wait a little longer than rank 0, so that rank 0's verdict
  // (which rank is missing) reaches them before their own deadline.
  auto until = deadline();
  if (rank_ != 0)
    until += timeout_ / 4 + std::chrono::milliseconds(100);
  Message message;
  WEAVE_ASSIGN_OR_RETURN(Frame frame, recvFrame(fd, &message.fds, peer, until,
                                                "collective"));
  if (frame.magic == kAbortMagic && rank_ != 0)
    return receiveAbort(fd, frame, peer, until,
                        "rank 0 aborted the collective: ");
  uint64_t length = frame.length;
  if (frame.magic != kFrameMagic || length > (uint64_t(1) << 32))
    return Error(ErrorCode::System, "bootstrap: malformed frame from rank " +
                                        std::to_string(peer));
  if (message.fds.size() != frame.word)
    return Error(ErrorCode::System,
                 "bootstrap: rank " + std::to_string(peer) + " sent " +
                     std::to_string(frame.word) + " file descriptors, received " +
                     std::to_string(message.fds.size()));
  message.payload.resize(length);
  WEAVE_TRY(recvAll(fd, message.payload.data(), length, nullptr, peer, until,
                    "collective payload"));
  return message;
}

void SocketBootstrap::abortCollective(const Error &error) {
  if (rank_ != 0)
    return;
  for (int r = 1; r < worldSize_; ++r)
    if (sockets_[r].valid())
      sendAbort(sockets_[r].get(), error, r);
}

Expected<std::vector<std::vector<uint8_t>>>
SocketBootstrap::allGather(const std::vector<uint8_t> &mine) {
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
SocketBootstrap::allGatherFds(const std::vector<int> &mine) {
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

std::optional<std::string>
loopbackConnections(uint32_t members,
                    const std::map<std::string, std::string> &env) {
  if (members <= 1 || env.count("CUDA_DEVICE_MAX_CONNECTIONS"))
    return std::nullopt;
  return std::to_string(kMaxDeviceConnections);
}

std::optional<std::string> loopbackConnections(uint32_t members) {
  return loopbackConnections(members, processEnvironment());
}

} // namespace weave
