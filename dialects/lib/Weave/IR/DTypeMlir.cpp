//===- DTypeMlir.cpp - The dtype table on MLIR types ----------------------===//

#include "weave/Dialect/Weave/IR/DTypeMlir.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::weave;

Type mlir::weave::getElementType(MLIRContext *ctx, DType dtype) {
  const DTypeTraits &traits = ::weave::traitsOf(dtype);
  if (traits.kind != ::weave::DTypeKind::Float)
    return IntegerType::get(ctx, 8 * traits.bytes);
  switch (dtype) {
  case DType::F16:
    return Float16Type::get(ctx);
  case DType::BF16:
    return BFloat16Type::get(ctx);
  case DType::F32:
    return Float32Type::get(ctx);
  case DType::F64:
    return Float64Type::get(ctx);
  case DType::I8:
  case DType::I32:
  case DType::I64:
  case DType::U32:
    break;
  }
  llvm_unreachable("a float dtype without an MLIR type");
}

std::optional<DType> mlir::weave::getDType(Type type) {
  if (!type.isIntOrFloat())
    return std::nullopt;
  for (const DTypeTraits &traits : ::weave::kDTypeTable)
    if (traits.kernelArgument &&
        getElementType(type.getContext(), traits.dtype) == type)
      return traits.dtype;
  return std::nullopt;
}

const DTypeTraits *mlir::weave::getDTypeTraits(Type type) {
  std::optional<DType> dtype = getDType(type);
  return dtype ? &::weave::traitsOf(*dtype) : nullptr;
}
