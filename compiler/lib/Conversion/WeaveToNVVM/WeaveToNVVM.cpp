//===- WeaveToNVVM.cpp - weave to LLVM/NVVM conversion --------------------===//
//
// Lowers the communication ops to address arithmetic on the peer base table,
// system-scope release/acquire instructions and 16-byte vector copies. The
// memory model behind each instruction choice is in docs/Rationale.md.
//
//===----------------------------------------------------------------------===//

#include "weave/Conversion/WeaveToNVVM/WeaveToNVVM.h"
#include "weave/Dialect/Weave/IR/DTypeMlir.h"
#include "weave/Dialect/Weave/IR/EqualDims.h"
#include "weave/Dialect/Weave/IR/TmaCoordinates.h"

#include "weave/Conversion/Passes.h"
#include "weave/Conversion/WeaveToNVVM/KernelAbi.h"
#include "weave/Dialect/Weave/IR/KernelVariant.h"
#include "weave/Dialect/Weave/IR/WeaveOps.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::weave {
#define GEN_PASS_DEF_CONVERTWEAVETONVVMPASS
#include "weave/Conversion/Passes.h.inc"
} // namespace mlir::weave

using namespace mlir;
using namespace mlir::weave;

namespace {

/// LLVM address space of global memory.
constexpr unsigned kGlobalAddressSpace = 1;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The team parameters of the kernel enclosing `op` (docs/ABI.md).
struct TeamArgs {
  Value rank;      ///< i32
  Value teamSize;  ///< i32
  Value peerBases; ///< !llvm.ptr<1> to u64[teamSize]
};

FailureOr<TeamArgs> getTeamArgs(Operation *op) {
  auto func = op->getParentOfType<FunctionOpInterface>();
  if (!func)
    return failure();
  auto first = func->getAttrOfType<IntegerAttr>(kTeamArgsAttrName);
  if (!first)
    return failure();
  unsigned idx = first.getInt();
  Block &entry = func.getFunctionBody().front();
  if (entry.getNumArguments() < idx + 3)
    return failure();
  return TeamArgs{entry.getArgument(idx), entry.getArgument(idx + 1),
                  entry.getArgument(idx + 2)};
}

/// Emits one PTX instruction as side-effecting inline assembly.
Value inlinePtx(OpBuilder &b, Location loc, Type resultType, StringRef ptx,
                StringRef constraints, ValueRange operands) {
  auto op = LLVM::InlineAsmOp::create(
      b, loc, resultType ? TypeRange{resultType} : TypeRange{}, operands, ptx,
      constraints, /*has_side_effects=*/true, /*is_align_stack=*/false,
      LLVM::tailcallkind::TailCallKind::None, /*asm_dialect=*/{},
      /*operand_attrs=*/{});
  return resultType ? op.getResult(0) : Value();
}

Value i64Constant(OpBuilder &b, Location loc, int64_t value) {
  return LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                  b.getI64IntegerAttr(value));
}

/// `peer_bases[device] - peer_bases[rank]`: add it to a local symmetric
/// address to get the same location on `device`.
Value peerDelta(OpBuilder &b, Location loc, const TeamArgs &team,
                Value device) {
  Type i64 = b.getI64Type();
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext(), kGlobalAddressSpace);
  auto load = [&](Value index) -> Value {
    Value addr = LLVM::GEPOp::create(b, loc, ptrTy, i64, team.peerBases,
                                     ValueRange{index});
    return LLVM::LoadOp::create(b, loc, i64, addr, /*alignment=*/8,
                                /*isVolatile=*/false, /*isNonTemporal=*/false,
                                /*isInvariant=*/true);
  };
  Value rank = LLVM::ZExtOp::create(b, loc, i64, team.rank);
  return LLVM::SubOp::create(b, loc, load(device), load(rank));
}

/// `ptr + delta`, computed on integers because the peer mapping is not an
/// object LLVM knows about.
Value offsetPointer(OpBuilder &b, Location loc, Value ptr, Value delta) {
  Value addr = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), ptr);
  addr = LLVM::AddOp::create(b, loc, addr, delta);
  return LLVM::IntToPtrOp::create(b, loc, ptr.getType(), addr);
}

/// Address of `memref` (converted descriptor) as a global pointer, with the
/// descriptor's offset applied.
Value bufferAddress(OpBuilder &b, Location loc,
                    const LLVMTypeConverter &converter, MemRefType type,
                    Value descriptor) {
  MemRefDescriptor desc(descriptor);
  Value base = desc.alignedPtr(b, loc);
  Type elt = converter.convertType(type.getElementType());
  Value offset = desc.offset(b, loc);
  return LLVM::GEPOp::create(b, loc, base.getType(), elt, base,
                             ValueRange{offset});
}

/// Linear thread index and thread count of the block (i64).
std::pair<Value, Value> blockThreads(OpBuilder &b, Location loc) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  Value tx = NVVM::ThreadIdXOp::create(b, loc, i32);
  Value ty = NVVM::ThreadIdYOp::create(b, loc, i32);
  Value tz = NVVM::ThreadIdZOp::create(b, loc, i32);
  Value nx = NVVM::BlockDimXOp::create(b, loc, i32);
  Value ny = NVVM::BlockDimYOp::create(b, loc, i32);
  Value nz = NVVM::BlockDimZOp::create(b, loc, i32);
  Value tid = LLVM::AddOp::create(
      b, loc, tx,
      LLVM::MulOp::create(b, loc, nx,
                          LLVM::AddOp::create(b, loc, ty,
                                              LLVM::MulOp::create(b, loc, ny, tz))));
  Value count =
      LLVM::MulOp::create(b, loc, nx, LLVM::MulOp::create(b, loc, ny, nz));
  return {LLVM::ZExtOp::create(b, loc, i64, tid),
          LLVM::ZExtOp::create(b, loc, i64, count)};
}

/// Builds `for (i = lb; i < ub; i += step) body(i)` with LLVM branches at the
/// rewriter's insertion point; the rewriter ends up after the loop. The loop
/// is built already rotated (a guard, then a body that tests at its end):
/// LLVM's LoopRotate, which otherwise rotates it, took time quadratic in the
/// number of loops of a function (a kernel of 400 puts: 1.3 s of its 2.5 s
/// in opt -O3, 5.4 times the time of 200 puts).
void buildLoop(ConversionPatternRewriter &rewriter, Location loc, Value lb,
               Value ub, Value step,
               function_ref<void(OpBuilder &, Value)> body) {
  Block *before = rewriter.getInsertionBlock();
  Block *after = rewriter.splitBlock(before, rewriter.getInsertionPoint());
  Type i64 = rewriter.getI64Type();
  Block *bodyBlock = rewriter.createBlock(after, {i64}, {loc});

  rewriter.setInsertionPointToEnd(before);
  Value any =
      LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ult, lb, ub);
  LLVM::CondBrOp::create(rewriter, loc, any, bodyBlock, ValueRange{lb}, after,
                         ValueRange{});

  rewriter.setInsertionPointToEnd(bodyBlock);
  Value iv = bodyBlock->getArgument(0);
  body(rewriter, iv);
  Value next = LLVM::AddOp::create(rewriter, loc, iv, step);
  Value more =
      LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ult, next, ub);
  LLVM::CondBrOp::create(rewriter, loc, more, bodyBlock, ValueRange{next},
                         after, ValueRange{});

  rewriter.setInsertionPointToStart(after);
}

/// Name of the unit attribute materializeKernelAbi puts on the semaphore ops
/// that must order the async (TMA) proxy: signals in kernels with bulk
/// stores (the fence goes before the release) and waits in kernels with bulk
/// loads (the fence goes after the acquire). Decided once per kernel, before
/// the conversion starts rewriting its ops.
constexpr llvm::StringLiteral kAsyncProxyFenceAttrName =
    "weave.async_proxy_fence";

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// `weave.device_id` -> the rank parameter; `weave.num_devices` -> the team
/// size parameter (for a static mesh it folds to a constant before this
/// pass, in the canonicalizer that the weave-to-llvm pipeline runs first).
template <typename OpTy, Value TeamArgs::*Param>
struct TeamParamOpLowering : public ConvertOpToLLVMPattern<OpTy> {
  using ConvertOpToLLVMPattern<OpTy>::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<TeamArgs> team = getTeamArgs(op);
    if (failed(team))
      return rewriter.notifyMatchFailure(op, "not inside a weave kernel");
    rewriter.replaceOpWithNewOp<LLVM::ZExtOp>(
        op, this->getTypeConverter()->getIndexType(), (*team).*Param);
    return success();
  }
};
using DeviceIdOpLowering = TeamParamOpLowering<DeviceIdOp, &TeamArgs::rank>;
using NumDevicesOpLowering =
    TeamParamOpLowering<NumDevicesOp, &TeamArgs::teamSize>;

/// `weave.remote_ref` -> the same descriptor with both pointers moved by
/// `peer_bases[device] - peer_bases[rank]`.
struct RemoteRefOpLowering : public ConvertOpToLLVMPattern<RemoteRefOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(RemoteRefOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<TeamArgs> team = getTeamArgs(op);
    if (failed(team))
      return rewriter.notifyMatchFailure(op, "not inside a weave kernel");
    Location loc = op.getLoc();
    Value delta = peerDelta(rewriter, loc, *team, adaptor.getDevice());
    MemRefDescriptor desc(adaptor.getBuffer());
    desc.setAllocatedPtr(
        rewriter, loc,
        offsetPointer(rewriter, loc, desc.allocatedPtr(rewriter, loc), delta));
    desc.setAlignedPtr(
        rewriter, loc,
        offsetPointer(rewriter, loc, desc.alignedPtr(rewriter, loc), delta));
    rewriter.replaceOp(op, {static_cast<Value>(desc)});
    return success();
  }
};

/// Address of the counter a semaphore op names, on `device` when given.
template <typename OpTy>
Value semaphoreCounter(ConversionPatternRewriter &rewriter, Location loc,
                       typename OpTy::Adaptor adaptor, const TeamArgs &team,
                       Value device) {
  Value index = adaptor.getIndex() ? adaptor.getIndex()
                                   : i64Constant(rewriter, loc, 0);
  Value counter = LLVM::GEPOp::create(
      rewriter, loc, adaptor.getSemaphore().getType(), rewriter.getI32Type(),
      adaptor.getSemaphore(), ValueRange{index});
  if (!device)
    return counter;
  return offsetPointer(rewriter, loc, counter,
                       peerDelta(rewriter, loc, team, device));
}

