//===- weave-ops.cpp - The kernel instances of the ready-made ops ---------===//
//
//   weave-ops list                 the embedded templates
//   weave-ops ops | --list         the registry: one line per op
//   weave-ops kernels              the registry: one line per kernel
//   weave-ops choices              Auto's choice table, one line per row
//   weave-ops key    OP --team-size D --dtype T --count N [--algorithm A]
//   weave-ops source OP --team-size D --dtype T --count N [--algorithm A] [-o FILE]
//   weave-ops key|source FUSED --team-size D --dtype T --m-shard M --k K --n N [-o FILE]
//   weave-ops companions FUSED --team-size D --dtype T --m-shard M --k K --n N
//             [--algorithm A]   the other ops whose bundles the op loads
//   weave-ops algorithm FUSED --team-size D --dtype T --m-shard M --k K --n N
//             [--algorithm A]   the algorithm the op runs ("auto" resolved)
//   weave-ops instantiate TEMPLATE.mlir.in --team-size D|any --dtype T
//             --count N [--set KEY=VALUE]... -o FILE
//
// Prints what weave::ops would compile for an op (its instance key, or the
// kernel source with the template filled), so that bundles for a machine
// without LLVM are made ahead of time; `instantiate` fills any collective
// template file with the same values (collectiveValues: what the build's
// examples and benchmarks compile), plus the KEY=VALUE pairs given:
//   weave-ops source all_reduce --team-size 2 --dtype bf16 --count 4096 -o k.mlir
//   weavec k.mlir --emit=bundle -o "$(weave-ops key all_reduce ...).wbundle"
// A folder of such bundles is what ops::bundleFolder reads. `ops` and
// `kernels` print the op registry (weave/ops/Registry.h), which scripts
// read instead of spelling op names (test/gpu/run_loopback.sh). No GPU, no
// compiler needed.
//
//===----------------------------------------------------------------------===//

#include "weave/ops/Collectives.h"
#include "weave/ops/FusedMatmul.h"
#include "weave/ops/Registry.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

using namespace weave;
using namespace weave::ops;

namespace {

int usage(int status) {
  std::string ops = opNames(OpFamily::Collective);
  std::string fused = opNames(OpFamily::FusedMatmul);
  std::fprintf(status ? stderr : stdout,
               "usage: weave-ops list | ops | --list | kernels | choices\n"
               "       weave-ops key    OP --team-size D --dtype T --count N "
               "[--algorithm auto|NAME]\n"
               "       weave-ops source OP --team-size D --dtype T --count N "
               "[--algorithm ...] [-o FILE]\n"
               "       weave-ops instantiate TEMPLATE.mlir.in --team-size D|any "
               "--dtype T --count N [--set KEY=VALUE]... -o FILE\n"
               "       weave-ops key|source FUSED --team-size D --dtype T "
               "--m-shard M --k K --n N [--algorithm ...] [-o FILE]\n"
               "       weave-ops companions FUSED --team-size D --dtype T "
               "--m-shard M --k K --n N [--algorithm ...]\n"
               "       weave-ops algorithm FUSED --team-size D --dtype T "
               "--m-shard M --k K --n N [--algorithm ...]\n"
               "OP: %s (--count: elements per member, per block, or the "
               "all-to-all-v capacity per pair; docs/OPS.md; all_to_all_v "
               "--row-elements H: the token form, capacity and counts in rows "
               "of H elements)\n"
               "FUSED: %s (a member's shard has M rows; K x N is its b)\n"
               "list: the embedded templates; ops (--list): every op of the "
               "registry as `op family dtypes roles algorithms`; kernels: "
               "every kernel as `op family algorithm template kernel team offered`; "
               "choices: Auto's table as `op teams max-bytes algorithm`; "
               "companions: the other ops whose bundles FUSED loads at that "
               "shape, one `OP --team-size D --dtype T --count N "
               "[--algorithm A]` line each (the all-gather matmul's "
               "\"gather\": its all-gather, \"narrow\" where it runs beside "
               "a matmul of streamed b; the GEMM + "
               "reduce-scatter's \"scatter\": its reduce-scatter); "
               "algorithm: the algorithm FUSED runs at that shape, \"auto\" "
               "resolved by its rule (on real GPUs: a loopback team keeps the "
               "GEMM + RS's copy engines for \"scatter\")\n",
               ops.c_str(), fused.c_str());
  return status;
}

int fail(const std::string &message) {
  std::fprintf(stderr, "weave-ops: error: %s\n", message.c_str());
  return 1;
}

bool parseInt(const char *text, int64_t &value) {
  char *end = nullptr;
  errno = 0;
  long long v = std::strtoll(text, &end, 10);
  if (errno || !end || *end || end == text)
    return false;
  value = v;
  return true;
}

bool isFused(const std::string &op) {
  const OpSpec *spec = findOp(op);
  return spec && spec->family == OpFamily::FusedMatmul;
}

std::string joined(const std::vector<std::string> &items) {
  std::string text;
  for (const std::string &item : items)
    text += (text.empty() ? "" : ",") + item;
  return text;
}

const char *familyName(OpFamily family) {
  return family == OpFamily::Collective ? "collective" : "fused_matmul";
}

/// `weave-ops ops`: one line per op of the registry.
int printOps() {
  for (const OpSpec &op : opRegistry()) {
    std::vector<std::string> roles, algorithms;
    for (const RoleSpec &role : op.roles)
      roles.push_back(role.param);
    for (const AlgorithmSpec &a : op.algorithms)
      if (a.offered)
        algorithms.push_back(a.name);
    std::printf("%s %s %s %s %s\n", op.name.c_str(), familyName(op.family),
                joined(op.dtypes).c_str(), joined(roles).c_str(),
                joined(algorithms).c_str());
  }
  return 0;
}

/// `weave-ops choices`: Auto's choice table, one line per row in order
/// (`op minTeam-maxTeam maxBytes|any algorithm`).
int printChoices() {
  for (const OpSpec &op : opRegistry())
    for (const ChoiceRow &row : op.choices)
      std::printf("%s %u-%u %s %s\n", op.name.c_str(), row.minTeam,
                  row.maxTeam,
                  row.maxBytes >= (int64_t(1) << 62)
                      ? "any"
                      : std::to_string(row.maxBytes).c_str(),
                  row.algorithm.c_str());
  return 0;
}

/// `weave-ops kernels`: one line per kernel of the registry.
int printKernels() {
  for (const RegisteredKernel &k : registeredKernels())
    std::printf("%s %s %s %s %s %s %s\n", k.op->name.c_str(),
                familyName(k.op->family), k.algorithm->name.c_str(),
                k.algorithm->templateName.c_str(),
                k.algorithm->kernel.c_str(),
                k.algorithm->perTeam ? "team" : "any",
                k.algorithm->offered ? "offered" : "example");
  return 0;
}

Expected<KernelInstance> instanceOf(const std::string &op, int64_t teamSize,
                                    const std::string &dtype, int64_t count,
                                    const std::string &algorithm,
                                    const MatmulShape &shape,
                                    int64_t rowElements) {
  if (isFused(op))
    return matmulOpInstance(op, static_cast<uint32_t>(teamSize), dtype, shape,
                            algorithm);
  return opInstance(op, static_cast<uint32_t>(teamSize), dtype, count,
                    algorithm, rowElements);
}

} // namespace

