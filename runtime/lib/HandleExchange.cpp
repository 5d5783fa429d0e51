//===- HandleExchange.cpp - How memory handles travel between ranks -------===//

#include "weave/runtime/HandleExchange.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

namespace weave {

namespace {

using Clock = std::chrono::steady_clock;

Error systemError(const std::string &what) {
  return Error(ErrorCode::System, what + ": " + std::strerror(errno));
}

Expected<UniqueFd> duplicate(int fd, const char *who) {
  UniqueFd copy(::fcntl(fd, F_DUPFD_CLOEXEC, 0));
  if (!copy.valid())
    return systemError(std::string(who) + ": dup of fd " + std::to_string(fd));
  return copy;
}

//===----------------------------------------------------------------------===//
// Over the SocketBootstrap's connections
//===----------------------------------------------------------------------===//

class SocketBootstrapFdExchange final : public HandleExchange {
public:
  const char *name() const override { return "socket-bootstrap fd passing"; }

  Expected<std::vector<UniqueFd>> allGatherFd(Bootstrap &bootstrap,
                                              int mine) override {
    auto *sockets = dynamic_cast<SocketBootstrap *>(&bootstrap);
    if (!sockets)
      return Error(ErrorCode::InvalidArgument,
                   std::string("fd passing over the bootstrap needs the "
                               "Unix-socket bootstrap, this team has the ") +
                       bootstrap.name() +
                       " bootstrap (use makeUnixDatagramFdExchange)");
    WEAVE_ASSIGN_OR_RETURN(auto all, sockets->allGatherFds({mine}));
    std::vector<UniqueFd> fds;
    for (size_t r = 0; r < all.size(); ++r) {
      if (all[r].size() != 1)
        return Error(ErrorCode::System,
                     "rank " + std::to_string(r) + " sent " +
                         std::to_string(all[r].size()) +
                         " file descriptors, expected 1");
      fds.push_back(std::move(all[r][0]));
    }
    return fds;
  }
};

//===----------------------------------------------------------------------===//
// Over abstract-namespace Unix datagram sockets
//===----------------------------------------------------------------------===//

/// One datagram: the sender's rank (4 bytes) with its descriptor attached.
class UnixDatagramFdExchange final : public HandleExchange {
public:
  explicit UnixDatagramFdExchange(std::chrono::milliseconds timeout)
      : timeout_(timeout) {}
  const char *name() const override { return "unix-datagram fd passing"; }

  Expected<std::vector<UniqueFd>> allGatherFd(Bootstrap &bootstrap,
                                              int mine) override {
    int rank = bootstrap.rank(), size = bootstrap.worldSize();
    std::vector<UniqueFd> fds(size);
    WEAVE_ASSIGN_OR_RETURN(fds[rank], duplicate(mine, name()));
    if (size == 1)
      return fds;
    WEAVE_ASSIGN_OR_RETURN(UniqueFd sock, openSocket());
    // The kernel picks a fresh name (autobind); every rank learns all.
    sockaddr_un self{};
    socklen_t selfLength = sizeof(self);
    if (::getsockname(sock.get(), reinterpret_cast<sockaddr *>(&self),
                      &selfLength) != 0)
      return systemError(std::string(name()) + ": getsockname");
    std::vector<uint8_t> address(reinterpret_cast<uint8_t *>(&self),
                                 reinterpret_cast<uint8_t *>(&self) +
                                     selfLength);
    WEAVE_ASSIGN_OR_RETURN(auto addresses, bootstrap.allGather(address));
    auto deadline = Clock::now() + timeout_;
    for (int peer = 0; peer < size; ++peer)
      if (peer != rank)
        WEAVE_TRY(sendTo(sock.get(), addresses[peer], rank, mine, peer,
                         deadline));
    for (int received = 1; received < size;) {
      WEAVE_ASSIGN_OR_RETURN(bool got, receive(sock.get(), fds, deadline));
      received += got;
    }
    return fds;
  }

private:
  Expected<UniqueFd> openSocket() {
    UniqueFd sock(
        ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!sock.valid())
      return systemError(std::string(name()) + ": socket");
    int on = 1;
    if (::setsockopt(sock.get(), SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)))
      return systemError(std::string(name()) + ": SO_PASSCRED");
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (::bind(sock.get(), reinterpret_cast<sockaddr *>(&addr),
               sizeof(sa_family_t)) != 0)
      return systemError(std::string(name()) + ": bind (autobind)");
    return sock;
  }

