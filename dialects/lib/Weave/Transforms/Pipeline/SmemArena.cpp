//===- SmemArena.cpp - the aligned shared memory base ---------------------===//
//
// See SmemArena.h for the contract.
//
//===----------------------------------------------------------------------===//

#include "weave/Dialect/Weave/Transforms/Pipeline/SmemArena.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::weave::pipeline;

SmemBase SmemBase::create(ImplicitLocOpBuilder &b) {
  SmemBase base;
  Type i8 = b.getIntegerType(8);
  base.dynamicSmem = gpu::DynamicSharedMemoryOp::create(
      b, MemRefType::get({ShapedType::kDynamic}, i8,
                         MemRefLayoutAttrInterface{},
                         gpu::AddressSpaceAttr::get(
                             b.getContext(), gpu::AddressSpace::Workgroup)));
  Value start =
      memref::ExtractAlignedPointerAsIndexOp::create(b, base.dynamicSmem);
  Value atom = arith::ConstantIndexOp::create(b, SmemArena::kBaseAlignment);
  base.pad = arith::RemUIOp::create(
      b,
      arith::SubIOp::create(b, atom, arith::RemUIOp::create(b, start, atom)),
      atom);
  base.alignedBase = arith::IndexCastOp::create(
      b, b.getI64Type(), arith::AddIOp::create(b, start, base.pad));
  return base;
}

Value SmemBase::view(ImplicitLocOpBuilder &b, Value offset,
                     MemRefType type) const {
  Value shift = arith::AddIOp::create(b, pad, offset);
  return memref::ViewOp::create(b, type, dynamicSmem, shift, ValueRange{});
}

Value SmemBase::pointer(ImplicitLocOpBuilder &b, Value offset) const {
  Value addr = arith::AddIOp::create(
      b, alignedBase, arith::IndexCastOp::create(b, b.getI64Type(), offset));
  return LLVM::IntToPtrOp::create(
      b, LLVM::LLVMPointerType::get(b.getContext(), 3), addr);
}
