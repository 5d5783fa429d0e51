//===- Cublas.cpp - cuBLAS references for the matmul benchmarks -----------===//

#include "weave/bench/Cublas.h"

#include <climits>
#include <cstdio>
#include <string>

namespace weave {
namespace bench {

namespace {
Error cublasError(cublasStatus_t status, const std::string &what) {
  return Error(ErrorCode::DriverError,
               what + " failed with " + cublasGetStatusString(status) + " (" +
                   std::to_string(int(status)) + ")");
}
} // namespace

Expected<std::vector<CublasHandle>> CublasHandle::forTeam(const Team &team) {
  std::vector<CublasHandle> handles;
  for (size_t i = 0; i < team.localCount(); ++i) {
    Expected<CublasHandle> h = create(team.device(i).context());
    if (!h)
      return std::move(h).takeError();
    handles.push_back(std::move(*h));
  }
  return handles;
}

Expected<CublasHandle> CublasHandle::create(CUcontext context) {
  WEAVE_CU_TRY(cuCtxSetCurrent(context), "making a context current for cuBLAS");
  CublasHandle h;
  h.context_ = context;
  if (cublasStatus_t s = cublasCreate(&h.handle_); s != CUBLAS_STATUS_SUCCESS)
    return cublasError(s, "cublasCreate");
  return h;
}

CublasHandle::CublasHandle(CublasHandle &&other) noexcept
    : context_(other.context_), handle_(other.handle_) {
  other.handle_ = nullptr;
}

CublasHandle &CublasHandle::operator=(CublasHandle &&other) noexcept {
  if (this != &other) {
    release();
    context_ = other.context_;
    handle_ = other.handle_;
    other.handle_ = nullptr;
  }
  return *this;
}

CublasHandle::~CublasHandle() { release(); }

void CublasHandle::release() {
  if (!handle_)
    return;
  cuCtxSetCurrent(context_);
  if (cublasDestroy(handle_) != CUBLAS_STATUS_SUCCESS)
    std::fprintf(stderr, "weave: warning: cublasDestroy failed\n");
  handle_ = nullptr;
}

Status gemmRowMajor(const CublasHandle &handle, DType dtype, int64_t m,
                    int64_t n, int64_t k, CUdeviceptr a, CUdeviceptr b,
                    CUdeviceptr c, CUstream stream, Reduction reduction) {
  if (m <= 0 || n <= 0 || k <= 0 || m > INT_MAX || n > INT_MAX || k > INT_MAX)
    return Error(ErrorCode::InvalidArgument,
                 "gemm dimensions out of range for cublasGemmEx");
  WEAVE_CU_TRY(cuCtxSetCurrent(handle.context()),
               "making the cuBLAS context current");
  cublasHandle_t h = handle.get();
  if (cublasStatus_t s = cublasSetStream(h, stream); s != CUBLAS_STATUS_SUCCESS)
    return cublasError(s, "cublasSetStream");
  cublasMath_t math =
      reduction == Reduction::Fp32
          ? static_cast<cublasMath_t>(
                CUBLAS_DEFAULT_MATH |
                CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)
          : CUBLAS_DEFAULT_MATH;
  if (cublasStatus_t s = cublasSetMathMode(h, math); s != CUBLAS_STATUS_SUCCESS)
    return cublasError(s, "cublasSetMathMode");
  cudaDataType type = dtype == DType::F16 ? CUDA_R_16F : CUDA_R_16BF;
  const float one = 1.0f, zero = 0.0f;
  // Column-major view: C^T [n x m] = B^T [n x k] * A^T [k x m]; the
  // row-major buffers are exactly those transposes, leading dims n, k, n.
  cublasStatus_t s = cublasGemmEx(
      h, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m),
      static_cast<int>(k), &one, reinterpret_cast<const void *>(b), type,
      static_cast<int>(n), reinterpret_cast<const void *>(a), type,
      static_cast<int>(k), &zero, reinterpret_cast<void *>(c), type,
      static_cast<int>(n), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  if (s != CUBLAS_STATUS_SUCCESS)
    return cublasError(s, "cublasGemmEx");
  return ok();
}

} // namespace bench
} // namespace weave
