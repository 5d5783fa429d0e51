//===- StoreBootstrapTest.cpp - Stores, the store bootstrap, handle exchanges //
//
// The key-value stores (in-process: threads; file: forked processes), the
// Bootstrap over them (rendezvous, all-gathers, barrier, cleanup, a missing
// or silent rank naming itself in the error), the u64 all-gather of the
// seam, and the handle exchanges moving real descriptors (memfds) between
// forked processes over both bootstraps.
//
//===----------------------------------------------------------------------===//

#include "weave/runtime/HandleExchange.h"
#include "weave/runtime/Store.h"

#include "ForkRanks.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <thread>

using namespace weave;
using namespace weave_test;
using namespace std::chrono_literals;

namespace {

std::vector<uint8_t> bytes(const std::string &text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

/// Runs `body(rank)` on one thread per rank in `ranks`; returns each
/// thread's failure text ("" = passed).
std::vector<std::string>
runThreads(const std::vector<int> &ranks,
           const std::function<std::string(int rank)> &body) {
  std::vector<std::string> results(ranks.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < ranks.size(); ++i)
    threads.emplace_back([&, i] { results[i] = body(ranks[i]); });
  for (std::thread &t : threads)
    t.join();
  return results;
}

StoreBootstrapOptions storeOptions(int rank, int world,
                                   std::chrono::milliseconds timeout = 10s,
                                   std::string prefix = "weave") {
  StoreBootstrapOptions o;
  o.rank = rank;
  o.worldSize = world;
  o.timeout = timeout;
  o.prefix = std::move(prefix);
  return o;
}

/// Socket-bootstrap options of rank `rank` of `world` meeting in `dir`.
BootstrapOptions socketOptions(const std::string &dir, int rank, int world) {
  BootstrapOptions o;
  o.rendezvousDir = dir;
  o.rank = rank;
  o.worldSize = world;
  o.timeout = 10s;
  return o;
}

/// Rank r's payload in round `round`: r + round + 1 bytes of value r.
std::vector<uint8_t> payloadOf(int rank, int round) {
  return std::vector<uint8_t>(rank + round + 1, uint8_t(rank));
}

/// Three all-gathers, a u64 all-gather and a barrier, checked.
std::string exercise(Bootstrap &boot) {
  int world = boot.worldSize();
  for (int round = 0; round < 3; ++round) {
    auto all = boot.allGather(payloadOf(boot.rank(), round));
    if (!all)
      return all.error().toString();
    if (int(all->size()) != world)
      return "expected " + std::to_string(world) + " payloads";
    for (int r = 0; r < world; ++r)
      if ((*all)[r] != payloadOf(r, round))
        return "round " + std::to_string(round) + ": wrong payload of rank " +
               std::to_string(r);
  }
  auto values = boot.allGatherU64((uint64_t(boot.rank()) << 40) | 7);
  if (!values)
    return values.error().toString();
  for (int r = 0; r < world; ++r)
    if ((*values)[r] != ((uint64_t(r) << 40) | 7))
      return "allGatherU64: wrong value of rank " + std::to_string(r);
  Status barrier = boot.barrier();
  return barrier ? "" : barrier.error().toString();
}

} // namespace

//===----------------------------------------------------------------------===//
// The stores
//===----------------------------------------------------------------------===//

TEST(InProcessStore, SetGetAddErase) {
  InProcessStore store;
  ASSERT_TRUE(store.set("a", bytes("one")));
  auto a = store.get("a", 0ms);
  ASSERT_TRUE(a);
  EXPECT_EQ(*a, bytes("one"));
  EXPECT_EQ(*store.add("n", 5), 5);
  EXPECT_EQ(*store.add("n", -2), 3);
  EXPECT_TRUE(*store.erase("a"));
  auto gone = store.get("a", 20ms);
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().code(), ErrorCode::Timeout);
  EXPECT_NE(gone.error().message().find("key 'a' not set within 20 ms"),
            std::string::npos)
      << gone.error().message();
}

TEST(InProcessStore, GetWaitsForALaterSet) {
  InProcessStore store;
  std::thread setter([&] {
    std::this_thread::sleep_for(50ms);
    (void)store.set("late", bytes("here"));
  });
  auto late = store.get("late", 5s);
  setter.join();
  ASSERT_TRUE(late) << late.error().toString();
  EXPECT_EQ(*late, bytes("here"));
}

