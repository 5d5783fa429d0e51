//===- Cublas.h - cuBLAS references for the matmul benchmarks ---*- C++ -*-===//

#ifndef WEAVE_BENCH_CUBLAS_H
#define WEAVE_BENCH_CUBLAS_H

#include "weave/bench/HostData.h"
#include "weave/runtime/Error.h"
#include "weave/runtime/Team.h"

#include <cublas_v2.h>
#include <cuda.h>

#include <vector>

namespace weave {
namespace bench {

/// A cuBLAS handle bound to one context. Move-only.
class CublasHandle {
public:
  /// Creates the handle with `context` current.
  static Expected<CublasHandle> create(CUcontext context);
  CublasHandle(CublasHandle &&other) noexcept;
  CublasHandle &operator=(CublasHandle &&other) noexcept;
  CublasHandle(const CublasHandle &) = delete;
  CublasHandle &operator=(const CublasHandle &) = delete;
  ~CublasHandle();

  /// One handle per local device of `team`, in local order.
  static Expected<std::vector<CublasHandle>> forTeam(const Team &team);

  CUcontext context() const { return context_; }
  cublasHandle_t get() const { return handle_; }

private:
  CublasHandle() = default;
  void release();
  CUcontext context_ = nullptr;
  cublasHandle_t handle_ = nullptr;
};

/// How cuBLAS may reduce split-K partial sums.
enum class Reduction {
  /// In fp32 only (CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION): the
  /// correctness reference.
  Fp32,
  /// cuBLAS's default, which may reduce in the 16-bit output type: what
  /// frameworks run, so what the timings compare against.
  Default,
};

/// C[m,n] = A[m,k] @ B[k,n], all row-major `dtype`, fp32 accumulation
/// (CUBLAS_COMPUTE_32F), enqueued on `stream` (a stream of the handle's
/// context). Row-major through the column-major identity C^T = B^T A^T.
Status gemmRowMajor(const CublasHandle &handle, DType dtype, int64_t m,
                    int64_t n, int64_t k, CUdeviceptr a, CUdeviceptr b,
                    CUdeviceptr c, CUstream stream, Reduction reduction);

} // namespace bench
} // namespace weave

#endif // WEAVE_BENCH_CUBLAS_H
