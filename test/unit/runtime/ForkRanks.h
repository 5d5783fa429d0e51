//===- ForkRanks.h - Ranks as forked processes, for bootstrap tests -*- C++ -*-//

#ifndef WEAVE_TEST_UNIT_RUNTIME_FORKRANKS_H
#define WEAVE_TEST_UNIT_RUNTIME_FORKRANKS_H

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <functional>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace weave_test {

using namespace std::chrono_literals;

/// A fresh private rendezvous directory (unique per test and process, so
/// tests run in parallel), removed afterwards with what is left in it.
class TempDir {
public:
  TempDir() {
    char templ[] = "/tmp/weave-bt-XXXXXX";
    char *made = ::mkdtemp(templ);
    EXPECT_NE(made, nullptr);
    path_ = made ? made : "";
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty())
      std::filesystem::remove_all(path_, ignored);
  }
  const std::string &path() const { return path_; }

private:
  std::string path_;
};

/// Runs `body(rank)` in one forked child per rank in `ranks`; a child exits 0
/// when body returns "" and prints the returned text and exits 1 otherwise.
/// Returns each child's failure text ("" = passed) after all exit (20 s cap).
inline std::vector<std::string>
runRanks(const std::vector<int> &ranks,
         const std::function<std::string(int rank)> &body) {
  std::vector<pid_t> pids;
  std::vector<int> pipes;
  for (int rank : ranks) {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    pid_t pid = ::fork();
    if (pid == 0) {
      ::close(fds[0]);
      std::string failure = body(rank);
      if (!failure.empty()) {
        ssize_t ignored = ::write(fds[1], failure.data(), failure.size());
        (void)ignored;
      }
      ::close(fds[1]);
      ::_exit(failure.empty() ? 0 : 1);
    }
    ::close(fds[1]);
    pids.push_back(pid);
    pipes.push_back(fds[0]);
  }
  std::vector<std::string> results(ranks.size());
  auto deadline = std::chrono::steady_clock::now() + 20s;
  for (size_t i = 0; i < pids.size(); ++i) {
    int status = 0;
    while (::waitpid(pids[i], &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pids[i], SIGKILL);
        ::waitpid(pids[i], &status, 0);
        results[i] = "rank " + std::to_string(ranks[i]) + " hung";
        break;
      }
      std::this_thread::sleep_for(2ms);
    }
    char buf[4096];
    ssize_t n = ::read(pipes[i], buf, sizeof(buf));
    if (results[i].empty() && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
      results[i] = "rank " + std::to_string(ranks[i]) + ": " +
                   (n > 0 ? std::string(buf, n) : std::string("crashed"));
    ::close(pipes[i]);
  }
  return results;
}

inline void expectAllPassed(const std::vector<std::string> &results) {
  for (const std::string &r : results)
    EXPECT_EQ(r, "");
}

} // namespace weave_test

#endif // WEAVE_TEST_UNIT_RUNTIME_FORKRANKS_H
