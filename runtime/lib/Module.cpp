//===- Module.cpp - A cubin loaded on one device --------------------------===//

#include "weave/runtime/detail/Module.h"
#include "weave/runtime/detail/BundleDetail.h"

#include <cstdio>

namespace weave {

void Module::Unloader::operator()(CUmodule module) const {
  bool pushed = context && cuCtxPushCurrent(context) == CUDA_SUCCESS;
  CUresult result = cuModuleUnload(module);
  if (result != CUDA_SUCCESS) {
    const char *name = "?";
    cuGetErrorName(result, &name);
    std::fprintf(stderr, "weave: warning: cuModuleUnload failed with %s\n",
                 name);
  }
  if (pushed) {
    CUcontext popped;
    cuCtxPopCurrent(&popped);
  }
}

Expected<Module> Module::load(const Device &device,
                              const std::vector<uint8_t> &image) {
  if (image.empty())
    return Error(ErrorCode::InvalidArgument, "empty cubin image");
  WEAVE_TRY(device.makeCurrent());
  CUmodule raw = nullptr;
  WEAVE_CU_TRY(cuModuleLoadData(&raw, image.data()),
               "loading the cubin on device " +
                   std::to_string(device.ordinal()));
  Module module;
  module.context_ = device.context();
  module.handle_ = std::unique_ptr<std::remove_pointer_t<CUmodule>, Unloader>(
      raw, Unloader{device.context()});
  return module;
}

Expected<CUfunction> Module::getFunction(const std::string &name) const {
  CUfunction function = nullptr;
  CUresult result = cuModuleGetFunction(&function, handle_.get(), name.c_str());
  if (result == CUDA_ERROR_NOT_FOUND)
    return Error(ErrorCode::NotFound,
                 "kernel '" + name + "' is not in the loaded module");
  WEAVE_CU_TRY(result, "looking up kernel '" + name + "'");
  return function;
}

Status checkFunctionParams(CUfunction function, const KernelInfo &kernel) {
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    size_t offset = 0, size = 0;
    CUresult result = cuFuncGetParamInfo(function, i, &offset, &size);
    if (result == CUDA_ERROR_NOT_SUPPORTED)
      return ok(); // older drivers: nothing to check against
    if (result == CUDA_ERROR_INVALID_VALUE)
      return Error(ErrorCode::InvalidBundle,
                   describeKernel(kernel) + ": the manifest lists " +
                       std::to_string(kernel.params.size()) +
                       " parameters, the cubin's function has " +
                       std::to_string(i));
    WEAVE_CU_TRY(result, "reading parameter " + std::to_string(i) + " of " +
                             describeKernel(kernel));
    uint32_t expected = paramBytes(kernel.params[i]);
    if (size != expected)
      return Error(ErrorCode::InvalidBundle,
                   describeKernel(kernel) + ": parameter " + std::to_string(i) +
                       " ('" + kernel.params[i].name + "', " +
                       paramKindName(kernel.params[i].kind) + ") is " +
                       std::to_string(expected) + " bytes in the manifest, " +
                       std::to_string(size) + " bytes in the cubin");
  }
  size_t offset = 0, size = 0;
  if (cuFuncGetParamInfo(function, kernel.params.size(), &offset, &size) ==
      CUDA_SUCCESS)
    return Error(ErrorCode::InvalidBundle,
                 describeKernel(kernel) +
                     ": the cubin's function has more "
                     "than the manifest's " +
                     std::to_string(kernel.params.size()) + " parameters");
  return ok();
}

} // namespace weave
