//===- SharedVariants.cpp - one function for identical variants -----------===//

#include "weave/Pipeline/SharedVariants.h"

#include "weave/Dialect/Weave/IR/KernelVariant.h"

#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::weave;

namespace {

/// Whether `a` and `b` lower to the same code: their attributes but the
/// name and weave.variant (the launch fields, argument attributes and
/// function type among them), and their bodies up to locations.
bool sameCode(gpu::GPUFuncOp a, gpu::GPUFuncOp b) {
  auto codeAttributes = [](gpu::GPUFuncOp func) {
    NamedAttrList attrs(func->getAttrDictionary());
    attrs.erase(SymbolTable::getSymbolAttrName());
    attrs.erase(kVariantAttrName);
    return attrs.getDictionary(func.getContext());
  };
  return codeAttributes(a) == codeAttributes(b) &&
         OperationEquivalence::isRegionEquivalentTo(
             &a.getBody(), &b.getBody(),
             OperationEquivalence::IgnoreLocations);
}

} // namespace

void mlir::weave::shareIdenticalVariants(
    gpu::GPUModuleOp gpuModule, std::vector<::weave::KernelInfo> &kernels) {
  llvm::StringMap<::weave::KernelInfo *> entries;
  for (::weave::KernelInfo &kernel : kernels)
    entries[kernel.name] = &kernel;
  // Per group, the kernels kept so far (each of a code of its own).
  llvm::StringMap<SmallVector<gpu::GPUFuncOp>> kept;
  SmallVector<gpu::GPUFuncOp> shared;
  for (auto func : gpuModule.getOps<gpu::GPUFuncOp>()) {
    std::optional<KernelVariant> variant = getKernelVariant(func);
    auto entry = entries.find(func.getName());
    if (!variant || entry == entries.end())
      continue;
    SmallVector<gpu::GPUFuncOp> &group = kept[variant->of];
    auto same = llvm::find_if(
        group, [&](gpu::GPUFuncOp other) { return sameCode(func, other); });
    if (same == group.end()) {
      group.push_back(func);
      continue;
    }
    entry->second->function = same->getName().str();
    shared.push_back(func);
  }
  for (gpu::GPUFuncOp func : shared)
    func.erase();
}
