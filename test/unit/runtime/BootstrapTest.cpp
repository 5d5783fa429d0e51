//===- BootstrapTest.cpp - Multi-process bootstrap tests with fork() ------===//

#include "weave/runtime/Bootstrap.h"

#include "ForkRanks.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <cstdlib>
#include <functional>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace weave;
using namespace std::chrono_literals;

using namespace weave_test;

namespace {

BootstrapOptions options(const std::string &dir, int rank, int world,
                         std::chrono::milliseconds timeout = 10s) {
  BootstrapOptions o;
  o.rendezvousDir = dir;
  o.rank = rank;
  o.worldSize = world;
  o.timeout = timeout;
  return o;
}

class BootstrapAllGather : public ::testing::TestWithParam<int> {};

TEST_P(BootstrapAllGather, ExchangesPayloadsOfDifferentSizes) {
  int world = GetParam();
  TempDir dir;
  std::vector<int> ranks;
  for (int r = 0; r < world; ++r)
    ranks.push_back(r);
  expectAllPassed(runRanks(ranks, [&](int rank) -> std::string {
    auto boot = SocketBootstrap::connect(options(dir.path(), rank, world));
    if (!boot)
      return boot.error().toString();
    for (int round = 0; round < 3; ++round) {
      std::vector<uint8_t> mine(rank * 1000 + round,
                                static_cast<uint8_t>(rank * 7 + round));
      auto all = (*boot)->allGather(mine);
      if (!all)
        return all.error().toString();
      if (all->size() != static_cast<size_t>(world))
        return "wrong count";
      for (int r = 0; r < world; ++r) {
        std::vector<uint8_t> want(r * 1000 + round,
                                  static_cast<uint8_t>(r * 7 + round));
        if ((*all)[r] != want)
          return "payload of rank " + std::to_string(r) + " differs in round " +
                 std::to_string(round);
      }
    }
    return "";
  }));
}

INSTANTIATE_TEST_SUITE_P(Worlds, BootstrapAllGather, ::testing::Values(2, 3, 4));

TEST(Bootstrap, PassesPipeAndMemfdDescriptors) {
  TempDir dir;
  const int world = 3;
  expectAllPassed(runRanks({0, 1, 2}, [&](int rank) -> std::string {
    auto boot = SocketBootstrap::connect(options(dir.path(), rank, world));
    if (!boot)
      return boot.error().toString();
    int p[2];
    if (::pipe(p) != 0)
      return "pipe failed";
    std::string text = "hello from rank " + std::to_string(rank);
    if (::write(p[1], text.data(), text.size()) != ssize_t(text.size()))
      return "write failed";
    ::close(p[1]);
    struct stat pipeStat;
    ::fstat(p[0], &pipeStat);
    ino_t pipeInode = pipeStat.st_ino;
    int mem = ::memfd_create("weave-test", MFD_CLOEXEC);
    if (mem < 0)
      return "memfd_create failed";
    uint32_t magic = 0xC0DE0000u + rank;
    if (::pwrite(mem, &magic, 4, 4096) != 4)
      return "pwrite failed";
    auto all = (*boot)->allGatherFds({p[0], mem});
    ::close(p[0]);
    ::close(mem);
    if (!all)
      return all.error().toString();
    // Everyone shares each pipe's open file, so only the right neighbour
    // drains rank r's pipe; all ranks check identity through the inode.
    auto inodes = (*boot)->allGather(std::vector<uint8_t>(
        reinterpret_cast<uint8_t *>(&pipeInode),
        reinterpret_cast<uint8_t *>(&pipeInode) + sizeof(pipeInode)));
    if (!inodes)
      return inodes.error().toString();
    for (int r = 0; r < world; ++r) {
      if ((*all)[r].size() != 2)
        return "rank " + std::to_string(r) + ": expected 2 fds";
      struct stat st;
      ino_t theirs;
      std::memcpy(&theirs, (*inodes)[r].data(), sizeof(theirs));
      if (::fstat((*all)[r][0].get(), &st) != 0 || st.st_ino != theirs)
        return "fd of rank " + std::to_string(r) + " is not its pipe";
      if (r == (rank + world - 1) % world) {
        char buf[64] = {};
        ssize_t n = ::read((*all)[r][0].get(), buf, sizeof(buf));
        std::string want = "hello from rank " + std::to_string(r);
        if (n <= 0 || std::string(buf, n) != want)
          return "pipe of rank " + std::to_string(r) + " read '" +
                 std::string(buf, n > 0 ? n : 0) + "'";
      }
      uint32_t got = 0;
      if (::pread((*all)[r][1].get(), &got, 4, 4096) != 4 ||
          got != 0xC0DE0000u + r)
        return "memfd of rank " + std::to_string(r) + " has wrong content";
    }
    return "";
  }));
}

TEST(Bootstrap, BarrierWaitsForTheSlowestRank) {
  TempDir dir;
  const int world = 3;
  auto start = std::chrono::steady_clock::now();
  expectAllPassed(runRanks({0, 1, 2}, [&](int rank) -> std::string {
    auto boot = SocketBootstrap::connect(options(dir.path(), rank, world));
    if (!boot)
      return boot.error().toString();
    std::this_thread::sleep_for(std::chrono::milliseconds(150 * rank));
    Status s = (*boot)->barrier();
    if (!s)
      return s.error().toString();
    auto elapsed = std::chrono::steady_clock::now() - start;
    if (elapsed < 300ms)
      return "left the barrier after " +
             std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                elapsed)
                                .count()) +
             " ms, before rank 2 arrived";
    return "";
  }));
}

