//===- KernelVariant.cpp - the weave.variant kernel attribute -------------===//

#include "weave/Dialect/Weave/IR/KernelVariant.h"

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

FailureOr<KernelVariant> mlir::weave::readKernelVariant(Operation *op,
                                                        Attribute attr) {
  auto fail = [&]() {
    return op->emitError()
           << "expects '" << kVariantAttrName
           << "' to be {of = \"NAME\", arg = N, axis = N, lo = N[, hi = N]} "
              "with 0 <= arg, 0 <= axis, 1 <= lo <= hi, got "
           << attr;
  };
  auto dict = dyn_cast<DictionaryAttr>(attr);
  if (!dict)
    return fail();
  for (NamedAttribute field : dict)
    if (!llvm::is_contained({"of", "arg", "axis", "lo", "hi"},
                            field.getName().getValue()))
      return fail();
  KernelVariant v;
  auto of = dict.getAs<StringAttr>("of");
  auto integer = [&](StringRef name, int64_t &out) {
    auto value = dict.getAs<IntegerAttr>(name);
    if (!value)
      return false;
    out = value.getValue().getSExtValue();
    return true;
  };
  int64_t arg, axis;
  if (!of || of.getValue().empty() || !integer("arg", arg) ||
      !integer("axis", axis) || !integer("lo", v.lo) || arg < 0 ||
      arg > INT32_MAX || axis < 0 || axis > INT32_MAX || v.lo < 1)
    return fail();
  if (dict.get("hi") && (!integer("hi", v.hi) || v.hi < v.lo))
    return fail();
  v.of = of.getValue().str();
  v.arg = unsigned(arg);
  v.axis = unsigned(axis);
  return v;
}

std::optional<KernelVariant> mlir::weave::getKernelVariant(Operation *op) {
  Attribute attr = op->getAttr(kVariantAttrName);
  if (!attr)
    return std::nullopt;
  // Verified already: no diagnostic is emitted for a well-formed one.
  auto dict = dyn_cast<DictionaryAttr>(attr);
  if (!dict || !dict.getAs<StringAttr>("of") || !dict.getAs<IntegerAttr>("arg") ||
      !dict.getAs<IntegerAttr>("axis") || !dict.getAs<IntegerAttr>("lo"))
    return std::nullopt;
  FailureOr<KernelVariant> v = readKernelVariant(op, attr);
  if (failed(v))
    return std::nullopt;
  return *v;
}