/// `weave.semaphore_signal` -> `red.release.sys.global.add.u32` (mode add)
/// or `st.release.sys.global.u32` (mode set), preceded by
/// `fence.proxy.async.global` in kernels that issue bulk stores, so that
/// completed TMA writes are ordered before the release.
struct SemaphoreSignalOpLowering
    : public ConvertOpToLLVMPattern<SemaphoreSignalOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(SemaphoreSignalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<TeamArgs> team = getTeamArgs(op);
    if (failed(team))
      return rewriter.notifyMatchFailure(op, "not inside a weave kernel");
    Location loc = op.getLoc();
    Value counter = semaphoreCounter<SemaphoreSignalOp>(
        rewriter, loc, adaptor, *team, adaptor.getDevice());
    if (op->hasAttr(kAsyncProxyFenceAttrName))
      inlinePtx(rewriter, loc, {}, "fence.proxy.async.global;", "~{memory}",
                {});
    StringRef ptx = op.getMode() == SemaphoreSignalMode::Set
                        ? "st.release.sys.global.u32 [$0], $1;"
                        : "red.release.sys.global.add.u32 [$0], $1;";
    inlinePtx(rewriter, loc, {}, ptx, "l,r,~{memory}",
              {counter, adaptor.getValue()});
    rewriter.eraseOp(op);
    return success();
  }
};

/// `ld.acquire.sys.global.u32` of a semaphore counter.
Value loadAcquire(OpBuilder &b, Location loc, Value counter) {
  return inlinePtx(b, loc, b.getI32Type(),
                   "ld.acquire.sys.global.u32 $0, [$1];", "=r,l,~{memory}",
                   {counter});
}

/// What a spin that timed out prints: `what` names the wait ("semaphore_wait",
/// "barrier"), `detail` is a printf format for `values`, after the device,
/// block and thread.
struct SpinReport {
  StringRef what;
  std::string detail;
  SmallVector<Value> values;
};

/// Builds, at the rewriter's insertion point, a spin that reloads `counter`
/// with `ld.acquire.sys` (or with `load`, when given) until
/// `reached(observed)`; the rewriter ends up after it, and the observed
/// value it returns is usable there. With a timeout, a spin that lasts
/// longer prints what it waited for (`report(observed)`) and traps.
Value buildSpin(ConversionPatternRewriter &rewriter, Location loc,
                Operation *op, const TeamArgs &team, Value counter,
                uint64_t timeoutNs,
                function_ref<Value(OpBuilder &, Value)> reached,
                function_ref<SpinReport(OpBuilder &, Value)> report,
                function_ref<Value(OpBuilder &)> load = nullptr) {
  Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
  Value start;
  if (timeoutNs)
    start = NVVM::GlobalTimerOp::create(rewriter, loc, i64);
  Block *before = rewriter.getInsertionBlock();
  Block *after = rewriter.splitBlock(before, rewriter.getInsertionPoint());
  Block *spin = rewriter.createBlock(after);
  rewriter.setInsertionPointToEnd(before);
  LLVM::BrOp::create(rewriter, loc, ValueRange{}, spin);

  rewriter.setInsertionPointToEnd(spin);
  Value observed =
      load ? load(rewriter) : loadAcquire(rewriter, loc, counter);
  Value done = reached(rewriter, observed);
  if (!timeoutNs) {
    LLVM::CondBrOp::create(rewriter, loc, done, after, spin);
    rewriter.setInsertionPointToStart(after);
    return observed;
  }
  Block *check = rewriter.createBlock(after);
  Block *expire = rewriter.createBlock(after);
  rewriter.setInsertionPointToEnd(spin);
  LLVM::CondBrOp::create(rewriter, loc, done, after, check);

  rewriter.setInsertionPointToEnd(check);
  Value now = NVVM::GlobalTimerOp::create(rewriter, loc, i64);
  Value elapsed = LLVM::SubOp::create(rewriter, loc, now, start);
  Value late = LLVM::ICmpOp::create(
      rewriter, loc, LLVM::ICmpPredicate::ugt, elapsed,
      i64Constant(rewriter, loc, static_cast<int64_t>(timeoutNs)));
  LLVM::CondBrOp::create(rewriter, loc, late, expire, spin);

  rewriter.setInsertionPointToEnd(expire);
  auto func = op->getParentOfType<FunctionOpInterface>();
  std::string location;
  llvm::raw_string_ostream os(location);
  op->getLoc().print(os);
  SpinReport what = report(rewriter, observed);
  std::string format = "weave: " + what.what.str() + " timed out after " +
                       std::to_string(timeoutNs) + " ns in kernel '" +
                       func.getName().str() + "' at " + location +
                       ": device %u, block %u, thread %u, " + what.detail +
                       "\n";
  Value blockId = NVVM::BlockIdXOp::create(rewriter, loc, i32);
  Value threadId = NVVM::ThreadIdXOp::create(rewriter, loc, i32);
  SmallVector<Value> args = {team.rank, blockId, threadId};
  llvm::append_range(args, what.values);
  gpu::PrintfOp::create(rewriter, loc, rewriter.getStringAttr(format), args);
  LLVM::Trap::create(rewriter, loc);
  LLVM::UnreachableOp::create(rewriter, loc);
  rewriter.setInsertionPointToStart(after);
  return observed;
}

/// A pattern for an op that spins (semaphore waits, barriers, packet
/// reads): `timeoutNs` is the `--wait-timeout-ns` of buildSpin (0: none).
template <typename OpTy>
struct SpinningOpLowering : public ConvertOpToLLVMPattern<OpTy> {
  SpinningOpLowering(const LLVMTypeConverter &converter, uint64_t timeoutNs)
      : ConvertOpToLLVMPattern<OpTy>(converter), timeoutNs(timeoutNs) {}

protected:
  uint64_t timeoutNs;
};

/// The threads that share a put or get: this thread's index among them,
/// their number (both i64) and, for a warp, the mask of its threads (i32).
struct CopyThreads {
  Value index, count, warpMask;
};

/// The 16-byte vectors a thread of weave.put / weave.get loads before it
/// stores them (OneSidedCopyLowering's equally aligned loop).
constexpr int64_t kCopyVectorsInFlight = 4;

CopyThreads copyThreads(OpBuilder &b, Location loc, CopyScope scope) {
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  if (scope == CopyScope::Thread)
    return {i64Constant(b, loc, 0), i64Constant(b, loc, 1), Value()};
  auto [tid, nthreads] = blockThreads(b, loc);
  if (scope == CopyScope::Block)
    return {tid, nthreads, Value()};
  // Warps are runs of 32 linear thread ids; in a block whose size is not a
  // multiple of 32 the last one is partial, so count its threads.
  Value lane = LLVM::AndOp::create(b, loc, tid, i64Constant(b, loc, 31));
  Value first = LLVM::SubOp::create(b, loc, tid, lane);
  Value left = LLVM::SubOp::create(b, loc, nthreads, first);
  Value count = LLVM::UMinOp::create(b, loc, left, i64Constant(b, loc, 32));
  // (1 << count) - 1 in 64 bits, so that count = 32 gives 0xffffffff.
  Value mask = LLVM::SubOp::create(
      b, loc, LLVM::ShlOp::create(b, loc, i64Constant(b, loc, 1), count),
      i64Constant(b, loc, 1));
  return {lane, count, LLVM::TruncOp::create(b, loc, i32, mask)};
}

/// Number of elements of a memref (i64): the product of its sizes, read
/// from the descriptor where they are dynamic.
Value numElements(OpBuilder &b, Location loc, MemRefType type,
                  Value descriptor) {
  MemRefDescriptor desc(descriptor);
  int64_t known = 1;
  Value count;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (!type.isDynamicDim(i)) {
      known *= type.getDimSize(i);
      continue;
    }
    Value size = desc.size(b, loc, i);
    count = count ? Value(LLVM::MulOp::create(b, loc, count, size)) : size;
  }
  if (count && known == 1)
    return count;
  Value constant = i64Constant(b, loc, known);
  return count ? Value(LLVM::MulOp::create(b, loc, count, constant)) : constant;
}

/// Splits the block at the rewriter's insertion point and continues there
/// only if `ok`; otherwise prints `format` (with `args`) and traps.
void trapUnless(ConversionPatternRewriter &rewriter, Location loc, Value ok,
                StringRef format, ValueRange args) {
  Block *before = rewriter.getInsertionBlock();
  Block *after = rewriter.splitBlock(before, rewriter.getInsertionPoint());
  Block *fail = rewriter.createBlock(after);
  rewriter.setInsertionPointToEnd(before);
  LLVM::CondBrOp::create(rewriter, loc, ok, after, fail);
  rewriter.setInsertionPointToEnd(fail);
  gpu::PrintfOp::create(rewriter, loc, rewriter.getStringAttr(format), args);
  LLVM::Trap::create(rewriter, loc);
  LLVM::UnreachableOp::create(rewriter, loc);
  rewriter.setInsertionPointToStart(after);
}

/// Builds `if (cond) body()` with LLVM branches; the rewriter ends up after.
void buildIf(ConversionPatternRewriter &rewriter, Location loc, Value cond,
             function_ref<void(OpBuilder &)> body) {
  Block *before = rewriter.getInsertionBlock();
  Block *after = rewriter.splitBlock(before, rewriter.getInsertionPoint());
  Block *then = rewriter.createBlock(after);
  rewriter.setInsertionPointToEnd(before);
  LLVM::CondBrOp::create(rewriter, loc, cond, then, after);
  rewriter.setInsertionPointToEnd(then);
  body(rewriter);
  LLVM::BrOp::create(rewriter, loc, ValueRange{}, after);
  rewriter.setInsertionPointToStart(after);
}

/// `if (cond) thenBody else elseBody` at the insertion point, which it
/// leaves after both.
void buildIfElse(ConversionPatternRewriter &rewriter, Location loc, Value cond,
                 function_ref<void(OpBuilder &)> thenBody,
                 function_ref<void(OpBuilder &)> elseBody) {
  Block *before = rewriter.getInsertionBlock();
  Block *after = rewriter.splitBlock(before, rewriter.getInsertionPoint());
  Block *then = rewriter.createBlock(after);
  Block *otherwise = rewriter.createBlock(after);
  rewriter.setInsertionPointToEnd(before);
  LLVM::CondBrOp::create(rewriter, loc, cond, then, otherwise);
  rewriter.setInsertionPointToEnd(then);
  thenBody(rewriter);
  LLVM::BrOp::create(rewriter, loc, ValueRange{}, after);
  rewriter.setInsertionPointToEnd(otherwise);
  elseBody(rewriter);
  LLVM::BrOp::create(rewriter, loc, ValueRange{}, after);
  rewriter.setInsertionPointToStart(after);
}

Value i32Constant(OpBuilder &b, Location loc, int64_t value) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                  b.getI32IntegerAttr(value));
}

