//===- KernelVariant.cpp - the weave.variant kernel attribute -------------===//

#include "weave/Dialect/Weave/IR/KernelVariant.h"
#include "weave/Dialect/Weave/IR/WeaveOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::weave;

DictionaryAttr KernelVariant::toAttr(MLIRContext *context) const {
  Builder b(context);
  SmallVector<NamedAttribute> fields = {
      b.getNamedAttr("of", b.getStringAttr(of)),
      b.getNamedAttr("arg", b.getI64IntegerAttr(arg)),
      b.getNamedAttr("axis", b.getI64IntegerAttr(axis)),
      b.getNamedAttr("lo", b.getI64IntegerAttr(lo))};
  if (hi != kUnbounded)
    fields.push_back(b.getNamedAttr("hi", b.getI64IntegerAttr(hi)));
  return b.getDictionaryAttr(fields);
}

/// The variant `attr` describes, or std::nullopt when malformed.
static std::optional<KernelVariant> parseKernelVariant(Attribute attr) {
  auto dict = dyn_cast<DictionaryAttr>(attr);
  if (!dict)
    return std::nullopt;
  for (NamedAttribute field : dict)
    if (!llvm::is_contained({"of", "arg", "axis", "lo", "hi"},
                            field.getName().getValue()))
      return std::nullopt;
  KernelVariant v;
  auto of = dict.getAs<StringAttr>("of");
  auto integer = [&](StringRef name, int64_t &out) {
    auto value = dict.getAs<IntegerAttr>(name);
    if (!value || value.getValue().getSignificantBits() > 64)
      return false;
    out = value.getValue().getSExtValue();
    return true;
  };
  int64_t arg, axis;
  if (!of || of.getValue().empty() || !integer("arg", arg) ||
      !integer("axis", axis) || !integer("lo", v.lo) || arg < 0 ||
      arg > INT32_MAX || axis < 0 || axis > INT32_MAX || v.lo < 1)
    return std::nullopt;
  if (dict.get("hi") && (!integer("hi", v.hi) || v.hi < v.lo))
    return std::nullopt;
  v.of = of.getValue().str();
  v.arg = unsigned(arg);
  v.axis = unsigned(axis);
  return v;
}

FailureOr<KernelVariant> mlir::weave::readKernelVariant(Operation *op,
                                                        Attribute attr) {
  if (std::optional<KernelVariant> v = parseKernelVariant(attr))
    return *v;
  return op->emitError()
         << "expects '" << kVariantAttrName
         << "' to be {of = \"NAME\", arg = N, axis = N, lo = N[, hi = N]} "
            "with 0 <= arg, 0 <= axis, 1 <= lo <= hi, got "
         << attr;
}

std::optional<KernelVariant> mlir::weave::getKernelVariant(Operation *op) {
  Attribute attr = op->getAttr(kVariantAttrName);
  return attr ? parseKernelVariant(attr) : std::nullopt;
}

std::optional<unsigned> mlir::weave::lhsKernelArgument(MatmulPipelineOp op) {
  auto func = op->getParentOfType<gpu::GPUFuncOp>();
  auto arg = dyn_cast<BlockArgument>(op.getLhs());
  if (!func || !arg || arg.getOwner() != &func.getBody().front())
    return std::nullopt;
  return arg.getArgNumber();
}

std::optional<int64_t> mlir::weave::maxLhsRows(MatmulPipelineOp op) {
  auto lhs = cast<MemRefType>(op.getLhs().getType());
  if (!lhs.isDynamicDim(0))
    return lhs.getDimSize(0);
  std::optional<unsigned> arg = lhsKernelArgument(op);
  if (!arg)
    return std::nullopt;
  std::optional<KernelVariant> variant =
      getKernelVariant(op->getParentOfType<gpu::GPUFuncOp>());
  if (!variant || variant->arg != *arg || variant->axis != 0 ||
      variant->hi == KernelVariant::kUnbounded)
    return std::nullopt;
  return variant->hi;
}
