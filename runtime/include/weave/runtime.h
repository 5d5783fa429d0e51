//===- runtime.h - The Weave runtime: one header for all of it ---*- C++ -*-===//
//
// The public API of the runtime (library Weave::runtime): errors, bundles and
// their manifests, devices, teams (in-process, multi-process, loopback), the
// symmetric heap, kernel arguments, loading and launching kernels. No MLIR,
// LLVM or CUDA runtime header; the CUDA driver API's <cuda.h> only.
// The JIT (Weave::jit) is weave/Compiler.h.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_RUNTIME_H
#define WEAVE_RUNTIME_H

#include "weave/runtime/Abi.h"
#include "weave/runtime/Bootstrap.h"
#include "weave/runtime/Bundle.h"
#include "weave/runtime/DType.h"
#include "weave/runtime/Device.h"
#include "weave/runtime/Error.h"
#include "weave/runtime/HandleExchange.h"
#include "weave/runtime/Kernel.h"
#include "weave/runtime/KernelArgs.h"
#include "weave/runtime/Store.h"
#include "weave/runtime/SymmetricHeap.h"
#include "weave/runtime/Team.h"

#endif // WEAVE_RUNTIME_H
