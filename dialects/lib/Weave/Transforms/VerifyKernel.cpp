//===- VerifyKernel.cpp - whole-kernel checks of weave kernels ------------===//
//
// Op verifiers see one op; this pass checks the rules that span a kernel:
// where weave ops may appear, where symmetric buffers and semaphores come
// from, and whether the launch shape fits the pipelines in the kernel.
//
//===----------------------------------------------------------------------===//

#include "weave/Dialect/Weave/IR/WeaveOps.h"
#include "weave/Dialect/Weave/Transforms/Passes.h"
#include "weave/Dialect/Weave/Transforms/Pipeline/TmaOperands.h"
#include "weave/Dialect/Weave/Utils/HardwareLimits.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::weave {
#define GEN_PASS_DEF_VERIFYKERNELPASS
#include "weave/Dialect/Weave/Transforms/Passes.h.inc"
} // namespace mlir::weave

using namespace mlir;
using namespace mlir::weave;

namespace {

/// Follows view-like ops (subview, cast, remote_ref) back to their source.
Value getRootBuffer(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      value = view.getViewSource();
      continue;
    }
    if (auto remote = dyn_cast<RemoteRefOp>(def)) {
      value = remote.getBuffer();
      continue;
    }
    break;
  }
  return value;
}

/// Shared memory a block can have, static and dynamic together.
constexpr int64_t kMaxSharedMemoryBytes = hw::kMaxSharedMemoryPerBlock;

/// The byte size of a static memref, or nullopt if it has no static shape,
/// no element bit width, or more than INT64_MAX bytes. With `dynamicAsOne`,
/// dynamic dimensions count as 1 (the least a launch gives them).
std::optional<int64_t> staticByteSize(MemRefType type,
                                      bool dynamicAsOne = false) {
  Type elt = type.getElementType();
  if (!elt.isIntOrFloat() || (!dynamicAsOne && !type.hasStaticShape()))
    return std::nullopt;
  int64_t bytes = (elt.getIntOrFloatBitWidth() + 7) / 8;
  for (int64_t dim : type.getShape())
    if (!ShapedType::isDynamic(dim) && llvm::MulOverflow(bytes, dim, bytes))
      return std::nullopt;
  return bytes;
}

/// Whether NVPTX and ptxas take `name` as a symbol: a letter then letters,
/// digits, `_` and `$`, or `_` or `$` then at least one of those. (PTX also
/// allows a leading `%`, which LLVM's NVPTX printer does not; `.` and `@`
/// pass LLVM but not ptxas.)
bool isPtxIdentifier(StringRef name) {
  auto follows = [](char c) { return llvm::isAlnum(c) || c == '_' || c == '$'; };
  // WARP_SZ is predefined in PTX.
  if (name.empty() || !llvm::all_of(name, follows) || name == "WARP_SZ")
    return false;
  if (llvm::isAlpha(name.front()))
    return true;
  return (name.front() == '_' || name.front() == '$') && name.size() > 1;
}

/// Whether the bare-pointer calling convention of the lowering can pass a
/// memref (only the pointer travels: shape, strides and offset must be
/// static).
bool isBarePointerMemRef(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return !isa<UnrankedMemRefType>(type);
  if (!memref.hasStaticShape())
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)))
    return false;
  return !ShapedType::isDynamic(offset) &&
         llvm::none_of(strides, ShapedType::isDynamic);
}

/// Whether the memref `value` is symmetric memory, or a view of it (a
/// memory-space cast included) or a peer's copy of it.
bool isSymmetricMemory(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  if (type && isSymmetric(type))
    return true;
  auto root = dyn_cast<MemRefType>(getRootBuffer(value).getType());
  return root && isSymmetric(root);
}

/// Whether the LLVM pointer `ptr` is derived from the address of symmetric
/// memory (memref.extract_aligned_pointer_as_index and integer/pointer
/// arithmetic on it).
bool isSymmetricPointer(Value ptr) {
  SmallVector<Value> worklist = {ptr};
  llvm::SmallPtrSet<Value, 8> seen;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    Operation *def = value.getDefiningOp();
    if (!def)
      continue;
    if (auto extract = dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(def)) {
      if (isSymmetricMemory(extract.getSource()))
        return true;
      continue;
    }
    if (isa<LLVM::GEPOp, LLVM::IntToPtrOp, LLVM::PtrToIntOp,
            LLVM::AddrSpaceCastOp, LLVM::AddOp, LLVM::SubOp, arith::AddIOp,
            arith::SubIOp, arith::IndexCastOp, arith::IndexCastUIOp,
            UnrealizedConversionCastOp>(def))
      llvm::append_range(worklist, def->getOperands());
  }
  return false;
}

