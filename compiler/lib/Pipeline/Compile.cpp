//===- Compile.cpp - the weave compilation pipeline -----------------------===//

#include "weave/Pipeline/Compile.h"
#include "weave/Pipeline/SharedVariants.h"

#include "weave/Conversion/Passes.h"
#include "weave/Conversion/WeaveToNVVM/KernelAbi.h"
#include "weave/Dialect/Weave/IR/DTypeMlir.h"
#include "weave/Dialect/Weave/IR/WeaveDialect.h"
#include "weave/Dialect/Weave/IR/WeaveOps.h"
#include "weave/Dialect/Weave/Transforms/Passes.h"
#include "weave/Target/CUDA/Ptxas.h"
#include "weave/runtime/detail/TmaLayout.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

#include <pthread.h>

using namespace mlir;
using namespace mlir::weave;

//===----------------------------------------------------------------------===//
// The pass pipeline, defined once: weavec and the JIT (compileModule) run its
// stages with their checks between them; weave-opt's weave-to-llvm runs
// them back to back.
//===----------------------------------------------------------------------===//

void mlir::weave::buildWeaveVerifyPipeline(OpPassManager &pm) {
  // tile(auto) pipelines and `auto` kernel fields are resolved first: the
  // kernel's launch shape and the manifest follow from the choice.
  pm.addPass(createConfigurePipelinesPass());
  pm.addPass(createVerifyKernelPass());
}

