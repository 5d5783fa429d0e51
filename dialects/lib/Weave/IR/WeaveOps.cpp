//===- WeaveOps.cpp - weave operations ------------------------------------===//

#include "weave/Dialect/Weave/IR/WeaveOps.h"
#include "weave/Dialect/Weave/IR/DTypeMlir.h"
#include "weave/Dialect/Weave/IR/KernelVariant.h"
#include "weave/Dialect/Weave/Utils/HardwareLimits.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::weave;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Checks that `axis` names the mesh axis of the enclosing kernel.
static LogicalResult verifyAxis(Operation *op, StringRef axis) {
  KernelAttr kernel = getEnclosingKernelAttr(op);
  if (!kernel)
    return success(); // weave-verify-kernel reports ops outside kernels.
  StringRef expected = kernel.getMesh().getAxis().getValue();
  if (axis != expected)
    return op->emitOpError() << "expects mesh axis \"" << expected
                             << "\" of the enclosing kernel, got \"" << axis
                             << "\"";
  return success();
}

/// Checks a constant counter index against the semaphore's size, and that a
/// multi-counter semaphore is indexed.
static LogicalResult verifySemaphoreIndex(Operation *op, SemaphoreType type,
                                          Value index) {
  if (!index) {
    if (type.getCount() != 1)
      return op->emitOpError()
             << "expects a counter index for " << type << " with "
             << type.getCount() << " counters";
    return success();
  }
  APInt value;
  if (matchPattern(index, m_ConstantInt(&value)) &&
      (value.isNegative() || value.getZExtValue() >= type.getCount()))
    return op->emitOpError() << "counter index " << value.getSExtValue()
                             << " is out of bounds for " << type;
  return success();
}

/// Bytes in one element of a memref (sub-byte types round up), or 0 for an
/// element type without a bit width (index, complex, vector, memref, ...):
/// verifiers reject those with verifyScalarElements before asking.
static int64_t elementBytes(MemRefType type) {
  Type elt = type.getElementType();
  if (!elt.isIntOrFloat())
    return 0;
  return (elt.getIntOrFloatBitWidth() + 7) / 8;
}

/// Checks that `type` holds plain integers or floats: only those have a
/// byte size the copies can count (an `index` is as wide as the target
/// says, the others are not scalars).
static LogicalResult verifyScalarElements(Operation *op, MemRefType type) {
  if (!type.getElementType().isIntOrFloat())
    return op->emitOpError() << "expects a memref of integer or floating-point "
                                "elements, got "
                             << type;
  return success();
}

/// The byte size of a static memref, or nullopt if it does not fit in an
/// int64_t (memref<4611686018427387904x4xf32> would otherwise size to 0).
static std::optional<int64_t> staticByteSize(MemRefType type) {
  int64_t bytes = elementBytes(type);
  for (int64_t dim : type.getShape())
    if (ShapedType::isDynamic(dim) || llvm::MulOverflow(bytes, dim, bytes))
      return std::nullopt;
  return bytes;
}

/// A constant device index must name a device of the mesh: >= 0, and below
/// the mesh size when the enclosing kernel's mesh is static.
static LogicalResult verifyDevice(Operation *op, Value device) {
  APInt value;
  if (!device || !matchPattern(device, m_ConstantInt(&value)))
    return success();
  int64_t index = value.getSExtValue();
  if (index < 0)
    return op->emitOpError() << "expects a device index of at least 0, got "
                             << index;
  KernelAttr kernel = getEnclosingKernelAttr(op);
  if (kernel && !kernel.getMesh().isDynamic() &&
      index >= kernel.getMesh().getSize())
    return op->emitOpError()
           << "expects a device index below the mesh size "
           << kernel.getMesh().getSize() << " of the enclosing kernel, got "
           << index;
  // A dynamic mesh has at most MeshAttr::kMaxSize members: a larger index
  // names a member no team has.
  if (kernel && kernel.getMesh().isDynamic() && index >= MeshAttr::kMaxSize)
    return op->emitOpError()
           << "expects a device index below " << MeshAttr::kMaxSize
           << " (the most members a team has), got " << index
           << "; index members modulo weave.num_devices";
  return success();
}

/// Whether `type` is contiguous and row-major as far as its type tells: a
/// unit innermost stride and each outer stride the product of the inner
/// sizes (the stride of a dimension of size 1 is never used). Any offset,
/// static or dynamic, is fine: the copies start at the view's first element.
static bool isContiguousRowMajor(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  // The stride a contiguous layout has at dimension `i`; nullopt once an
  // inner size is dynamic (the type cannot tell).
  std::optional<int64_t> expected = 1;
  for (int64_t i = type.getRank() - 1; i >= 0; --i) {
    int64_t size = type.getDimSize(i);
    if (size == 1)
      continue;
    if (!expected || ShapedType::isDynamic(strides[i]) ||
        strides[i] != *expected)
      return false;
    int64_t next;
    if (ShapedType::isDynamic(size) || llvm::MulOverflow(*expected, size, next))
      expected = std::nullopt;
    else
      expected = next;
  }
  return true;
}

/// The `weave.remote_ref` that `buffer` is (or is a view of), as far as the
/// IR shows: through view-like ops (subview, cast, reinterpret_cast, ...)
/// and both arms of an arith.select. Null when there is none.
static RemoteRefOp findRemoteRef(Value buffer) {
  SmallVector<Value> worklist = {buffer};
  llvm::SmallPtrSet<Operation *, 8> visited;
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || !visited.insert(def).second)
      continue;
    if (auto remote = dyn_cast<RemoteRefOp>(def))
      return remote;
    if (auto view = dyn_cast<ViewLikeOpInterface>(def))
      worklist.push_back(view.getViewSource());
    else if (auto select = dyn_cast<arith::SelectOp>(def))
      worklist.append({select.getTrueValue(), select.getFalseValue()});
  }
  return {};
}

/// Checks that the symmetric `buffer` an op addresses `on` another device is
/// this device's copy: a `weave.remote_ref` result is already another
/// device's address, and the op would add the peer offset a second time.
static LogicalResult verifyNotTranslated(Operation *op, Value buffer,
                                         StringRef operand) {
  RemoteRefOp remote = findRemoteRef(buffer);
  if (!remote)
    return success();
  InFlightDiagnostic diag =
      op->emitOpError()
      << "expects its " << operand
      << " to be this device's copy of a symmetric buffer, but it is (a view "
         "of) a 'weave.remote_ref' result, another device's address that "
         "`on` would translate a second time; name the device once: pass "
         "the remote_ref's own buffer with `on`, or use the remote_ref "
         "result with plain loads and stores";
  diag.attachNote(remote.getLoc()) << "remote_ref defined here";
  return diag;
}

/// Checks that both sides of a copy are contiguous row-major views of
/// fewer than 2^63 bytes: the lowerings walk both with one linear index.
static LogicalResult verifyContiguous(Operation *op, MemRefType a,
                                      MemRefType b) {
  for (MemRefType type : {a, b}) {
    if (!isContiguousRowMajor(type))
      return op->emitOpError()
             << "expects a contiguous row-major view (unit innermost stride, "
                "each outer stride the product of the inner sizes), got "
             << type;
    if (type.hasStaticShape() && !staticByteSize(type))
      return op->emitOpError()
             << "expects a buffer of fewer than 2^63 bytes, got " << type;
  }
  return success();
}

/// Checks the local and remote side of a `weave.put` / `weave.get`.
static LogicalResult verifyOneSidedCopy(Operation *op, MemRefType local,
                                        MemRefType remote) {
  if (!isSymmetric(remote))
    return op->emitOpError() << "expects the remote buffer in #weave.symmetric "
                                "memory, got "
                             << remote;
  if (!isGlobal(local))
    return op->emitOpError()
           << "expects the local buffer in global memory, got " << local;
  if (local.getElementType() != remote.getElementType())
    return op->emitOpError() << "expects matching element types, got "
                             << local.getElementType() << " and "
                             << remote.getElementType();
  if (failed(verifyScalarElements(op, local)) ||
      failed(verifyContiguous(op, local, remote)))
    return failure();
  // Dynamic counts are compared at run time (a mismatch traps).
  if (local.hasStaticShape() && remote.hasStaticShape() &&
      local.getNumElements() != remote.getNumElements())
    return op->emitOpError() << "expects the same number of elements, got "
                             << local.getNumElements() << " and "
                             << remote.getNumElements();
  return success();
}