/// Stores the 32-bit `word` at `to`, the start of a packet copy's whole
/// words at `start` plus a multiple of 4, of data of `element`-byte
/// elements. Elements of 4 bytes or more: one store. Smaller ones leave
/// the word's store only the element's alignment, which the NVPTX backend
/// splits into 4 / element stores: where `start` is 4-byte aligned at run
/// time, one 32-bit store instead. The branch is the same for every thread
/// of the copy (`start` is the copy's target), and it is taken per word in
/// the loop body, not around two loops: two loops (and two spins) per copy
/// left the all-to-all-v's loop over its peers rolled (LLVM's full-unroll
/// threshold). The packet reads of ll_all_reduce and ll_reduce_scatter
/// (bf16, 4 KB-256 KB) took 0.1-0.2 us less with it; the other packet
/// kernels, as fast as before (docs/PERF.md, issue #30, seventh session).
/// The narrow arm's stores are written out, element by element, rather
/// than left to the backend as one underaligned store: LLVM may not merge
/// them with the wide arm's store into one of the smaller alignment.
void storePacketWord(ConversionPatternRewriter &rewriter, Location loc,
                     Value word, Value to, Value start, unsigned element) {
  if (element >= 4) {
    LLVM::StoreOp::create(rewriter, loc, word, to, /*alignment=*/4);
    return;
  }
  Value low = LLVM::AndOp::create(
      rewriter, loc,
      LLVM::PtrToIntOp::create(rewriter, loc, rewriter.getI64Type(), start),
      i64Constant(rewriter, loc, 3));
  Value aligned = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq,
                                       low, i64Constant(rewriter, loc, 0));
  buildIfElse(
      rewriter, loc, aligned,
      [&](OpBuilder &) {
        LLVM::StoreOp::create(rewriter, loc, word, to, /*alignment=*/4);
      },
      [&](OpBuilder &) {
        Type piece = rewriter.getIntegerType(8 * element);
        for (unsigned k = 0; k < 4 / element; ++k) {
          Value at =
              k == 0 ? to
                     : Value(LLVM::GEPOp::create(
                           rewriter, loc, to.getType(), piece, to,
                           ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(k)}));
          Value bits = k == 0
                           ? word
                           : Value(LLVM::LShrOp::create(
                                 rewriter, loc, word,
                                 i32Constant(rewriter, loc, 8 * element * k)));
          LLVM::StoreOp::create(
              rewriter, loc, LLVM::TruncOp::create(rewriter, loc, piece, bits),
              at, element);
        }
      });
}

/// The top bit of a barrier counter: every barrier adds exactly 2^31 to it.
constexpr int64_t kBarrierPhaseBit = 0x80000000;

/// `weave.semaphore_wait` -> a spin on `ld.acquire.sys.global.u32` until the
/// counter is `>=` (`cmp(ge)`), `==` (`cmp(eq)`) or `>=` in serial-number
/// order (`cmp(ge_wrap)`) the value, then (with
/// `decrement`) `red.relaxed.sys.global.add.u32` of `-value`. With
/// scope(block|warp) only the leader spins, then `bar.sync 0` (or
/// `bar.warp.sync`). With a timeout, a spin that lasts too long prints what
/// it waited for and traps.
struct SemaphoreWaitOpLowering : public SpinningOpLowering<SemaphoreWaitOp> {
  using SpinningOpLowering::SpinningOpLowering;

  LogicalResult
  matchAndRewrite(SemaphoreWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<TeamArgs> team = getTeamArgs(op);
    if (failed(team))
      return rewriter.notifyMatchFailure(op, "not inside a weave kernel");
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    Value counter =
        semaphoreCounter<SemaphoreWaitOp>(rewriter, loc, adaptor, *team, {});
    Value expected = adaptor.getValue();
    SemaphoreCmp cmp = op.getCmp();
    bool eq = cmp == SemaphoreCmp::EQ;

    // Data a peer stored before its release is read by TMA loads (the async
    // proxy) after this acquire: order the proxies, in each thread that may
    // issue them (after the block's or warp's synchronization).
    auto fenceProxy = [&] {
      if (op->hasAttr(kAsyncProxyFenceAttrName))
        NVVM::FenceProxyOp::create(
            rewriter, loc,
            NVVM::ProxyKindAttr::get(rewriter.getContext(),
                                     NVVM::ProxyKind::async_global),
            NVVM::SharedSpaceAttr());
    };
    // The spin (and the decrement) of one waiting thread.
    auto wait = [&](OpBuilder &) {
      buildSpin(
          rewriter, loc, op, *team, counter, timeoutNs,
          [&](OpBuilder &b, Value observed) -> Value {
            // ge_wrap: serial-number order, (int32)(observed - expected)
            // >= 0, right across the wrap at 2^32.
            if (cmp == SemaphoreCmp::GEWrap)
              return LLVM::ICmpOp::create(
                  b, loc, LLVM::ICmpPredicate::sge,
                  LLVM::SubOp::create(b, loc, observed, expected),
                  i32Constant(b, loc, 0));
            return LLVM::ICmpOp::create(
                b, loc, eq ? LLVM::ICmpPredicate::eq : LLVM::ICmpPredicate::uge,
                observed, expected);
          },
          [&](OpBuilder &b, Value observed) {
            Value index = adaptor.getIndex()
                              ? Value(LLVM::TruncOp::create(b, loc, i32,
                                                            adaptor.getIndex()))
                              : Value(LLVM::ConstantOp::create(
                                    b, loc, i32, b.getI32IntegerAttr(0)));
            return SpinReport{"semaphore_wait",
                              std::string("counter %u expected ") +
                                  (eq ? "=="
                                   : cmp == SemaphoreCmp::GEWrap ? ">= (mod 2^32)"
                                                                 : ">=") +
                                  " %u, observed %u",
                              {index, expected, observed}};
          });
      if (op.getScope() == CopyScope::Thread)
        fenceProxy();
      if (op.getDecrement()) {
        Value negated =
            LLVM::SubOp::create(rewriter, loc, i32Constant(rewriter, loc, 0),
                                expected);
        inlinePtx(rewriter, loc, {}, "red.relaxed.sys.global.add.u32 [$0], $1;",
                  "l,r,~{memory}", {counter, negated});
      }
    };
    if (op.getScope() == CopyScope::Thread) {
      wait(rewriter);
    } else {
      // Thread 0 of the block (lane 0 of each warp) waits; the others learn
      // of its acquire through the barrier, which orders (cumulatively)
      // what the signaller released before their later reads.
      CopyThreads threads = copyThreads(rewriter, loc, op.getScope());
      Value leader =
          LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq,
                               threads.index, i64Constant(rewriter, loc, 0));
      buildIf(rewriter, loc, leader, wait);
      if (op.getScope() == CopyScope::Block)
        NVVM::Barrier0Op::create(rewriter, loc);
      else
        NVVM::SyncWarpOp::create(rewriter, loc, threads.warpMask);
    }

    if (op.getScope() != CopyScope::Thread)
      fenceProxy();
    rewriter.eraseOp(op);
    return success();
  }
};

/// `weave.barrier` -> monotonic counters that gain exactly 2^31 per barrier
/// (docs/Rationale.md, "weave.barrier"):
///
///   bar.sync 0
///   team_blocks, block != 0: thread 0 arrives on the grid counter
///       (atom.release.sys add 1) and spins (ld.acquire.sys) until its top
///       bit flips.
///   team_blocks, block 0: thread 0 spins until the other blocks of the
///       grid have arrived; bar.sync 0; the team step; thread 0 releases
///       the grid (red.release.sys add 2^31 - (blocks - 1)).
///   team step: threads 1..P-1 (strided) arrive on the team counter of
///       peers rank+1..rank+P-1 (red.release.sys), thread 0 arrives on its
///       own (atom.release.sys, keeping the old value) and spins until the
///       top bit flips. Rank 0 adds 2^31 - (P - 1), the others 1.
///   bar.sync 0
struct BarrierOpLowering : public SpinningOpLowering<BarrierOp> {
  using SpinningOpLowering::SpinningOpLowering;

  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<TeamArgs> team = getTeamArgs(op);
    if (failed(team))
      return rewriter.notifyMatchFailure(op, "not inside a weave kernel");
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    Value sem = adaptor.getSemaphore();
    auto counterAt = [&](int64_t index) -> Value {
      return LLVM::GEPOp::create(rewriter, loc, sem.getType(), i32, sem,
                                 ValueRange{i64Constant(rewriter, loc, index)});
    };
    Value teamCounter = counterAt(0);
    auto [tid, nthreads] = blockThreads(rewriter, loc);
    Value isThread0 =
        LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, tid,
                             i64Constant(rewriter, loc, 0));
    bool asyncProxy = op->hasAttr(kAsyncProxyFenceAttrName);

    // Completed bulk stores of any thread are ordered before the releases.
    if (asyncProxy)
      inlinePtx(rewriter, loc, {}, "fence.proxy.async.global;", "~{memory}",
                {});
    NVVM::BarrierOp::create(rewriter, loc);

    if (op.getScope() == BarrierScope::Team) {
      buildTeamStep(rewriter, loc, op, *team, teamCounter, tid, nthreads,
                    isThread0);
    } else {
      Value gridCounter = counterAt(1);
      Value bx = NVVM::BlockIdXOp::create(rewriter, loc, i32);
      Value by = NVVM::BlockIdYOp::create(rewriter, loc, i32);
      Value bz = NVVM::BlockIdZOp::create(rewriter, loc, i32);
      // Read at run time: a persistent grid is sized at launch.
      Value gx = NVVM::GridDimXOp::create(rewriter, loc, i32);
      Value gy = NVVM::GridDimYOp::create(rewriter, loc, i32);
      Value gz = NVVM::GridDimZOp::create(rewriter, loc, i32);
      Value blocks = LLVM::MulOp::create(
          rewriter, loc, gx, LLVM::MulOp::create(rewriter, loc, gy, gz));
      Value notBlock0 = LLVM::ICmpOp::create(
          rewriter, loc, LLVM::ICmpPredicate::ne,
          LLVM::OrOp::create(rewriter, loc, bx,
                             LLVM::OrOp::create(rewriter, loc, by, bz)),
          i32Constant(rewriter, loc, 0));
      Value others = LLVM::SubOp::create(rewriter, loc, blocks,
                                         i32Constant(rewriter, loc, 1));

      buildIfElse(
          rewriter, loc, notBlock0,
          // Blocks other than 0: arrive, wait for block 0 to release the
          // grid.
          [&](OpBuilder &) {
            buildIf(rewriter, loc, isThread0, [&](OpBuilder &) {
              Value old =
                  inlinePtx(rewriter, loc, i32,
                            "atom.release.sys.global.add.u32 $0, [$1], $2;",
                            "=r,l,r,~{memory}",
                            {gridCounter, i32Constant(rewriter, loc, 1)});
              buildPhaseSpin(rewriter, loc, op, *team, gridCounter, old,
                             "grid counter");
            });
          },
          // Block 0: gather the grid, synchronise with the team, release
          // the grid.
          [&](OpBuilder &) {
            buildIf(rewriter, loc, isThread0, [&](OpBuilder &) {
              Value mask = i32Constant(rewriter, loc, kBarrierPhaseBit - 1);
              buildSpin(
                  rewriter, loc, op, *team, gridCounter, timeoutNs,
                  [&](OpBuilder &b, Value observed) -> Value {
                    Value arrived = LLVM::AndOp::create(b, loc, observed, mask);
                    return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                                                arrived, others);
                  },
                  [&](OpBuilder &b, Value observed) {
                    return SpinReport{
                        "barrier",
                        "block 0 waiting for %u other blocks on the "
                        "grid counter, observed %u",
                        {others, observed}};
                  });
            });
            NVVM::BarrierOp::create(rewriter, loc);
            buildTeamStep(rewriter, loc, op, *team, teamCounter, tid, nthreads,
                          isThread0);
            buildIf(rewriter, loc, isThread0, [&](OpBuilder &) {
              Value release = LLVM::SubOp::create(
                  rewriter, loc, i32Constant(rewriter, loc, kBarrierPhaseBit),
                  others);
              inlinePtx(rewriter, loc, {},
                        "red.release.sys.global.add.u32 [$0], $1;",
                        "l,r,~{memory}", {gridCounter, release});
            });
          });
    }

    NVVM::BarrierOp::create(rewriter, loc);
    // TMA loads after the barrier read what peers stored before it.
    if (asyncProxy)
      NVVM::FenceProxyOp::create(
          rewriter, loc,
          NVVM::ProxyKindAttr::get(rewriter.getContext(),
                                   NVVM::ProxyKind::async_global),
          NVVM::SharedSpaceAttr());
    rewriter.eraseOp(op);
    return success();
  }