void mlir::weave::buildWeaveExpandPipeline(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createExpandPipelinesPass());
  // Before the manifest: it lists the peer views this pass gives stores
  // to a run-time device.
  pm.addNestedPass<gpu::GPUModuleOp>(createPeerViewStoresPass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::weave::buildWeaveLowerPipeline(OpPassManager &pm,
                                          const CompileOptions &options) {
  // Views (memref.subview, expand/collapse_shape) become reinterpret_casts,
  // whose descriptors the LLVM lowering builds; their dynamic offsets and
  // sizes are affine.apply, lowered to arith.
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // Arith ops with no LLVM lowering of their own (ceildivui, floordivsi,
  // maximumf, ...) become plain arith: without this a kernel using them
  // failed at translation with no location.
  pm.addPass(arith::createArithExpandOpsPass());
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

void mlir::weave::buildWeaveToLLVMPipeline(OpPassManager &pm,
                                           const CompileOptions &options) {
  buildWeaveVerifyPipeline(pm);
  buildWeaveExpandPipeline(pm);
  buildWeaveLowerPipeline(pm, options);
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

//===----------------------------------------------------------------------===//
// Front end: architectures, parsing, the compiler thread
//===----------------------------------------------------------------------===//

/// PTX ISA 8.0 (the pipeline's `+ptx80`) reaches up to sm_90a; the weave
/// lowering needs sm_70's acquire/release and ptxas 13 starts at sm_75.
static constexpr StringLiteral kSupportedArchs[] = {
    "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a"};

ArrayRef<StringLiteral> mlir::weave::getSupportedArchs() {
  return kSupportedArchs;
}

std::optional<std::string> mlir::weave::checkArch(StringRef arch) {
  if (llvm::is_contained(kSupportedArchs, arch))
    return std::nullopt;
  std::string message =
      "unsupported GPU architecture '" + arch.str() + "'; supported: ";
  llvm::raw_string_ostream os(message);
  llvm::interleaveComma(kSupportedArchs, os);
  return message;
}

unsigned mlir::weave::getComputeCapability(StringRef arch) {
  unsigned cc = 0;
  arch.consume_front("sm_");
  arch.take_while(llvm::isDigit).getAsInteger(10, cc);
  return cc;
}

/// When `text[i]` starts a string literal or a `//` comment, moves `i` to
/// its last character (a string ends at its quote or, as the lexer says, at
/// the line; a comment at the line) and returns true. The source scans
/// below look at code only.
static bool skipStringOrComment(StringRef text, size_t &i) {
  size_t e = text.size();
  if (text[i] == '"') {
    for (++i; i < e && text[i] != '"' && text[i] != '\n'; ++i)
      if (text[i] == '\\')
        ++i;
    return true;
  }
  if (text.substr(i).starts_with("//")) {
    i = std::min(text.find('\n', i), e);
    return true;
  }
  return false;
}

/// The offset of the first bracket that opens nesting level `limit + 1` in
/// `text`, or nothing. Counts `{ ( [ <` against `} ) ] >` outside string
/// literals and `//` comments; the `>` of `->` and `>=` closes nothing. A
/// stray closer cannot make room for deeper nesting later (the depth stays
/// at least 0).
static std::optional<size_t> findDeepNesting(StringRef text, unsigned limit) {
  unsigned depth = 0;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    if (skipStringOrComment(text, i))
      continue;
    switch (text[i]) {
    case '{':
    case '(':
    case '[':
    case '<':
      if (++depth > limit)
        return i;
      break;
    case '>':
      if ((i > 0 && text[i - 1] == '-') || (i + 1 < e && text[i + 1] == '='))
        break;
      [[fallthrough]];
    case '}':
    case ')':
    case ']':
      if (depth > 0)
        --depth;
      break;
    default:
      break;
    }
  }
  return std::nullopt;
}

/// The offset of the element type of the first dense array attribute
/// (`array<T: ...>`) whose T is not a builtin integer or float type name, or
/// nothing. The upstream parser (MLIR 22) takes the bit width of any T and
/// crashes on `index`, vectors and the like, so such a T must not reach it.
/// Strings and comments are skipped (skipStringOrComment).
static std::optional<size_t> findBadDenseArray(StringRef text) {
  static const llvm::Regex elementType(
      "^([su]?i[0-9]+|f[0-9]+|bf16|tf32|f8E[0-9A-Za-z]+|f6E[0-9A-Za-z]+|"
      "f4E[0-9A-Za-z]+)$");
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    if (skipStringOrComment(text, i))
      continue;
    // `array<` as a whole word: not the tail of another identifier.
    if (!text.substr(i).starts_with("array<") ||
        (i > 0 && (llvm::isAlnum(text[i - 1]) || text[i - 1] == '_' ||
                   text[i - 1] == '.' || text[i - 1] == '$')))
      continue;
    size_t start = i + 6;
    while (start < e && llvm::isSpace(text[start]))
      ++start;
    size_t end = start;
    while (end < e && (llvm::isAlnum(text[end]) || text[end] == '_'))
      ++end;
    if (!elementType.match(text.slice(start, end)))
      return start;
  }
  return std::nullopt;
}

std::optional<std::pair<size_t, std::string>>
mlir::weave::findUnparsableSource(StringRef text) {
  if (std::optional<size_t> at = findDeepNesting(text, kMaxNestingDepth))
    return std::pair{*at, "expects brackets, braces, parentheses and type "
                          "parameters nested at most " +
                              std::to_string(kMaxNestingDepth) +
                              " deep, this one opens level " +
                              std::to_string(kMaxNestingDepth + 1)};
  if (std::optional<size_t> at = findBadDenseArray(text))
    return std::pair{*at, std::string("expects a dense array of a builtin "
                                      "integer or float type (array<i32: 1, "
                                      "2>)")};
  return std::nullopt;
}

std::unique_ptr<llvm::MemoryBuffer>
mlir::weave::readSourceFile(StringRef filename, std::string *error,
                            size_t limit) {
  bool stdinInput = filename == "-";
  llvm::sys::fs::file_t file = llvm::sys::fs::getStdinHandle();
  if (!stdinInput) {
    llvm::Expected<llvm::sys::fs::file_t> opened =
        llvm::sys::fs::openNativeFileForRead(filename);
    if (!opened) {
      *error = "cannot open input file '" + filename.str() +
               "': " + llvm::toString(opened.takeError());
      return nullptr;
    }
    file = *opened;
  }
  auto closeFile = llvm::make_scope_exit([&] {
    if (!stdinInput)
      (void)llvm::sys::fs::closeFile(file);
  });
  std::string name = stdinInput ? "<stdin>" : filename.str();
  llvm::SmallVector<char, 0> text;
  constexpr size_t kChunk = size_t(1) << 20;
  while (true) {
    if (text.size() > limit) {
      *error = "input '" + name + "' is larger than " +
               std::to_string(limit) +
               " bytes (an endless stream?); weave sources are far smaller";
      return nullptr;
    }
    size_t size = text.size();
    text.resize_for_overwrite(size + kChunk);
    llvm::Expected<size_t> read = llvm::sys::fs::readNativeFile(
        file, llvm::MutableArrayRef<char>(text.data() + size, kChunk));
    if (!read) {
      *error = "cannot read input '" + name +
               "': " + llvm::toString(read.takeError());
      return nullptr;
    }
    text.truncate(size + *read);
    if (*read == 0)
      break;
  }
  return llvm::MemoryBuffer::getMemBufferCopy(
      StringRef(text.data(), text.size()), name);
}

OwningOpRef<ModuleOp> mlir::weave::parseWeaveSource(llvm::SourceMgr &sourceMgr,
                                                   MLIRContext *context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  auto locationOf = [&](size_t offset) {
    auto [line, column] = sourceMgr.getLineAndColumn(
        llvm::SMLoc::getFromPointer(buffer->getBufferStart() + offset));
    return FileLineColLoc::get(context, buffer->getBufferIdentifier(), line,
                               column);
  };
  if (auto bad = findUnparsableSource(buffer->getBuffer())) {
    emitError(locationOf(bad->first)) << bad->second;
    return nullptr;
  }
  // The upstream parser crashes on some erroneous inputs (MLIR 22:
  // llvm.atomicrmw of a non-scalar type, ...). Parse in a crash recovery
  // context, so that such an input is an error, not the end of weavec or of
  // a program that JIT-compiles. Only the parse: a crash in Weave's own
  // verifiers and passes must stay visible (the fuzzers look for them).
  static std::once_flag enableRecovery;
  std::call_once(enableRecovery, [] { llvm::CrashRecoveryContext::Enable(); });
  OwningOpRef<ModuleOp> module;
  llvm::CrashRecoveryContext recovery;
  if (!recovery.RunSafely(
          [&] { module = parseSourceFile<ModuleOp>(sourceMgr, context); })) {
    (void)module.release(); // half built by a parser that crashed: leak it
    emitError(locationOf(0))
        << "the MLIR parser crashed on this input (a bug in upstream MLIR, "
           "not in the input's meaning); check the syntax of the ops it uses";
    return nullptr;
  }
  return module;
}

LogicalResult mlir::weave::runOnCompilerStack(llvm::function_ref<void()> fn) {
  auto entry = [](void *arg) -> void * {
    (*static_cast<llvm::function_ref<void()> *>(arg))();
    return nullptr;
  };
  // A smaller stack still holds kMaxNestingDepth levels with room to spare;
  // it is only reserved address space, so the large one is tried first.
  for (size_t bytes : {kCompilerStackBytes, kCompilerStackBytes / 4}) {
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0)
      return failure();
    pthread_t thread;
    int error = pthread_attr_setstacksize(&attr, bytes);
    if (error == 0)
      error = pthread_create(&thread, &attr, entry, &fn);
    pthread_attr_destroy(&attr);
    if (error == 0)
      return success(pthread_join(thread, nullptr) == 0);
  }
  return failure();
}

