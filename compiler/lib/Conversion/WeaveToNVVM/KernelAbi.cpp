//===- KernelAbi.cpp - parameters of a weave kernel -----------------------===//

#include "weave/Conversion/WeaveToNVVM/KernelAbi.h"

#include "weave/Dialect/Weave/IR/DTypeMlir.h"
#include "weave/Dialect/Weave/IR/EqualDims.h"
#include "weave/Dialect/Weave/IR/KernelVariant.h"
#include "weave/Dialect/Weave/IR/WeaveOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>

#include <cstdint>

using namespace mlir;
using namespace mlir::weave;

FailureOr<std::string> mlir::weave::getDTypeName(Type type) {
  if (std::optional<DType> dtype = getDType(type))
    return std::string(::weave::dtypeName(*dtype));
  return failure();
}

/// The dtypes a kernel's buffers hold, "f16, bf16, ... or i64".
static std::string bufferDTypes() {
  return ::weave::dtypeNames(
      [](const DTypeTraits &t) { return t.kernelArgument; });
}

/// The dtypes a kernel's scalars take: 4 or 8 bytes (one parameter word).
static std::string scalarDTypes() {
  return ::weave::dtypeNames([](const DTypeTraits &t) {
    return t.kernelArgument && t.bytes >= 4;
  });
}

