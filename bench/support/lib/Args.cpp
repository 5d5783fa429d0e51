//===- Args.cpp - The benchmarks' command lines ---------------------------===//

#include "weave/bench/Args.h"

#include <cstdlib>

namespace weave {
namespace bench {

bool Args::next() {
  if (index_ + 1 >= argc_)
    return false;
  arg_ = argv_[++index_];
  key_ = arg_.substr(0, arg_.find('='));
  return true;
}

std::string Args::value() {
  size_t eq = arg_.find('=');
  if (eq != std::string::npos)
    return arg_.substr(eq + 1);
  if (index_ + 1 >= argc_)
    fail(arg_ + " needs a value");
  return argv_[++index_];
}

long long Args::number() {
  std::string text = value();
  char *end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (!end || *end || v < 0)
    fail("bad " + key_ + " '" + text + "'");
  return v;
}

void Args::fail(const std::string &message) const {
  std::fprintf(stderr, "%s: error: %s\n", program_, message.c_str());
  std::exit(2);
}

void Args::unexpected() const {
  std::fprintf(stderr, "%s: error: unexpected argument '%s'\n", program_,
               arg_.c_str());
  usage_(stderr);
  std::exit(2);
}

void Args::help() const {
  usage_(stdout);
  std::exit(0);
}

void parseCommandLine(Args &args, CommonOptions &options,
                      const std::function<bool(const std::string &key)> &own) {
  while (args.next()) {
    const std::string &key = args.key();
    if (key == "-h" || key == "--help") {
      args.help();
    } else if (key == "--bundles") {
      options.bundleDir = args.value();
    } else if (key == "--dtype") {
      std::string d = args.value();
      if (d == "all")
        options.dtypes = {DType::F16, DType::BF16};
      else if (auto t = parseMatmulDType(d))
        options.dtypes = {*t};
      else
        args.fail("--dtype is f16, bf16 or all");
    } else if (key == "--iters") {
      options.timing.iterations = static_cast<int>(args.number());
    } else if (key == "--warmup") {
      options.timing.warmup = static_cast<int>(args.number());
    } else if (key == "--seed") {
      options.seed = static_cast<uint64_t>(args.number());
    } else if (key == "--timeout") {
      options.timing.timeoutSeconds = static_cast<double>(args.number());
    } else if (key == "--check-only") {
      options.checkOnly = true;
    } else if (key == "--no-gate") {
      options.timing.gate = false;
    } else if (key == "--rounds") {
      options.rounds = static_cast<int>(args.number());
    } else if (!own(key)) {
      args.unexpected();
    }
  }
  if (options.timing.iterations < 1)
    args.fail("--iters must be at least 1");
  if (options.rounds < 1)
    args.fail("--rounds must be at least 1");
}

} // namespace bench
} // namespace weave
