//===- HostData.h - Inputs, poison and result checks for benchmarks -*- C++
//-*-//
//
// Host-side pieces the matmul benchmarks share: 16-bit float conversions,
// seeded random matrices, the NaN poison written into outputs before a run,
// and the comparison of a result with a reference (in float64). No CUDA.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_BENCH_HOSTDATA_H
#define WEAVE_BENCH_HOSTDATA_H

#include "weave/runtime/DType.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace weave {
namespace bench {

/// The element types are the dtype table's (weave/runtime/DType.h; names
/// through weave::dtypeName). The matmul benchmarks take its matmul
/// operands, f16 and bf16, the 16-bit floats converted below.
using weave::DType;

/// The dtype named `name` if the matmul takes it (the table's
/// matmulOperand), else nullopt.
std::optional<DType> parseMatmulDType(const std::string &name);

uint16_t floatToHalf(float value); ///< round to nearest even
float halfToFloat(uint16_t bits);
uint16_t floatToBf16(float value); ///< round to nearest even
float bf16ToFloat(uint16_t bits);
uint16_t fromFloat(DType dtype, float value);
float toFloat(DType dtype, uint16_t bits);

/// Unit roundoff of the type: 2^-11 (f16), 2^-8 (bf16).
double unitRoundoff(DType dtype);

/// A NaN in both f16 and bf16; outputs are filled with it before a run, so
/// an element the kernel never writes fails the check.
inline constexpr uint16_t kPoison16 = 0xFFFF;

/// Worker threads the host-side loops use (the hardware's, at most 32).
unsigned hostThreads();
/// Runs fn(chunk, begin, end) over [0, count) split into at most
/// hostThreads() chunks, one thread each; chunk < hostThreads().
void parallelChunks(
    size_t count,
    const std::function<void(unsigned chunk, size_t begin, size_t end)> &fn);

/// `count` values uniform in [-1, 1), rounded to `dtype`. Element i depends
/// only on (seed, i), so the result does not depend on the thread count.
std::vector<uint16_t> randomValues(DType dtype, size_t count, uint64_t seed);
/// randomValues scaled by `scale` before the rounding.
std::vector<uint16_t> scaledValues(DType dtype, size_t count, uint64_t seed,
                                   float scale);
/// `count` values distributed as a SwiGLU MLP block's activations, the
/// input of its down projection: silu(g) * u with g, u uniform in
/// [-1, 1) / sqrt(3) (the x W of uniform x and weights scaled by
/// hidden^-1/2: about N(0, 1/3)), rounded to `dtype`. A matmul's speed can
/// depend on its data (the power it draws); docs/PERF.md.
std::vector<uint16_t> mlpActivations(DType dtype, size_t count, uint64_t seed);

/// When a result counts as equal to its reference.
///  - relFrobenius: ||ours - ref||_F / ||ref||_F must stay below it;
///  - elementwise: every |ours - ref| <= elementwise * (|ref| + rms(ref)).
/// No NaN/Inf is allowed in either.
struct Tolerance {
  double relFrobenius = 1e-2;
  double elementwise = 0;
};
/// relFrobenius 1e-2; elementwise 4 units of roundoff of `dtype`. See
/// bench/README.md for why.
Tolerance defaultTolerance(DType dtype);

/// The differences between a result and its reference, in float64.
struct Comparison {
  size_t count = 0;
  double relFrobenius = 0; ///< ||ours - ref|| / ||ref||
  double maxAbsError = 0;
  double maxAbsRef = 0;
  double rmsRef = 0;
  uint64_t nonFiniteOurs = 0; ///< NaN/Inf in ours (e.g. poison left)
  uint64_t nonFiniteRef = 0;
  uint64_t outOfTolerance = 0; ///< elements past the elementwise bound
  size_t worstIndex = 0;       ///< of the largest |ours - ref| / bound
  double worstOurs = 0, worstRef = 0;
  bool passed = false; ///< all of the above within the tolerance

  /// e.g. "rel 3.1e-04, max abs 1.2e-02 (max |ref| 98.1), 0 bad, 0 NaN".
  std::string summary() const;
};

/// Compares `count` elements of `ours` with `ref`.
Comparison compare(DType dtype, const uint16_t *ours, const uint16_t *ref,
                   size_t count, const Tolerance &tolerance);

/// Spot check of a matmul C = A @ B against float64 dot products computed
/// on the host, at `samples` seeded random (row, column) positions. The
/// accessors return element (i, j) of A [M,K], B [K,N] and the two results
/// [M,N] as floats. Checks the reference as much as ours: a wrong cuBLAS
/// call (transposition, leading dimension) shows up here.
struct SampleCheck {
  int samples = 0;
  int badOurs = 0, badRef = 0;
  double maxErrorOurs = 0, maxErrorRef = 0; ///< largest |x - exact|
};
using MatrixAccessor = std::function<float(int64_t row, int64_t col)>;
SampleCheck checkSamples(const MatrixAccessor &a, const MatrixAccessor &b,
                         const MatrixAccessor &ours, const MatrixAccessor &ref,
                         int64_t m, int64_t n, int64_t k, double rmsRef,
                         const Tolerance &tolerance, int samples,
                         uint64_t seed);

} // namespace bench
} // namespace weave

#endif // WEAVE_BENCH_HOSTDATA_H
