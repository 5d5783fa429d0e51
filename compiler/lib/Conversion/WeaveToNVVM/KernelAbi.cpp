//===- KernelAbi.cpp - parameters of a weave kernel -----------------------===//

#include "weave/Conversion/WeaveToNVVM/KernelAbi.h"

#include "weave/Dialect/Weave/IR/WeaveDialect.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::weave;

FailureOr<std::string> mlir::weave::getDTypeName(Type type) {
  if (type.isF16())
    return std::string("f16");
  if (type.isBF16())
    return std::string("bf16");
  if (type.isF32())
    return std::string("f32");
  if (type.isF64())
    return std::string("f64");
  if (type.isSignlessInteger(8))
    return std::string("i8");
  if (type.isSignlessInteger(32))
    return std::string("i32");
  if (type.isSignlessInteger(64))
    return std::string("i64");
  return failure();
}

FailureOr<KernelAbi> mlir::weave::computeKernelAbi(gpu::GPUFuncOp func) {
  auto kernel =
      func->getAttrOfType<KernelAttr>(WeaveDialect::getKernelAttrName());
  if (!kernel)
    return func.emitError("expects a '")
           << WeaveDialect::getKernelAttrName() << "' attribute";
  KernelAbi result;
  result.name = func.getName().str();
  MeshAttr mesh = kernel.getMesh();
  result.teamSize = mesh.isDynamic() ? 0 : mesh.getSize();
  result.grid.assign(kernel.getGrid().begin(), kernel.getGrid().end());
  result.block.assign(kernel.getBlock().begin(), kernel.getBlock().end());
  result.cluster.assign(kernel.getCluster().begin(), kernel.getCluster().end());
  result.dynamicSmemBytes = kernel.getSmem();

  for (BlockArgument arg : func.getArguments()) {
    AbiParam param;
    param.name = "arg" + std::to_string(arg.getArgNumber());
    if (auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                      "weave.name"))
      param.name = name.getValue().str();
    Type type = arg.getType();
    auto fail = [&](const Twine &what) {
      return func.emitError() << "kernel argument #" << arg.getArgNumber()
                              << " of type " << type << " " << what;
    };
    if (auto sem = dyn_cast<SemaphoreType>(type)) {
      param.kind = ::weave::abi::ParamKind::Semaphore;
      param.dtype = "u32";
      param.semaphoreCount = sem.getCount();
      param.shape.push_back(sem.getCount());
    } else if (auto memref = dyn_cast<MemRefType>(type)) {
      if (!memref.hasStaticShape() || !memref.getLayout().isIdentity())
        return fail("cannot be passed: the ABI takes static, row-major "
                    "buffers");
      if (!isGlobal(memref))
        return fail("cannot be passed: kernel buffers live in global memory");
      FailureOr<std::string> dtype = getDTypeName(memref.getElementType());
      if (failed(dtype))
        return fail("has an element type the runtime does not support");
      param.kind = isSymmetric(memref) ? ::weave::abi::ParamKind::Symmetric
                                       : ::weave::abi::ParamKind::Buffer;
      param.dtype = *dtype;
      param.shape.assign(memref.getShape().begin(), memref.getShape().end());
    } else if (type.isIntOrFloat()) {
      FailureOr<std::string> dtype = getDTypeName(type);
      if (failed(dtype) || type.getIntOrFloatBitWidth() < 32)
        return fail("cannot be passed: scalars are i32, i64, f32 or f64");
      param.kind = ::weave::abi::ParamKind::Scalar;
      param.dtype = *dtype;
    } else {
      return fail("cannot be passed to a weave kernel");
    }
    result.params.push_back(std::move(param));
  }
  for (auto [kind, name] : {std::pair<::weave::abi::ParamKind, const char *>{::weave::abi::ParamKind::Rank, "rank"},
                            {::weave::abi::ParamKind::TeamSize, "team_size"},
                            {::weave::abi::ParamKind::PeerBases, "peer_bases"}}) {
    AbiParam param;
    param.kind = kind;
    param.name = name;
    param.dtype = kind == ::weave::abi::ParamKind::PeerBases ? "" : "u32";
    result.params.push_back(std::move(param));
  }
  return result;
}