static int runTool(int argc, char **argv) {
  if (argc < 2)
    return usage(2);
  std::string command = argv[1];
  if (command == "--help" || command == "-h")
    return usage(0);
  if (command == "list") {
    for (const std::string &name : templateNames())
      std::printf("%s\n", name.c_str());
    return 0;
  }
  if (command == "ops" || command == "--list")
    return printOps();
  if (command == "kernels")
    return printKernels();
  if (command == "choices")
    return printChoices();
  if ((command != "key" && command != "source" && command != "instantiate" &&
       command != "companions" && command != "algorithm") ||
      argc < 3)
    return usage(2);
  std::string op = argv[2], dtype, algorithm = "auto", output;
  int64_t teamSize = 0, count = 0, rowElements = 1;
  MatmulShape shape;
  bool anyTeam = false;
  TemplateValues extra;
  // The options given, so that a value of 0 reaches the op's own checks
  // (which say what is wrong with it) rather than reading as missing.
  std::set<std::string> given;
  for (int i = 3; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 >= argc)
      return fail("missing value after " + arg);
    const char *value = argv[++i];
    given.insert(arg);
    if (arg == "--team-size") {
      if (command == "instantiate" && std::string(value) == "any")
        anyTeam = true;
      else if (!parseInt(value, teamSize))
        return fail("--team-size takes an integer, got '" + std::string(value) + "'");
    } else if (arg == "--set" && command == "instantiate") {
      std::string pair = value;
      size_t eq = pair.find('=');
      if (eq == std::string::npos || eq == 0)
        return fail("--set takes KEY=VALUE, got '" + pair + "'");
      extra.push_back({pair.substr(0, eq), pair.substr(eq + 1)});
    } else if (arg == "--count") {
      if (!parseInt(value, count))
        return fail("--count takes an integer, got '" + std::string(value) + "'");
    } else if (arg == "--row-elements" && command != "instantiate") {
      if (!parseInt(value, rowElements))
        return fail("--row-elements takes an integer, got '" +
                    std::string(value) + "'");
    } else if ((arg == "--m-shard" || arg == "--k" || arg == "--n") &&
               isFused(op)) {
      int64_t &dim = arg == "--m-shard" ? shape.mShard
                     : arg == "--k"     ? shape.k
                                        : shape.n;
      if (!parseInt(value, dim))
        return fail(arg + " takes an integer, got '" + std::string(value) + "'");
    } else if (arg == "--dtype") {
      dtype = value;
    } else if (arg == "--algorithm") {
      algorithm = value;
    } else if (arg == "-o" && command != "key" && command != "companions" &&
               command != "algorithm") {
      output = value;
    } else {
      return fail("unknown option '" + arg + "'");
    }
  }
  if ((command == "companions" || command == "algorithm") && !isFused(op))
    return fail(command + " takes a fused matmul op (" +
                opNames(OpFamily::FusedMatmul) + "), got '" + op + "'");
  auto missing = [&](std::initializer_list<const char *> options) {
    std::string names;
    for (const char *option : options)
      if (!given.count(option))
        names += std::string(names.empty() ? "" : ", ") + option;
    return names;
  };
  if (isFused(op) && command != "instantiate") {
    std::string names =
        missing({"--team-size", "--dtype", "--m-shard", "--k", "--n"});
    if (!names.empty())
      return fail("--team-size, --dtype, --m-shard, --k and --n are required "
                  "(missing: " + names + ")");
  } else {
    std::string names = missing({"--team-size", "--dtype", "--count"});
    if (!names.empty())
      return fail("--team-size, --dtype and --count are required (missing: " +
                  names + ")");
  }
  if (teamSize < 1 && !anyTeam)
    return fail("--team-size must be at least 1, got " +
                std::to_string(teamSize));
  if (command == "instantiate") {
    if (output.empty())
      return fail("instantiate needs -o FILE");
    // The ops' own bound on a count (checkRequest: 2^40), so that the
    // values derived from it (D x count, 2 x D x words) fit 64 bits.
    if (count < 1 || count > (int64_t(1) << 40) || teamSize > 65536)
      return fail("--count must be between 1 and 2^40 and --team-size at most "
                  "65536");
    // A directory opens as an ifstream and throws when read.
    std::error_code ec;
    if (!std::filesystem::is_regular_file(op, ec))
      return fail("cannot read the template " + op +
                  (std::filesystem::is_directory(op, ec)
                       ? ": it is a directory, expected a .mlir.in file"
                       : ": not a readable file"));
    std::ifstream in(op, std::ios::binary);
    if (!in)
      return fail("cannot read the template " + op);
    std::string text((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    if (in.bad())
      return fail("cannot read the template " + op);
    KernelInstance instance{op, "", dtype, static_cast<uint32_t>(teamSize),
                            count, extra, {}};
    Expected<std::string> filled =
        fillTemplate(std::move(text), instance.values(), op);
    if (!filled)
      return fail(filled.error().message());
    std::ofstream out(output, std::ios::binary);
    out << *filled;
    out.close();
    if (!out)
      return fail("cannot write " + output);
    return 0;
  }
  // Key, source and companions: a team size that fits a uint32_t.
  if (teamSize < 1 || teamSize > 65536)
    return fail("--team-size must be between 1 and 65536");
  if (command == "algorithm") {
    // The request checked as the op checks it (shape, dtype, the name).
    if (Expected<KernelInstance> checked = matmulOpInstance(
            op, static_cast<uint32_t>(teamSize), dtype, shape, algorithm);
        !checked)
      return fail(checked.error().message());
    std::printf("%s\n", matmulOpAlgorithm(op, static_cast<uint32_t>(teamSize),
                                          dtype, shape, algorithm)
                            .c_str());
    return 0;
  }
  if (command == "companions") {
    Expected<std::vector<CompanionOp>> companions = matmulOpCompanions(
        op, static_cast<uint32_t>(teamSize), dtype, shape, algorithm);
    if (!companions)
      return fail(companions.error().message());
    // The algorithm only where it is not the collective's own choice.
    for (const CompanionOp &c : *companions) {
      std::string algorithmArg =
          c.algorithm == "auto" ? "" : " --algorithm " + c.algorithm;
      std::printf("%s --team-size %lld --dtype %s --count %lld%s\n",
                  c.op.c_str(), static_cast<long long>(teamSize), dtype.c_str(),
                  static_cast<long long>(c.count), algorithmArg.c_str());
    }
    return 0;
  }
  Expected<KernelInstance> instance =
      instanceOf(op, teamSize, dtype, count, algorithm, shape, rowElements);
  if (!instance)
    return fail(instance.error().message());
  if (command == "key") {
    std::printf("%s\n", instance->key().c_str());
    return 0;
  }
  Expected<std::string> source = instance->source();
  if (!source)
    return fail(source.error().message());
  if (output.empty()) {
    std::fwrite(source->data(), 1, source->size(), stdout);
    return 0;
  }
  std::ofstream out(output, std::ios::binary);
  out << *source;
  out.close();
  if (!out)
    return fail("cannot write " + output);
  return 0;
}

int main(int argc, char **argv) {
  // No input reaches an uncaught exception (an abort): report it as an
  // error instead.
  try {
    return runTool(argc, argv);
  } catch (const std::exception &e) {
    return fail(e.what());
  }
}