/// Rejects element-wise atomics on symmetric or peer memory: upstream
/// lowers them to GPU-scope atom/atomicrmw, which orders nothing against
/// another GPU.
LogicalResult verifyAtomic(Operation *op) {
  bool symmetric = false;
  if (auto rmw = dyn_cast<memref::AtomicRMWOp>(op))
    symmetric = isSymmetricMemory(rmw.getMemref());
  else if (auto generic = dyn_cast<memref::GenericAtomicRMWOp>(op))
    symmetric = isSymmetricMemory(generic.getMemref());
  else if (auto rmw = dyn_cast<LLVM::AtomicRMWOp>(op))
    symmetric = isSymmetricPointer(rmw.getPtr());
  else if (auto cmpxchg = dyn_cast<LLVM::AtomicCmpXchgOp>(op))
    symmetric = isSymmetricPointer(cmpxchg.getPtr());
  if (!symmetric)
    return success();
  return op->emitOpError()
         << "cannot be used on symmetric or peer memory: it lowers to a "
            "GPU-scope atomic, which orders nothing against another GPU; use "
            "weave.atomic_add for sums (f32, or f16/bf16 pairs) and "
            "weave.semaphore_signal for counters";
}

/// Static shared memory of `func`: its workgroup attributions and the
/// workgroup-space memref.globals it uses. Fails (with an error) on a size
/// that overflows.
FailureOr<int64_t> staticSharedMemoryBytes(gpu::GPUFuncOp func,
                                           SymbolTableCollection &symbols) {
  int64_t total = 0;
  auto add = [&](Operation *where, MemRefType type) -> LogicalResult {
    std::optional<int64_t> bytes = staticByteSize(type);
    if (!bytes || llvm::AddOverflow(total, *bytes, total))
      return where->emitOpError()
             << "expects a static shared memory buffer of fewer than 2^63 "
                "bytes, got "
             << type;
    return success();
  };
  for (BlockArgument arg : func.getWorkgroupAttributions())
    if (failed(add(func, cast<MemRefType>(arg.getType()))))
      return failure();
  llvm::SmallPtrSet<Operation *, 4> counted;
  WalkResult result = func.walk([&](memref::GetGlobalOp get) -> WalkResult {
    auto global = symbols.lookupNearestSymbolFrom<memref::GlobalOp>(
        get, get.getNameAttr());
    if (!global || !isWorkgroup(global.getType()) ||
        !counted.insert(global).second)
      return WalkResult::advance();
    return failed(add(global, global.getType())) ? WalkResult::interrupt()
                                                 : WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  return total;
}

/// Checks that no op other than a weave.barrier signals or waits on the
/// counters a barrier uses (counter 0, and 1 for scope(team_blocks)): the
/// barrier's monotonic 2^31 steps would be off, and every later barrier
/// on them would pass early or hang. Another counter of the same array,
/// named by a constant index, is fine.
LogicalResult verifyBarrierCounters(gpu::GPUFuncOp func) {
  llvm::DenseMap<Value, BarrierOp> barriers;
  func.walk([&](BarrierOp barrier) {
    BarrierOp &widest = barriers[barrier.getSemaphore()];
    if (!widest || widest.getNumCounters() < barrier.getNumCounters())
      widest = barrier;
  });
  if (barriers.empty())
    return success();
  WalkResult result = func.walk([&](Operation *op) -> WalkResult {
    Value semaphore, index;
    if (auto signal = dyn_cast<SemaphoreSignalOp>(op)) {
      semaphore = signal.getSemaphore();
      index = signal.getIndex();
    } else if (auto wait = dyn_cast<SemaphoreWaitOp>(op)) {
      semaphore = wait.getSemaphore();
      index = wait.getIndex();
    } else if (auto put = dyn_cast<PutOp>(op)) {
      semaphore = put.getSignal();
      index = put.getSignalIndex();
    } else if (auto get = dyn_cast<GetOp>(op)) {
      semaphore = get.getSignal();
      index = get.getSignalIndex();
    }
    auto it = semaphore ? barriers.find(semaphore) : barriers.end();
    if (it == barriers.end())
      return WalkResult::advance();
    BarrierOp barrier = it->second;
    APInt constant;
    if (index && matchPattern(index, m_ConstantInt(&constant)) &&
        constant.getZExtValue() >= barrier.getNumCounters())
      return WalkResult::advance();
    InFlightDiagnostic diag =
        op->emitOpError()
        << "uses a counter of the barrier's semaphore (counters 0"
        << (barrier.getNumCounters() > 1 ? " and 1" : "")
        << " belong to the weave.barrier, which counts them in steps of "
           "2^31); give it a semaphore of its own, or use a counter index of "
           "at least "
        << barrier.getNumCounters();
    diag.attachNote(barrier.getLoc()) << "barrier here";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

LogicalResult verifyKernel(gpu::GPUFuncOp func, KernelAttr kernel,
                           SymbolTableCollection &symbols) {
  if (kernel.hasAutoFields())
    return func.emitError()
           << "weave kernel has 'auto' launch fields (block, cluster or "
              "smem) that weave-configure-pipelines did not fill in; run it "
              "first (weavec does)";
  for (BlockArgument arg : func.getArguments()) {
    auto memref = dyn_cast<MemRefType>(arg.getType());
    if (!memref)
      continue;
    auto argError = [&]() {
      return mlir::emitError(arg.getLoc())
             << "weave kernel argument #" << arg.getArgNumber() << " ";
    };
    // Dynamic dimensions (`?`) take their sizes from the launch (docs/ABI.md;
    // the layout must be row-major, which verifyKernelInterface checks).
    // The runtime binds (and allocates) buffers of at least one element.
    if (llvm::is_contained(memref.getShape(), 0))
      return argError() << "expects a buffer of at least one element (the "
                           "runtime binds no empty buffers), got "
                        << memref;
    // A dynamic dimension is at least 1: its static part must fit already.
    if (memref.getElementType().isIntOrFloat() &&
        !staticByteSize(memref, /*dynamicAsOne=*/true))
      return argError() << "expects a buffer of fewer than 2^63 bytes, got "
                        << memref;
  }

  FailureOr<int64_t> staticSmem = staticSharedMemoryBytes(func, symbols);
  if (failed(staticSmem))
    return failure();
  if (*staticSmem > kMaxSharedMemoryBytes - kernel.getSmem())
    return func.emitError()
           << "weave kernel needs " << *staticSmem
           << " bytes of static shared memory (workgroup attributions and "
              "memref.globals in workgroup memory) and "
           << kernel.getSmem() << " of dynamic (smem), more than the "
           << kMaxSharedMemoryBytes << " a Hopper block can have";

  // A pipeline's expansion initializes the ring's mbarriers and lays out
  // the dynamic shared memory from the kernel's start, and leaves no barrier
  // after its last tile: a second pipeline (or a second run of the same one)
  // would re-initialize them while the first's TMA loads and consumers may
  // still use them.
  MatmulPipelineOp firstPipeline;
  WalkResult once = func.walk([&](MatmulPipelineOp pipeline) -> WalkResult {
    if (firstPipeline) {
      InFlightDiagnostic diag =
          pipeline.emitOpError()
          << "expects one weave.matmul_pipeline per kernel: each one owns the "
             "kernel's dynamic shared memory and mbarriers from the start, "
             "and a second would reuse them with no barrier after the first; "
             "launch a second kernel (or give both products one pipeline)";
      diag.attachNote(firstPipeline.getLoc()) << "first pipeline here";
      return WalkResult::interrupt();
    }
    firstPipeline = pipeline;
    for (Operation *parent = pipeline->getParentOp();
         parent && parent != func.getOperation();
         parent = parent->getParentOp())
      if (isa<LoopLikeOpInterface>(parent) ||
          parent->getName().getStringRef() == "scf.while") {
        pipeline.emitOpError()
            << "expects to run once per launch, but is inside '"
            << parent->getName()
            << "': each run re-initializes the mbarriers and reuses the shared "
               "memory with no barrier after the previous one; launch the "
               "kernel once per product";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  if (once.wasInterrupted())
    return failure();

  if (failed(verifyBarrierCounters(func)))
    return failure();

  WalkResult result = func.walk([&](Operation *op) -> WalkResult {
    if (failed(verifyAtomic(op)))
      return WalkResult::interrupt();
    // Symmetric buffers and semaphores must be kernel arguments (or views of
    // them): only those have the same offset on every device.
    for (Value operand : op->getOperands()) {
      auto memref = dyn_cast<MemRefType>(operand.getType());
      bool tracked = isa<SemaphoreType>(operand.getType()) ||
                     (memref && isSymmetric(memref));
      if (!tracked)
        continue;
      auto root = dyn_cast<BlockArgument>(getRootBuffer(operand));
      if (!root || root.getOwner() != &func.getBody().front()) {
        op->emitOpError() << "expects symmetric buffers and semaphores to be "
                             "arguments of the kernel (or views of them)";
        return WalkResult::interrupt();
      }
    }
    auto pipeline = dyn_cast<MatmulPipelineOp>(op);
    if (!pipeline)
      return WalkResult::advance();
    if (pipeline.isAutoTile()) {
      pipeline.emitOpError() << "has tile(auto), which "
                                "weave-configure-pipelines did not resolve; "
                                "run it first (weavec does)";
      return WalkResult::interrupt();
    }
    // The pipeline's rules with what the kernel declares: a warpgroup per
    // role, the cluster shape, the shared memory (MatmulTiling::check; the
    // op verifier checked the rest).
    pipeline::MatmulTiling tiling = pipeline.getTiling();
    tiling.blockThreads = kernel.getNumThreads();
    ArrayRef<int32_t> dims = kernel.getCluster();
    tiling.clusterShape = {dims.empty() ? 0 : int64_t(dims[0]),
                           dims.size() > 1 ? int64_t(dims[1]) : 1,
                           dims.size() > 2 ? int64_t(dims[2]) : 1};
    tiling.kernelSmem = kernel.getSmem();
    if (pipeline::TilingViolation violation = tiling.check()) {
      pipeline.emitOpError() << *violation;
      return WalkResult::interrupt();
    }
    // Each operand's tensor map is built from a kernel argument: checked
    // here, before weavec prints or lowers anything.
    if (failed(pipeline::verifyTmaOperands(pipeline)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Whether `type` lives in thread-private memory: the default memory space
/// or the private one (#gpu.address_space<private>, NVVM 5).
bool isPrivate(MemRefType type) {
  Attribute space = type.getMemorySpace();
  if (!space)
    return true;
  if (auto gpuSpace = dyn_cast<gpu::AddressSpaceAttr>(space))
    return gpuSpace.getValue() == gpu::AddressSpace::Private;
  if (auto intSpace = dyn_cast<IntegerAttr>(space))
    return intSpace.getInt() == 0 || intSpace.getInt() == 5;
  return false;
}

/// Rejects allocations in device code that the lowering gets wrong: a
/// memref.alloca is a per-thread stack slot whatever its memory space (in
/// workgroup memory it became a local slot reached through a shared-memory
/// address, outside the shared-memory budget), and a memref.alloc has no
/// lowering to shared or symmetric memory (the heap is global and
/// per-thread).
LogicalResult verifyAllocation(Operation *op) {
  bool alloca = isa<memref::AllocaOp>(op);
  if (!alloca && !isa<memref::AllocOp>(op))
    return success();
  auto type = cast<MemRefType>(op->getResult(0).getType());
  if (alloca ? isPrivate(type) : !isWorkgroup(type) && !isSymmetric(type))
    return success();
  StringRef where = isWorkgroup(type)   ? "shared memory: declare it as a "
                                          "workgroup(...) attribution of the "
                                          "gpu.func (or a memref.global in "
                                          "workgroup memory)"
                    : isSymmetric(type) ? "symmetric memory: pass it as a "
                                          "#weave.symmetric kernel argument"
                                        : "this memory space: allocate it on "
                                          "the host and pass it as a kernel "
                                          "argument";
  return op->emitOpError() << "cannot allocate " << type << " in device code: "
                           << (alloca ? "an alloca is a per-thread stack slot"
                                      : "an alloc here is not lowered to "
                                        "that memory")
                           << "; for " << where;
}

/// Warns at a vector.load / vector.store of more than one element that has
/// no `alignment`: it lowers with the element's alignment, and NVPTX then
/// splits it into scalar accesses (8 x bf16 became 24 scalar loads and
/// moves). (Matched by name, as above.)
void warnUnalignedVectorAccess(Operation *op) {
  StringRef name = op->getName().getStringRef();
  if ((name != "vector.load" && name != "vector.store") ||
      op->hasAttr("alignment"))
    return;
  Value vectorValue =
      name == "vector.load" ? op->getResult(0) : op->getOperand(0);
  auto vector = dyn_cast<VectorType>(vectorValue.getType());
  if (!vector || !vector.hasStaticShape() ||
      !vector.getElementType().isIntOrFloat())
    return;
  int64_t elementBytes = (vector.getElementTypeBitWidth() + 7) / 8;
  int64_t bytes = vector.getNumElements() * elementBytes;
  if (vector.getNumElements() < 2 || !llvm::isPowerOf2_64(bytes) ||
      bytes > 16)
    return;
  op->emitWarning() << "accesses a " << bytes << "-byte " << vectorValue.getType()
                    << " with only its element's alignment (" << elementBytes
                    << " bytes): NVPTX splits it into scalar accesses; add "
                       "{alignment = "
                    << bytes << "} where the address is " << bytes
                    << "-byte aligned";
}

/// What the lowering of a whole gpu.module needs, weave kernel or not: the
/// pipeline lowers every function in it, with bare-pointer memrefs, and
/// prints every symbol into PTX.
LogicalResult verifyGpuModule(gpu::GPUModuleOp module) {
  for (Operation &op : module.getBody()->getOperations()) {
    // The module body becomes an LLVM module: only symbols (functions,
    // globals) have a place there. An op such as gpu.barrier directly in
    // the module has no function to be emitted into (translation crashed
    // on it).
    if (!isa<SymbolOpInterface>(&op))
      return op.emitOpError()
             << "expects only functions and globals directly in a "
                "gpu.module; move it into a gpu.func";
    auto symbol = dyn_cast<SymbolOpInterface>(&op);
    if (symbol && !isPtxIdentifier(symbol.getName()))
      return op.emitOpError()
             << "expects a symbol name that PTX can take (a letter, then "
                "letters, digits, '_' or '$'; or '_' or '$' and at least one "
                "more of those; not WARP_SZ), got \""
             << symbol.getName() << "\"";
    // Weave kernels get their own, stricter argument checks.
    auto func = dyn_cast<FunctionOpInterface>(&op);
    if (!func || op.hasAttr(WeaveDialect::getKernelAttrName()))
      continue;
    for (auto [kind, types] :
         {std::pair<StringRef, ArrayRef<Type>>{"argument", func.getArgumentTypes()},
          {"result", func.getResultTypes()}})
      for (auto [i, type] : llvm::enumerate(types))
        if (!isBarePointerMemRef(type))
          return op.emitOpError()
                 << "expects memref " << kind << "s with static shapes, "
                    "strides and offsets (the lowering passes memrefs as bare "
                    "pointers), got "
                 << kind << " #" << i << " of type " << type;
  }
  // (Matched by name: the weave libraries do not depend on the vector
  // dialect.)
  WalkResult result = module.walk([](Operation *op) -> WalkResult {
    if (failed(verifyAllocation(op)))
      return WalkResult::interrupt();
    warnUnalignedVectorAccess(op);
    StringRef name = op->getName().getStringRef();
    if (name != "vector.transfer_read" && name != "vector.transfer_write")
      return WalkResult::advance();
    op->emitOpError() << "is not lowered by the weave pipeline; use "
                         "vector.load / vector.store (and scf.if for the "
                         "edges) instead";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

struct VerifyKernelPass
    : public mlir::weave::impl::VerifyKernelPassBase<VerifyKernelPass> {
  using Base::Base;

  void runOnOperation() override {
    bool failed = false;
    SymbolTableCollection symbols;
    getOperation().walk([&](gpu::GPUModuleOp module) {
      failed |= mlir::failed(verifyGpuModule(module));
    });
    getOperation().walk([&](Operation *op) {
      if (auto func = dyn_cast<gpu::GPUFuncOp>(op)) {
        if (auto kernel = func->getAttrOfType<KernelAttr>(
                WeaveDialect::getKernelAttrName()))
          failed |= mlir::failed(verifyKernel(func, kernel, symbols));
        return;
      }
      if (isa<WeaveDialect>(op->getDialect()) && !getEnclosingKernelAttr(op)) {
        op->emitOpError() << "expects to be inside a gpu.func kernel with a "
                             "'weave.kernel' attribute";
        failed = true;
      }
    });
    if (failed)
      signalPassFailure();
  }
};

} // namespace
