//===- Gpus.h - The GPUs a benchmark runs on --------------------*- C++ -*-===//
//
// What the matmul benchmarks do about their GPUs outside the measured work:
// find out whether this machine has enough of them ("SKIP:" where it has
// not), give up at once when one of them hangs, and check a driver call.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_BENCH_GPUS_H
#define WEAVE_BENCH_GPUS_H

#include "weave/runtime/Error.h"

#include <cuda.h>

#include <cstdint>
#include <string>

namespace weave {
namespace bench {

/// The number of GPUs this process sees, for a benchmark that drives at
/// least `minDevices` of them from one process. Where it cannot run (no CUDA
/// driver, fewer GPUs) prints "SKIP: <reason>" on stdout and exits 0; when
/// the GPUs cannot be counted prints "<program>: error: <error>" and exits 1.
int visibleGpusOrExit(const char *program, uint32_t minDevices);

/// Prints "<program>: fatal: <why>" and exits 1 at once: after a timeout the
/// GPU is likely stuck, and destructors would wait on it forever.
[[noreturn]] void abandon(const char *program, const std::string &why);

/// OK, or a DriverError "<what> failed with <result's name>": the benches'
/// check of a driver call whose failure they report and go on from.
Status checkDriver(CUresult result, const std::string &what);

} // namespace bench
} // namespace weave

#endif // WEAVE_BENCH_GPUS_H