private:
  /// Spins until the top bit of `counter` differs from that of `old`.
  void buildPhaseSpin(ConversionPatternRewriter &rewriter, Location loc,
                      Operation *op, const TeamArgs &team, Value counter,
                      Value old, StringRef name) const {
    Value bit = i32Constant(rewriter, loc, kBarrierPhaseBit);
    buildSpin(
        rewriter, loc, op, team, counter, timeoutNs,
        [&](OpBuilder &b, Value observed) -> Value {
          Value changed = LLVM::XOrOp::create(b, loc, observed, old);
          Value flipped = LLVM::AndOp::create(b, loc, changed, bit);
          return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, flipped,
                                      i32Constant(b, loc, 0));
        },
        [&](OpBuilder &b, Value observed) {
          return SpinReport{"barrier",
                            "waiting for the top bit of the " + name.str() +
                                " to flip from %u, observed %u",
                            {old, observed}};
        });
  }

  /// One block per device: every member adds to the team counter of every
  /// member, rank 0 adds 2^31 - (P - 1) and the others 1, so each counter
  /// gains exactly 2^31 once all P have arrived.
  void buildTeamStep(ConversionPatternRewriter &rewriter, Location loc,
                     Operation *op, const TeamArgs &team, Value teamCounter,
                     Value tid, Value nthreads, Value isThread0) const {
    Type i64 = rewriter.getI64Type();
    Value size = team.teamSize;
    Value isRank0 =
        LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, team.rank,
                             i32Constant(rewriter, loc, 0));
    Value leaderAdd = LLVM::SubOp::create(
        rewriter, loc, i32Constant(rewriter, loc, kBarrierPhaseBit + 1), size);
    Value add = LLVM::SelectOp::create(rewriter, loc, isRank0, leaderAdd,
                                       i32Constant(rewriter, loc, 1));
    // Peers rank+1 .. rank+P-1, spread over the threads so that their
    // releases run in parallel and each peer is reached in a different
    // order.
    Value size64 = LLVM::ZExtOp::create(rewriter, loc, i64, size);
    Value rank64 = LLVM::ZExtOp::create(rewriter, loc, i64, team.rank);
    Value first =
        LLVM::AddOp::create(rewriter, loc, tid, i64Constant(rewriter, loc, 1));
    buildLoop(
        rewriter, loc, first, size64, nthreads, [&](OpBuilder &b, Value k) {
          // rank + k < 2 * size: wrap with one subtraction.
          Value sum = LLVM::AddOp::create(b, loc, rank64, k);
          Value wraps = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::uge,
                                             sum, size64);
          Value peer = LLVM::SelectOp::create(
              b, loc, wraps, LLVM::SubOp::create(b, loc, sum, size64), sum);
          Value remote =
              offsetPointer(b, loc, teamCounter, peerDelta(b, loc, team, peer));
          inlinePtx(b, loc, {}, "red.release.sys.global.add.u32 [$0], $1;",
                    "l,r,~{memory}", {remote, add});
        });
    buildIf(rewriter, loc, isThread0, [&](OpBuilder &) {
      Value old = inlinePtx(rewriter, loc, rewriter.getI32Type(),
                            "atom.release.sys.global.add.u32 $0, [$1], $2;",
                            "=r,l,r,~{memory}", {teamCounter, add});
      buildPhaseSpin(rewriter, loc, op, team, teamCounter, old, "team counter");
    });
  }
};

/// "in kernel 'name' at loc" of `op`, for the messages of run-time traps.
std::string whereIs(Operation *op) {
  std::string location;
  llvm::raw_string_ostream os(location);
  op->getLoc().print(os);
  auto func = op->getParentOfType<FunctionOpInterface>();
  return ("in kernel '" + func.getName() + "' at " + location).str();
}

/// How a packet copy's data splits into packets: `words` packets in all,
/// one per 32-bit word or part of one; the first `whole` carry a whole word,
/// and where `mayBePartial` the last one carries the data's last `spare` (1
/// to 3) bytes when `spare` is not 0. Where a size is dynamic, checks at
/// run time that there is one packet per word or part of one, or prints
/// both sizes and traps.
struct PacketSplit {
  Value words, whole, spare;
  bool mayBePartial = false;
};

PacketSplit packetSplit(ConversionPatternRewriter &rewriter, Location loc,
                        Operation *op, MemRefType dataType, Value data,
                        MemRefType packetsType, Value packets) {
  auto c = [&](int64_t v) { return i64Constant(rewriter, loc, v); };
  int64_t element = dataType.getElementTypeBitWidth() / 8;
  Value bytes = LLVM::MulOp::create(rewriter, loc,
                                    numElements(rewriter, loc, dataType, data),
                                    c(element));
  PacketSplit split;
  split.whole = LLVM::LShrOp::create(rewriter, loc, bytes, c(2));
  split.spare = LLVM::AndOp::create(rewriter, loc, bytes, c(3));
  split.words = LLVM::LShrOp::create(
      rewriter, loc, LLVM::AddOp::create(rewriter, loc, bytes, c(3)), c(2));
  // Elements of 4 or 8 bytes always fill whole words; static data of
  // smaller ones only where the verifier saw a partial last word.
  if (element < 4)
    split.mayBePartial = !dataType.hasStaticShape() ||
                         (dataType.getNumElements() * element) % 4 != 0;
  if (dataType.hasStaticShape() && packetsType.hasStaticShape())
    return split; // the verifier checked them
  Value count = numElements(rewriter, loc, packetsType, packets);
  Value match = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq,
                                     split.words, count);
  trapUnless(rewriter, loc, match,
             "weave: " + op->getName().stripDialect().str() + " " +
                 whereIs(op) +
                 ": %lu bytes of data for %lu packets (expected one packet "
                 "per 32-bit word or part of one)\n",
             {bytes, count});
  return split;
}

/// Where a packet copy's partial last word goes: to the scope's last
/// thread, before its whole words (the strided loop gives it no more of
/// them than the first thread, and a division to find the thread that would
/// take packet `whole` put a remainder on every thread's path, per copy).
Value ownsPartialWord(OpBuilder &b, Location loc, const PacketSplit &split,
                      Value index, Value count) {
  Value any = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne,
                                   split.spare, i64Constant(b, loc, 0));
  Value last = LLVM::ICmpOp::create(
      b, loc, LLVM::ICmpPredicate::eq, index,
      LLVM::SubOp::create(b, loc, count, i64Constant(b, loc, 1)));
  return LLVM::AndOp::create(b, loc, any, last);
}

/// `weave.read_packets` -> thread i of the scope spins on packets i, i +
/// count, ... of this device's buffer with `ld.relaxed.sys.global.u64`
/// until the high half equals the flag, then stores the low half as word i
/// of the target; the scope's last thread first reads a partial last word
/// and stores only the data's bytes of it. With a timeout, a spin that
/// lasts too long prints the packet, the flag and what it saw, and traps.
struct ReadPacketsOpLowering : public SpinningOpLowering<ReadPacketsOp> {
  using SpinningOpLowering::SpinningOpLowering;

  LogicalResult
  matchAndRewrite(ReadPacketsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<TeamArgs> team = getTeamArgs(op);
    if (failed(team))
      return rewriter.notifyMatchFailure(op, "not inside a weave kernel");
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    const LLVMTypeConverter &converter = *getTypeConverter();
    auto packetsType = cast<MemRefType>(op.getPackets().getType());
    auto targetType = cast<MemRefType>(op.getTarget().getType());
    Value packets = bufferAddress(rewriter, loc, converter, packetsType,
                                  adaptor.getPackets());
    Value target = bufferAddress(rewriter, loc, converter, targetType,
                                 adaptor.getTarget());
    PacketSplit split =
        packetSplit(rewriter, loc, op, targetType, adaptor.getTarget(),
                    packetsType, adaptor.getPackets());
    unsigned element = targetType.getElementTypeBitWidth() / 8;
    Value flag = adaptor.getFlag();
    CopyThreads threads = copyThreads(rewriter, loc, op.getScope());
    // Packet i, once its flag is `flag`.
    auto spinOn = [&](Value i) -> Value {
      Value at = LLVM::GEPOp::create(rewriter, loc, packets.getType(), i64,
                                     packets, ValueRange{i});
      auto flagOf = [&](OpBuilder &b, Value packet) -> Value {
        return LLVM::TruncOp::create(
            b, loc, i32,
            LLVM::LShrOp::create(b, loc, packet, i64Constant(b, loc, 32)));
      };
      return buildSpin(
          rewriter, loc, op, *team, at, timeoutNs,
          [&](OpBuilder &b, Value observed) -> Value {
            return LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq,
                                        flagOf(b, observed), flag);
          },
          [&](OpBuilder &b, Value observed) {
            return SpinReport{"read_packets",
                              "packet %lu expected flag %u, observed %u",
                              {i, flag, flagOf(b, observed)}};
          },
          [&](OpBuilder &b) {
            return inlinePtx(b, loc, i64, "ld.relaxed.sys.global.u64 $0, [$1];",
                             "=l,l,~{memory}", {at});
          });
    };
    // The partial last word: only its data's elements are stored (the
    // rest of the word is another buffer's, or outside the target).
    if (split.mayBePartial)
      buildIf(rewriter, loc,
              ownsPartialWord(rewriter, loc, split, threads.index,
                              threads.count),
              [&](OpBuilder &) {
                Value packet = spinOn(split.whole);
                Type elementType = rewriter.getIntegerType(element * 8);
                Value base = LLVM::GEPOp::create(
                    rewriter, loc, target.getType(), i32, target,
                    ValueRange{split.whole});
                for (unsigned e = 0; e < 3 / element; ++e) {
                  auto store = [&](OpBuilder &) {
                    Value bits = packet, to = base;
                    if (e > 0) {
                      bits = LLVM::LShrOp::create(
                          rewriter, loc, packet,
                          i64Constant(rewriter, loc, 8 * e * element));
                      to = LLVM::GEPOp::create(
                          rewriter, loc, target.getType(), elementType, base,
                          ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(e)});
                    }
                    LLVM::StoreOp::create(
                        rewriter, loc,
                        LLVM::TruncOp::create(rewriter, loc, elementType, bits),
                        to, element);
                  };
                  // The first element is always there (spare > 0).
                  if (e == 0) {
                    store(rewriter);
                    continue;
                  }
                  buildIf(rewriter, loc,
                          LLVM::ICmpOp::create(
                              rewriter, loc, LLVM::ICmpPredicate::ugt,
                              split.spare,
                              i64Constant(rewriter, loc, e * element)),
                          store);
                }
              });
    buildLoop(rewriter, loc, threads.index, split.whole, threads.count,
              [&](OpBuilder &, Value i) {
                Value word =
                    LLVM::TruncOp::create(rewriter, loc, i32, spinOn(i));
                Value to = LLVM::GEPOp::create(rewriter, loc, target.getType(),
                                               i32, target, ValueRange{i});
                storePacketWord(rewriter, loc, word, to, target, element);
              });
    rewriter.eraseOp(op);
    return success();
  }
};

