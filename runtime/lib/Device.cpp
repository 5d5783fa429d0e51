//===- Device.cpp - A CUDA device and its primary context -----------------===//

#include "weave/runtime/Device.h"
#include "weave/runtime/Bootstrap.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace weave {

Status initDriver() {
  static std::once_flag once;
  static int result = 0;
  std::call_once(once, [] {
    // The driver takes CUDA_DEVICE_MAX_CONNECTIONS when it initializes: set
    // after cuInit (before the team's contexts existed) it changed nothing
    // for a loopback team of 8 (4 x H100, 2026-11-27). So a team named by
    // WEAVE_LOOPBACK_TEAM gets its queues here (loopbackConnections).
    if (Expected<uint32_t> members = loopbackMembersFromEnvironment())
      if (std::optional<std::string> value = loopbackConnections(*members))
        ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", value->c_str(),
                 /*overwrite=*/0);
    result = static_cast<int>(cuInit(0));
  });
  WEAVE_CU_TRY(result, "initializing the CUDA driver");
  return ok();
}

Expected<int> deviceCount() {
  WEAVE_TRY(initDriver());
  int count = 0;
  WEAVE_CU_TRY(cuDeviceGetCount(&count), "counting devices");
  return count;
}

Expected<Device> Device::open(int ordinal) {
  WEAVE_ASSIGN_OR_RETURN(int count, deviceCount());
  if (ordinal < 0 || ordinal >= count)
    return Error(ErrorCode::NotFound, "device " + std::to_string(ordinal) +
                                          " does not exist (" +
                                          std::to_string(count) +
                                          " visible)");
  Device device;
  device.ordinal_ = ordinal;
  std::string what = "opening device " + std::to_string(ordinal);
  WEAVE_CU_TRY(cuDeviceGet(&device.device_, ordinal), what);
  int major = 0, minor = 0;
  WEAVE_CU_TRY(cuDeviceGetAttribute(
                   &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                   device.device_),
               what);
  WEAVE_CU_TRY(cuDeviceGetAttribute(
                   &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                   device.device_),
               what);
  device.computeCapability_ = major * 10 + minor;
  char name[256] = {};
  WEAVE_CU_TRY(cuDeviceGetName(name, sizeof(name), device.device_), what);
  device.name_ = name;
  char bus[64] = {};
  WEAVE_CU_TRY(cuDeviceGetPCIBusId(bus, sizeof(bus), device.device_), what);
  device.pciBusId_ = bus;
  WEAVE_CU_TRY(cuDevicePrimaryCtxRetain(&device.context_, device.device_),
               what + ": retaining the primary context");
  return device;
}

Device::Device(Device &&other) noexcept { *this = std::move(other); }

Device &Device::operator=(Device &&other) noexcept {
  if (this != &other) {
    release();
    ordinal_ = other.ordinal_;
    device_ = other.device_;
    context_ = other.context_;
    computeCapability_ = other.computeCapability_;
    name_ = std::move(other.name_);
    pciBusId_ = std::move(other.pciBusId_);
    other.context_ = nullptr;
  }
  return *this;
}

Device::~Device() { release(); }

void Device::release() {
  if (!context_)
    return;
  CUresult result = cuDevicePrimaryCtxRelease(device_);
  if (result != CUDA_SUCCESS) {
    const char *name = "?";
    cuGetErrorName(result, &name);
    std::fprintf(stderr,
                 "weave: warning: releasing the primary context of device %d "
                 "failed with %s\n",
                 ordinal_, name);
  }
  context_ = nullptr;
}

Status Device::makeCurrent() const {
  WEAVE_CU_TRY(cuCtxSetCurrent(context_),
               "making device " + std::to_string(ordinal_) + " current");
  return ok();
}

Expected<bool> Device::supportsFdHandles() const {
  int supported = 0;
  WEAVE_CU_TRY(
      cuDeviceGetAttribute(
          &supported,
          CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
          device_),
      "querying POSIX file descriptor export support of device " +
          std::to_string(ordinal_));
  return supported != 0;
}

} // namespace weave