TEST(Bootstrap, MissingRankTimesOutNamingIt) {
  TempDir dir;
  // World of 4, rank 2 never starts.
  auto results = runRanks({0, 1, 3}, [&](int rank) -> std::string {
    auto boot = SocketBootstrap::connect(options(dir.path(), rank, 4, 400ms));
    if (boot)
      return "connected without rank 2";
    if (boot.error().code() != ErrorCode::Timeout)
      return "expected Timeout, got " + boot.error().toString();
    // Rank 0 sends its verdict to the ranks that came (an Abort frame).
    if (boot.error().message().find("rank(s) 2 did not connect") ==
        std::string::npos)
      return "message does not name rank 2: " + boot.error().message();
    if (rank != 0 &&
        boot.error().message().find("rank 0 gave up") == std::string::npos)
      return "message does not say rank 0 gave up: " + boot.error().message();
    return "";
  });
  expectAllPassed(results);
}

TEST(Bootstrap, MissingRootTimesOut) {
  TempDir dir;
  auto results = runRanks({1}, [&](int rank) -> std::string {
    auto start = std::chrono::steady_clock::now();
    auto boot = SocketBootstrap::connect(options(dir.path(), rank, 2, 300ms));
    if (boot)
      return "connected without rank 0";
    if (boot.error().code() != ErrorCode::Timeout ||
        boot.error().message().find("rank 0 did not listen") ==
            std::string::npos)
      return "unexpected error: " + boot.error().toString();
    if (std::chrono::steady_clock::now() - start > 5s)
      return "deadline not honoured";
    return "";
  });
  expectAllPassed(results);
}

TEST(Bootstrap, RankSilentInCollectiveTimesOut) {
  TempDir dir;
  auto results = runRanks({0, 1, 2}, [&](int rank) -> std::string {
    auto boot = SocketBootstrap::connect(options(dir.path(), rank, 3, 500ms));
    if (!boot)
      return boot.error().toString();
    if (rank == 2) {
      // Connected, then never joins the collective.
      std::this_thread::sleep_for(1500ms);
      return "";
    }
    auto all = (*boot)->allGather({1, 2, 3});
    if (all)
      return "allGather finished without rank 2";
    if (all.error().code() != ErrorCode::Timeout)
      return "expected Timeout, got " + all.error().toString();
    if (all.error().message().find("rank 2") == std::string::npos)
      return "message does not name rank 2: " + all.error().message();
    return "";
  });
  expectAllPassed(results);
}

TEST(Bootstrap, SingleRankNeedsNoSocket) {
  auto boot = SocketBootstrap::connect(options("", 0, 1));
  ASSERT_TRUE(boot) << boot.error().toString();
  auto all = (*boot)->allGather({42});
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0], std::vector<uint8_t>{42});
  EXPECT_TRUE((*boot)->barrier());
}

TEST(Bootstrap, RejectsBadRank) {
  auto boot = SocketBootstrap::connect(options("/tmp", 3, 2));
  ASSERT_FALSE(boot);
  EXPECT_EQ(boot.error().code(), ErrorCode::InvalidArgument);
}