/// `weave.put` / `weave.get` -> the cooperating threads (see CopyThreads)
/// copy elements `index, index + count, ...` between local and peer memory:
/// a scalar head up to the target's first 16-byte boundary, 16-byte
/// vectors, and a scalar tail. Addresses equally aligned modulo 16 copy
/// vectors with 16-byte loads and stores; a put of whole elements at unequal
/// alignments stores 16-byte vectors to the peer from five aligned 32-bit
/// loads of its source each, funnel-shifted into place. Otherwise (a get of
/// unequal alignments, or an element size that does not divide 16) the head
/// is empty, there are no vectors and the tail is the whole copy. With a
/// signal: a barrier of the
/// cooperating threads, then the first of them does `fence.acq_rel.sys` and
/// `red.release.sys.global.add.u32` on the counter where the data went.
template <typename OpTy>
struct OneSidedCopyLowering : public ConvertOpToLLVMPattern<OpTy> {
  using ConvertOpToLLVMPattern<OpTy>::ConvertOpToLLVMPattern;
  static constexpr bool kIsPut = std::is_same_v<OpTy, PutOp>;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<TeamArgs> team = getTeamArgs(op);
    if (failed(team))
      return rewriter.notifyMatchFailure(op, "not inside a weave kernel");
    if constexpr (kIsPut)
      if (adaptor.getPacketFlag())
        return lowerPutPackets(op, adaptor, rewriter, *team);
    Location loc = op.getLoc();
    Type i64 = rewriter.getI64Type();
    auto sourceType = cast<MemRefType>(op.getSource().getType());
    auto targetType = cast<MemRefType>(op.getTarget().getType());
    const LLVMTypeConverter &converter = *this->getTypeConverter();
    Type eltTy = converter.convertType(sourceType.getElementType());
    if (!eltTy)
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    // Both views are contiguous (verifier): base + offset is their first
    // element and one linear index walks both.
    Value source = bufferAddress(rewriter, loc, converter, sourceType,
                                 adaptor.getSource());
    Value target = bufferAddress(rewriter, loc, converter, targetType,
                                 adaptor.getTarget());
    Value delta = peerDelta(rewriter, loc, *team, adaptor.getDevice());
    if (kIsPut)
      target = offsetPointer(rewriter, loc, target, delta);
    else
      source = offsetPointer(rewriter, loc, source, delta);

    Value n = numElements(rewriter, loc, sourceType, adaptor.getSource());
    if (!sourceType.hasStaticShape() || !targetType.hasStaticShape()) {
      Value m = numElements(rewriter, loc, targetType, adaptor.getTarget());
      Value same =
          LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq, n, m);
      trapUnless(rewriter, loc, same,
                 copyMismatchMessage(op, kIsPut ? "put" : "get"), {n, m});
    }

    CopyThreads threads = copyThreads(rewriter, loc, op.getScope());
    auto copyElements = [&](Value lb, Value ub) {
      buildLoop(rewriter, loc, LLVM::AddOp::create(rewriter, loc, lb,
                                                   threads.index),
                ub, threads.count, [&](OpBuilder &b, Value i) {
                  Value from = LLVM::GEPOp::create(b, loc, source.getType(),
                                                   eltTy, source, ValueRange{i});
                  Value to = LLVM::GEPOp::create(b, loc, target.getType(),
                                                 eltTy, target, ValueRange{i});
                  Value data = LLVM::LoadOp::create(b, loc, eltTy, from);
                  LLVM::StoreOp::create(b, loc, data, to);
                });
    };

    // Only whole bytes of power-of-two sizes up to 16 tile a 16-byte vector
    // (an i24 is stored in 4 bytes, an i1 in one byte holding one bit).
    unsigned bits = sourceType.getElementTypeBitWidth();
    bool vectorizable = bits >= 8 && bits <= 128 && llvm::isPowerOf2_32(bits);
    if (!vectorizable) {
      copyElements(i64Constant(rewriter, loc, 0), n);
    } else {
      int64_t eltBytes = bits / 8, perVector = 16 / eltBytes;
      unsigned shift = llvm::Log2_64(eltBytes);
      auto c = [&](int64_t v) { return i64Constant(rewriter, loc, v); };
      Value from = LLVM::PtrToIntOp::create(rewriter, loc, i64, source);
      Value to = LLVM::PtrToIntOp::create(rewriter, loc, i64, target);
      Value diff = LLVM::XOrOp::create(rewriter, loc, from, to);
      Value fromMisaligned =
          LLVM::AndOp::create(rewriter, loc, from, c(eltBytes - 1));
      // 16-byte loads and stores need both addresses equal modulo 16 (and
      // element-aligned).
      Value equal = LLVM::ICmpOp::create(
          rewriter, loc, LLVM::ICmpPredicate::eq,
          LLVM::OrOp::create(
              rewriter, loc, LLVM::AndOp::create(rewriter, loc, diff, c(15)),
              fromMisaligned),
          c(0));
      // A put with unequal alignments still stores 16-byte vectors to the
      // peer (the NVLink side), from the head on, if both addresses hold
      // whole elements: each vector's bytes come from five aligned 32-bit
      // loads of the local source, shifted into place. Scalar stores of
      // 2-byte elements there moved a quarter of the bytes of the aligned
      // all-to-all-v (4 x H100, bf16, 19.5 MB: 323 us against NCCL's 182).
      // A get keeps the scalar copy (its loads cross NVLink).
      Value aligned = equal;
      if (kIsPut)
        aligned = LLVM::ICmpOp::create(
            rewriter, loc, LLVM::ICmpPredicate::eq,
            LLVM::OrOp::create(
                rewriter, loc, fromMisaligned,
                LLVM::AndOp::create(rewriter, loc, to, c(eltBytes - 1))),
            c(0));
      Value misalign = LLVM::AndOp::create(rewriter, loc, to, c(15));
      // Elements up to the target's next 16-byte boundary, at most n (the
      // source's too where both are equally aligned).
      Value headBytes = LLVM::AndOp::create(
          rewriter, loc, LLVM::SubOp::create(rewriter, loc, c(16), misalign),
          c(15));
      Value head = LLVM::UMinOp::create(
          rewriter, loc, LLVM::LShrOp::create(rewriter, loc, headBytes, c(shift)),
          n);
      head = LLVM::SelectOp::create(rewriter, loc, aligned, head, c(0));
      Value vectors = LLVM::UDivOp::create(
          rewriter, loc, LLVM::SubOp::create(rewriter, loc, n, head),
          c(perVector));
      vectors = LLVM::SelectOp::create(rewriter, loc, aligned, vectors, c(0));
      Value tail = LLVM::AddOp::create(
          rewriter, loc, head,
          LLVM::MulOp::create(rewriter, loc, vectors, c(perVector)));

      copyElements(c(0), head);
      auto vecTy = VectorType::get({4}, rewriter.getI32Type());
      Value vecSource = LLVM::GEPOp::create(rewriter, loc, source.getType(),
                                            eltTy, source, ValueRange{head});
      Value vecTarget = LLVM::GEPOp::create(rewriter, loc, target.getType(),
                                            eltTy, target, ValueRange{head});
      Value equalVectors = vectors;
      if (kIsPut)
        equalVectors =
            LLVM::SelectOp::create(rewriter, loc, equal, vectors, c(0));
      // Where every thread has kCopyVectorsInFlight vectors or more, it
      // loads that many an iteration before it stores any: one load, then
      // its store, per iteration waited a whole load latency each (the
      // store needs the data and the next load may not pass the store).
      // The later vectors past the end load the last vector again (a
      // clamped index: no load leaves the source) and are not stored.
      // Measured (4 x H100, D = 4, bf16, docs/PERF.md): the push
      // collectives 10-17% faster from 16 MB (push reduce-scatter 63 ->
      // 52 us at 16 MB, push all-reduce 966 -> 820 us at 64 MB), but up to
      // 8% slower at 256 KB-1 MB, where a thread has one or two vectors:
      // there the loop is the one-vector loop as before.
      Value step = LLVM::MulOp::create(rewriter, loc, threads.count,
                                       c(kCopyVectorsInFlight));
      Value lastVector = LLVM::SubOp::create(rewriter, loc, equalVectors, c(1));
      auto copyVector = [&](OpBuilder &b, Value iv) {
        Value vecFrom = LLVM::GEPOp::create(b, loc, vecSource.getType(), vecTy,
                                            vecSource, ValueRange{iv});
        Value vecTo = LLVM::GEPOp::create(b, loc, vecTarget.getType(), vecTy,
                                          vecTarget, ValueRange{iv});
        Value data =
            LLVM::LoadOp::create(b, loc, vecTy, vecFrom, /*alignment=*/16);
        LLVM::StoreOp::create(b, loc, data, vecTo, /*alignment=*/16);
      };
      auto inFlight = [&](OpBuilder &b, Value iv) {
        SmallVector<Value, kCopyVectorsInFlight> at, data;
        for (int64_t j = 0; j < kCopyVectorsInFlight; ++j) {
          Value v = j == 0 ? iv
                           : Value(LLVM::AddOp::create(
                                 b, loc, iv,
                                 LLVM::MulOp::create(b, loc, threads.count,
                                                     c(j))));
          at.push_back(v);
          Value from = LLVM::GEPOp::create(
              b, loc, vecSource.getType(), vecTy, vecSource,
              ValueRange{j == 0 ? v
                                : Value(LLVM::UMinOp::create(b, loc, v,
                                                             lastVector))});
          data.push_back(
              LLVM::LoadOp::create(b, loc, vecTy, from, /*alignment=*/16));
        }
        for (int64_t j = 0; j < kCopyVectorsInFlight; ++j) {
          auto store = [&, j](OpBuilder &) {
            Value to = LLVM::GEPOp::create(rewriter, loc, vecTarget.getType(),
                                           vecTy, vecTarget, ValueRange{at[j]});
            LLVM::StoreOp::create(rewriter, loc, data[j], to,
                                  /*alignment=*/16);
          };
          if (j == 0) {
            store(rewriter);
            continue;
          }
          buildIf(rewriter, loc,
                  LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ult,
                                       at[j], equalVectors),
                  store);
        }
      };
      Value many = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::uge,
                                        equalVectors, step);
      buildIfElse(
          rewriter, loc, many,
          [&](OpBuilder &) {
            buildLoop(rewriter, loc, threads.index, equalVectors, step,
                      inFlight);
          },
          [&](OpBuilder &) {
            buildLoop(rewriter, loc, threads.index, equalVectors,
                      threads.count, copyVector);
          });
      if (kIsPut) {
        // Unequal alignments: vector v's 16 bytes start r = (source + head)
        // mod 4 bytes into word 0 of the 32-bit words at (source + head) & ~3
        // + 16 v; result word k = fshr(word k + 1, word k, 8 r). Word 4 is
        // loaded only where r > 0 (otherwise word 3 again, unused): it then
        // holds the vector's last bytes, so no load leaves the source's
        // words.
        Type i32 = rewriter.getI32Type();
        Value skewed = LLVM::SelectOp::create(rewriter, loc, equal, c(0),
                                              vectors);
        Value start = LLVM::PtrToIntOp::create(rewriter, loc, i64, vecSource);
        Value skew = LLVM::AndOp::create(rewriter, loc, start, c(3));
        Value words = LLVM::GEPOp::create(
            rewriter, loc, source.getType(), rewriter.getI8Type(), vecSource,
            ValueRange{LLVM::SubOp::create(rewriter, loc, c(0), skew)});
        Value bitsOff = LLVM::TruncOp::create(
            rewriter, loc, i32,
            LLVM::ShlOp::create(rewriter, loc, skew, c(3)));
        Value lastWord = LLVM::SelectOp::create(
            rewriter, loc,
            LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ne, skew,
                                 c(0)),
            c(4), c(3));
        buildLoop(rewriter, loc, threads.index, skewed, threads.count,
                  [&](OpBuilder &b, Value iv) {
                    Value first =
                        LLVM::MulOp::create(b, loc, iv, i64Constant(b, loc, 4));
                    Value w[5];
                    for (int k = 0; k < 5; ++k) {
                      Value at = LLVM::AddOp::create(
                          b, loc, first, k < 4 ? i64Constant(b, loc, k) : lastWord);
                      Value ptr = LLVM::GEPOp::create(b, loc, words.getType(),
                                                      i32, words,
                                                      ValueRange{at});
                      w[k] = LLVM::LoadOp::create(b, loc, i32, ptr,
                                                  /*alignment=*/4);
                    }
                    Value data = LLVM::UndefOp::create(b, loc, vecTy);
                    for (int k = 0; k < 4; ++k) {
                      Value word = LLVM::FshrOp::create(b, loc, i32, w[k + 1],
                                                        w[k], bitsOff);
                      data = LLVM::InsertElementOp::create(
                          b, loc, data, word,
                          i32Constant(b, loc, k));
                    }
                    Value vecTo = LLVM::GEPOp::create(
                        b, loc, vecTarget.getType(), vecTy, vecTarget,
                        ValueRange{iv});
                    LLVM::StoreOp::create(b, loc, data, vecTo,
                                          /*alignment=*/16);
                  });
      }
      copyElements(tail, n);
    }

    if (Value signal = adaptor.getSignal()) {
      // Every cooperating thread's stores happen before the barrier, and
      // the barrier before the leader's system-scope fence and release.
      if (op.getScope() == CopyScope::Block)
        NVVM::Barrier0Op::create(rewriter, loc);
      else if (op.getScope() == CopyScope::Warp)
        NVVM::SyncWarpOp::create(rewriter, loc, threads.warpMask);
      Value index = adaptor.getSignalIndex() ? adaptor.getSignalIndex()
                                             : i64Constant(rewriter, loc, 0);
      Value value = adaptor.getSignalValue();
      auto emitSignal = [&](OpBuilder &b) {
        Value counter =
            LLVM::GEPOp::create(b, loc, signal.getType(), b.getI32Type(),
                                signal, ValueRange{index});
        if (kIsPut)
          counter = offsetPointer(b, loc, counter, delta);
        inlinePtx(b, loc, {}, "fence.acq_rel.sys;", "~{memory}", {});
        inlinePtx(b, loc, {}, "red.release.sys.global.add.u32 [$0], $1;",
                  "l,r,~{memory}", {counter, value});
      };
      if (op.getScope() == CopyScope::Thread) {
        emitSignal(rewriter);
      } else {
        Value leader =
            LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq,
                                 threads.index, i64Constant(rewriter, loc, 0));
        buildIf(rewriter, loc, leader, emitSignal);
      }
    }
    rewriter.eraseOp(op);
    return success();
  }

