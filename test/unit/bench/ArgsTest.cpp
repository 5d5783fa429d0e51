//===- ArgsTest.cpp - The benchmarks' command lines -----------------------===//

#include "weave/bench/Args.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace weave::bench;

namespace {

void usage(FILE *out) { std::fprintf(out, "usage: bench [--x N]\n"); }

/// A benchmark's options: the common ones and two of its own.
struct Options : CommonOptions {
  int x = 0;
  bool flag = false;
};

/// Parses `words` (the program name comes first) as a benchmark would.
Options parse(std::vector<std::string> words) {
  words.insert(words.begin(), "bench");
  std::vector<char *> argv;
  for (std::string &w : words)
    argv.push_back(w.data());
  Options o;
  Args args("bench", usage, static_cast<int>(argv.size()), argv.data());
  parseCommandLine(args, o, [&](const std::string &key) {
    if (key == "--x")
      o.x = static_cast<int>(args.number());
    else if (key == "--flag")
      o.flag = true;
    else
      return false;
    return true;
  });
  return o;
}

TEST(Args, Defaults) {
  Options o = parse({});
  EXPECT_EQ(o.dtypes, (std::vector<DType>{DType::F16, DType::BF16}));
  EXPECT_EQ(o.timing.iterations, TimingOptions().iterations);
  EXPECT_EQ(o.seed, 1u);
  EXPECT_FALSE(o.checkOnly);
  EXPECT_TRUE(o.timing.gate);
  EXPECT_EQ(o.rounds, 1);
}

TEST(Args, ReadsCommonAndOwnOptions) {
  Options o = parse({"--bundles", "dir", "--dtype=bf16", "--iters", "7",
                     "--warmup=2", "--seed", "9", "--timeout", "30",
                     "--check-only", "--no-gate", "--rounds", "3", "--x=5",
                     "--flag"});
  EXPECT_EQ(o.bundleDir, "dir");
  EXPECT_EQ(o.dtypes, (std::vector<DType>{DType::BF16}));
  EXPECT_EQ(o.timing.iterations, 7);
  EXPECT_EQ(o.timing.warmup, 2);
  EXPECT_EQ(o.seed, 9u);
  EXPECT_EQ(o.timing.timeoutSeconds, 30.0);
  EXPECT_TRUE(o.checkOnly);
  EXPECT_FALSE(o.timing.gate);
  EXPECT_EQ(o.rounds, 3);
  EXPECT_EQ(o.x, 5);
  EXPECT_TRUE(o.flag);
  EXPECT_EQ(parse({"--dtype", "f16", "--dtype", "all"}).dtypes,
            (std::vector<DType>{DType::F16, DType::BF16}));
  EXPECT_EQ(parse({"--bundles=a=b"}).bundleDir, "a=b");
}

TEST(Args, HelpPrintsTheUsageAndExitsZero) {
  EXPECT_EXIT(parse({"--x", "1", "-h"}), testing::ExitedWithCode(0), "");
  EXPECT_EXIT(parse({"--help=yes"}), testing::ExitedWithCode(0), "");
}

TEST(Args, UsageErrorsExitTwo) {
  auto exitsWith = [](std::vector<std::string> words,
                      const std::string &message) {
    EXPECT_EXIT(parse(words), testing::ExitedWithCode(2), message);
  };
  exitsWith({"--bogus"}, "bench: error: unexpected argument '--bogus'\n"
                         "usage: bench");
  exitsWith({"--x=1", "stray"}, "unexpected argument 'stray'");
  exitsWith({"--iters"}, "bench: error: --iters needs a value\n");
  exitsWith({"--x"}, "bench: error: --x needs a value\n");
  exitsWith({"--iters=abc"}, "bench: error: bad --iters 'abc'\n");
  exitsWith({"--x", "-3"}, "bench: error: bad --x '-3'\n");
  exitsWith({"--seed", "1x"}, "bench: error: bad --seed '1x'\n");
  exitsWith({"--dtype", "f32"}, "bench: error: --dtype is f16, bf16 or all\n");
  exitsWith({"--iters", "0"}, "bench: error: --iters must be at least 1\n");
  exitsWith({"--rounds=0"}, "bench: error: --rounds must be at least 1\n");
}

} // namespace
