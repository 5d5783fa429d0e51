//===- Manifest.h - Checking a benchmark kernel's contract ------*- C++ -*-===//
//
// The benchmarks program against kernels named and shaped by contract
// (bench/README.md). These helpers check a bundle's manifest against that
// contract before anything is allocated, so a mismatch reads as a clear
// message instead of a failed launch.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_BENCH_MANIFEST_H
#define WEAVE_BENCH_MANIFEST_H

#include "weave/runtime/Bundle.h"

#include <cstdint>
#include <cstdio>
#include <regex>
#include <string>
#include <vector>

namespace weave {
namespace bench {

/// The kernel named `name` (or the first of its variants, which all take
/// the same arguments); NotFound naming the kernels the bundle has.
Expected<const KernelInfo *> contractKernel(const Bundle &bundle,
                                            const std::string &name);

/// User parameter `index` of `kernel`, checked to be called `name`, of
/// `kind`, of `dtype` (unless empty) and of rank `rank` (unless negative).
/// InvalidBundle saying what differs.
Expected<const ParamInfo *> contractParam(const KernelInfo &kernel,
                                          size_t index, const std::string &name,
                                          abi::ParamKind kind,
                                          const std::string &dtype, int rank);

/// InvalidBundle unless the kernel has exactly `count` user parameters.
Status expectUserParamCount(const KernelInfo &kernel, size_t count);

/// The operands of a matmul kernel c = a @ b: user parameters 0, 1 and 2,
/// named a, b and c, 2-D, of `dtype`; b and c plain buffers, a of kind
/// `aKind`. The first that differs is the error, as contractParam says it.
struct MatmulParams {
  const ParamInfo *a = nullptr, *b = nullptr, *c = nullptr;
};
Expected<MatmulParams>
matmulParams(const KernelInfo &kernel, const std::string &dtype,
             abi::ParamKind aKind = abi::ParamKind::Buffer);

/// "[64,32]": a shape as the benchmarks' messages write it.
std::string shapeText(const std::vector<int64_t> &shape);

/// One line with the launch configuration: grid, block, cluster, dynamic
/// shared memory and the TMA boxes, e.g. for --tile-config.
std::string launchSummary(const KernelInfo &kernel);

/// A file of a benchmark's bundle folder whose name matched its pattern.
struct BundleFile {
  std::string path;
  /// The pattern's groups: [0] the whole file name, then each group.
  std::vector<std::string> groups;
};

/// Every file in `dir` (not below) whose name `pattern` matches entirely,
/// sorted by name; empty when the folder cannot be read.
std::vector<BundleFile> findBundleFiles(const std::string &dir,
                                        const std::regex &pattern);

/// Checks every case against its kernel's contract with `load` (a
/// Status(Case &)) before any GPU work, so that a bad bundle is reported on
/// a machine without GPUs too: "<program>: <case.path>: error: ..." on
/// stderr for each that fails. Returns how many failed.
template <typename Case, typename Load>
int checkCases(const char *program, std::vector<Case> &cases, Load load) {
  int bad = 0;
  for (Case &c : cases)
    if (Status s = load(c); !s) {
      std::fprintf(stderr, "%s: %s: error: %s\n", program, c.path.c_str(),
                   s.error().toString().c_str());
      ++bad;
    }
  return bad;
}

} // namespace bench
} // namespace weave

#endif // WEAVE_BENCH_MANIFEST_H