private:
  /// `weave.put ... packets(%flag)`: thread i of the scope stores packets
  /// i, i + count, ...: word w of the source as `(flag << 32) | w`, with
  /// one `st.relaxed.sys.global.u64` on the peer's packet buffer. The
  /// scope's last thread first sends a partial last word (1-3 bytes of
  /// data), padded with zeros.
  LogicalResult lowerPutPackets(OpTy op, typename OpTy::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter,
                                const TeamArgs &team) const {
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    const LLVMTypeConverter &converter = *this->getTypeConverter();
    auto sourceType = cast<MemRefType>(op.getSource().getType());
    auto targetType = cast<MemRefType>(op.getTarget().getType());
    Value source = bufferAddress(rewriter, loc, converter, sourceType,
                                 adaptor.getSource());
    Value packets = offsetPointer(
        rewriter, loc,
        bufferAddress(rewriter, loc, converter, targetType,
                      adaptor.getTarget()),
        peerDelta(rewriter, loc, team, adaptor.getDevice()));
    PacketSplit split =
        packetSplit(rewriter, loc, op, sourceType, adaptor.getSource(),
                    targetType, adaptor.getTarget());
    unsigned element = sourceType.getElementTypeBitWidth() / 8;
    unsigned align = std::min(4u, element);
    Value flag = LLVM::ShlOp::create(
        rewriter, loc, LLVM::ZExtOp::create(rewriter, loc, i64,
                                            adaptor.getPacketFlag()),
        i64Constant(rewriter, loc, 32));
    // Stores `(flag << 32) | word` as packet i.
    auto send = [&](OpBuilder &b, Value i, Value word) {
      Value packet = LLVM::OrOp::create(
          b, loc, LLVM::ZExtOp::create(b, loc, i64, word), flag);
      Value to = LLVM::GEPOp::create(b, loc, packets.getType(), i64, packets,
                                     ValueRange{i});
      inlinePtx(b, loc, {}, "st.relaxed.sys.global.u64 [$0], $1;",
                "l,l,~{memory}", {to, packet});
    };
    CopyThreads threads = copyThreads(rewriter, loc, op.getScope());
    // The partial last word: the data's last 1-3 bytes in its low bytes,
    // zeros above (loading a whole word would read past the source). An
    // element that is not there is loaded from the first one's address
    // (always there) and dropped, so the word needs no branch.
    if (split.mayBePartial)
      buildIf(rewriter, loc,
              ownsPartialWord(rewriter, loc, split, threads.index,
                              threads.count),
              [&](OpBuilder &) {
                Type elementType = rewriter.getIntegerType(element * 8);
                Value base = LLVM::GEPOp::create(
                    rewriter, loc, source.getType(), i32, source,
                    ValueRange{split.whole});
                Value word;
                for (unsigned e = 0; e < 3 / element; ++e) {
                  Value at = base, there;
                  if (e > 0) {
                    at = LLVM::GEPOp::create(
                        rewriter, loc, source.getType(), elementType, base,
                        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(e)});
                    there = LLVM::ICmpOp::create(
                        rewriter, loc, LLVM::ICmpPredicate::ugt, split.spare,
                        i64Constant(rewriter, loc, e * element));
                    at = LLVM::SelectOp::create(rewriter, loc, there, at, base);
                  }
                  Value value = LLVM::ZExtOp::create(
                      rewriter, loc, i32,
                      LLVM::LoadOp::create(rewriter, loc, elementType, at,
                                           element));
                  if (there)
                    value = LLVM::SelectOp::create(
                        rewriter, loc, there, value,
                        i32Constant(rewriter, loc, 0));
                  word = e == 0 ? value
                                : LLVM::OrOp::create(
                                      rewriter, loc, word,
                                      LLVM::ShlOp::create(
                                          rewriter, loc, value,
                                          i32Constant(rewriter, loc,
                                                      8 * e * element)));
                }
                send(rewriter, split.whole, word);
              });
    // The words' loads keep the element's alignment (two 16-bit loads for
    // bf16, issued back to back) even where the source is 4-byte aligned: a
    // branch to a 32-bit load, as storePacketWord has, cost ll_all_to_all_v
    // (bf16, D = 4) 0.2-0.4 us, and with it LLVM no longer unrolled the
    // kernel's loop over its peers (the arm took the loop past the
    // full-unroll threshold); docs/PERF.md, issue #30, seventh session.
    buildLoop(rewriter, loc, threads.index, split.whole, threads.count,
              [&](OpBuilder &b, Value i) {
                Value from = LLVM::GEPOp::create(b, loc, source.getType(), i32,
                                                 source, ValueRange{i});
                send(b, i, LLVM::LoadOp::create(b, loc, i32, from, align));
              });
    rewriter.eraseOp(op);
    return success();
  }

  /// What a copy whose run-time element counts differ prints before it
  /// traps.
  static std::string copyMismatchMessage(OpTy op, StringRef name) {
    std::string location;
    llvm::raw_string_ostream os(location);
    op.getLoc().print(os);
    auto func = op->template getParentOfType<FunctionOpInterface>();
    return ("weave: " + name + " in kernel '" + func.getName() + "' at " +
            location +
            ": the source has %lu elements and the target %lu\n")
        .str();
  }
};