//===----------------------------------------------------------------------===//
// compileModule
//===----------------------------------------------------------------------===//

/// Checks, with the runtime's own rules (computeTmaLayout), that the host
/// can build every tensor map of `info`, and reports one it cannot at the
/// first TMA op that uses it: the bundle's checks would otherwise find it
/// after lowering, located nowhere.
static LogicalResult
checkTensorMaps(gpu::GPUFuncOp func, const ::weave::KernelInfo &info,
                const llvm::DenseMap<Operation *, unsigned> &tmaOf) {
  for (unsigned index = 0; index < info.params.size(); ++index) {
    const ::weave::ParamInfo &param = info.params[index];
    if ((param.kind != ::weave::abi::ParamKind::Tma &&
         param.kind != ::weave::abi::ParamKind::TmaTable) ||
        param.tma.sourceParam >= info.params.size())
      continue;
    auto layout = ::weave::computeTmaLayout(
        param, info.params[param.tma.sourceParam]);
    if (layout)
      continue;
    Operation *user = nullptr;
    func.walk([&](Operation *op) {
      auto it = tmaOf.find(op);
      if (it == tmaOf.end() || it->second != index)
        return WalkResult::advance();
      user = op;
      return WalkResult::interrupt();
    });
    InFlightDiagnostic diag =
        user ? user->emitOpError() : func.emitError();
    return diag << "needs a tensor map the runtime cannot build: "
                << layout.error().message();
  }
  return success();
}

