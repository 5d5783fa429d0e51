//===- Compile.cpp - the weave compilation pipeline -----------------------===//

#include "weave/Pipeline/Compile.h"

#include "weave/Conversion/Passes.h"
#include "weave/Conversion/WeaveToNVVM/KernelAbi.h"
#include "weave/Dialect/Weave/IR/WeaveDialect.h"
#include "weave/Dialect/Weave/Transforms/Passes.h"
#include "weave/Target/CUDA/Ptxas.h"

#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::weave;

void mlir::weave::buildWeaveToLLVMPipeline(OpPassManager &pm,
                                           const CompileOptions &options) {
  pm.addPass(createVerifyKernelPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createExpandPipelinesPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createSCFToControlFlowPass());
  ConvertWeaveToNVVMPassOptions convertOptions;
  convertOptions.waitTimeoutNs = options.waitTimeoutNs;
  pm.addNestedPass<gpu::GPUModuleOp>(
      createConvertWeaveToNVVMPass(convertOptions));
  // NVVM ops without an LLVM intrinsic (wgmma, mbarrier waits, predicated
  // forms) become inline PTX.
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertNVVMToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

namespace {
struct WeaveToLLVMPipelineOptions
    : public PassPipelineOptions<WeaveToLLVMPipelineOptions> {
  Option<uint64_t> waitTimeoutNs{
      *this, "wait-timeout-ns",
      llvm::cl::desc("Trap in semaphore waits that spin longer than this "
                     "(0: never)"),
      llvm::cl::init(0)};
};
} // namespace

void mlir::weave::registerWeavePipelines() {
  PassPipelineRegistration<WeaveToLLVMPipelineOptions>(
      "weave-to-llvm",
      "Verify weave kernels and lower them to the LLVM and NVVM dialects",
      [](OpPassManager &pm, const WeaveToLLVMPipelineOptions &pipeline) {
        CompileOptions options;
        options.waitTimeoutNs = pipeline.waitTimeoutNs;
        buildWeaveToLLVMPipeline(pm, options);
      });
}

/// The bundle's description of one kernel, from its ABI.
static ::weave::KernelInfo toKernelInfo(const KernelAbi &abi) {
  ::weave::KernelInfo info;
  info.name = abi.name;
  for (int i = 0; i < 3; ++i) {
    info.grid[i] = abi.grid[i];
    info.block[i] = abi.block[i];
    info.cluster[i] = abi.cluster[i];
  }
  info.dynamicSmemBytes = abi.dynamicSmemBytes;
  info.teamSize = abi.teamSize;
  for (const AbiParam &param : abi.params) {
    ::weave::ParamInfo out;
    out.kind = param.kind;
    out.name = param.name;
    out.dtype = param.dtype;
    out.shape.assign(param.shape.begin(), param.shape.end());
    out.semaphoreCount = param.semaphoreCount;
    if (param.kind == ::weave::abi::ParamKind::Tma) {
      out.tma.sourceParam = param.tmaSource;
      out.tma.box.assign(param.tmaBox.begin(), param.tmaBox.end());
      out.tma.swizzleBytes = static_cast<uint32_t>(param.tmaSwizzle);
      out.tma.isPeerView = param.tmaIsPeerView;
      out.tma.peerOffset = param.tmaPeerOffset;
    }
    info.params.push_back(std::move(out));
  }
  return info;
}

static void configureIRPrinting(PassManager &pm, const CompileOptions &options) {
  if (!options.printIRAfterAll)
    return;
  pm.getContext()->disableMultithreading();
  pm.enableIRPrinting(/*shouldPrintBeforePass=*/nullptr,
                      /*shouldPrintAfterPass=*/
                      [](Pass *, Operation *) { return true; },
                      /*printModuleScope=*/true);
}

LogicalResult mlir::weave::compileModule(ModuleOp module, EmitKind emit,
                                         const CompileOptions &options,
                                         CompileArtifacts &artifacts) {
  MLIRContext *ctx = module.getContext();
  auto print = [](Operation *op) {
    std::string text;
    llvm::raw_string_ostream os(text);
    op->print(os);
    return text;
  };

  PassManager verify(ctx);
  configureIRPrinting(verify, options);
  verify.addPass(createVerifyKernelPass());
  if (emit != EmitKind::Mlir) {
    verify.addPass(createCanonicalizerPass());
    // The manifest is computed from the expanded kernel: pipelines add TMA
    // parameters.
    verify.addPass(createExpandPipelinesPass());
    verify.addPass(createCanonicalizerPass());
  }
  if (failed(verify.run(module)))
    return failure();
  if (emit == EmitKind::Mlir) {
    artifacts.mlir = print(module);
    return success();
  }

  SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
  if (gpuModules.size() != 1)
    return emitError(module.getLoc())
           << "expects exactly one gpu.module holding the weave kernels, found "
           << gpuModules.size();
  gpu::GPUModuleOp gpuModule = gpuModules.front();
  artifacts.bundle = {};
  for (auto func : gpuModule.getOps<gpu::GPUFuncOp>()) {
    if (!func->hasAttr(WeaveDialect::getKernelAttrName()))
      continue;
    FailureOr<KernelAbi> abi = computeKernelAbi(func);
    if (failed(abi))
      return failure();
    artifacts.bundle.kernels.push_back(toKernelInfo(*abi));
  }
  if (artifacts.bundle.kernels.empty())
    return emitError(gpuModule.getLoc())
           << "expects at least one kernel (a gpu.func with a '"
           << WeaveDialect::getKernelAttrName() << "' attribute) in gpu.module @"
           << gpuModule.getName();

  PassManager lower(ctx);
  configureIRPrinting(lower, options);
  buildWeaveToLLVMPipeline(lower, options);
  if (failed(lower.run(module)))
    return failure();
  if (emit == EmitKind::Nvvm) {
    artifacts.mlir = print(module);
    return success();
  }
  if (emit == EmitKind::Llvm) {
    llvm::LLVMContext llvmContext;
    std::unique_ptr<llvm::Module> llvmModule =
        translateModuleToLLVMIR(gpuModule, llvmContext, gpuModule.getName());
    if (!llvmModule)
      return failure();
    llvm::raw_string_ostream os(artifacts.llvmIR);
    llvmModule->print(os, nullptr);
    return success();
  }

  PassManager target(ctx);
  configureIRPrinting(target, options);
  GpuNVVMAttachTargetOptions attach;
  attach.chip = options.arch;
  attach.features = "+ptx80";
  attach.optLevel = options.optLevel;
  target.addPass(createGpuNVVMAttachTarget(attach));
  GpuModuleToBinaryPassOptions toBinary;
  toBinary.compilationTarget = "isa";
  target.addPass(createGpuModuleToBinaryPass(toBinary));
  if (failed(target.run(module)))
    return failure();
  auto binaries = module.getOps<gpu::BinaryOp>();
  if (binaries.empty() || (*binaries.begin()).getObjects().size() != 1)
    return emitError(module.getLoc()) << "NVPTX produced no PTX";
  auto object = cast<gpu::ObjectAttr>((*binaries.begin()).getObjects()[0]);
  artifacts.ptx = object.getObject().getValue().str();
  if (emit == EmitKind::Ptx)
    return success();

  FailureOr<std::vector<char>> cubin =
      assemblePtx(artifacts.ptx, options.arch, options.optLevel,
                  module.getLoc(), &artifacts.ptxasLog);
  if (failed(cubin))
    return failure();
  artifacts.cubin = std::move(*cubin);
  if (emit == EmitKind::Cubin)
    return success();

  ::weave::Bundle &bundle = artifacts.bundle;
  bundle.arch = options.arch;
  bundle.producer = "weavec (LLVM " LLVM_VERSION_STRING ", ptxas)";
  bundle.cubin.assign(artifacts.cubin.begin(), artifacts.cubin.end());
  ::weave::Status status = ::weave::verifyBundle(bundle);
  if (!status)
    return emitError(module.getLoc())
           << "the bundle fails its own checks (a compiler bug): "
           << status.error().message();
  return success();
}