  Status sendTo(int sock, const std::vector<uint8_t> &address, int rank,
                int fd, int peer, Clock::time_point deadline) {
    sockaddr_un to{};
    if (address.size() < sizeof(sa_family_t) || address.size() > sizeof(to))
      return Error(ErrorCode::System, std::string(name()) + ": rank " +
                                          std::to_string(peer) +
                                          " sent a malformed socket address");
    std::memcpy(&to, address.data(), address.size());
    uint32_t word = static_cast<uint32_t>(rank);
    iovec iov{&word, sizeof(word)};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg{};
    msg.msg_name = &to;
    msg.msg_namelen = static_cast<socklen_t>(address.size());
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof(int));
    while (::sendmsg(sock, &msg, MSG_NOSIGNAL) < 0) {
      if (errno == EINTR)
        continue;
      // The peer's queue is full: it drains as the peer receives.
      if ((errno == EAGAIN || errno == EWOULDBLOCK) && Clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        continue;
      }
      return systemError(std::string(name()) + ": sending to rank " +
                         std::to_string(peer));
    }
    return ok();
  }

  /// One datagram into fds[its rank]; false for one that is ignored.
  Expected<bool> receive(int sock, std::vector<UniqueFd> &fds,
                         Clock::time_point deadline) {
    while (true) {
      pollfd p{sock, POLLIN, 0};
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - Clock::now())
                      .count();
      int n = ::poll(&p, 1, left < 0 ? 0 : static_cast<int>(left));
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return systemError(std::string(name()) + ": poll");
      if (n == 0)
        return Error(ErrorCode::Timeout,
                     std::string(name()) + ": no descriptor from rank(s) " +
                         missing(fds) + " within " +
                         std::to_string(timeout_.count()) + " ms");
      break;
    }
    uint32_t word = 0;
    iovec iov{&word, sizeof(word)};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4) +
                                  CMSG_SPACE(sizeof(ucred))];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    ssize_t got = ::recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
    if (got < 0 && (errno == EINTR || errno == EAGAIN))
      return false;
    if (got < 0)
      return systemError(std::string(name()) + ": recvmsg");
    std::vector<UniqueFd> attached;
    const ucred *cred = nullptr;
    for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET)
        continue;
      if (c->cmsg_type == SCM_RIGHTS)
        for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
             ++i) {
          int fd;
          std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
          attached.emplace_back(fd);
        }
      else if (c->cmsg_type == SCM_CREDENTIALS)
        cred = reinterpret_cast<const ucred *>(CMSG_DATA(c));
    }
    // Anyone in the network namespace can send here: only this user's
    // processes, with one descriptor for a rank not yet heard from, count.
    int from = static_cast<int>(word);
    if (!cred || cred->uid != ::geteuid() || got != sizeof(word) ||
        attached.size() != 1 || from < 0 ||
        from >= static_cast<int>(fds.size()) || fds[from].valid()) {
      std::fprintf(stderr, "weave: %s: ignoring a datagram (%s)\n", name(),
                   !cred || cred->uid != ::geteuid()
                       ? "from another user"
                       : "not one descriptor from a rank not yet heard from");
      return false;
    }
    fds[from] = std::move(attached[0]);
    return true;
  }

  static std::string missing(const std::vector<UniqueFd> &fds) {
    std::string text;
    for (size_t r = 0; r < fds.size(); ++r)
      if (!fds[r].valid())
        text += (text.empty() ? "" : ", ") + std::to_string(r);
    return text;
  }

  std::chrono::milliseconds timeout_;
};

} // namespace

HandleExchange::~HandleExchange() = default;

std::unique_ptr<HandleExchange> makeSocketBootstrapFdExchange() {
  return std::make_unique<SocketBootstrapFdExchange>();
}

std::unique_ptr<HandleExchange>
makeUnixDatagramFdExchange(std::chrono::milliseconds timeout) {
  return std::make_unique<UnixDatagramFdExchange>(timeout);
}

std::unique_ptr<HandleExchange>
defaultHandleExchange(const Bootstrap &bootstrap,
                      std::chrono::milliseconds timeout) {
  if (dynamic_cast<const SocketBootstrap *>(&bootstrap))
    return makeSocketBootstrapFdExchange();
  return makeUnixDatagramFdExchange(timeout);
}

} // namespace weave
