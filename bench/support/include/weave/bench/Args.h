//===- Args.h - The benchmarks' command lines -------------------*- C++ -*-===//
//
// The matmul benchmarks take "--key value" or "--key=value" options and
// share most of them: the bundle directory, the dtypes, the timing and the
// seed. A usage error prints "<program>: error: <what>" on stderr and exits
// with status 2, as the benchmarks document; --help prints the usage on
// stdout and exits 0. No CUDA.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_BENCH_ARGS_H
#define WEAVE_BENCH_ARGS_H

#include "weave/bench/HostData.h"
#include "weave/bench/TimingOptions.h"

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace weave {
namespace bench {

/// A command line, read one argument at a time.
class Args {
public:
  /// `usage` prints the program's usage text on the stream it is given.
  Args(const char *program, void (*usage)(FILE *), int argc, char **argv)
      : program_(program), usage_(usage), argc_(argc), argv_(argv) {}

  /// Steps to the next argument; false after the last one.
  bool next();
  /// The current argument, e.g. "--iters=5", and its key, "--iters".
  const std::string &arg() const { return arg_; }
  const std::string &key() const { return key_; }

  /// The current option's value: what follows its '=', else the next
  /// argument (which is consumed). Exits when there is none.
  std::string value();
  /// value() as a whole number >= 0; exits on anything else.
  long long number();

  /// Prints "<program>: error: <message>" on stderr and exits 2.
  [[noreturn]] void fail(const std::string &message) const;
  /// Says the current argument is unexpected, prints the usage on stderr
  /// and exits 2.
  [[noreturn]] void unexpected() const;
  /// Prints the usage on stdout and exits 0.
  [[noreturn]] void help() const;

private:
  const char *program_;
  void (*usage_)(FILE *);
  int argc_;
  char **argv_;
  int index_ = 0;
  std::string arg_, key_;
};

/// The options every matmul benchmark takes.
struct CommonOptions {
  std::string bundleDir;
  std::vector<DType> dtypes = {DType::F16, DType::BF16};
  TimingOptions timing;
  bool checkOnly = false;
  uint64_t seed = 1;
  /// Timed rounds: the benchmark times its kernel and its references in
  /// turn, `rounds` times, with the order rotated every round, and pools
  /// each one's launches into one median (the clocks drift under the
  /// power limit; rotation lets the drift fall on all alike).
  int rounds = 1;
};

/// Reads the whole command line. The common options go into `options`:
/// -h/--help, --bundles DIR, --dtype f16|bf16|all, --iters N, --warmup N,
/// --seed S, --timeout SECONDS, --check-only, --no-gate and --rounds R.
/// Any other
/// argument is offered to `own`, which reads it through `args` and returns
/// true, or returns false when the program has no such option (an
/// unexpected argument). At the end --iters and --rounds must be at least
/// 1.
void parseCommandLine(Args &args, CommonOptions &options,
                      const std::function<bool(const std::string &key)> &own);

} // namespace bench
} // namespace weave

#endif // WEAVE_BENCH_ARGS_H