/// Checks that every weave op and kernel of `module` has an instruction on
/// `arch`, with an error at the op (it failed in ptxas, at 0:0): bf16x2
/// reductions, TMA copies and clusters need sm_90, the matmul pipeline's
/// wgmma and setmaxnreg sm_90a.
/// The atomic adds every supported arch has, "f16 pairs or f32".
static std::string atomicAddsBelowSm90() {
  std::vector<std::string> forms;
  for (const DTypeTraits &t : ::weave::kDTypeTable)
    if (t.atomicAdd != ::weave::AtomicAddForm::None && t.atomicAddMinCc < 90)
      forms.push_back(std::string(t.name) +
                      (t.atomicAdd == ::weave::AtomicAddForm::PackedPair
                           ? " pairs"
                           : ""));
  std::string text;
  for (size_t i = 0; i < forms.size(); ++i)
    text += (i == 0 ? "" : i + 1 == forms.size() ? " or " : ", ") + forms[i];
  return text;
}

static LogicalResult checkArchOfOps(ModuleOp module, StringRef arch) {
  unsigned cc = getComputeCapability(arch);
  bool archA = arch.ends_with("a");
  WalkResult result = module.walk([&](Operation *op) -> WalkResult {
    std::string what;
    bool needsA = false;
    if (auto atomic = dyn_cast<AtomicAddOp>(op)) {
      // The compute capability each atomic add needs is in the dtype table.
      const DTypeTraits *traits = getDTypeTraits(
          cast<MemRefType>(atomic.getBuffer().getType()).getElementType());
      if (traits && traits->atomicAddMinCc > cc) {
        std::string ptx = std::string(traits->name) +
                          (traits->atomicAdd == ::weave::AtomicAddForm::PackedPair
                               ? "x2"
                               : "");
        what = "a " + ptx + " atomic add (red.global.add.noftz." + ptx + ")";
      }
    } else if (isa<CopySmemToGmemOp, CopyGmemToSmemOp>(op)) {
      what = "a TMA copy (cp.async.bulk.tensor)";
    } else if (isa<WaitSmemToGmemOp>(op)) {
      what = "a bulk-group wait (cp.async.bulk.wait_group)";
    } else if (isa<MatmulPipelineOp>(op)) {
      what = "the matmul pipeline (wgmma.mma_async, setmaxnreg)";
      needsA = true;
    } else if (auto kernel = op->getAttrOfType<KernelAttr>(
                   WeaveDialect::getKernelAttrName())) {
      if (llvm::any_of(kernel.getCluster(), [](int32_t d) { return d != 1; }))
        what = "a thread block cluster";
    }
    if (what.empty() || (cc >= 90 && (!needsA || archA)))
      return WalkResult::advance();
    op->emitError() << what << " needs " << (needsA ? "sm_90a" : "sm_90")
                    << ", but the target is --arch=" << arch << "; compile for "
                    << (needsA ? "sm_90a" : "sm_90 or sm_90a")
                    << (isa<AtomicAddOp>(op)
                            ? " (or add " + atomicAddsBelowSm90() +
                                  ", which older GPUs reduce)"
                            : std::string());
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

/// Whether `func` issues wgmma, once its pipelines are expanded: the NVVM
/// op they expand to, or the nvgpu op a hand-written kernel may use.
static bool issuesWgmma(gpu::GPUFuncOp func) {
  WalkResult found = func.walk([](Operation *op) {
    StringRef name = op->getName().getStringRef();
    if (name == "nvvm.wgmma.mma_async" || name == "nvgpu.warpgroup.mma")
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return found.wasInterrupted();
}

/// A call anywhere in a kernel that issues wgmma (gpu.printf lowers to a
/// call of vprintf) makes ptxas serialize every wgmma of the kernel
/// ("wgmma pipeline crossing function boundary at a function call",
/// C7510), however cold the call's branch: a printf before a trap in the
/// all-gather matmul's argument checks made its dynamic-shape instance
/// 2.7-5% slower than the static one, where the checks fold away (0-0.9%
/// without it; docs/PERF.md, issue #32). Warned at the call, before any
/// output.
static void warnCallsInWgmmaKernels(ModuleOp module) {
  module.walk([](gpu::GPUFuncOp func) {
    if (!issuesWgmma(func))
      return;
    func.walk([&](Operation *op) {
      if (!isa<gpu::PrintfOp, CallOpInterface>(op))
        return;
      op->emitWarning()
          << "a call (" << op->getName()
          << (isa<gpu::PrintfOp>(op) ? ", which lowers to vprintf" : "")
          << ") in kernel '" << func.getName()
          << "', which issues wgmma: ptxas serializes every wgmma of a "
             "kernel that makes a call (C7510); trap without printing, or "
             "check the arguments on the host";
    });
  });
}

/// ptxas's "Potential Performance Loss" advice (wgmma serialized, and the
/// like), which -v prints among the register counts: a warning at the
/// kernel it names (at the module where it names none), so no bundle
/// builds silently slow.
static void forwardPtxasAdvice(ModuleOp module, StringRef log,
                               const llvm::StringMap<Location> &kernels) {
  SmallVector<StringRef> lines;
  log.split(lines, '\n');
  for (StringRef line : lines) {
    size_t at = line.find("Potential Performance Loss");
    if (at == StringRef::npos)
      continue;
    // From the code, "(C7510) Potential Performance Loss: ...".
    size_t code = line.take_front(at).rfind("(C");
    StringRef advice =
        line.drop_front(code != StringRef::npos ? code : at).trim();
    Location loc = module.getLoc();
    size_t quote = line.rfind('\'');
    size_t open = quote == StringRef::npos ? StringRef::npos
                                            : line.rfind('\'', quote - 1);
    if (open != StringRef::npos) {
      auto it = kernels.find(line.slice(open + 1, quote));
      if (it != kernels.end())
        loc = it->second;
    }
    emitWarning(loc) << "ptxas: " << advice;
  }
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
  if (std::optional<std::string> archError = checkArch(options.arch))
    return emitError(module.getLoc()) << *archError;
  auto print = [](Operation *op) {
    std::string text;
    llvm::raw_string_ostream os(text);
    op->print(os);
    return text;
  };

  PassManager verify(ctx);
  configureIRPrinting(verify, options);
  buildWeaveVerifyPipeline(verify);
  if (failed(verify.run(module)))
    return failure();
  // What the ABI needs of each kernel's name and arguments, located at the
  // argument, before any pass rewrites the kernel.
  WalkResult interface = module.walk([](gpu::GPUFuncOp func) {
    if (func->hasAttr(WeaveDialect::getKernelAttrName()) &&
        failed(verifyKernelInterface(func)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (interface.wasInterrupted() || failed(verifyVariantGroups(module)) ||
      failed(checkArchOfOps(module, options.arch)))
    return failure();
  if (emit == EmitKind::Mlir) {
    artifacts.mlir = print(module);
    return success();
  }

  // What the chooser (or the author) set, for the manifest's `# config:`
  // line (weave-bundle shows it): read before the expansion replaces the
  // pipelines.
  llvm::StringMap<std::string> configs;
  module.walk([&](MatmulPipelineOp op) {
    auto func = op->getParentOfType<gpu::GPUFuncOp>();
    if (!func || op.isAutoTile())
      return;
    std::string &text = configs[func.getName()];
    llvm::raw_string_ostream os(text);
    if (!text.empty())
      os << "; ";
    os << "matmul_pipeline tile=" << op.tileM() << "x" << op.tileN() << "x"
       << op.tileK() << " stages=" << op.numStages()
       << " consumers=" << op.getConsumers()
       << " split=" << stringifyConsumerSplit(op.getSplit())
       << " cluster_m=" << op.getClusterM() << " split_k=" << op.getSplitK();
    if (op.getTailSplit() > 1)
      os << " tail_split=" << op.getTailSplit();
  });

  // The manifest is computed from the expanded kernel: pipelines add TMA
  // parameters.
  PassManager expand(ctx);
  configureIRPrinting(expand, options);
  buildWeaveExpandPipeline(expand);
  if (failed(expand.run(module)))
    return failure();

  // After the expansion's canonicalization, so that a check a static shape
  // folds away is not warned about.
  warnCallsInWgmmaKernels(module);

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
    llvm::DenseMap<Operation *, unsigned> tmaOf;
    FailureOr<KernelAbi> info = computeKernelAbi(func, &tmaOf);
    if (failed(info))
      return failure();
    info->computeCapability = getComputeCapability(options.arch);
    if (auto it = configs.find(func.getName()); it != configs.end())
      info->config = it->second;
    if (failed(checkTensorMaps(func, *info, tmaOf)))
      return failure();
    // The lowering computes the ABI again after more passes; it keeps this
    // order of the tensor maps (kTmaOrderAttrName: the parameter's index,
    // which orders them as well as their position among the maps).
    for (auto [op, index] : tmaOf)
      op->setAttr(kTmaOrderAttrName,
                  IntegerAttr::get(IntegerType::get(ctx, 64), index));
    artifacts.bundle.kernels.push_back(std::move(*info));
  }
  // Variants of one configuration for several ranges of rows: one
  // function, an entry per range (SharedVariants.h).
  shareIdenticalVariants(gpuModule, artifacts.bundle.kernels);
  if (artifacts.bundle.kernels.empty())
    return emitError(gpuModule.getLoc())
           << "expects at least one kernel (a gpu.func with a '"
           << WeaveDialect::getKernelAttrName() << "' attribute) in gpu.module @"
           << gpuModule.getName();

  // The kernels' locations, for ptxas's advice after the lowering.
  llvm::StringMap<Location> kernelLocs;
  for (auto func : gpuModule.getOps<gpu::GPUFuncOp>())
    kernelLocs.try_emplace(func.getName(), func.getLoc());

  PassManager lower(ctx);
  configureIRPrinting(lower, options);
  buildWeaveLowerPipeline(lower, options);
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
  // A per-member tensor-map table is read after a
  // fence.proxy.tensormap::generic, which needs PTX ISA 8.3; every other
  // kernel keeps 8.0, so its PTX is unchanged.
  bool tables = llvm::any_of(
      artifacts.bundle.kernels, [](const ::weave::KernelInfo &kernel) {
        return llvm::any_of(kernel.params, [](const ::weave::ParamInfo &p) {
          return p.kind == ::weave::abi::ParamKind::TmaTable;
        });
      });
  attach.features = tables ? "+ptx83" : "+ptx80";
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
  forwardPtxasAdvice(module, artifacts.ptxasLog, kernelLocs);
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