TEST(FileStore, ProcessesShareKeysAndCountAtomically) {
  TempDir dir;
  std::string path = dir.path() + "/store";
  const int world = 4, adds = 50;
  expectAllPassed(runRanks({0, 1, 2, 3}, [&](int rank) -> std::string {
    auto store = FileStore::open(path);
    if (!store)
      return store.error().toString();
    for (int i = 0; i < adds; ++i)
      if (!(*store)->add("counter", 1))
        return "add failed";
    if (!(*store)->set("done/" + std::to_string(rank), bytes("x")))
      return "set failed";
    for (int r = 0; r < world; ++r)
      if (!(*store)->get("done/" + std::to_string(r), 10s))
        return "rank " + std::to_string(r) + " never finished";
    auto total = (*store)->add("counter", 0);
    if (!total || *total != world * adds)
      return "counter is " + (total ? std::to_string(*total) : "an error") +
             ", expected " + std::to_string(world * adds);
    return "";
  }));
}

TEST(FileStore, MissingKeyTimesOutAndEraseRemoves) {
  TempDir dir;
  auto store = FileStore::open(dir.path() + "/store");
  ASSERT_TRUE(store) << store.error().toString();
  ASSERT_TRUE((*store)->set("weird key/with:chars", bytes("v")));
  EXPECT_EQ(*(*store)->get("weird key/with:chars", 0ms), bytes("v"));
  EXPECT_TRUE(*(*store)->erase("weird key/with:chars"));
  auto start = std::chrono::steady_clock::now();
  auto gone = (*store)->get("weird key/with:chars", 50ms);
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().code(), ErrorCode::Timeout);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

TEST(FileStore, RejectsAGroupAccessibleDirectory) {
  TempDir dir;
  std::string open = dir.path() + "/open";
  ASSERT_EQ(::mkdir(open.c_str(), 0770), 0);
  ASSERT_EQ(::chmod(open.c_str(), 0770), 0);
  auto store = FileStore::open(open);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code(), ErrorCode::InvalidArgument);
}

//===----------------------------------------------------------------------===//
// StoreBootstrap
//===----------------------------------------------------------------------===//

class StoreBootstrapThreads : public ::testing::TestWithParam<int> {};

TEST_P(StoreBootstrapThreads, GathersAndLeavesNoKeyBehind) {
  int world = GetParam();
  auto store = std::make_shared<InProcessStore>();
  std::vector<int> ranks;
  for (int r = 0; r < world; ++r)
    ranks.push_back(r);
  expectAllPassed(runThreads(ranks, [&](int rank) -> std::string {
    auto boot = StoreBootstrap::connect(store, storeOptions(rank, world));
    if (!boot)
      return boot.error().toString();
    if ((*boot)->rank() != rank || (*boot)->worldSize() != world)
      return "wrong rank or world size";
    return exercise(**boot);
  }));
  // The last reader of every round erased its keys.
  EXPECT_EQ(store->size(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Worlds, StoreBootstrapThreads,
                         ::testing::Values(1, 2, 3, 5));

TEST(StoreBootstrap, TwoTeamsOnOneStoreWithTheirOwnPrefixes) {
  auto store = std::make_shared<InProcessStore>();
  expectAllPassed(runThreads({0, 1, 2, 3}, [&](int rank) -> std::string {
    // Ranks 0, 1 are team a; ranks 2, 3 team b, each of world size 2.
    std::string prefix = rank < 2 ? "a" : "b";
    auto boot = StoreBootstrap::connect(
        store, storeOptions(rank % 2, 2, 10s, prefix));
    if (!boot)
      return boot.error().toString();
    auto all = (*boot)->allGather(bytes(prefix));
    if (!all)
      return all.error().toString();
    return (*all)[0] == bytes(prefix) && (*all)[1] == bytes(prefix)
               ? ""
               : "teams mixed their payloads";
  }));
}

// Both implementations refuse a rank outside [0, world size) before any
// rendezvous, with the same message.
TEST(StoreBootstrap, RankOutsideTheWorldIsRefused) {
  auto store = std::make_shared<InProcessStore>();
  auto bad = StoreBootstrap::connect(store, storeOptions(3, 2));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(),
            "store bootstrap: rank 3 is not in [0, world size 2)");
  TempDir dir;
  auto socket = SocketBootstrap::connect(socketOptions(dir.path(), -1, 2));
  ASSERT_FALSE(socket);
  EXPECT_EQ(socket.error().message(),
            "bootstrap: rank -1 is not in [0, world size 2)");
  EXPECT_FALSE(StoreBootstrap::connect(store, storeOptions(0, 0)));
}

TEST(StoreBootstrap, MissingRankTimesOutNamingIt) {
  auto store = std::make_shared<InProcessStore>();
  auto start = std::chrono::steady_clock::now();
  // World of 5: ranks 2 and 4 never start.
  expectAllPassed(runThreads({0, 1, 3}, [&](int rank) -> std::string {
    auto boot = StoreBootstrap::connect(store, storeOptions(rank, 5, 300ms));
    if (boot)
      return "connected without ranks 2 and 4";
    if (boot.error().code() != ErrorCode::Timeout)
      return "expected Timeout, got " + boot.error().toString();
    if (boot.error().message().find(
            "rank(s) 2, 4 did not join the rendezvous within 300 ms") ==
        std::string::npos)
      return "message does not name ranks 2 and 4: " + boot.error().message();
    return "";
  }));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

TEST(StoreBootstrap, DeadPeerInACollectiveTimesOutNamingIt) {
  // Over a file store, in processes: rank 2 joins, then dies.
  TempDir dir;
  std::string path = dir.path() + "/store";
  auto results = runRanks({0, 1, 2}, [&](int rank) -> std::string {
    auto store = FileStore::open(path);
    if (!store)
      return store.error().toString();
    auto boot = StoreBootstrap::connect(*store, storeOptions(rank, 3, 400ms));
    if (!boot)
      return boot.error().toString();
    if (rank == 2)
      ::_exit(3); // a crash after the rendezvous
    auto all = (*boot)->allGather(bytes("x"));
    if (all)
      return "allGather finished without rank 2";
    if (all.error().code() != ErrorCode::Timeout ||
        all.error().message().find(
            "rank(s) 2 did not reach collective 1 within 400 ms") ==
            std::string::npos)
      return "unexpected error: " + all.error().toString();
    return "";
  });
  EXPECT_EQ(results[0], "");
  EXPECT_EQ(results[1], "");
  EXPECT_NE(results[2].find("crashed"), std::string::npos) << results[2];
}

TEST(StoreBootstrap, WorldSizesMustAgree) {
  auto store = std::make_shared<InProcessStore>();
  auto results = runThreads({0, 1}, [&](int rank) -> std::string {
    // Rank 1 thinks the world has 3 ranks; both see ranks 0 and 1 only
    // in a world of 2 (rank 0) -- rank 1 waits for a rank 2 and times out.
    auto boot = StoreBootstrap::connect(
        store, storeOptions(rank, rank == 0 ? 2 : 3, 300ms));
    if (boot)
      return "connected with disagreeing world sizes";
    return boot.error().toString();
  });
  EXPECT_NE(results[0].find("rank 1 announced world size 3, rank 0 expects 2"),
            std::string::npos)
      << results[0];
  EXPECT_NE(results[1].find("Timeout"), std::string::npos) << results[1];
}

TEST(StoreBootstrap, RejectsBadArguments) {
  auto store = std::make_shared<InProcessStore>();
  auto bad = StoreBootstrap::connect(store, storeOptions(2, 2));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), ErrorCode::InvalidArgument);
  auto none = StoreBootstrap::connect(nullptr, storeOptions(0, 1));
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code(), ErrorCode::InvalidArgument);
}