/// Checks the optional `signal %sem[%i], %v` of a put or get.
static LogicalResult verifyCopySignal(Operation *op, Value signal,
                                      Value index, Value value) {
  if (!signal) {
    if (index || value)
      return op->emitOpError()
             << "expects a signal index or value only with a signal";
    return success();
  }
  auto type = dyn_cast<SemaphoreType>(signal.getType());
  if (!type)
    return op->emitOpError() << "expects the signal to be a !weave.semaphore, "
                                "got "
                             << signal.getType();
  if (!value)
    return op->emitOpError() << "expects a value to add to the signal";
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)) && constant.isZero())
    return op->emitOpError() << "expects a non-zero signal increment";
  return verifySemaphoreIndex(op, type, index);
}

//===----------------------------------------------------------------------===//
// Device identity
//===----------------------------------------------------------------------===//

LogicalResult DeviceIdOp::verify() { return verifyAxis(*this, getAxis()); }

LogicalResult NumDevicesOp::verify() { return verifyAxis(*this, getAxis()); }

OpFoldResult NumDevicesOp::fold(FoldAdaptor) {
  KernelAttr kernel = getEnclosingKernelAttr(*this);
  if (!kernel || kernel.getMesh().isDynamic())
    return {};
  return IntegerAttr::get(IndexType::get(getContext()),
                          kernel.getMesh().getSize());
}

//===----------------------------------------------------------------------===//
// RemoteRefOp
//===----------------------------------------------------------------------===//

LogicalResult RemoteRefOp::verify() {
  auto type = cast<MemRefType>(getBuffer().getType());
  if (!isSymmetric(type))
    return emitOpError() << "expects a buffer in #weave.symmetric memory, got "
                         << type;
  if (failed(verifyNotTranslated(*this, getBuffer(), "buffer")))
    return failure();
  return verifyDevice(*this, getDevice());
}

//===----------------------------------------------------------------------===//
// Semaphores
//===----------------------------------------------------------------------===//

LogicalResult SemaphoreSignalOp::verify() {
  APInt value;
  // Setting a counter to zero is meaningful (clearing a flag); adding zero
  // is not.
  if (getMode() == SemaphoreSignalMode::Add &&
      matchPattern(getValue(), m_ConstantInt(&value)) && value.isZero())
    return emitOpError() << "expects a non-zero increment";
  if (failed(verifyDevice(*this, getDevice())))
    return failure();
  return verifySemaphoreIndex(*this, getSemaphore().getType(), getIndex());
}

/// What may differ between the executions of an op that a condition
/// selects: threads of a block, blocks of the grid, members of the team.
struct Divergence {
  bool threads = true, blocks = false, devices = false;
  /// Only lane indices (gpu.lane_id, %laneid): what surely splits a warp.
  bool lanesOnly = false;
};

static LogicalResult verifyReachedByEveryThread(Operation *op,
                                                Divergence kind);
static bool runsOnEveryThread(Operation *op);
static LogicalResult verifyCopyScope(Operation *op,
                                     std::optional<CopyScope> scope);

LogicalResult SemaphoreWaitOp::verify() {
  APInt value;
  bool constant = matchPattern(getValue(), m_ConstantInt(&value));
  // `ge 0` always holds; `eq 0` waits for a counter to drain and is fine,
  // but decrementing by zero after it does nothing.
  if (getCmp() == SemaphoreCmp::GE && constant &&
      (value.isZero() || value.isNegative()))
    return emitOpError() << "expects a positive value to wait for, got "
                         << value.getSExtValue();
  if (getCmp() == SemaphoreCmp::EQ && getDecrement() && constant &&
      value.isZero())
    return emitOpError() << "expects a non-zero value with cmp(eq) "
                            "decrement, got 0 (nothing to decrement)";
  if (failed(verifySemaphoreIndex(*this, getSemaphore().getType(), getIndex())))
    return failure();

  switch (getScope()) {
  case CopyScope::Block:
    // One thread waits, then the block synchronizes: all must get there.
    return verifyReachedByEveryThread(*this, Divergence{});
  case CopyScope::Warp:
    if ((*this)->getParentOfType<MatmulPipelineOp>())
      return emitOpError() << "expects scope(warp) to be reached by every "
                              "thread of the warp, but is inside a "
                              "'weave.matmul_pipeline' region, which runs on "
                              "one thread";
    return verifyCopyScope(*this, CopyScope::Warp);
  case CopyScope::Thread:
    break;
  }
  // Every thread that runs a decrementing wait subtracts the value: run by
  // a whole block, it drives the counter far below zero.
  KernelAttr kernel = getEnclosingKernelAttr(*this);
  if (!getDecrement() || !kernel)
    return success();
  int64_t threads = 1;
  for (int32_t d : kernel.getBlock())
    threads *= d;
  if (threads > 1 && runsOnEveryThread(*this))
    return emitOpError()
           << "expects a decrementing wait to run on one thread, but every "
              "thread of the block ("
           << threads
           << ") runs it and each subtracts the value; use scope(block) (one "
              "thread waits and decrements, then the block synchronizes), or "
              "put it under an scf.if on gpu.thread_id";
  return success();
}

//===----------------------------------------------------------------------===//
// BarrierOp
//===----------------------------------------------------------------------===//

unsigned BarrierOp::getNumCounters() {
  return getScope() == BarrierScope::Team ? 1 : 2;
}

/// Whether `op` reads an index that differs between the threads, lanes,
/// blocks or devices that `kind` names. NVVM's special registers are matched
/// by name (the dialect does not depend on NVVM).
static bool isDivergenceSource(Operation *op, Divergence kind) {
  StringRef name = op->getName().getStringRef();
  bool lane = isa<gpu::LaneIdOp>(op) || name == "nvvm.read.ptx.sreg.laneid";
  if (kind.lanesOnly)
    return lane;
  if (kind.threads &&
      (lane ||
       isa<gpu::ThreadIdOp, gpu::SubgroupIdOp, gpu::GlobalIdOp>(op) ||
       name.starts_with("nvvm.read.ptx.sreg.tid.") ||
       name == "nvvm.read.ptx.sreg.warpid"))
    return true;
  if (kind.blocks &&
      (isa<gpu::BlockIdOp, gpu::ClusterIdOp, gpu::ClusterBlockIdOp>(op) ||
       name.starts_with("nvvm.read.ptx.sreg.ctaid.") ||
       name.starts_with("nvvm.read.ptx.sreg.clusterid.") ||
       name.starts_with("nvvm.read.ptx.sreg.cluster.ctaid.") ||
       name == "nvvm.read.ptx.sreg.cluster.ctarank"))
    return true;
  return kind.devices && isa<DeviceIdOp>(op);
}

/// The op that makes `value` differ as `kind` says, if the IR shows one: a
/// thread, lane, block or device index, or an op fed by one. Block
/// arguments are taken as uniform (the verifier only reports what it can
/// see).
static Operation *findDivergenceSource(Value value, Divergence kind) {
  SmallVector<Value> worklist = {value};
  llvm::SmallPtrSet<Operation *, 16> visited;
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || !visited.insert(def).second)
      continue;
    if (isDivergenceSource(def, kind))
      return def;
    llvm::append_range(worklist, def->getOperands());
  }
  return nullptr;
}

namespace {
/// A condition that selects which executions reach an op.
struct Selection {
  Operation *where = nullptr;  ///< the op or branch holding the condition
  Operation *source = nullptr; ///< the index it depends on
  StringRef what;              ///< "condition depends", "bounds depend", ...
};
} // namespace

/// Whether `target` in `region` runs for only some of the executions that
/// reach the region, because of a divergent conditional branch (cf.cond_br,
/// cf.switch, llvm.cond_br, llvm.switch, matched by name): `target` is
/// control dependent on such a branch (it post-dominates one successor but
/// not the branch), or on a branch in a block that is. A block where the
/// branches meet again is not (it post-dominates them); nor is a later loop
/// body (it post-dominates no successor of an earlier branch).
static std::optional<Selection> findSelectingBranch(Region &region,
                                                    Block *target,
                                                    Divergence kind) {
  if (region.hasOneBlock())
    return std::nullopt;
  SmallVector<std::pair<Block *, Selection>> work;
  for (Block &block : region) {
    Operation *term = block.empty() ? nullptr : &block.back();
    if (!term || term->getNumSuccessors() < 2 || term->getNumOperands() == 0)
      continue;
    StringRef name = term->getName().getStringRef();
    if (name != "cf.cond_br" && name != "cf.switch" &&
        name != "llvm.cond_br" && name != "llvm.switch")
      continue;
    if (Operation *source = findDivergenceSource(term->getOperand(0), kind))
      work.push_back({&block, Selection{term, source, "branch condition "
                                                      "depends"}});
  }
  if (work.empty())
    return std::nullopt;
  PostDominanceInfo postDominance(region.getParentOp());
  auto controlDependent = [&](Block *block, Block *branch) {
    if (block != branch && postDominance.properlyPostDominates(block, branch))
      return false;
    return llvm::any_of(branch->getSuccessors(), [&](Block *successor) {
      return postDominance.postDominates(block, successor);
    });
  };
  llvm::DenseMap<Block *, Selection> partial;
  while (!work.empty()) {
    auto [branch, selection] = work.pop_back_val();
    for (Block &block : region) {
      if (partial.count(&block) || !controlDependent(&block, branch))
        continue;
      partial[&block] = selection;
      if (!block.empty() && block.back().getNumSuccessors() > 1)
        work.push_back({&block, selection});
    }
  }
  auto it = partial.find(target);
  if (it == partial.end())
    return std::nullopt;
  return it->second;
}

