//===- Device.h - A CUDA device and its primary context ---------*- C++ -*-===//

#ifndef WEAVE_RUNTIME_DEVICE_H
#define WEAVE_RUNTIME_DEVICE_H

#include "weave/runtime/Error.h"

#include <cuda.h>
#include <string>

namespace weave {

/// cuInit(0), once per process (later calls return the first result).
Status initDriver();
/// Number of visible devices (initializes the driver).
Expected<int> deviceCount();

/// A device with its retained primary context. Move-only; the destructor
/// releases the primary context (reporting, never throwing, on failure).
class Device {
public:
  static Expected<Device> open(int ordinal);

  Device(Device &&other) noexcept;
  Device &operator=(Device &&other) noexcept;
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;
  ~Device();

  int ordinal() const { return ordinal_; }
  CUdevice handle() const { return device_; }
  CUcontext context() const { return context_; }
  /// major * 10 + minor, e.g. 90.
  int computeCapability() const { return computeCapability_; }
  const std::string &name() const { return name_; }
  /// PCI bus id, e.g. "0000:18:00.0".
  const std::string &pciBusId() const { return pciBusId_; }
  /// Makes the primary context current on the calling thread.
  Status makeCurrent() const;
  /// Whether memory allocated with cuMemCreate can be exported as POSIX file
  /// descriptors (how processes of a team share their symmetric heaps).
  Expected<bool> supportsFdHandles() const;

private:
  Device() = default;
  void release();

  int ordinal_ = -1;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  int computeCapability_ = 0;
  std::string name_;
  std::string pciBusId_;
};

} // namespace weave

#endif // WEAVE_RUNTIME_DEVICE_H