FailureOr<int64_t> mlir::weave::matchPeerOffset(Value device,
                                                 int64_t meshSize) {
  auto isTeamSize = [&](Value v) {
    if (v.getDefiningOp<NumDevicesOp>())
      return true;
    APInt c;
    return meshSize > 0 && matchPattern(v, m_ConstantInt(&c)) &&
           c.getSExtValue() == meshSize;
  };
  auto constantTerm = [&](Value v) -> std::optional<int64_t> {
    // The manifest carries the offset as i32 (TmaInfo::peerOffset): a
    // larger one is not matched, so the op is rejected instead of the host
    // computing another peer than the kernel.
    auto fitsI32 = [](int64_t value) {
      return value >= INT32_MIN && value <= INT32_MAX;
    };
    APInt c;
    if (matchPattern(v, m_ConstantInt(&c)) && c.getSignificantBits() <= 64 &&
        fitsI32(c.getSExtValue()) && !c.isNegative())
      return c.getSExtValue();
    // num_devices - k
    if (auto sub = v.getDefiningOp<arith::SubIOp>())
      if (isTeamSize(sub.getLhs()) &&
          matchPattern(sub.getRhs(), m_ConstantInt(&c)) &&
          c.getSignificantBits() <= 64 && fitsI32(c.getSExtValue()) &&
          !c.isNegative() &&
          (c.getSExtValue() <= 2 ||
           (meshSize > 0 && c.getSExtValue() <= meshSize)))
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

/// What a kernel argument may be, for messages that reject one.
static std::string passableTypes() {
  return "kernel arguments are memrefs in global memory (static or dynamic "
         "shape, identity layout, element type " +
         bufferDTypes() +
         "; default, 1 or #weave.symmetric memory space), !weave.semaphore, "
         "or scalars of type " +
         scalarDTypes();
}

/// Whether `name` can name a parameter in the manifest and in the runtime's
/// argument binding: a C identifier.
static bool isIdentifier(StringRef name) {
  if (name.empty() || !(llvm::isAlpha(name[0]) || name[0] == '_'))
    return false;
  return llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// Fills `param` with the kind, dtype and shape of user argument `index`, or
/// emits an error at the argument and fails.
static LogicalResult classifyParam(gpu::GPUFuncOp func, unsigned index,
                                   ::weave::ParamInfo &param) {
  BlockArgument arg = func.getArgument(index);
  Type type = arg.getType();
  auto fail = [&](const Twine &what) {
    return emitError(arg.getLoc())
           << "kernel argument #" << index << " of type " << type << " "
           << what;
  };
  if (auto sem = dyn_cast<SemaphoreType>(type)) {
    if (sem.getCount() == 0)
      return fail("cannot be passed: a semaphore needs at least one counter");
    param.kind = ::weave::abi::ParamKind::Semaphore;
    param.dtype = ::weave::dtypeName(DType::U32);
    param.semaphoreCount = sem.getCount();
    param.shape.push_back(sem.getCount());
    return success();
  }
  if (auto memref = dyn_cast<MemRefType>(type)) {
    if (!memref.getLayout().isIdentity())
      return fail("cannot be passed: the ABI takes row-major buffers "
                  "(identity layout)");
    if (!isGlobal(memref))
      return fail("cannot be passed: kernel buffers live in global memory "
                  "(default, 1 or #weave.symmetric memory space)");
    FailureOr<std::string> dtype = getDTypeName(memref.getElementType());
    if (failed(dtype))
      return fail("has an element type the runtime does not support; "
                  "buffers hold " +
                  bufferDTypes());
    if (memref.getRank() == 0)
      return fail("cannot be passed: the ABI takes buffers of rank 1 or more");
    // The runtime and the lowering compute byte sizes and offsets in
    // (signed) 64-bit arithmetic: a buffer must have at least one element
    // and at most 2^63 - 1 bytes. A dynamic dimension is at least 1 (the
    // runtime checks the launch sizes against the same bound).
    int64_t bytes = memref.getElementTypeBitWidth() / 8;
    for (int64_t dim : memref.getShape()) {
      if (ShapedType::isDynamic(dim))
        continue;
      if (dim <= 0)
        return fail("cannot be passed: buffers need at least one element, "
                    "found a dimension of size " +
                    Twine(dim));
      if (llvm::MulOverflow(bytes, dim, bytes))
        return fail("cannot be passed: its size in bytes does not fit in a "
                    "signed 64-bit integer (at most 9223372036854775807 "
                    "bytes)");
    }
    param.kind = isSymmetric(memref) ? ::weave::abi::ParamKind::Symmetric
                                     : ::weave::abi::ParamKind::Buffer;
    param.dtype = *dtype;
    for (int64_t dim : memref.getShape())
      param.shape.push_back(ShapedType::isDynamic(dim)
                                ? ::weave::abi::kDynamicDim
                                : dim);
    return success();
  }
  if (type.isIntOrFloat()) {
    FailureOr<std::string> dtype = getDTypeName(type);
    if (failed(dtype) || ::weave::dtypeBytes(*dtype) < 4)
      return fail("cannot be passed: scalars are " + scalarDTypes());
    param.kind = ::weave::abi::ParamKind::Scalar;
    param.dtype = *dtype;
    return success();
  }
  return fail("cannot be passed to a weave kernel; " + passableTypes());
}

/// Computes the user parameters of `func` (names, kinds, shapes), checking
/// each, or emits a located error and fails.
static LogicalResult computeUserParams(gpu::GPUFuncOp func,
                                       std::vector<::weave::ParamInfo> &params) {
  // Only the function's parameters: the entry block also holds the
  // workgroup and private memory attributions.
  llvm::StringMap<unsigned> names;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    BlockArgument arg = func.getArgument(i);
    ::weave::ParamInfo param;
    if (failed(classifyParam(func, i, param)))
      return failure();
    // The name is the manifest's and the runtime's handle on the argument
    // (Kernel::bind by name), so it must be a unique identifier that the
    // ABI's own parameters do not use.
    param.name = "arg" + std::to_string(i);
    if (Attribute attr = func.getArgAttr(i, "weave.name")) {
      auto name = dyn_cast<StringAttr>(attr);
      if (!name)
        return emitError(arg.getLoc())
               << "kernel argument #" << i
               << " expects 'weave.name' to be a string, found " << attr;
      if (!isIdentifier(name.getValue()))
        return emitError(arg.getLoc())
               << "kernel argument #" << i << " has weave.name " << name
               << ", expected an identifier (a letter or '_', then letters, "
                  "digits or '_')";
      if (llvm::is_contained(kReservedParamNames, name.getValue()))
        return emitError(arg.getLoc())
               << "kernel argument #" << i << " has weave.name " << name
               << ", which the ABI reserves for a team parameter (rank, "
                  "team_size and peer_bases are reserved)";
      param.name = name.getValue().str();
    }
    auto [it, inserted] = names.try_emplace(param.name, i);
    if (!inserted) {
      InFlightDiagnostic diag = emitError(arg.getLoc())
                                << "kernel argument #" << i << " is named '"
                                << param.name << "', as is argument #"
                                << it->second
                                << "; kernel argument names must be unique "
                                   "(an argument without weave.name is "
                                   "named argN)";
      diag.attachNote(func.getArgument(it->second).getLoc())
          << "argument #" << it->second << " is here";
      return failure();
    }
    params.push_back(std::move(param));
  }
  return success();
}

/// Records weave.variant (KernelVariant.h): the group name, and the range
/// of the argument dimension it bounds (every other dimension of that
/// argument its static size or any size).
static LogicalResult applyVariant(gpu::GPUFuncOp func, KernelAbi &abi) {
  std::optional<KernelVariant> variant = getKernelVariant(func);
  if (!variant)
    return success();
  if (variant->of == func.getName())
    return func.emitError() << "'" << kVariantAttrName << "' names the kernel "
                            << "itself ('" << variant->of
                            << "'); a variant is launched by another name";
  if (variant->arg >= func.getNumArguments())
    return func.emitError() << "'" << kVariantAttrName << "' bounds argument #"
                            << variant->arg << ", but the kernel has "
                            << func.getNumArguments() << " argument(s)";
  ::weave::ParamInfo &param = abi.params[variant->arg];
  if ((param.kind != ::weave::abi::ParamKind::Buffer &&
       param.kind != ::weave::abi::ParamKind::Symmetric) ||
      variant->axis >= param.shape.size() ||
      param.shape[variant->axis] != ::weave::abi::kDynamicDim)
    return emitError(func.getArgument(variant->arg).getLoc())
           << "'" << kVariantAttrName << "' bounds dimension " << variant->axis
           << " of kernel argument #" << variant->arg
           << ", which is not a dynamic dimension of a buffer (got "
           << func.getArgument(variant->arg).getType() << ")";
  abi.variantOf = variant->of;
  param.ranges.clear();
  for (int64_t dim : param.shape)
    param.ranges.push_back(dim == ::weave::abi::kDynamicDim
                               ? ::weave::DimRange{}
                               : ::weave::DimRange{dim, dim});
  param.ranges[variant->axis] = {variant->lo, variant->hi};
  return success();
}

LogicalResult mlir::weave::verifyKernelInterface(gpu::GPUFuncOp func) {
  auto kernel =
      func->getAttrOfType<KernelAttr>(WeaveDialect::getKernelAttrName());
  if (!kernel)
    return func.emitError("expects a '")
           << WeaveDialect::getKernelAttrName() << "' attribute";
  // The kernel's name and its mesh size are checked before, by
  // weave-verify-kernel and the #weave.mesh verifier.
  KernelAbi abi;
  if (failed(computeUserParams(func, abi.params)))
    return failure();
  return applyVariant(func, abi);
}

LogicalResult mlir::weave::verifyVariantGroups(Operation *module) {
  struct Member {
    gpu::GPUFuncOp func;
    int64_t teamSize;
    std::vector<::weave::ParamInfo> params;
  };
  llvm::StringMap<gpu::GPUFuncOp> kernels;
  llvm::MapVector<StringRef, SmallVector<Member>> groups;
  WalkResult walk = module->walk([&](gpu::GPUFuncOp func) {
    auto kernel =
        func->getAttrOfType<KernelAttr>(WeaveDialect::getKernelAttrName());
    if (!kernel)
      return WalkResult::advance();
    kernels[func.getName()] = func;
    std::optional<KernelVariant> variant = getKernelVariant(func);
    if (!variant)
      return WalkResult::advance();
    Member member{func, kernel.getMesh().isDynamic()
                            ? 0
                            : kernel.getMesh().getSize(),
                  {}};
    if (failed(computeUserParams(func, member.params)))
      return WalkResult::interrupt();
    // The group's name lives as long as the attribute.
    auto dict = cast<DictionaryAttr>(func->getAttr(kVariantAttrName));
    groups[cast<StringAttr>(dict.get("of")).getValue()].push_back(
        std::move(member));
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (auto &[group, members] : groups) {
    Member &first = members.front();
    if (auto it = kernels.find(group); it != kernels.end()) {
      InFlightDiagnostic diag =
          it->second.emitError()
          << "kernel '" << group
          << "' is also the name of a weave.variant group: Kernel::get could "
             "not tell them apart; rename the kernel or the group";
      diag.attachNote(first.func.getLoc()) << "a variant of '" << group
                                           << "' here";
      return diag;
    }
    for (Member &other : llvm::drop_begin(members)) {
      auto differ = [&](Location at, const Twine &what) {
        InFlightDiagnostic diag =
            emitError(at) << "variant '" << other.func.getName() << "' of '"
                          << group << "' differs from variant '"
                          << first.func.getName() << "' in " << what
                          << ": the variants of a name take the same "
                             "arguments on the same team";
        diag.attachNote(first.func.getLoc())
            << "variant '" << first.func.getName() << "' here";
        return diag;
      };
      if (other.teamSize != first.teamSize)
        return differ(other.func.getLoc(), "its mesh size");
      if (other.params.size() != first.params.size())
        return differ(other.func.getLoc(), "its number of arguments (" +
                                               Twine(other.params.size()) +
                                               " vs " +
                                               Twine(first.params.size()) +
                                               ")");
      for (auto [i, a, b] : llvm::enumerate(first.params, other.params))
        if (a.kind != b.kind || a.name != b.name || a.dtype != b.dtype ||
            a.shape != b.shape || a.semaphoreCount != b.semaphoreCount)
          return differ(other.func.getArgument(i).getLoc(),
                        "argument #" + Twine(i) + " ('" + b.name +
                            "': its name, type or shape)");
    }
  }
  return success();
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
  for (int i = 0; i < 3; ++i) {
    // A capped persistent grid: x is persistent in the manifest, its cap
    // `grid_max`.
    result.grid[i] = i == 0 && kernel.isPersistent()
                         ? ::weave::KernelInfo::kPersistentGrid
                         : kernel.getGrid()[i];
    result.block[i] = kernel.getBlock()[i];
    result.cluster[i] = kernel.getCluster()[i];
  }
  result.gridMax = kernel.getPersistentCap();
  result.dynamicSmemBytes = kernel.getSmem();

  // (The name and the mesh size were checked by weave-verify-kernel and the
  // #weave.mesh verifier.)
  if (failed(computeUserParams(func, result.params)) ||
      failed(applyVariant(func, result)))
    return failure();
  for (auto [kind, name] : {std::pair<::weave::abi::ParamKind, const char *>{::weave::abi::ParamKind::Rank, "rank"},
                            {::weave::abi::ParamKind::TeamSize, "team_size"},
                            {::weave::abi::ParamKind::PeerBases, "peer_bases"}}) {
    ::weave::ParamInfo param;
    param.kind = kind;
    param.name = name;
    param.dtype = kind == ::weave::abi::ParamKind::PeerBases
                      ? ""
                      : ::weave::dtypeName(DType::U32);
    result.params.push_back(std::move(param));
  }
  // The launch size of each dynamic dimension: the lowering rebuilds the
  // memref's sizes from them (docs/ABI.md, "Dynamic dimensions").
  unsigned numUser = func.getNumArguments();
  for (unsigned source = 0; source < numUser; ++source) {
    if (result.params[source].kind != ::weave::abi::ParamKind::Buffer &&
        result.params[source].kind != ::weave::abi::ParamKind::Symmetric)
      continue;
    for (auto [axis, dim] : llvm::enumerate(result.params[source].shape)) {
      if (dim != ::weave::abi::kDynamicDim)
        continue;
      // An i64 by its kind: the manifest's dim line has no dtype.
      ::weave::ParamInfo param;
      param.kind = ::weave::abi::ParamKind::Dim;
      param.name =
          result.params[source].name + ".dim" + std::to_string(axis);
      param.dim.sourceParam = source;
      param.dim.axis = static_cast<uint32_t>(axis);
      result.params.push_back(std::move(param));
    }
  }
  // Dimensions the kernel needs equal (EqualDims.h): on the Dim parameter
  // of the second of each pair, the index of the first's.
  if (auto equal = func->getAttrOfType<DenseI64ArrayAttr>(kEqualDimsAttrName)) {
    auto dimParam = [&](int64_t arg, int64_t axis) -> std::optional<size_t> {
      for (size_t i = numUser + 3; i < result.params.size(); ++i)
        if (result.params[i].dim.sourceParam == arg &&
            result.params[i].dim.axis == axis)
          return i;
      return std::nullopt;
    };
    ArrayRef<int64_t> values = equal.asArrayRef();
    for (size_t i = 0; i + 3 < values.size(); i += 4) {
      std::optional<size_t> first = dimParam(values[i], values[i + 1]);
      std::optional<size_t> second = dimParam(values[i + 2], values[i + 3]);
      if (first && second && *first != *second)
        result.params[*second].dim.equals = static_cast<uint32_t>(*first);
    }
  }
  unsigned firstTma = result.params.size();
  // Per TMA parameter, the manifest's index of it (kTmaOrderAttrName;
  // max where none); and each TMA op's parameter, in discovery order.
  SmallVector<int64_t> order;
  llvm::DenseMap<Operation *, unsigned> found;

  // One tensor map per distinct (global buffer, tile, swizzle, peer view);
  // a store to a device known only at run time gets a table of one tensor
  // map per member instead (TmaTable), which the kernel indexes.
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
    ::weave::ParamInfo param;
    param.kind = ::weave::abi::ParamKind::Tma;
    param.tma.sourceParam = arg.getArgNumber();
    param.tma.box.assign(tile.getShape().rbegin(), tile.getShape().rend());
    param.tma.swizzleBytes = static_cast<uint32_t>(swizzle);
    if (device) {
      // A constant offset from this member is a peer view, a by-value tensor
      // map the host encodes for (rank + c) mod team; any other device is
      // only known at run time.
      FailureOr<int64_t> offset = matchPeerOffset(device, result.teamSize);
      if (succeeded(offset)) {
        param.tma.isPeerView = true;
        param.tma.peerOffset = static_cast<int32_t>(*offset);
      } else if (result.params[param.tma.sourceParam].kind ==
                 ::weave::abi::ParamKind::Symmetric) {
        param.kind = ::weave::abi::ParamKind::TmaTable;
      } else {
        op->emitOpError() << "expects its global buffer to be a symmetric "
                             "kernel argument: a TMA copy to or from another "
                             "device goes through that device's copy";
        return WalkResult::interrupt();
      }
    }
    param.dtype = result.params[param.tma.sourceParam].dtype;
    unsigned index = 0;
    for (; index < result.params.size(); ++index) {
      const ::weave::ParamInfo &other = result.params[index];
      if (other.kind == param.kind && other.tma.sourceParam == param.tma.sourceParam &&
          other.tma.box == param.tma.box &&
          other.tma.swizzleBytes == param.tma.swizzleBytes &&
          other.tma.isPeerView == param.tma.isPeerView &&
          other.tma.peerOffset == param.tma.peerOffset)
        break;
    }
    if (index == result.params.size()) {
      result.params.push_back(std::move(param));
      order.push_back(std::numeric_limits<int64_t>::max());
    }
    // The order the manifest gave this op's tensor map, if it has one.
    if (auto stamp = op->getAttrOfType<IntegerAttr>(kTmaOrderAttrName))
      order[index - firstTma] = std::min(order[index - firstTma], stamp.getInt());
    found[op] = index;
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
                          load.getDevice(), load.getSwizzle());
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  // The manifest's order where the ops carry it, else the walk's (a stable
  // sort: unstamped parameters keep their discovery order, after the
  // stamped ones); then the names, which number the TMA parameters.
  SmallVector<unsigned> byOrder(order.size());
  std::iota(byOrder.begin(), byOrder.end(), 0u);
  std::stable_sort(byOrder.begin(), byOrder.end(),
                   [&](unsigned x, unsigned y) { return order[x] < order[y]; });
  SmallVector<unsigned> newIndex(order.size());
  std::vector<::weave::ParamInfo> tmaParams;
  for (auto [position, old] : llvm::enumerate(byOrder)) {
    newIndex[old] = position;
    ::weave::ParamInfo param = std::move(result.params[firstTma + old]);
    bool table = param.kind == ::weave::abi::ParamKind::TmaTable;
    param.name = result.params[param.tma.sourceParam].name +
                 (table ? ".tma_table" : ".tma") + std::to_string(position);
    tmaParams.push_back(std::move(param));
  }
  result.params.resize(firstTma);
  for (::weave::ParamInfo &param : tmaParams)
    result.params.push_back(std::move(param));
  if (tmaOf)
    for (auto [op, index] : found)
      (*tmaOf)[op] = firstTma + newIndex[index - firstTma];
  // Laid out as the runtime lays it out (computeParamLayout).
  uint64_t paramBytes = ::weave::paramBlockBytes(result);
  if (paramBytes > kMaxKernelParamBytes) {
    unsigned numTma = result.params.size() - firstTma;
    unsigned numDims = firstTma - numUser - 3;
    InFlightDiagnostic diag = func.emitError()
                              << "expects at most " << kMaxKernelParamBytes
                              << " bytes of kernel parameters, got "
                              << paramBytes << " (" << numUser
                              << " user parameters, 3 team parameters ";
    if (numDims)
      diag << "(then " << numDims << " dynamic dimension sizes) ";
    return diag << "and " << numTma << " TMA descriptors of "
                << ::weave::abi::kTmaParamBytes
                << " bytes, laid out as docs/ABI.md says)";
  }
  return result;
}