/// The first condition, loop bound or branch around `op` (up to its
/// function) whose value differs as `kind` says: not every execution of
/// the enclosing code reaches `op`, or not as often. A weave.matmul_pipeline
/// region counts as selecting one thread (or warp).
static std::optional<Selection> findSelection(Operation *op,
                                              Divergence kind) {
  Operation *outer = op;
  for (Operation *parent = op->getParentOp(); parent;
       outer = parent, parent = parent->getParentOp()) {
    if (std::optional<Selection> branch =
            findSelectingBranch(*outer->getParentRegion(), outer->getBlock(),
                                kind))
      return branch;
    if (isa<FunctionOpInterface>(parent))
      break;
    if (isa<MatmulPipelineOp>(parent))
      return Selection{parent, nullptr, "region"};
    SmallVector<Value> conditions;
    StringRef what;
    StringRef name = parent->getName().getStringRef();
    if (name == "scf.if" || name == "scf.index_switch") {
      conditions.push_back(parent->getOperand(0));
      what = "condition depends";
    } else if (name == "scf.while") {
      // The trip count: the condition the `before` region passes on.
      Operation *condition =
          parent->getRegion(0).front().getTerminator();
      if (condition && condition->getNumOperands() > 0)
        conditions.push_back(condition->getOperand(0));
      what = "condition depends";
    } else if (auto loop = dyn_cast<LoopLikeOpInterface>(parent)) {
      for (auto bounds : {loop.getLoopLowerBounds(), loop.getLoopUpperBounds(),
                          loop.getLoopSteps()})
        if (bounds)
          for (OpFoldResult bound : *bounds)
            if (auto v = dyn_cast<Value>(bound))
              conditions.push_back(v);
      what = "bounds depend";
    }
    for (Value condition : conditions)
      if (Operation *source = findDivergenceSource(condition, kind))
        return Selection{parent, source, what};
  }
  return std::nullopt;
}

/// Checks that every thread of the block (with `kind.blocks`, of every
/// block; with `kind.devices`, on every member) reaches `op`, as far as
/// the IR shows: not inside a `weave.matmul_pipeline` region (one thread
/// or warp), nor under a condition, loop bounds or branch fed by a thread
/// (block, device) index.
static LogicalResult verifyReachedByEveryThread(Operation *op,
                                                Divergence kind) {
  std::optional<Selection> selection = findSelection(op, kind);
  if (!selection)
    return success();
  std::string who = kind.lanesOnly ? "every lane of the warp"
                    : kind.blocks  ? "every thread of every block"
                                   : "every thread of the block";
  if (selection->source && isa<DeviceIdOp>(selection->source))
    who += " on every member of the team";
  if (!selection->source)
    return op->emitOpError() << "expects to be reached by " << who
                             << ", but is inside a 'weave.matmul_pipeline' "
                                "region, which runs on one thread or warp";
  InFlightDiagnostic diag =
      op->emitOpError() << "expects to be reached by " << who
                        << ", but is inside '" << selection->where->getName()
                        << "' whose " << selection->what << " on '"
                        << selection->source->getName() << "'";
  diag.attachNote(selection->source->getLoc())
      << "divergent value defined here";
  if (selection->where->hasTrait<OpTrait::IsTerminator>())
    diag.attachNote(selection->where->getLoc()) << "selected here";
  return diag;
}

/// True when the IR shows no condition, loop bound or branch on a thread
/// index around `op`: every thread of the block runs it (a condition on
/// anything else, uniform across the block, selects no thread).
static bool runsOnEveryThread(Operation *op) {
  return !findSelection(op, Divergence{});
}

/// Checks a copy's cooperative scope: scope(block) needs every thread of
/// the block, scope(warp) every lane of the warp (only lane indices are
/// known to split a warp: a condition on the thread index may select whole
/// warps).
static LogicalResult verifyCopyScope(Operation *op,
                                     std::optional<CopyScope> scope) {
  // In a pipeline region the region's own check says more (MatmulPipelineOp
  // names the region).
  if (!scope || *scope == CopyScope::Thread ||
      op->getParentOfType<MatmulPipelineOp>())
    return success();
  Divergence kind;
  kind.lanesOnly = *scope == CopyScope::Warp;
  return verifyReachedByEveryThread(op, kind);
}

LogicalResult BarrierOp::verify() {
  SemaphoreType type = getSemaphore().getType();
  bool teamBlocks = getScope() == BarrierScope::TeamBlocks;
  if (type.getCount() < getNumCounters())
    return emitOpError() << "expects at least " << getNumCounters()
                         << " counters for scope(" << stringifyEnum(getScope())
                         << ")"
                         << (teamBlocks ? " (a team counter and a grid counter)"
                                        : "")
                         << ", got " << type;

  // Every thread of the block (and, for team_blocks, every block) on every
  // member must reach the barrier, or the team deadlocks: a condition on
  // the device index leaves the other members waiting.
  Divergence reach;
  reach.blocks = teamBlocks;
  reach.devices = true;
  if (failed(verifyReachedByEveryThread(*this, reach)))
    return failure();

  // scope(team) counts one arrival per device: run by every block of a
  // larger grid, it would count too many and corrupt the counter for every
  // later launch. Unless a condition (or branch) on the block index selects
  // its block, it runs in every block, a uniform condition or not.
  KernelAttr kernel = getEnclosingKernelAttr(*this);
  Divergence byBlock;
  byBlock.threads = false;
  byBlock.blocks = true;
  if (!teamBlocks && kernel &&
      (kernel.isPersistent() ||
       llvm::any_of(kernel.getGrid(), [](int32_t d) { return d != 1; })) &&
      !findSelection(*this, byBlock))
    return emitOpError()
           << "expects scope(team) to run on one block per device, but it "
              "runs in every block of a grid of more than one block (no "
              "condition on the block index selects one); use "
              "scope(team_blocks), or put the barrier under an scf.if on "
              "gpu.block_id";
  return success();
}

//===----------------------------------------------------------------------===//
// One-sided copies
//===----------------------------------------------------------------------===//

/// Checks the data side and the packet buffer of `weave.put ... packets`
/// and `weave.read_packets`: a packet buffer of i64 in #weave.symmetric
/// memory, data in global memory, both contiguous, one packet per 32-bit
/// word or part of one (the last) where both sizes are static.
static LogicalResult verifyPackets(Operation *op, MemRefType data,
                                   MemRefType packets) {
  if (!isSymmetric(packets))
    return op->emitOpError() << "expects the packet buffer in "
                                "#weave.symmetric memory, got "
                             << packets;
  if (!packets.getElementType().isInteger(64))
    return op->emitOpError() << "expects a packet buffer of i64 elements (a "
                                "32-bit word and its flag each), got "
                             << packets;
  if (!isGlobal(data))
    return op->emitOpError()
           << "expects the data buffer in global memory, got " << data;
  if (failed(verifyScalarElements(op, data)))
    return failure();
  unsigned bits = data.getElementTypeBitWidth();
  if (bits < 8 || !llvm::isPowerOf2_32(bits))
    return op->emitOpError() << "expects data elements of 1, 2, 4 or 8 bytes, "
                                "got "
                             << data.getElementType();
  if (failed(verifyContiguous(op, data, packets)))
    return failure();
  // Dynamic sizes are checked at run time (a mismatch traps).
  if (std::optional<int64_t> bytes =
          data.hasStaticShape() ? staticByteSize(data) : std::nullopt) {
    int64_t words = (*bytes + 3) / 4;
    if (packets.hasStaticShape() && packets.getNumElements() != words)
      return op->emitOpError()
             << "expects " << words << " packets for " << *bytes
             << " bytes of data, got " << packets.getNumElements();
  }
  return success();
}

