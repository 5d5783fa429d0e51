//===- HandleExchange.h - How memory handles travel between ranks -*- C++ -*-===//
//
// A multi-process team maps every member's symmetric heap: each rank
// exports its allocation as a POSIX file descriptor
// (cuMemExportToShareableHandle) and needs every other rank's. A file
// descriptor is not bytes, so it cannot ride Bootstrap::allGather; how it
// travels is a strategy the team is given (TeamOptions::handleExchange):
//   over the SocketBootstrap's own connections (SCM_RIGHTS through rank 0),
//     for a team that joined through the Unix-socket rendezvous;
//   over Unix datagram sockets in the abstract namespace, one per rank,
//     whose names travel over any Bootstrap (as NCCL's cuMem IPC sockets):
//     the processes must share a network namespace (one machine).
// A strategy that moves another kind of handle (a fabric handle, bytes)
// implements this interface beside these. No CUDA here.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_RUNTIME_HANDLEEXCHANGE_H
#define WEAVE_RUNTIME_HANDLEEXCHANGE_H

#include "weave/runtime/Bootstrap.h"

#include <chrono>
#include <memory>
#include <vector>

namespace weave {

class HandleExchange {
public:
  virtual ~HandleExchange();
  /// What this strategy is, for messages.
  virtual const char *name() const = 0;
  /// Collective over `bootstrap`: every rank's descriptor, indexed by rank,
  /// as new descriptors owned by the caller (this rank's own dup()ed).
  virtual Expected<std::vector<UniqueFd>> allGatherFd(Bootstrap &bootstrap,
                                                      int mine) = 0;
};

/// SCM_RIGHTS over a SocketBootstrap's connections; InvalidArgument for any
/// other bootstrap.
std::unique_ptr<HandleExchange> makeSocketBootstrapFdExchange();

/// SCM_RIGHTS over one abstract-namespace Unix datagram socket per rank and
/// exchange, named through `bootstrap.allGather`; works with any bootstrap
/// whose ranks share this machine's network namespace. Descriptors from a
/// process of another user are refused. Every wait ends by `timeout`.
std::unique_ptr<HandleExchange>
makeUnixDatagramFdExchange(std::chrono::milliseconds timeout =
                               std::chrono::milliseconds(60000));

/// The strategy a team uses when it is given none: the socket bootstrap's
/// connections for a SocketBootstrap, else Unix datagram sockets.
std::unique_ptr<HandleExchange>
defaultHandleExchange(const Bootstrap &bootstrap,
                      std::chrono::milliseconds timeout);

} // namespace weave

#endif // WEAVE_RUNTIME_HANDLEEXCHANGE_H