TEST(StoreBootstrap, ForkedProcessesOverAFileStore) {
  TempDir dir;
  std::string path = dir.path() + "/store";
  expectAllPassed(runRanks({0, 1, 2, 3}, [&](int rank) -> std::string {
    auto store = FileStore::open(path);
    if (!store)
      return store.error().toString();
    auto boot = StoreBootstrap::connect(*store, storeOptions(rank, 4));
    if (!boot)
      return boot.error().toString();
    return exercise(**boot);
  }));
}

TEST(SocketBootstrap, PassesTheSameSeamChecks) {
  TempDir dir;
  expectAllPassed(runRanks({0, 1, 2}, [&](int rank) -> std::string {
    auto boot = SocketBootstrap::connect(socketOptions(dir.path(), rank, 3));
    if (!boot)
      return boot.error().toString();
    return exercise(**boot);
  }));
}

//===----------------------------------------------------------------------===//
// Handle exchanges
//===----------------------------------------------------------------------===//

namespace {

/// Each rank exports a memfd holding its magic word; checks that it gets
/// every rank's (its own dup()ed) through `exchange` over `boot`.
std::string exchangeMemfds(Bootstrap &boot, HandleExchange &exchange) {
  int rank = boot.rank(), world = boot.worldSize();
  int mem = ::memfd_create("weave-exchange-test", MFD_CLOEXEC);
  if (mem < 0)
    return "memfd_create failed";
  uint32_t magic = 0xFD000000u + rank;
  if (::pwrite(mem, &magic, 4, 0) != 4)
    return "pwrite failed";
  // Two exchanges in a row: the second must not see the first's datagrams.
  for (int round = 0; round < 2; ++round) {
    auto fds = exchange.allGatherFd(boot, mem);
    if (!fds)
      return fds.error().toString();
    if (int(fds->size()) != world)
      return "expected one descriptor per rank";
    for (int r = 0; r < world; ++r) {
      uint32_t got = 0;
      if ((*fds)[r].get() == mem ||
          ::pread((*fds)[r].get(), &got, 4, 0) != 4 || got != 0xFD000000u + r)
        return "round " + std::to_string(round) + ": descriptor of rank " +
               std::to_string(r) + " is not its memfd";
    }
  }
  ::close(mem);
  return "";
}

} // namespace