/// `weave.atomic_add` -> `red.relaxed.sys.global.add.f32` (or
/// `.add.noftz.f16x2` / `.bf16x2` for a pair) on the element's address,
/// moved to `device` when given.
struct AtomicAddOpLowering : public ConvertOpToLLVMPattern<AtomicAddOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(AtomicAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<MemRefType>(op.getBuffer().getType());
    Value ptr = getStridedElementPtr(rewriter, loc, type, adaptor.getBuffer(),
                                     adaptor.getIndices());
    if (adaptor.getDevice()) {
      FailureOr<TeamArgs> team = getTeamArgs(op);
      if (failed(team))
        return rewriter.notifyMatchFailure(op, "not inside a weave kernel");
      ptr = offsetPointer(rewriter, loc, ptr,
                          peerDelta(rewriter, loc, *team, adaptor.getDevice()));
    }
    // The verifier admits the dtypes whose table row has an atomic add; the
    // PTX type is the dtype's name (f32; f16x2, bf16x2 for a pair).
    const DTypeTraits *traits = getDTypeTraits(type.getElementType());
    if (!traits || traits->atomicAdd == ::weave::AtomicAddForm::None)
      return rewriter.notifyMatchFailure(op, "no atomic add of this type");
    std::string name = traits->name;
    Value value = adaptor.getValue();
    if (traits->atomicAdd == ::weave::AtomicAddForm::Scalar) {
      inlinePtx(rewriter, loc, {},
                "red.relaxed.sys.global.add." + name + " [$0], $1;",
                traits->bytes == 8 ? "l,d,~{memory}" : "l,f,~{memory}",
                {ptr, value});
    } else {
      // The pair travels in one 32-bit register.
      Value bits =
          LLVM::BitcastOp::create(rewriter, loc, rewriter.getI32Type(), value);
      inlinePtx(rewriter, loc, {},
                "red.relaxed.sys.global.add.noftz." + name + "x2 [$0], $1;",
                "l,r,~{memory}", {ptr, bits});
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// `weave.prefetch_l2` -> `cp.async.bulk.prefetch.L2.global` of the
/// element's address (this device's copy), in the global address space.
struct PrefetchL2OpLowering : public ConvertOpToLLVMPattern<PrefetchL2Op> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(PrefetchL2Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<MemRefType>(op.getBuffer().getType());
    Value ptr = getStridedElementPtr(rewriter, loc, type, adaptor.getBuffer(),
                                     adaptor.getIndices());
    auto global = LLVM::LLVMPointerType::get(rewriter.getContext(), 1);
    if (ptr.getType() != global)
      ptr = LLVM::AddrSpaceCastOp::create(rewriter, loc, global, ptr);
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkPrefetchOp>(
        op, ptr, adaptor.getBytes(), /*l2CacheHint=*/Value());
    return success();
  }
};

/// `weave.wait_smem_to_gmem` -> `cp.async.bulk.wait_group[.read] N`.
struct WaitSmemToGmemOpLowering
    : public ConvertOpToLLVMPattern<WaitSmemToGmemOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(WaitSmemToGmemOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkWaitGroupOp>(
        op, op.getPendingAttr(),
        op.getReadOnly() ? rewriter.getUnitAttr() : UnitAttr());
    return success();
  }
};

/// The tensor-map parameter the ABI gave a TMA op (see materializeKernelAbi),
/// or null before the ABI is materialized.
Value tensorMapArgument(Operation *op) {
  auto tmaArg = op->getAttrOfType<IntegerAttr>(kTmaArgAttrName);
  auto func = op->getParentOfType<FunctionOpInterface>();
  if (!tmaArg || !func)
    return Value();
  return func.getFunctionBody().front().getArgument(tmaArg.getInt());
}

/// The tensor map of a store `on %device` whose parameter is a per-member
/// table (TmaTable, a global pointer): entry `device` of the table, after the
/// proxy fence that orders the host's write of the table (generic proxy)
/// before this thread's TMA reads it (tensormap proxy), at system scope
/// because the host wrote it. Any other parameter is returned as it is.
Value tensorMapOfDevice(OpBuilder &b, Location loc, Value descriptor,
                        Value device) {
  auto type = dyn_cast<LLVM::LLVMPointerType>(descriptor.getType());
  if (!type || type.getAddressSpace() != kGlobalAddressSpace)
    return descriptor;
  Value offset = LLVM::MulOp::create(
      b, loc, device,
      LLVM::ConstantOp::create(b, loc, device.getType(),
                               b.getIntegerAttr(device.getType(),
                                                ::weave::abi::kTmaTableEntryBytes)));
  Value entry = LLVM::GEPOp::create(b, loc, type, b.getI8Type(), descriptor,
                                    ValueRange{offset});
  Value generic = LLVM::AddrSpaceCastOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), entry);
  Value bytes = LLVM::ConstantOp::create(
      b, loc, b.getI32Type(),
      b.getI32IntegerAttr(::weave::abi::kTmaTableEntryBytes));
  NVVM::FenceProxyAcquireOp::create(b, loc, NVVM::MemScopeKind::SYS, generic,
                                    bytes);
  return generic;
}

/// Tensor map coordinates: innermost first, in elements, as i32. TMA
/// coordinates are signed 32-bit: an index outside that range is clamped to
/// INT32_MIN / INT32_MAX, where a box (at most 256 elements a side) lies
/// wholly outside a tensor map's dimension (the runtime encodes dims of at
/// most 2^31 - 1), so it is clipped as any out-of-bounds box is. (Truncated,
/// row 2^32 + 5 stored to row 5.)
/// An op marked weave.coordinates_in_range (its builder derived them from
/// the tensor's extents) keeps them unclamped (TmaCoordinates.h).
SmallVector<Value> tensorMapCoordinates(OpBuilder &b, Location loc,
                                        ValueRange indices, Operation *op) {
  bool inRange = op->hasAttr(kCoordinatesInRangeAttrName);
  SmallVector<Value> coordinates;
  for (Value index : llvm::reverse(indices)) {
    Type type = index.getType();
    if (type.getIntOrFloatBitWidth() > 32 && !inRange) {
      auto bound = [&](int64_t value) {
        return LLVM::ConstantOp::create(b, loc, type,
                                        b.getIntegerAttr(type, value));
      };
      index = LLVM::SMinOp::create(b, loc, index, bound(INT32_MAX));
      index = LLVM::SMaxOp::create(b, loc, index, bound(INT32_MIN));
    }
    coordinates.push_back(LLVM::TruncOp::create(b, loc, b.getI32Type(), index));
  }
  return coordinates;
}

/// The 64-bit L2 cache policy of a TMA copy's `l2(...)`, or no value. The
/// constants are what `createpolicy.fractional.L2::evict_first.b64.f32` (or
/// `evict_last`) gives for a fraction of 1.0 (CUTLASS's CacheHintSm90 uses
/// the same): one immediate instead of an instruction per copy.
static Value l2CachePolicy(OpBuilder &b, Location loc,
                           std::optional<L2Policy> policy) {
  if (!policy)
    return Value();
  uint64_t bits = *policy == L2Policy::EvictFirst ? 0x12F0000000000000ull
                                                  : 0x14F0000000000000ull;
  return LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                  b.getI64IntegerAttr(int64_t(bits)));
}

/// `weave.copy_smem_to_gmem` -> `cp.async.bulk.tensor` (`reduce(...)`:
/// `cp.reduce.async.bulk.tensor`) through the tensor map parameter the ABI
/// gave it (a peer view for `on %device`), then
/// `cp.async.bulk.commit_group`.
struct CopySmemToGmemOpLowering
    : public ConvertOpToLLVMPattern<CopySmemToGmemOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(CopySmemToGmemOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value descriptor = tensorMapArgument(op);
    if (!descriptor)
      return rewriter.notifyMatchFailure(op, "no tensor map parameter");
    Location loc = op.getLoc();
    if (adaptor.getDevice())
      descriptor =
          tensorMapOfDevice(rewriter, loc, descriptor, adaptor.getDevice());
    auto sourceType = cast<MemRefType>(op.getSource().getType());
    Value tile = bufferAddress(rewriter, loc, *getTypeConverter(), sourceType,
                               adaptor.getSource());
    SmallVector<Value> coordinates =
        tensorMapCoordinates(rewriter, loc, adaptor.getIndices(), op);
    Value policy = l2CachePolicy(rewriter, loc, op.getL2());
    if (std::optional<TmaReduceKind> reduce = op.getReduce()) {
      NVVM::TMAReduxKind kind = *reduce == TmaReduceKind::Add
                                    ? NVVM::TMAReduxKind::ADD
                                : *reduce == TmaReduceKind::Min
                                    ? NVVM::TMAReduxKind::MIN
                                    : NVVM::TMAReduxKind::MAX;
      NVVM::CpAsyncBulkTensorReduceOp::create(
          rewriter, loc, descriptor, tile,
          NVVM::TMAReduxKindAttr::get(rewriter.getContext(), kind),
          NVVM::TMAStoreModeAttr::get(rewriter.getContext(),
                                      NVVM::TMAStoreMode::TILE),
          coordinates, /*l2CacheHint=*/policy);
    } else {
      NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
          rewriter, loc, descriptor, tile, coordinates,
          /*l2CacheHint=*/policy, NVVM::TMAStoreMode::TILE,
          /*predicate=*/Value());
    }
    NVVM::CpAsyncBulkCommitGroupOp::create(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

/// `weave.copy_gmem_to_smem` -> `cp.async.bulk.tensor` (global to shared,
/// completing on the mbarrier, `.multicast::cluster` with a mask) through
/// the tensor map parameter the ABI gave it.
struct CopyGmemToSmemOpLowering
    : public ConvertOpToLLVMPattern<CopyGmemToSmemOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(CopyGmemToSmemOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value descriptor = tensorMapArgument(op);
    if (!descriptor)
      return rewriter.notifyMatchFailure(op, "no tensor map parameter");
    Location loc = op.getLoc();
    if (adaptor.getDevice())
      descriptor =
          tensorMapOfDevice(rewriter, loc, descriptor, adaptor.getDevice());
    Value tile = bufferAddress(rewriter, loc, *getTypeConverter(),
                               cast<MemRefType>(op.getTarget().getType()),
                               adaptor.getTarget());
    Value barrier = bufferAddress(rewriter, loc, *getTypeConverter(),
                                  cast<MemRefType>(op.getBarrier().getType()),
                                  adaptor.getBarrier());
    // The destination operand is a shared::cluster address; this CTA's
    // shared memory is part of that window.
    tile = LLVM::AddrSpaceCastOp::create(
        rewriter, loc,
        LLVM::LLVMPointerType::get(rewriter.getContext(),
                                   static_cast<unsigned>(
                                       NVVM::NVVMMemorySpace::SharedCluster)),
        tile);
    SmallVector<Value> coordinates =
        tensorMapCoordinates(rewriter, loc, adaptor.getIndices(), op);
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        rewriter, loc, tile, descriptor, coordinates, barrier,
        /*im2colOffsets=*/ValueRange{}, adaptor.getMulticastMask(),
        /*l2CacheHint=*/l2CachePolicy(rewriter, loc, op.getL2()),
        NVVM::TMALoadMode::TILE, /*isCTAOnly=*/false,
        /*group=*/NVVM::CTAGroupKindAttr(), /*predicate=*/Value());
    rewriter.eraseOp(op);
    return success();
  }
};

/// Ops that must be gone before this conversion: report them clearly
/// instead of a generic "failed to legalize".
template <typename OpTy>
struct UnsupportedOpLowering : public ConvertOpToLLVMPattern<OpTy> {
  UnsupportedOpLowering(const LLVMTypeConverter &converter, StringRef reason)
      : ConvertOpToLLVMPattern<OpTy>(converter), reason(reason.str()) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    return op.emitOpError() << reason;
  }

