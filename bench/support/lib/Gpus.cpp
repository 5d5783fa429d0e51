//===- Gpus.cpp - The GPUs a benchmark runs on ----------------------------===//

#include "weave/bench/Gpus.h"

#include "weave/examples/HostSetup.h"
#include "weave/runtime/Device.h"

#include <cstdio>
#include <cstdlib>

namespace weave {
namespace bench {

int visibleGpusOrExit(const char *program, uint32_t minDevices) {
  examples::TeamRequest request;
  request.program = program;
  request.minDevices = minDevices;
  request.allowMultiProcess = false;
  if (examples::reportSkip(request))
    std::exit(0);
  Expected<int> count = deviceCount();
  if (!count)
    std::exit(examples::reportError(program, count.error()));
  return *count;
}

void abandon(const char *program, const std::string &why) {
  std::fprintf(stderr, "%s: fatal: %s\n", program, why.c_str());
  std::fflush(nullptr);
  std::_Exit(1);
}

Status checkDriver(CUresult result, const std::string &what) {
  if (result == CUDA_SUCCESS)
    return ok();
  const char *name = "?";
  cuGetErrorName(result, &name);
  return Error(ErrorCode::DriverError, what + " failed with " + name);
}

} // namespace bench
} // namespace weave