TEST(HandleExchange, DatagramsOverTheStoreBootstrap) {
  TempDir dir;
  std::string path = dir.path() + "/store";
  expectAllPassed(runRanks({0, 1, 2}, [&](int rank) -> std::string {
    auto store = FileStore::open(path);
    if (!store)
      return store.error().toString();
    auto boot = StoreBootstrap::connect(*store, storeOptions(rank, 3));
    if (!boot)
      return boot.error().toString();
    auto exchange = defaultHandleExchange(**boot, 10s);
    if (std::string(exchange->name()) != "unix-datagram fd passing")
      return std::string("default for the store bootstrap: ") +
             exchange->name();
    return exchangeMemfds(**boot, *exchange);
  }));
}

TEST(HandleExchange, BothStrategiesOverTheSocketBootstrap) {
  TempDir dir;
  expectAllPassed(runRanks({0, 1, 2}, [&](int rank) -> std::string {
    auto boot = SocketBootstrap::connect(socketOptions(dir.path(), rank, 3));
    if (!boot)
      return boot.error().toString();
    auto byDefault = defaultHandleExchange(**boot, 10s);
    if (std::string(byDefault->name()) != "socket-bootstrap fd passing")
      return std::string("default for the socket bootstrap: ") +
             byDefault->name();
    std::string failure = exchangeMemfds(**boot, *byDefault);
    if (!failure.empty())
      return failure;
    return exchangeMemfds(**boot, *makeUnixDatagramFdExchange(10s));
  }));
}

TEST(HandleExchange, SocketFdPassingNeedsTheSocketBootstrap) {
  auto store = std::make_shared<InProcessStore>();
  auto boot = StoreBootstrap::connect(store, storeOptions(0, 1));
  ASSERT_TRUE(boot) << boot.error().toString();
  auto fds = makeSocketBootstrapFdExchange()->allGatherFd(**boot, 0);
  ASSERT_FALSE(fds);
  EXPECT_EQ(fds.error().code(), ErrorCode::InvalidArgument);
  EXPECT_NE(fds.error().message().find("this team has the store bootstrap"),
            std::string::npos)
      << fds.error().message();
}

TEST(HandleExchange, DatagramsRefuseAStrangersMessage) {
  // A datagram without a descriptor from "rank 1" is ignored; the exchange
  // then times out naming rank 1, which never sent one.
  auto store = std::make_shared<InProcessStore>();
  std::atomic<bool> sent{false};
  auto results = runThreads({0, 1}, [&](int rank) -> std::string {
    auto boot = StoreBootstrap::connect(store, storeOptions(rank, 2, 2s));
    if (!boot)
      return boot.error().toString();
    if (rank == 1) {
      // Take part in the exchange's all-gather of socket names with a
      // socket of its own, then send a bare datagram instead of a
      // descriptor.
      int sock = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      sockaddr_un self{};
      self.sun_family = AF_UNIX;
      socklen_t length = sizeof(self);
      if (::bind(sock, reinterpret_cast<sockaddr *>(&self),
                 sizeof(sa_family_t)) != 0 ||
          ::getsockname(sock, reinterpret_cast<sockaddr *>(&self), &length))
        return "cannot bind a socket";
      auto names = (*boot)->allGather(std::vector<uint8_t>(
          reinterpret_cast<uint8_t *>(&self),
          reinterpret_cast<uint8_t *>(&self) + length));
      if (!names)
        return names.error().toString();
      sockaddr_un to{};
      std::memcpy(&to, (*names)[0].data(), (*names)[0].size());
      uint32_t word = 1;
      ssize_t n = ::sendto(sock, &word, sizeof(word), 0,
                           reinterpret_cast<sockaddr *>(&to),
                           static_cast<socklen_t>((*names)[0].size()));
      std::this_thread::sleep_for(500ms); // until rank 0 has given up
      ::close(sock);
      sent = n == sizeof(word);
      return "";
    }
    auto fds = makeUnixDatagramFdExchange(300ms)->allGatherFd(**boot, 0);
    if (fds)
      return "exchange finished without rank 1's descriptor";
    if (fds.error().code() != ErrorCode::Timeout ||
        fds.error().message().find("no descriptor from rank(s) 1 within 300 ms") ==
            std::string::npos)
      return "unexpected error: " + fds.error().toString();
    return "";
  });
  expectAllPassed(results);
  EXPECT_TRUE(sent);
}
