//===- Module.h - A cubin loaded on one device ------------------*- C++ -*-===//

#ifndef WEAVE_RUNTIME_DETAIL_MODULE_H
#define WEAVE_RUNTIME_DETAIL_MODULE_H

#include "weave/runtime/Bundle.h"
#include "weave/runtime/Device.h"

#include <cuda.h>
#include <memory>
#include <type_traits>
#include <vector>

namespace weave {

/// A cubin loaded into a device's primary context. Move-only; unloads on
/// destruction (reporting, never throwing, on failure).
class Module {
public:
  static Expected<Module> load(const Device &device,
                               const std::vector<uint8_t> &image);
  /// NotFound when the module has no such kernel.
  Expected<CUfunction> getFunction(const std::string &name) const;
  CUcontext context() const { return context_; }

private:
  Module() = default;
  struct Unloader {
    Unloader() noexcept {}
    explicit Unloader(CUcontext ctx) noexcept : context(ctx) {}
    void operator()(CUmodule module) const;
    CUcontext context = nullptr;
  };
  CUcontext context_ = nullptr;
  std::unique_ptr<std::remove_pointer_t<CUmodule>, Unloader> handle_;
};

/// Compares the function's parameters (count and sizes, via
/// cuFuncGetParamInfo) with the manifest; InvalidBundle on mismatch.
Status checkFunctionParams(CUfunction function, const KernelInfo &kernel);

} // namespace weave

#endif // WEAVE_RUNTIME_DETAIL_MODULE_H