LogicalResult PutOp::verify() {
  auto source = cast<MemRefType>(getSource().getType());
  auto target = cast<MemRefType>(getTarget().getType());
  if (getPacketFlag()) {
    if (getSignal())
      return emitOpError() << "expects no signal with packets: each packet "
                              "carries its own flag";
    if (failed(verifyPackets(*this, source, target)) ||
        failed(verifyNotTranslated(*this, getTarget(), "target")) ||
        failed(verifyCopyScope(*this, getScope())))
      return failure();
    return verifyDevice(*this, getDevice());
  }
  if (failed(verifyCopyScope(*this, getScope())))
    return failure();
  if (failed(verifyOneSidedCopy(*this, source, target)) ||
      failed(verifyNotTranslated(*this, getTarget(), "target")) ||
      failed(verifyDevice(*this, getDevice())))
    return failure();
  return verifyCopySignal(*this, getSignal(), getSignalIndex(),
                          getSignalValue());
}

LogicalResult ReadPacketsOp::verify() {
  if (failed(verifyCopyScope(*this, getScope())))
    return failure();
  return verifyPackets(*this, cast<MemRefType>(getTarget().getType()),
                       cast<MemRefType>(getPackets().getType()));
}

LogicalResult GetOp::verify() {
  if (failed(verifyOneSidedCopy(*this, cast<MemRefType>(getTarget().getType()),
                                cast<MemRefType>(getSource().getType()))) ||
      failed(verifyNotTranslated(*this, getSource(), "source")) ||
      failed(verifyCopyScope(*this, getScope())) ||
      failed(verifyDevice(*this, getDevice())))
    return failure();
  return verifyCopySignal(*this, getSignal(), getSignalIndex(),
                          getSignalValue());
}

//===----------------------------------------------------------------------===//
// AtomicAddOp
//===----------------------------------------------------------------------===//

/// An element access names one index per dimension of its buffer.
static LogicalResult verifyIndexCount(Operation *op, MemRefType type,
                                      ValueRange indices) {
  if (static_cast<int64_t>(indices.size()) == type.getRank())
    return success();
  return op->emitOpError() << "expects " << type.getRank()
                           << " indices, one per dimension of the buffer, got "
                           << indices.size();
}

LogicalResult PrefetchL2Op::verify() {
  auto type = cast<MemRefType>(getBuffer().getType());
  if (!isGlobal(type))
    return emitOpError() << "expects a buffer in global or #weave.symmetric "
                            "memory, got "
                         << type;
  if (failed(verifyIndexCount(*this, type, getIndices())))
    return failure();
  APInt bytes;
  if (matchPattern(getBytes(), m_ConstantInt(&bytes)) &&
      (bytes.getSExtValue() <= 0 || bytes.getSExtValue() % 16 != 0))
    return emitOpError() << "expects a positive multiple of 16 bytes (the "
                            "bulk prefetch's granule), got "
                         << bytes.getSExtValue();
  return success();
}

