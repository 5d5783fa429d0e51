//===- DLPack.h - The DLPack tensor ABI, as much as weave exports -*- C++ -*-//
//
// DLPack's C structs (the stable v0.x ABI that torch.from_dlpack and every
// array library read): weave._cuda hands symmetric buffers to PyTorch as
// "dltensor" capsules without linking against torch. Only what the export
// needs is declared; field order and widths are the ABI.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_PYTHON_DLPACK_H
#define WEAVE_PYTHON_DLPACK_H

#include <cstdint>

namespace weave::python::dlpack {

enum DeviceType : int32_t { kCUDA = 2 };
enum TypeCode : uint8_t { kInt = 0, kUInt = 1, kFloat = 2, kBfloat = 4 };

struct Device {
  int32_t deviceType;
  int32_t deviceId;
};
struct DataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct Tensor {
  void *data;
  Device device;
  int32_t ndim;
  DataType dtype;
  int64_t *shape;
  int64_t *strides; ///< in elements; null means compact row-major
  uint64_t byteOffset;
};
struct ManagedTensor {
  Tensor tensor;
  void *managerContext;
  void (*deleter)(ManagedTensor *self);
};

/// The capsule name a consumer looks for, and the one it renames it to once
/// it owns the tensor.
inline constexpr const char *kCapsuleName = "dltensor";
inline constexpr const char *kUsedCapsuleName = "used_dltensor";

} // namespace weave::python::dlpack

#endif // WEAVE_PYTHON_DLPACK_H
