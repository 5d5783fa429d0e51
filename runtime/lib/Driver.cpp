//===- Driver.cpp - Driver error reporting --------------------------------===//

#include "weave/runtime/Error.h"

#include <cuda.h>

namespace weave {
namespace detail {

Error driverError(int result, const char *call, const std::string &context,
                  const char *file, int line) {
  const char *name = nullptr;
  if (cuGetErrorName(static_cast<CUresult>(result), &name) != CUDA_SUCCESS ||
      !name)
    // The toolkit's stub libcuda (a machine without a driver) names nothing,
    // not even its own error.
    name = result == CUDA_ERROR_STUB_LIBRARY ? "CUDA_ERROR_STUB_LIBRARY"
                                             : "CUDA_ERROR_UNKNOWN_CODE";
  const char *base = file;
  for (const char *p = file; *p; ++p)
    if (*p == '/')
      base = p + 1;
  return Error::driver(result, name, call, context,
                       std::string(base) + ":" + std::to_string(line));
}

} // namespace detail
} // namespace weave