LogicalResult AtomicAddOp::verify() {
  auto type = cast<MemRefType>(getBuffer().getType());
  if (!isSymmetric(type))
    return emitOpError() << "expects a buffer in #weave.symmetric memory, got "
                         << type;
  // One `red` instruction per element type: f32, or a packed pair of halves.
  Type elt = type.getElementType();
  const DTypeTraits *traits = getDTypeTraits(elt);
  auto form = traits ? traits->atomicAdd : ::weave::AtomicAddForm::None;
  Type expected;
  if (form == ::weave::AtomicAddForm::Scalar)
    expected = elt;
  else if (form == ::weave::AtomicAddForm::PackedPair)
    expected = VectorType::get({2}, elt);
  else
    return emitOpError() << "expects a buffer of "
                         << ::weave::dtypeNames([](const DTypeTraits &t) {
                              return t.atomicAdd !=
                                     ::weave::AtomicAddForm::None;
                            })
                         << " elements, got " << type;
  if (getValue().getType() != expected)
    return emitOpError() << "expects a value of type " << expected
                         << " for a buffer of " << elt << " elements, got "
                         << getValue().getType();
  if (failed(verifyIndexCount(*this, type, getIndices())))
    return failure();
  // A pair adds to two neighbouring elements of the innermost dimension.
  if (isa<VectorType>(expected)) {
    SmallVector<int64_t> strides;
    int64_t offset;
    if (type.getRank() == 0 ||
        failed(type.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1)
      return emitOpError() << "expects a buffer with a unit innermost stride "
                              "for a packed pair, got "
                           << type;
    // The pair is one 32-bit access: its first element must be even. The
    // element offset is offset + sum(index * stride); report it when the
    // IR fixes its parity (each term a static even stride, or a constant
    // index times a static stride) and it is odd.
    std::optional<int64_t> parity;
    if (!ShapedType::isDynamic(offset)) {
      parity = offset & 1;
      for (auto [index, stride] : llvm::zip(getIndices(), strides)) {
        APInt c;
        if (!ShapedType::isDynamic(stride) && stride % 2 == 0)
          continue;
        if (ShapedType::isDynamic(stride) ||
            !matchPattern(index, m_ConstantInt(&c))) {
          parity = std::nullopt;
          break;
        }
        *parity ^= (c.getZExtValue() & 1) & (stride & 1);
      }
    }
    if (parity == 1)
      return emitOpError()
             << "expects the packed pair at an even element (one aligned "
                "32-bit access), but its first element is at an odd offset "
                "in "
             << type << "; add pairs starting at even columns";
  }
  if (getDevice() &&
      failed(verifyNotTranslated(*this, getBuffer(), "buffer")))
    return failure();
  return verifyDevice(*this, getDevice());
}

/// TMA swizzle modes: the innermost box row must fit in the swizzle span.
static LogicalResult verifySwizzle(Operation *op, int64_t swizzle,
                                   int64_t innerBytes) {
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return op->emitOpError() << "expects swizzle to be 0, 32, 64 or 128 "
                                "bytes, got "
                             << swizzle;
  if (swizzle != 0 && innerBytes > swizzle)
    return op->emitOpError() << "expects the innermost tile dimension ("
                             << innerBytes << " bytes) to fit the " << swizzle
                             << "-byte swizzle span";
  return success();
}

/// The rules both TMA copies share: a static shared-memory `tile` of the
/// element type and rank of the `global` buffer it is copied to or from,
/// one index per global dimension, TMA box limits, and the swizzle.
static LogicalResult verifyTensorMapCopy(Operation *op, MemRefType tile,
                                         MemRefType global, size_t numIndices,
                                         StringRef globalName,
                                         int64_t swizzle) {
  // Messages name the operands in source, target order.
  bool store = globalName == "target";
  MemRefType source = store ? tile : global, target = store ? global : tile;
  if (tile.getElementType() != global.getElementType())
    return op->emitOpError() << "expects matching element types, got "
                             << source.getElementType() << " and "
                             << target.getElementType();
  // The runtime encodes tensor maps of these types only (its TmaLayout).
  Type elt = tile.getElementType();
  const DTypeTraits *traits = getDTypeTraits(elt);
  if (!traits || traits->tma == ::weave::TmaDataType::None)
    return op->emitOpError()
           << "expects "
           << ::weave::dtypeNames([](const DTypeTraits &t) {
                return t.tma != ::weave::TmaDataType::None;
              })
           << " elements (the tensor map types the runtime builds), got "
           << elt;
  if (!tile.hasStaticShape())
    return op->emitOpError() << "expects a static tile shape, got " << tile;
  if (tile.getRank() != global.getRank())
    return op->emitOpError()
           << "expects source and target of the same rank, got "
           << source.getRank() << " and " << target.getRank();
  if (static_cast<int64_t>(numIndices) != global.getRank())
    return op->emitOpError() << "expects " << global.getRank()
                             << " indices into the " << globalName << ", got "
                             << numIndices;
  if (tile.getRank() < 1 || tile.getRank() > 5)
    return op->emitOpError() << "expects a tile of rank 1 to 5, got rank "
                             << tile.getRank();
  for (int64_t dim : tile.getShape())
    if (dim > hw::kTmaMaxBoxDim)
      return op->emitOpError()
             << "expects tile dimensions of at most " << hw::kTmaMaxBoxDim
             << " elements (a TMA box limit), got " << dim;
  int64_t innerBytes = tile.getShape().back() * elementBytes(tile);
  if (innerBytes % 16 != 0)
    return op->emitOpError()
           << "expects the innermost tile dimension to span a multiple of 16 "
              "bytes, got "
           << innerBytes;
  return verifySwizzle(op, swizzle, innerBytes);
}

LogicalResult CopySmemToGmemOp::verify() {
  auto source = cast<MemRefType>(getSource().getType());
  auto target = cast<MemRefType>(getTarget().getType());
  if (!isWorkgroup(source))
    return emitOpError() << "expects the source in shared memory "
                            "(#gpu.address_space<workgroup>), got "
                         << source;
  if (!isGlobal(target))
    return emitOpError() << "expects the target in global memory, got "
                         << target;
  if (getDevice() && !isSymmetric(target))
    return emitOpError() << "expects a target in #weave.symmetric memory when "
                            "storing to another device, got "
                         << target;
  if (failed(verifyDevice(*this, getDevice())))
    return failure();
  if (failed(verifyTensorMapCopy(*this, /*tile=*/source, /*global=*/target,
                                 getIndices().size(), "target",
                                 getSwizzle())))
    return failure();
  // cp.reduce.async.bulk.tensor: .add on f16, bf16 and f32 (the tensor map
  // types); .min/.max on f16 and bf16, not f32.
  std::optional<TmaReduceKind> reduce = getReduce();
  if (reduce)
    for (auto [i, index] : llvm::enumerate(getIndices())) {
      APInt c;
      if (matchPattern(index, m_ConstantInt(&c)) && c.isNegative())
        return emitOpError()
               << "expects TMA reduction coordinates of at least 0, got "
               << c.getSExtValue() << " for index " << i
               << " (a reduction at a negative coordinate faults on H100, "
                  "where a store is clipped); pad the target with a halo "
                  "and reduce there";
    }
  Type elt = source.getElementType();
  const DTypeTraits *traits = getDTypeTraits(elt);
  if (reduce && *reduce != TmaReduceKind::Add && traits && !traits->tmaMinMax)
    return emitOpError() << "expects "
                         << ::weave::dtypeNames([](const DTypeTraits &t) {
                              return t.tmaMinMax;
                            })
                         << " elements for a TMA reduce("
                         << stringifyTmaReduceKind(*reduce)
                         << ") (cp.reduce.async.bulk.tensor has no "
                         << traits->name << " " << stringifyTmaReduceKind(*reduce)
                         << "), got "
                         << elt;
  return success();
}

//===----------------------------------------------------------------------===//
// CopyGmemToSmemOp
//===----------------------------------------------------------------------===//

LogicalResult CopyGmemToSmemOp::verify() {
  auto source = cast<MemRefType>(getSource().getType());
  auto target = cast<MemRefType>(getTarget().getType());
  auto barrier = cast<MemRefType>(getBarrier().getType());
  if (!isGlobal(source))
    return emitOpError() << "expects the source in global memory, got "
                         << source;
  if (!isWorkgroup(target))
    return emitOpError() << "expects the target in shared memory "
                            "(#gpu.address_space<workgroup>), got "
                         << target;
  if (!isWorkgroup(barrier) || barrier.getRank() != 0 ||
      !barrier.getElementType().isInteger(64))
    return emitOpError() << "expects the barrier to be a memref<i64> in "
                            "shared memory (an mbarrier), got "
                         << barrier;
  if (getDevice() && !isSymmetric(source))
    return emitOpError() << "expects a source in #weave.symmetric memory when "
                            "loading from another device, got "
                         << source;
  if (failed(verifyDevice(*this, getDevice())))
    return failure();
  return verifyTensorMapCopy(*this, /*tile=*/target, /*global=*/source,
                             getIndices().size(), "source", getSwizzle());
}

//===----------------------------------------------------------------------===//
// MatmulPipelineOp
//===----------------------------------------------------------------------===//

bool mlir::weave::beforeLoadTakesFirst(Region &region) {
  return !region.empty() && region.front().getNumArguments() >= 4;
}

bool mlir::weave::beforeLoadTakesTile(Region &region) {
  return !region.empty() && region.front().getNumArguments() == 6;
}

BoxRegionForm mlir::weave::boxRegionForm(Region &region, bool lane) {
  if (region.empty())
    return BoxRegionForm::None;
  unsigned args = region.front().getNumArguments();
  unsigned laneArg = lane ? 1 : 0;
  if (args == 4 + laneArg)
    return BoxRegionForm::Tile;
  if (args == 3 + laneArg)
    return BoxRegionForm::Coordinates;
  return BoxRegionForm::None;
}

/// `tile(m, n, k) stages(s)`, `tile(auto) [stages(s)]` or nothing (auto).
static ParseResult parsePipelineTile(OpAsmParser &parser, IntegerAttr &tileM,
                                     IntegerAttr &tileN, IntegerAttr &tileK,
                                     IntegerAttr &stages) {
  Builder &b = parser.getBuilder();
  auto parseInt = [&](IntegerAttr &attr) -> ParseResult {
    int64_t value = 0;
    if (parser.parseInteger(value))
      return failure();
    attr = b.getI64IntegerAttr(value);
    return success();
  };
  if (succeeded(parser.parseOptionalKeyword("tile"))) {
    if (parser.parseLParen())
      return failure();
    if (failed(parser.parseOptionalKeyword("auto")) &&
        (parseInt(tileM) || parser.parseComma() || parseInt(tileN) ||
         parser.parseComma() || parseInt(tileK)))
      return failure();
    if (parser.parseRParen())
      return failure();
  }
  if (succeeded(parser.parseOptionalKeyword("stages")) &&
      (parser.parseLParen() || parseInt(stages) || parser.parseRParen()))
    return failure();
  return success();
}

static void printPipelineTile(OpAsmPrinter &printer, MatmulPipelineOp,
                              IntegerAttr tileM, IntegerAttr tileN,
                              IntegerAttr tileK, IntegerAttr stages) {
  if (tileM && tileN && tileK)
    printer << "tile(" << tileM.getInt() << ", " << tileN.getInt() << ", "
            << tileK.getInt() << ")";
  else
    printer << "tile(auto)";
  if (stages)
    printer << " stages(" << stages.getInt() << ")";
}

LogicalResult MatmulPipelineOp::verifyAutoTile() {
  int given = bool(getTileMAttr()) + bool(getTileNAttr()) +
              bool(getTileKAttr());
  if (given != 0 && given != 3)
    return emitOpError() << "expects tile_m, tile_n and tile_k together, or "
                            "none of them (tile(auto)); got "
                         << given << " of 3";
  if (getTailSplit() > 1) {
    auto clause = [&](InFlightDiagnostic &&d) -> InFlightDiagnostic {
      return std::move(d) << " with tail_split (" << getTailSplit() << ")";
    };
    if (!getWorkspace())
      return clause(emitOpError() << "expects workspace(%ws : memref<Nxf32>)");
    if (getSplitK() > 1)
      return emitOpError() << "expects split_k (" << getSplitK()
                           << ") or tail_split (" << getTailSplit()
                           << "), not both";
    if (getClusterM() != 1)
      return clause(emitOpError() << "expects cluster_m(1)");
    // The box regions run once per tile, after the fix-up has summed the
    // split units (only the tile's last unit stores), so they see whole
    // tiles. The step regions run for a split unit's own steps (its part
    // of the tile's k steps; before_load's `first` marks the unit's first
    // step), and with grid_tile_segments only tiles of the last segment
    // split (TileScheduler.h): a region that waits for, or forwards, a
    // segment's rows sees whole tiles in every earlier segment.
    if (getGridTileInterleave() > 1)
      return clause(emitOpError() << "expects no grid_tile_interleave");
    if (getKRotation() > 0)
      return clause(emitOpError()
                    << "expects k_rotation (" << getKRotation()
                    << ") to be 0");
  }
  if (getSplitK() > 1 || getWorkspace()) {
    auto ws = getWorkspace() ? dyn_cast<MemRefType>(getWorkspace().getType())
                             : MemRefType();
    if (getSplitK() > 1 && !ws)
      return emitOpError() << "expects workspace(%ws : memref<Nxf32>) with "
                              "split_k("
                           << getSplitK() << ")";
    if (ws && (ws.getRank() != 1 || !ws.getElementType().isF32() ||
               ws.isDynamicDim(0) || !isGlobal(ws) ||
               !ws.getLayout().isIdentity()))
      return emitOpError() << "expects a static 1-d f32 workspace in global "
                              "memory, got "
                           << ws;
    if (getSplitK() > 1 && !maxLhsRows(*this))
      return emitOpError() << "expects a static row count, or a kernel "
                              "argument whose rows a weave.variant bounds "
                              "(hi), with split_k("
                           << getSplitK()
                           << ") (the workspace holds one region per tile)";
    if (getSplitK() > 1 && getClusterM() != 1)
      return emitOpError() << "expects cluster_m(1) with split_k("
                           << getSplitK() << ")";
    if (getSplitK() > 1 && (!getEpilogue().empty() || !getCallback().empty() ||
                            !getCombine().empty()))
      return emitOpError() << "expects no callback, combine or epilogue "
                              "region with split_k("
                           << getSplitK() << ") (units see partial sums)";
  }
  // A box region in the tile form (m, n, box index) depends on the tile:
  // the tile must be fixed, explicitly or by a callback's tile arguments
  // (the chooser then picks the stages and what else is free). The
  // coordinate form (the box's row and column) does not.
  if (!getTileMAttr() && getCallback().empty() &&
      (boxRegionForm(getEpilogue(), /*lane=*/false) == BoxRegionForm::Tile ||
       boxRegionForm(getCombine(), /*lane=*/true) == BoxRegionForm::Tile))
    return emitOpError() << "expects the tile fixed with an epilogue or "
                            "combine region that takes the tile indices "
                            "(m, n, box index): write tile(M, N, K) (without "
                            "stages(N) the chooser picks the stages), or take "
                            "the box's row and column instead (box, row, "
                            "col[, lane]), got tile(auto)";
  return success();
}

MemRefType MatmulPipelineOp::getOutType() {
  if (Value out = getOut())
    return cast<MemRefType>(out.getType());
  auto lhs = cast<MemRefType>(getLhs().getType());
  auto rhs = cast<MemRefType>(getRhs().getType());
  Type element = getOutElement() ? *getOutElement()
                                 : Type(Float32Type::get(getContext()));
  int64_t rows = lhs.getRank() == 2 ? lhs.getDimSize(0) : 1;
  int64_t cols = rhs.getRank() == 2 ? rhs.getDimSize(1) : 1;
  return MemRefType::get({rows, cols}, element);
}

pipeline::MatmulTiling MatmulPipelineOp::getTiling() {
  auto lhs = cast<MemRefType>(getLhs().getType());
  auto rhs = cast<MemRefType>(getRhs().getType());
  MemRefType out = getOutType();
  auto t = pipeline::MatmulTiling::make(
      tileM(), tileN(), tileK(), numStages(), getConsumers(),
      getSplit() == ConsumerSplit::M, elementBytes(lhs), elementBytes(out));
  t.clusterM = getClusterM();
  t.splitK = getSplitK();
  t.tailSplit = getTailSplit();
  t.m = lhs.isDynamicDim(0) ? pipeline::MatmulTiling::kDynamic
                            : lhs.getDimSize(0);
  t.n = rhs.getRank() == 2 ? rhs.getDimSize(1) : 0;
  t.k = lhs.getRank() == 2 ? lhs.getDimSize(1) : 0;
  t.maxRows = maxLhsRows(*this);
  t.delayRelease = getDelayRelease();
  t.gridTileWidth = getGridTileWidth();
  t.gridTileSegments = getGridTileSegments();
  t.gridTileKeepWidth = getGridTileKeepWidth();
  t.gridTileInterleave = getGridTileInterleave();
  t.gridTileLag = getGridTileLag();
  t.gridTileColumnBlock = getGridTileColumnBlock();
  t.kRotation = getKRotation();
  if (Value walk = getWalkM()) {
    t.walkM = true;
    APInt bound;
    if (matchPattern(walk, m_ConstantInt(&bound)))
      t.walkMConstant = bound.getSExtValue();
  }
  t.lhsRows = bool(getLhsRows());
  t.regions = hasRegions();
  if (Value ws = getWorkspace())
    if (auto type = dyn_cast<MemRefType>(ws.getType());
        type && type.hasStaticShape())
      t.workspaceWords = type.getNumElements();
  // (Only a message shows them: printed where one may.)
  if (t.regions && t.dynamicM()) {
    llvm::raw_string_ostream os(t.operandText);
    os << "'" << lhs << "' into '" << out << "'";
  }
  return t;
}

int64_t MatmulPipelineOp::getSharedMemoryBytes() {
  // The ring, the epilogue boxes, the mbarriers and the alignment slack, as
  // the expansion lays them out.
  return pipeline::MatmulSmemLayout(getTiling()).requiredBytes;
}

/// Whether `type` is a range of whole rows of a row-major buffer: rank 2,
/// strides [K, 1] with K its static column count, any offset.
static bool isRowRange(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  return type.getRank() == 2 && !type.isDynamicDim(1) &&
         succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides[1] == 1 && strides[0] == type.getDimSize(1);
}

LogicalResult MatmulPipelineOp::verify() {
  if (failed(verifyOperands()) || failed(verifyAutoTile()))
    return failure();
  // An explicit tiling: the rules of every builder that implements it.
  if (isAutoTile())
    return success();
  if (pipeline::TilingViolation violation = getTiling().check())
    return emitOpError() << *violation;
  return success();
}

LogicalResult MatmulPipelineOp::verifyOperands() {
  auto lhs = cast<MemRefType>(getLhs().getType());
  auto rhs = cast<MemRefType>(getRhs().getType());
  // No `into`: the epilogue sends every box elsewhere; the output is lhs
  // rows x rhs columns of `-> T`.
  if (!getOut()) {
    if (!getOutElement())
      return emitOpError() << "expects `into %out` or, with an epilogue "
                              "region that sends every box elsewhere, the "
                              "output element type (`-> f32`)";
    if (getEpilogue().empty())
      return emitOpError() << "expects `into %out` without an epilogue "
                              "region (each box is stored to out)";
  } else if (getOutElement()) {
    return emitOpError() << "expects no `-> T` with `into %out` (out's type "
                            "gives the element type)";
  }
  auto out = getOutType();
  for (auto [name, type] : {std::pair<StringRef, MemRefType>{"lhs", lhs},
                            {"rhs", rhs},
                            {"out", out}}) {
    if (type.getRank() != 2)
      return emitOpError() << "expects a 2-d " << name << ", got " << type;
    if (!isGlobal(type))
      return emitOpError() << "expects " << name
                           << " in global memory, got " << type;
    // lhs may also be a range of whole rows of a larger buffer (per-expert
    // GEMMs on slices of one buffer): contiguous rows, any offset.
    if (!type.getLayout().isIdentity() &&
        !(name == "lhs" && isRowRange(type)))
      return emitOpError() << "expects a row-major " << name
                           << " (identity layout"
                           << (name == "lhs" ? ", or whole rows: strided<[K, "
                                               "1], offset: ...> with K its "
                                               "static column count"
                                             : "")
                           << "), got " << type;
    // The row count M (dim 0 of lhs and out) may be dynamic: the
    // expansion counts row tiles at run time and TMA handles the edges
    // with the launch sizes. K and N give the k loop, the column tiles and
    // the boxes at compile time (a dynamic size would be taken as 2^63).
    for (int64_t i = 0; i < 2; ++i)
      if (type.isDynamicDim(i) && (name == "rhs" || i == 1))
        return emitOpError()
               << "expects a static " << (name == "rhs" ? "shape" : "column "
                                                                   "count")
               << " for " << name
               << " (only the row count of lhs and out may be dynamic), got "
               << type;
  }
  Type elt = lhs.getElementType();
  const DTypeTraits *eltTraits = getDTypeTraits(elt);
  if (!eltTraits || !eltTraits->matmulOperand)
    return emitOpError() << "expects "
                         << ::weave::dtypeNames([](const DTypeTraits &t) {
                              return t.matmulOperand;
                            })
                         << " operands, got " << elt;
  if (rhs.getElementType() != elt)
    return emitOpError() << "expects lhs and rhs of the same element type, got "
                         << elt << " and " << rhs.getElementType();
  Type outElt = out.getElementType();
  const DTypeTraits *outTraits = getDTypeTraits(outElt);
  if (!outTraits || !outTraits->matmulOutput)
    return emitOpError() << "expects an "
                         << ::weave::dtypeNames([](const DTypeTraits &t) {
                              return t.matmulOutput;
                            })
                         << " output, got " << outElt;

  // Shapes: (M x K) @ (K x N) -> (M x N).
  // (A dynamic row count matches any: the runtime binds the sizes.)
  auto mismatch = [](int64_t a, int64_t b) {
    return a != b && !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b);
  };
  // The tiles are counted from lhs's rows and stored through out's: a
  // dynamic count on one side only would go unchecked at launch (the
  // expansion checks two dynamic counts against each other).
  if (lhs.isDynamicDim(0) != out.isDynamicDim(0))
    return emitOpError() << "expects the row counts of lhs and out both "
                            "static or both dynamic (a launch checks two "
                            "dynamic ones against each other), got "
                         << lhs << " and " << out
                         << "; make both '?' or give both the same size";
  if (mismatch(lhs.getDimSize(1), rhs.getDimSize(0)))
    return emitOpError() << "expects lhs columns (" << lhs.getDimSize(1)
                         << ") to equal rhs rows (" << rhs.getDimSize(0) << ")";
  if (mismatch(lhs.getDimSize(0), out.getDimSize(0)) ||
      mismatch(rhs.getDimSize(1), out.getDimSize(1)))
    return emitOpError() << "expects out of shape "
                         << (lhs.isDynamicDim(0)
                                 ? std::string("?")
                                 : std::to_string(lhs.getDimSize(0)))
                         << "x" << rhs.getDimSize(1) << ", got " << out;

  // lhs_rows: a part of lhs's rows from another argument, loaded by the
  // same box (so the same columns and element type).
  if (bool(getLhsRows()) != bool(getLhsRowsAt()))
    return emitOpError() << "expects `lhs_rows` with its first row (`at`)";
  if (Value part = getLhsRows()) {
    auto type = cast<MemRefType>(part.getType());
    if (type.getRank() != 2 || !isGlobal(type) ||
        !type.getLayout().isIdentity())
      return emitOpError() << "expects lhs_rows to be a row-major 2-d buffer "
                              "in global memory, got "
                           << type;
    if (type.getElementType() != elt)
      return emitOpError() << "expects lhs_rows of lhs's element type (" << elt
                           << "), got " << type.getElementType();
    if (type.isDynamicDim(1) || type.getDimSize(1) != lhs.getDimSize(1))
      return emitOpError() << "expects lhs_rows with lhs's " << lhs.getDimSize(1)
                           << " columns, got " << type;
  }

  return success();
}

