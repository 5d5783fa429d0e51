//===- KernelAbi.cpp - parameters of a weave kernel -----------------------===//

#include "weave/Conversion/WeaveToNVVM/KernelAbi.h"

#include "weave/Dialect/Weave/IR/WeaveOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

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

/// Matches `device` against `(device_id + c) mod num_devices` (or plain
/// `device_id`) and returns `c`: a peer view's tensor map is encoded on the
/// host, which must compute the same peer.
static FailureOr<int64_t> matchPeerOffset(Value device, int64_t meshSize) {
  auto isTeamSize = [&](Value v) {
    if (v.getDefiningOp<NumDevicesOp>())
      return true;
    APInt c;
    return meshSize > 0 && matchPattern(v, m_ConstantInt(&c)) &&
           c.getSExtValue() == meshSize;
  };
  auto constantTerm = [&](Value v) -> std::optional<int64_t> {
    APInt c;
    if (matchPattern(v, m_ConstantInt(&c)))
      return c.getSExtValue();
    // num_devices - k
    if (auto sub = v.getDefiningOp<arith::SubIOp>())
      if (isTeamSize(sub.getLhs()) && matchPattern(sub.getRhs(), m_ConstantInt(&c)))
        return -c.getSExtValue();
    return std::nullopt;
  };
  if (device.getDefiningOp<DeviceIdOp>())
    return 0;
  Operation *rem = device.getDefiningOp();
  if (!rem || !isa<arith::RemUIOp, arith::RemSIOp>(rem) ||
      !isTeamSize(rem->getOperand(1)))
    return failure();
  auto add = rem->getOperand(0).getDefiningOp<arith::AddIOp>();
  if (!add)
    return failure();
  for (auto [id, term] : {std::pair{add.getLhs(), add.getRhs()},
                          std::pair{add.getRhs(), add.getLhs()}})
    if (id.getDefiningOp<DeviceIdOp>())
      if (std::optional<int64_t> c = constantTerm(term))
        return *c;
  return failure();
}

FailureOr<KernelAbi>
mlir::weave::computeKernelAbi(gpu::GPUFuncOp func,
                              llvm::DenseMap<Operation *, unsigned> *tmaOf) {
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

  // Only the function's parameters: the entry block also holds the
  // workgroup and private memory attributions.
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    BlockArgument arg = func.getArgument(i);
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

  // One tensor map per distinct (global buffer, tile, swizzle, peer view).
  unsigned numUser = func.getNumArguments();
  auto addTensorMap = [&](Operation *op, Value global, MemRefType tile,
                          Value device, int64_t swizzle) -> WalkResult {
    auto arg = dyn_cast<BlockArgument>(global);
    if (!arg || arg.getOwner() != &func.getBody().front() ||
        arg.getArgNumber() >= numUser) {
      op->emitOpError() << "expects its global buffer to be a kernel "
                           "argument: the tensor map of a TMA copy is built "
                           "on the host from the argument";
      return WalkResult::interrupt();
    }
    AbiParam param;
    param.kind = ::weave::abi::ParamKind::Tma;
    param.tmaSource = arg.getArgNumber();
    param.tmaBox.assign(tile.getShape().rbegin(), tile.getShape().rend());
    param.tmaSwizzle = swizzle;
    if (device) {
      FailureOr<int64_t> offset = matchPeerOffset(device, result.teamSize);
      if (failed(offset)) {
        op->emitOpError() << "expects the device of a TMA store to another "
                             "device to be (device_id + c) mod num_devices "
                             "for a constant c, so that the host can build "
                             "its tensor map";
        return WalkResult::interrupt();
      }
      param.tmaIsPeerView = true;
      param.tmaPeerOffset = *offset;
    }
    param.dtype = result.params[param.tmaSource].dtype;
    unsigned index = 0;
    for (; index < result.params.size(); ++index) {
      const AbiParam &other = result.params[index];
      if (other.kind == param.kind && other.tmaSource == param.tmaSource &&
          other.tmaBox == param.tmaBox &&
          other.tmaSwizzle == param.tmaSwizzle &&
          other.tmaIsPeerView == param.tmaIsPeerView &&
          other.tmaPeerOffset == param.tmaPeerOffset)
        break;
    }
    if (index == result.params.size()) {
      param.name = result.params[param.tmaSource].name + ".tma" +
                   std::to_string(index - numUser - 3);
      result.params.push_back(std::move(param));
    }
    if (tmaOf)
      (*tmaOf)[op] = index;
    return WalkResult::advance();
  };
  WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
    if (auto store = dyn_cast<CopySmemToGmemOp>(op))
      return addTensorMap(store, store.getTarget(),
                          cast<MemRefType>(store.getSource().getType()),
                          store.getDevice(), store.getSwizzle());
    if (auto load = dyn_cast<CopyGmemToSmemOp>(op))
      return addTensorMap(load, load.getSource(),
                          cast<MemRefType>(load.getTarget().getType()),
                          Value(), load.getSwizzle());
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  return result;
}