private:
  std::string reason;
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// `a * b` for index sizes and strides, folded while both are constants.
OpFoldResult mulSizes(OpBuilder &b, Location loc, OpFoldResult lhs,
                      OpFoldResult rhs) {
  std::optional<int64_t> x = getConstantIntValue(lhs);
  std::optional<int64_t> y = getConstantIntValue(rhs);
  if (x && y)
    return b.getIndexAttr(*x * *y);
  auto value = [&](OpFoldResult v) -> Value {
    if (auto attr = dyn_cast<Attribute>(v))
      return arith::ConstantIndexOp::create(
          b, loc, cast<IntegerAttr>(attr).getInt());
    return cast<Value>(v);
  };
  return arith::MulIOp::create(b, loc, value(lhs), value(rhs)).getResult();
}

/// The bare-pointer calling convention passes only a memref's pointer, so
/// a memref argument with dynamic dimensions cannot cross it: it becomes a
/// pointer (`memref<1xT>`, its space kept) and the kernel's memref is
/// rebuilt at entry with `memref.reinterpret_cast` from it and the Dim
/// parameters (row-major, offset 0), so memref.dim, subviews and the copies
/// read the launch sizes.
void rebuildDynamicMemRefs(gpu::GPUFuncOp func, const KernelAbi &abi) {
  Block &entry = func.getBody().front();
  llvm::DenseMap<std::pair<unsigned, unsigned>, Value> dimArgs;
  for (auto [index, param] : llvm::enumerate(abi.params))
    if (param.kind == ::weave::abi::ParamKind::Dim)
      dimArgs[{param.dim.sourceParam, param.dim.axis}] =
          entry.getArgument(index);
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  SmallVector<Type> inputs(func.getArgumentTypes());
  bool changed = false;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    BlockArgument arg = func.getArgument(i);
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type || type.hasStaticShape())
      continue;
    Location loc = arg.getLoc();
    auto bare = MemRefType::get({1}, type.getElementType(),
                                MemRefLayoutAttrInterface(),
                                type.getMemorySpace());
    arg.setType(bare);
    inputs[i] = bare;
    changed = true;
    int64_t rank = type.getRank();
    SmallVector<OpFoldResult> sizes(rank), strides(rank);
    OpFoldResult stride = b.getIndexAttr(1);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (type.isDynamicDim(d))
        sizes[d] = arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                              dimArgs.lookup({i, d}))
                       .getResult();
      else
        sizes[d] = b.getIndexAttr(type.getDimSize(d));
      strides[d] = stride;
      if (d > 0)
        stride = mulSizes(b, loc, stride, sizes[d]);
    }
    auto view = memref::ReinterpretCastOp::create(
        b, loc, type, arg, b.getIndexAttr(0), sizes, strides);
    arg.replaceAllUsesExcept(view.getResult(), view);
  }
  if (changed)
    func.setType(FunctionType::get(func.getContext(), inputs,
                                   func.getResultTypes()));
}

/// Appends the team parameters to a weave kernel and replaces its
/// `#weave.kernel` attribute with what the upstream lowering understands.
LogicalResult materializeKernelAbi(gpu::GPUFuncOp func) {
  auto kernel =
      func->getAttrOfType<KernelAttr>(WeaveDialect::getKernelAttrName());
  llvm::DenseMap<Operation *, unsigned> tmaOf;
  FailureOr<KernelAbi> abi = computeKernelAbi(func, &tmaOf);
  if (failed(abi))
    return failure();
  MLIRContext *ctx = func.getContext();
  Builder b(ctx);
  Type i32 = b.getI32Type();
  Type globalPtr = LLVM::LLVMPointerType::get(ctx, kGlobalAddressSpace);
  Type genericPtr = LLVM::LLVMPointerType::get(ctx);
  unsigned first = func.getNumArguments();
  SmallVector<unsigned> indices;
  SmallVector<Type> types = {i32, i32, globalPtr};
  SmallVector<DictionaryAttr> attrs(3, DictionaryAttr::get(ctx));
  // Tensor maps: 128-byte grid-constant parameters passed by value.
  DictionaryAttr tmaAttrs = b.getDictionaryAttr(
      {b.getNamedAttr("llvm.byval",
                      TypeAttr::get(LLVM::LLVMArrayType::get(
                          b.getIntegerType(8), ::weave::abi::kTmaParamBytes))),
       b.getNamedAttr("llvm.align",
                      b.getI64IntegerAttr(::weave::abi::kTmaParamAlign)),
       b.getNamedAttr("nvvm.grid_constant", b.getUnitAttr())});
  // Then the sizes of the dynamic dimensions (i64), then the tensor maps.
  unsigned firstTma = first + 3;
  for (size_t i = first + 3; i < abi->params.size(); ++i) {
    if (abi->params[i].kind == ::weave::abi::ParamKind::Dim) {
      types.push_back(b.getI64Type());
      attrs.push_back(DictionaryAttr::get(ctx));
      ++firstTma;
      continue;
    }
    // A per-member table is a plain pointer to global memory; a tensor map
    // is passed by value.
    if (abi->params[i].kind == ::weave::abi::ParamKind::TmaTable) {
      types.push_back(globalPtr);
      attrs.push_back(DictionaryAttr::get(ctx));
      continue;
    }
    types.push_back(genericPtr);
    attrs.push_back(tmaAttrs);
  }
  indices.assign(types.size(), first);
  SmallVector<Location> locs(types.size(), func.getLoc());
  if (failed(func.insertArguments(indices, types, attrs, locs)))
    return func.emitError("cannot append the team parameters");
  rebuildDynamicMemRefs(func, *abi);
  bool bulkStores = false, bulkLoads = false;
  for (auto [op, index] : tmaOf) {
    op->setAttr(kTmaArgAttrName, b.getI64IntegerAttr(index));
    bulkStores |= isa<CopySmemToGmemOp>(op);
    bulkLoads |= isa<CopyGmemToSmemOp>(op);
  }
  func.walk([&](Operation *op) {
    if ((bulkStores && isa<SemaphoreSignalOp>(op)) ||
        (bulkLoads && isa<SemaphoreWaitOp>(op)) ||
        ((bulkStores || bulkLoads) && isa<BarrierOp>(op)))
      op->setAttr(kAsyncProxyFenceAttrName, b.getUnitAttr());
  });
  func->setAttr(kTeamArgsAttrName, b.getI64IntegerAttr(first));
  func->setAttr(kTmaArgsAttrName, b.getI64IntegerAttr(firstTma));
  func.setKnownBlockSizeAttr(DenseI32ArrayAttr::get(ctx, kernel.getBlock()));
  func->removeAttr(WeaveDialect::getKernelAttrName());
  // Recorded in the manifest (computeKernelAbi); the cubin does not need
  // them.
  func->removeAttr(kVariantAttrName);
  func->removeAttr(kEqualDimsAttrName);
  return success();
}

struct ConvertWeaveToNVVMPass
    : public mlir::weave::impl::ConvertWeaveToNVVMPassBase<ConvertWeaveToNVVMPass> {
  using Base::Base;

  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();

    for (auto func : module.getOps<gpu::GPUFuncOp>())
      if (func->hasAttr(WeaveDialect::getKernelAttrName()) &&
          failed(materializeKernelAbi(func)))
        return signalPassFailure();

    LowerToLLVMOptions options(
        ctx, DataLayout(cast<DataLayoutOpInterface>(module.getOperation())));
    options.useBarePtrCallConv = true;
    LLVMTypeConverter converter(ctx, options);
    configureGpuToNVVMTypeConverter(converter);
    populateWeaveToNVVMTypeConversions(converter);

    RewritePatternSet patterns(ctx);
    LLVMConversionTarget target(*ctx);
    configureGpuToNVVMConversionLegality(target);
    target.addIllegalDialect<WeaveDialect>();

    populateWeaveToNVVMConversionPatterns(converter, patterns, waitTimeoutNs);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    populateFuncToLLVMConversionPatterns(converter, patterns);
    index::populateIndexToLLVMConversionPatterns(converter, patterns);
    populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns);
    populateVectorToLLVMConversionPatterns(converter, patterns);
    populateNVGPUToNVVMConversionPatterns(converter, patterns);
    populateGpuToNVVMConversionPatterns(converter, patterns);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    // The gpu.func lowering keeps only some argument attributes: give the
    // tensor map parameters (after the team and dim parameters) back their
    // by-value, grid-constant passing.
    module.walk([](LLVM::LLVMFuncOp func) {
      auto first = func->getAttrOfType<IntegerAttr>(kTmaArgsAttrName);
      if (!first)
        return;
      Builder b(func.getContext());
      auto bytes = LLVM::LLVMArrayType::get(b.getIntegerType(8),
                                            ::weave::abi::kTmaParamBytes);
      for (unsigned i = first.getInt(); i < func.getNumArguments(); ++i) {
        // Per-member tables (global pointers) stay plain pointers.
        auto type = dyn_cast<LLVM::LLVMPointerType>(
            func.getFunctionType().getParamType(i));
        if (type && type.getAddressSpace() == kGlobalAddressSpace)
          continue;
        func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                        TypeAttr::get(bytes));
        func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                        b.getI64IntegerAttr(::weave::abi::kTmaParamAlign));
        func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                        b.getUnitAttr());
      }
      func->removeAttr(kTeamArgsAttrName);
      func->removeAttr(kTmaArgsAttrName);
    });
  }
};

} // namespace

void mlir::weave::populateWeaveToNVVMTypeConversions(
    LLVMTypeConverter &converter) {
  MLIRContext *ctx = &converter.getContext();
  converter.addConversion([ctx](SemaphoreType) -> Type {
    return LLVM::LLVMPointerType::get(ctx, kGlobalAddressSpace);
  });
  converter.addTypeAttributeConversion(
      [ctx](BaseMemRefType, SymmetricMemorySpaceAttr) {
        return IntegerAttr::get(IntegerType::get(ctx, 64),
                                kGlobalAddressSpace);
      });
}

void mlir::weave::populateWeaveToNVVMConversionPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns,
    uint64_t waitTimeoutNs) {
  patterns.add<DeviceIdOpLowering, NumDevicesOpLowering, RemoteRefOpLowering,
               SemaphoreSignalOpLowering, OneSidedCopyLowering<PutOp>,
               OneSidedCopyLowering<GetOp>, WaitSmemToGmemOpLowering,
               CopySmemToGmemOpLowering, CopyGmemToSmemOpLowering>(
      converter);
  patterns.add<SemaphoreWaitOpLowering, BarrierOpLowering,
               ReadPacketsOpLowering>(converter, waitTimeoutNs);
  patterns.add<UnsupportedOpLowering<MatmulPipelineOp>>(
      converter, "must be expanded by weave-expand-pipelines before "
                 "convert-weave-to-nvvm");
  // Element-wise atomics on symmetric memory.
  patterns.add<AtomicAddOpLowering>(converter);
  patterns.add<PrefetchL2OpLowering>(converter);
}