/// Whether `op` waits for (or needs) every thread of the block, a
/// warpgroup or the cluster: none of them takes part in a pipeline region.
static bool isBlockCollective(Operation *op) {
  StringRef name = op->getName().getStringRef();
  if (llvm::is_contained({"gpu.barrier", "gpu.all_reduce", "nvvm.barrier0",
                          "nvvm.barrier", "nvvm.barrier.arrive",
                          "nvvm.cluster.arrive", "nvvm.cluster.arrive.relaxed",
                          "nvvm.cluster.wait"},
                         name) ||
      name.starts_with("nvvm.wgmma."))
    return true;
  // Barriers written as PTX: bar.sync, bar.red, barrier.sync,
  // barrier.cluster.wait, ... (but not mbarrier.*, which the expansion
  // itself uses and which are per-thread).
  if (name == "llvm.inline_asm")
    if (auto text = op->getAttrOfType<StringAttr>("asm_string")) {
      StringRef asmText = text.getValue();
      for (StringRef word : {"bar.", "barrier."})
        for (size_t pos = asmText.find(word); pos != StringRef::npos;
             pos = asmText.find(word, pos + 1))
          if (pos == 0 || !(llvm::isAlnum(asmText[pos - 1]) ||
                            asmText[pos - 1] == '_' || asmText[pos - 1] == '.'))
            return true;
    }
  return false;
}