TEST(Bootstrap, RejectsOverlongSocketPath) {
  auto boot = SocketBootstrap::connect(options("/tmp/" + std::string(120, 'x'), 0, 2));
  ASSERT_FALSE(boot);
  EXPECT_EQ(boot.error().code(), ErrorCode::InvalidArgument);
  EXPECT_NE(boot.error().message().find("longer than"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// Rendezvous directory and environment
//===----------------------------------------------------------------------===//

TEST(RendezvousDir, CreatedPrivate) {
  TempDir parent;
  std::string path = parent.path() + "/rv";
  ASSERT_TRUE(prepareRendezvousDir(path));
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_TRUE(prepareRendezvousDir(path)); // existing and fine
  ::rmdir(path.c_str());
}

TEST(RendezvousDir, RejectsGroupAccessible) {
  TempDir parent;
  std::string path = parent.path() + "/open";
  ASSERT_EQ(::mkdir(path.c_str(), 0700), 0);
  ASSERT_EQ(::chmod(path.c_str(), 0750), 0);
  Status s = prepareRendezvousDir(path);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("mode 0750"), std::string::npos)
      << s.error().message();
  ::rmdir(path.c_str());
}

TEST(RendezvousDir, RejectsSymlinkAndFile) {
  TempDir parent;
  std::string target = parent.path() + "/real";
  std::string link = parent.path() + "/link";
  ASSERT_EQ(::mkdir(target.c_str(), 0700), 0);
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  Status s = prepareRendezvousDir(link);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("symbolic link"), std::string::npos);
  std::string file = parent.path() + "/file";
  FILE *f = std::fopen(file.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  Status t = prepareRendezvousDir(file);
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message().find("not a directory"), std::string::npos);
  ::unlink(link.c_str());
  ::unlink(file.c_str());
  ::rmdir(target.c_str());
}

TEST(RendezvousDir, FromEnvironment) {
  auto explicitDir = rendezvousDirFromEnvironment(
      {{"WEAVE_RENDEZVOUS_DIR", "/tmp/x"}, {"WEAVE_JOB_ID", "7"}});
  ASSERT_TRUE(explicitDir);
  EXPECT_EQ(*explicitDir, "/tmp/x");
  std::string uid = std::to_string(::geteuid());
  auto job = rendezvousDirFromEnvironment({{"WEAVE_JOB_ID", "job-7"},
                                           {"MASTER_PORT", "29500"}});
  ASSERT_TRUE(job);
  EXPECT_EQ(*job, "/tmp/weave-" + uid + "-job-7");
  auto port = rendezvousDirFromEnvironment({{"MASTER_PORT", "29500"}});
  ASSERT_TRUE(port);
  EXPECT_EQ(*port, "/tmp/weave-" + uid + "-29500");
  auto none = rendezvousDirFromEnvironment({});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code(), ErrorCode::InvalidArgument);
  auto evil = rendezvousDirFromEnvironment({{"WEAVE_JOB_ID", "../../etc"}});
  ASSERT_FALSE(evil);
}

TEST(LaunchEnvironment, ParsesTorchrunVariables) {
  auto env = launchEnvironment(
      {{"RANK", "3"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "1"}});
  ASSERT_TRUE(env) << env.error().toString();
  EXPECT_EQ(env->rank, 3);
  EXPECT_EQ(env->worldSize, 4);
  EXPECT_EQ(env->localRank, 1);
  auto noLocal = launchEnvironment({{"RANK", "1"}, {"WORLD_SIZE", "2"}});
  ASSERT_TRUE(noLocal);
  EXPECT_EQ(noLocal->localRank, 1);
  EXPECT_FALSE(launchEnvironment({{"WORLD_SIZE", "2"}}));
  EXPECT_FALSE(launchEnvironment({{"RANK", "2"}, {"WORLD_SIZE", "2"}}));
  auto bad = launchEnvironment({{"RANK", "x1"}, {"WORLD_SIZE", "2"}});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("found 'x1'"), std::string::npos);
}

TEST(LaunchEnvironment, LoopbackTeamSize) {
  auto unset = loopbackMembersFromEnvironment({{"RANK", "0"}});
  ASSERT_TRUE(unset);
  EXPECT_EQ(*unset, 0u);
  auto empty = loopbackMembersFromEnvironment({{"WEAVE_LOOPBACK_TEAM", ""}});
  ASSERT_TRUE(empty);
  EXPECT_EQ(*empty, 0u);
  auto eight = loopbackMembersFromEnvironment({{"WEAVE_LOOPBACK_TEAM", "8"}});
  ASSERT_TRUE(eight) << eight.error().toString();
  EXPECT_EQ(*eight, 8u);
  auto most = loopbackMembersFromEnvironment(
      {{"WEAVE_LOOPBACK_TEAM", std::to_string(kMaxLoopbackMembers)}});
  ASSERT_TRUE(most);
  for (const char *bad : {"0", "-2", "65", "4x", "x", "99999999999"}) {
    auto parsed = loopbackMembersFromEnvironment({{"WEAVE_LOOPBACK_TEAM", bad}});
    ASSERT_FALSE(parsed) << bad;
    EXPECT_EQ(parsed.error().code(), ErrorCode::InvalidArgument);
    EXPECT_NE(parsed.error().message().find("expected a member count from 1 "
                                            "to 64"),
              std::string::npos)
        << parsed.error().message();
  }
}

TEST(LaunchEnvironment, LoopbackConnections) {
  EXPECT_FALSE(loopbackConnections(1, {}));
  EXPECT_FALSE(loopbackConnections(0, {}));
  auto two = loopbackConnections(2, {{"WEAVE_LOOPBACK_TEAM", "2"}});
  ASSERT_TRUE(two);
  EXPECT_EQ(*two, "32");
  EXPECT_EQ(loopbackConnections(8, {}).value_or(""),
            std::to_string(kMaxDeviceConnections));
  // The user's value stays, whatever it is.
  EXPECT_FALSE(loopbackConnections(8, {{"CUDA_DEVICE_MAX_CONNECTIONS", "4"}}));
  EXPECT_FALSE(loopbackConnections(8, {{"CUDA_DEVICE_MAX_CONNECTIONS", ""}}));
}

} // namespace
