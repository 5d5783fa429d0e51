//===- KernelAbi.h - parameters of a weave kernel ---------------*- C++ -*-===//
//
// Computes the kernel parameter list of docs/ABI.md from a weave kernel.
// Both the lowering (which appends the team parameters) and the bundle
// writer (which records the list in the manifest) call this, so they cannot
// disagree.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_CONVERSION_WEAVETONVVM_KERNELABI_H
#define WEAVE_CONVERSION_WEAVETONVVM_KERNELABI_H

#include "weave/runtime/Abi.h"
#include "weave/runtime/Bundle.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::weave {

/// The ABI of a kernel is the runtime's own model of it, ::weave::KernelInfo
/// (weave/runtime/Bundle.h): the bundle writer records exactly what
/// computeKernelAbi returns, with no second description to copy between.
using KernelAbi = ::weave::KernelInfo;

/// Name of the function attribute the lowering leaves on a kernel: the
/// argument index of the first team parameter (rank; team size and peer
/// bases follow).
inline constexpr llvm::StringLiteral kTeamArgsAttrName = "weave.team_args";

/// Name of the function attribute the lowering leaves on a kernel: the
/// argument index of the first tensor map (the Dim parameters sit between
/// the team parameters and it).
inline constexpr llvm::StringLiteral kTmaArgsAttrName = "weave.tma_args";

/// Name of the attribute the lowering puts on each TMA op
/// (`weave.copy_smem_to_gmem`, `weave.copy_gmem_to_smem`): the argument
/// index of its tensor map.
inline constexpr llvm::StringLiteral kTmaArgAttrName = "weave.tma_arg";

/// Name of the attribute the manifest's computation (compileModule) puts
/// on each TMA op: the index of its tensor map's parameter (only their
/// order matters). computeKernelAbi orders the TMA parameters by it when the
/// lowering computes the ABI again: the passes between the two may move
/// ops (a switch's default region, for one), and a walk in another order
/// would give the cubin another parameter order than the manifest's, which
/// the loader cannot see when the sizes agree (two peer views swapped).
inline constexpr llvm::StringLiteral kTmaOrderAttrName = "weave.tma_order";

/// The element type name the bundle uses for `type` ("f16", "i32", ...), or
/// failure for types the runtime does not know.
FailureOr<std::string> getDTypeName(Type type);

/// The most bytes a kernel's parameters may take in the launch parameter
/// buffer, laid out as docs/ABI.md says (natural alignment, 64 for Tma).
/// CUDA's limit for PTX ISA 8.0, which the pipeline emits.
inline constexpr uint64_t kMaxKernelParamBytes = 4096;

/// The parameter names the ABI gives the team parameters; a user parameter
/// may not take them.
inline constexpr llvm::StringLiteral kReservedParamNames[] = {
    "rank", "team_size", "peer_bases"};

/// Checks what the ABI needs of a kernel's name and own parameters (types, names,
/// sizes, the mesh size) and emits a located error at the offending
/// argument or kernel. computeKernelAbi runs it too; the driver runs it
/// right after verification so that these errors come before any lowering.
LogicalResult verifyKernelInterface(gpu::GPUFuncOp func);

/// Checks the weave.variant groups of `module` as the bundle's self-check
/// (verifyVariants) would, with errors at the kernel or argument: a group
/// is not also a kernel's name, and its members have the same team size
/// and the same user parameters (kind, name, dtype, shape). The driver runs
/// it with verifyKernelInterface, before any lowering (a hand-written group
/// that disagreed failed in the bundle check as "a compiler bug", at 1:1).
LogicalResult verifyVariantGroups(Operation *module);

/// Matches `device` against `(device_id + c) mod num_devices` (or plain
/// `device_id`) and returns `c`: a peer view's tensor map is encoded on the
/// host, which must compute the same peer. The host takes the floored
/// modulo of rank + c; the kernel's remui / remsi agree with it only where
/// rank + c >= 0 in the kernel's arithmetic, so only such offsets match: a
/// constant c >= 0, or `num_devices - k` with k <= 2 (n - k < 0 needs
/// n < k <= 2, i.e. n = 1, where every member is 0) or k up to a static
/// mesh's size. `(me + -1) remui n` at n = 3 computes (rank + 2^64 - 1)
/// mod 3, not (rank - 1) mod 3. Anything else is not matched and goes
/// through the per-member table, which uses the device the kernel computes.
FailureOr<int64_t> matchPeerOffset(Value device, int64_t meshSize);

/// Computes the ABI of a `gpu.func` carrying `#weave.kernel`. Emits an error
/// on the function and fails for parameters the ABI cannot express.
/// One Dim parameter per dynamic dimension of a memref argument follows the
/// team parameters (argument order, outermost dimension first); then the
/// TMA parameters, one per distinct (global
/// buffer, tile, swizzle, peer view) of the kernel's TMA ops; `tmaOf`
/// (if given) receives the Tma parameter index of each of those ops.
FailureOr<KernelAbi>
computeKernelAbi(gpu::GPUFuncOp func,
                 llvm::DenseMap<Operation *, unsigned> *tmaOf = nullptr);

} // namespace mlir::weave

#endif // WEAVE_CONVERSION_WEAVETONVVM_KERNELABI_H