/// Whether `op` needs every thread of a warp (a shuffle, vote or warp
/// barrier with the full mask, a subgroup op).
static bool isWarpCollective(Operation *op) {
  StringRef name = op->getName().getStringRef();
  return llvm::is_contained({"gpu.shuffle", "gpu.rotate", "gpu.subgroup_reduce",
                             "gpu.subgroup_broadcast", "nvvm.shfl.sync",
                             "nvvm.vote.sync", "nvvm.bar.warp.sync",
                             "nvvm.redux.sync", "nvvm.match.sync",
                             "nvvm.elect.sync"},
                            name) ||
         name.starts_with("gpu.subgroup_mma_");
}

/// Rejects ops in a pipeline region that need more threads than the region
/// runs on: `before_load`, `after_loads`, `callback` and `epilogue` on one
/// thread, `combine` on every thread of one consumer warpgroup (whole
/// warps: warp-wide ops are fine there). A block barrier there waits for
/// threads that never arrive (a deadlock); a block-cooperative
/// weave.put/get would copy only the share of the threads that run it.
static LogicalResult verifyRegionThreads(MatmulPipelineOp pipeline,
                                         Region &region, StringRef name,
                                         bool wholeWarps) {
  WalkResult result = region.walk([&](Operation *op) -> WalkResult {
    StringRef runsOn = wholeWarps ? "the 128 threads of a consumer warpgroup"
                                  : "one thread";
    std::optional<CopyScope> scope;
    if (auto put = dyn_cast<PutOp>(op))
      scope = put.getScope();
    else if (auto get = dyn_cast<GetOp>(op))
      scope = get.getScope();
    else if (auto read = dyn_cast<ReadPacketsOp>(op))
      scope = read.getScope();
    if (scope == CopyScope::Block || (!wholeWarps && scope == CopyScope::Warp)) {
      op->emitOpError() << "cannot be used in the " << name
                        << " region of a weave.matmul_pipeline: it is a "
                           "copy by every thread of the "
                        << (scope == CopyScope::Block ? "block" : "warp")
                        << ", and the region runs on " << runsOn;
      return WalkResult::interrupt();
    }
    if (isa<MatmulPipelineOp>(op)) {
      op->emitOpError() << "cannot be nested in the " << name
                        << " region of another weave.matmul_pipeline";
      return WalkResult::interrupt();
    }
    if (isBlockCollective(op) || (!wholeWarps && isWarpCollective(op))) {
      InFlightDiagnostic diag = op->emitError()
                                << "'" << op->getName()
                                << "' cannot be used in the " << name
                                << " region of a weave.matmul_pipeline: it "
                                   "waits for threads that do not run the "
                                   "region (it runs on "
                                << runsOn << "), so it would deadlock";
      diag.attachNote(pipeline.getLoc()) << "in this pipeline";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

LogicalResult MatmulPipelineOp::verifyRegions() {
  if (failed(verifyRegionThreads(*this, getBeforeLoad(), "before_load",
                                 /*wholeWarps=*/false)) ||
      failed(verifyRegionThreads(*this, getAfterLoads(), "after_loads",
                                 /*wholeWarps=*/false)) ||
      failed(verifyRegionThreads(*this, getCallback(), "callback",
                                 /*wholeWarps=*/false)) ||
      failed(verifyRegionThreads(*this, getEpilogue(), "epilogue",
                                 /*wholeWarps=*/false)) ||
      failed(verifyRegionThreads(*this, getCombine(), "combine",
                                 /*wholeWarps=*/true)))
    return failure();
  // A box region's arguments: the box (64 rows x 128 bytes of the output,
  // in shared memory), then the tile form's m, n and box index or the
  // coordinate form's row and column (boxRegionForm tells them apart by
  // count), then for combine the thread's lane.
  auto verifyBoxRegion = [&](Region &region, StringRef what,
                             bool lane) -> LogicalResult {
    if (region.empty())
      return success();
    Block &block = region.front();
    auto out = getOutType();
    int64_t cols = 128 / std::max<int64_t>(1, elementBytes(out));
    bool known = boxRegionForm(region, lane) != BoxRegionForm::None;
    auto box = known ? dyn_cast<MemRefType>(block.getArgument(0).getType())
                     : MemRefType();
    bool allIndices = known &&
                      llvm::all_of(llvm::drop_begin(block.getArgumentTypes()),
                                   [](Type t) { return t.isIndex(); });
    if (box && allIndices && isWorkgroup(box) &&
        box.getShape() == ArrayRef<int64_t>{64, cols} &&
        box.getElementType() == out.getElementType() &&
        box.getLayout().isIdentity())
      return success();
    std::string expected;
    llvm::raw_string_ostream os(expected);
    os << "64x" << cols << "x" << out.getElementType();
    StringRef tail = lane ? ", lane" : "";
    return emitOpError() << "expects " << what << " to take a " << expected
                         << " box in workgroup memory and index arguments: "
                            "(box, m, n, box index"
                         << tail << ") or (box, row, col" << tail << "), got ("
                         << block.getNumArguments() << " arguments)";
  };
  if (failed(verifyBoxRegion(getCombine(), "combine", /*lane=*/true)) ||
      failed(verifyBoxRegion(getEpilogue(), "the epilogue", /*lane=*/false)))
    return failure();
  if (!getBeforeLoad().empty()) {
    Block &block = getBeforeLoad().front();
    SmallVector<Type> types(block.getArgumentTypes());
    bool steps = types.size() >= 3 &&
                 llvm::all_of(ArrayRef<Type>(types).take_front(3),
                              [](Type t) { return t.isIndex(); });
    bool first = types.size() >= 4 && types[3].isInteger(1);
    bool tile = types.size() == 6 && types[4].isIndex() && types[5].isIndex();
    bool form = types.size() == 3 || (first && (types.size() == 4 || tile));
    if (!steps || !form)
      return emitOpError() << "expects before_load to take 3 index arguments "
                              "(m, n, k), those and an i1 (m, n, k, first "
                              "step of the unit), or those and 2 indices (m, "
                              "n, k, first, tile_m, tile_n), got "
                           << block.getNumArguments() << " arguments";
  }
  if (!getAfterLoads().empty() &&
      getAfterLoads().front().getNumArguments() != 0)
    return emitOpError() << "expects after_loads to take no arguments, got "
                         << getAfterLoads().front().getNumArguments();
  Region &callback = getCallback();
  if (callback.empty())
    return success();
  Block &block = callback.front();
  auto lhs = cast<MemRefType>(getLhs().getType());
  auto rhs = cast<MemRefType>(getRhs().getType());
  auto expectTile = [&](unsigned idx, int64_t rows, int64_t cols,
                        Type elt) -> LogicalResult {
    auto type = dyn_cast<MemRefType>(block.getArgument(idx).getType());
    if (!type || !isWorkgroup(type) || type.getShape() != ArrayRef<int64_t>{rows, cols} ||
        type.getElementType() != elt) {
      // Print the shape as a memref shape (128x64xf16), not as a quoted type.
      std::string expected;
      llvm::raw_string_ostream os(expected);
      os << rows << "x" << cols << "x" << elt;
      return emitOpError() << "expects callback argument #" << idx
                           << " to be a " << expected
                           << " tile in workgroup memory, got "
                           << block.getArgument(idx).getType();
    }
    return success();
  };
  if (block.getNumArguments() != 5)
    return emitOpError() << "expects the callback to take 5 arguments (lhs "
                            "tile, rhs tile, m, n, k), got "
                         << block.getNumArguments();
  // With tile(auto) the callback's tile arguments fix the tile
  // (weave-configure-pipelines reads them); the shapes are checked once
  // the tile is known.
  if (!getTileMAttr()) {
    for (unsigned idx : {0u, 1u}) {
      auto type = dyn_cast<MemRefType>(block.getArgument(idx).getType());
      if (!type || !isWorkgroup(type) || type.getRank() != 2 ||
          !type.hasStaticShape() ||
          type.getElementType() !=
              (idx == 0 ? lhs.getElementType() : rhs.getElementType()))
        return emitOpError()
               << "expects callback argument #" << idx
               << " to be a static 2-d tile of the "
               << (idx == 0 ? "lhs" : "rhs")
               << " element type in workgroup memory, got "
               << block.getArgument(idx).getType();
    }
    auto lhsTile = cast<MemRefType>(block.getArgument(0).getType());
    auto rhsTile = cast<MemRefType>(block.getArgument(1).getType());
    if (lhsTile.getDimSize(1) != rhsTile.getDimSize(0))
      return emitOpError() << "expects the callback's lhs tile columns ("
                           << lhsTile.getDimSize(1)
                           << ") to equal its rhs tile rows ("
                           << rhsTile.getDimSize(0)
                           << "): they fix tile_k";
  } else if (failed(expectTile(0, tileM(), tileK(), lhs.getElementType())) ||
      failed(expectTile(1, tileK(), tileN(), rhs.getElementType())))
    return failure();
  for (unsigned i = 2; i < 5; ++i)
    if (!block.getArgument(i).getType().isIndex())
      return emitOpError() << "expects callback argument #" << i
                           << " to be an index, got "
                           << block.getArgument(i).getType();
  // The rhs tile is in the ring as 128-byte-row boxes (swizzled), so only a
  // whole-tile TMA store, split into one store per box, can read it.
  Value rhsTile = block.getArgument(1);
  auto rhsTileType = cast<MemRefType>(rhsTile.getType());
  for (Operation *user : rhsTile.getUsers()) {
    auto store = dyn_cast<CopySmemToGmemOp>(user);
    if (store && store.getSource() == rhsTile && store.getTarget() != rhsTile)
      continue;
    return user->emitOpError()
           << "uses the rhs tile of a pipeline callback other than as the "
              "source of weave.copy_smem_to_gmem: the tile is stored as "
           << rhsTileType.getDimSize(1) / (128 / elementBytes(rhsTileType))
           << " swizzled boxes of 128-byte rows, which only a whole-tile TMA "
              "store (split into one store per box) reads";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// MatmulPipelineOp regions: custom parser and printer
//===----------------------------------------------------------------------===//

/// Drops every use from outside `region` of a value defined in it (a block
/// argument or an op result, at any depth) and says whether there was one.
/// The MLIR 22 parser resolves a forward reference (`%k` used before any
/// definition) to a value of the same name defined in a nested region parsed
/// later; if the op then fails to parse, its regions are destroyed while the
/// outer user still holds the value, and the cleanup writes freed memory
/// (docs/FUZZING.md). A region's values are visible only inside it, so such
/// a use is an error anyway; dropped here, the failed op is destroyed safely.
static bool dropOutsideUses(Region &region) {
  // Walks up by hand: while the enclosing ops are being parsed, the blocks
  // around an outer user are not attached to their regions yet.
  auto inside = [&](Operation *op) {
    for (Block *block = op->getBlock(); block;) {
      Region *parent = block->getParent();
      if (parent == &region)
        return true;
      Operation *parentOp = parent ? parent->getParentOp() : nullptr;
      block = parentOp ? parentOp->getBlock() : nullptr;
    }
    return false;
  };
  bool found = false;
  auto dropFrom = [&](Value value) {
    for (OpOperand &use : llvm::make_early_inc_range(value.getUses()))
      if (!inside(use.getOwner())) {
        use.drop();
        found = true;
      }
  };
  region.walk([&](Block *block) {
    for (BlockArgument arg : block->getArguments())
      dropFrom(arg);
    for (Operation &op : *block)
      for (Value result : op.getResults())
        dropFrom(result);
  });
  return found;
}

/// `(before_load {...})? (callback {...})? (after_loads {...})?
/// (epilogue {...})?`, as the declarative form printed them, with the
/// regions checked for the parser's forward-reference bug above.
static ParseResult parsePipelineRegions(OpAsmParser &parser, Region &beforeLoad,
                                        Region &callback, Region &afterLoads,
                                        Region &combine, Region &epilogue) {
  std::pair<StringRef, Region *> regions[] = {{"before_load", &beforeLoad},
                                              {"callback", &callback},
                                              {"after_loads", &afterLoads},
                                              {"combine", &combine},
                                              {"epilogue", &epilogue}};
  auto dropAll = [&] {
    for (auto &entry : regions)
      dropOutsideUses(*entry.second);
  };
  for (auto &[keyword, region] : regions) {
    if (failed(parser.parseOptionalKeyword(keyword)))
      continue;
    SMLoc at = parser.getCurrentLocation();
    if (failed(parser.parseRegion(*region))) {
      dropAll();
      return failure();
    }
    if (dropOutsideUses(*region)) {
      dropAll();
      return parser.emitError(at)
             << "a value defined in the " << keyword
             << " region is used outside the region (a value used before "
                "its definition took the name of one defined in the region)";
    }
    MatmulPipelineOp::ensureTerminator(
        *region, parser.getBuilder(),
        parser.getEncodedSourceLoc(parser.getCurrentLocation()));
  }
  return success();
}

static void printPipelineRegions(OpAsmPrinter &printer, MatmulPipelineOp,
                                 Region &beforeLoad, Region &callback,
                                 Region &afterLoads, Region &combine,
                                 Region &epilogue) {
  std::pair<StringRef, Region *> regions[] = {{"before_load", &beforeLoad},
                                              {"callback", &callback},
                                              {"after_loads", &afterLoads},
                                              {"combine", &combine},
                                              {"epilogue", &epilogue}};
  for (auto &[keyword, region] : regions) {
    if (region->empty())
      continue;
    // The implicit weave.yield is elided unless it carries something.
    Operation *term = region->front().getTerminator();
    bool printTerminator = !term || !term->getAttrDictionary().empty() ||
                           term->getNumOperands() != 0 ||
                           term->getNumResults() != 0;
    printer << ' ' << keyword << ' ';
    printer.printRegion(*region, /*printEntryBlockArgs=*/true,
                        /*printBlockTerminators=*/printTerminator);
  }
}

#define GET_OP_CLASSES
#include "weave/Dialect/Weave/IR/WeaveOps.cpp.inc"
