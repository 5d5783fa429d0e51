//===- Bindings.h - How an op binds its kernel's parameters -----*- C++ -*-===//
//
// The driver-free half of StagedKernel (library WeaveOpsHost): which kernel
// parameter each tensor role of an op binds, what the op owns for the
// others, and the shapes of parameters with dynamic dimensions. Checked on
// the CPU against the templates' manifests (test/unit/ops).
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_OPS_LIB_BINDINGS_H
#define WEAVE_OPS_LIB_BINDINGS_H

#include "weave/ops/FusedMatmul.h"
#include "weave/ops/Registry.h"
#include "weave/runtime/Bundle.h"
#include "weave/runtime/Error.h"
#include "weave/runtime/KernelArgs.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace weave::ops::detail {

using RoleSpec = ops::RoleSpec;
using ParamShapes = ops::ParamShapes;

/// The parameters of `kernel` with each dynamic dimension replaced by
/// `shapes`' (InvalidArgument naming the parameter when a shape is missing,
/// has another rank, or differs in a static dimension; or when `shapes`
/// names no dynamic parameter of the kernel). No driver call: unit-tested.
Expected<std::vector<ParamInfo>> resolveParamShapes(const KernelInfo &kernel,
                                                    const ParamShapes &shapes);

/// How one user parameter is bound: by a role of the op, or as workspace
/// the op owns (semaphores, zeroed by the heap; a symmetric buffer; plain
/// device memory per local member, zeroed once).
struct ParamBinding {
  enum Kind { Role, Semaphores, SymmetricWorkspace, LocalWorkspace } kind;
  size_t role = 0; ///< with Role: the index in `roles`
};

/// The binding of each user parameter of `kernel` for `roles`: each role
/// names a parameter of the kernel (a member block only a symmetric one),
/// and every other parameter is one the op can own (a by-value scalar is
/// not). InvalidArgument naming the kernel, the template and the
/// parameter. No driver call.
Expected<std::vector<ParamBinding>>
planBindings(const KernelInfo &kernel, const std::string &templateName,
             const std::vector<RoleSpec> &roles);

/// The tensor roles of the op named `op` (its OpSpec::roles), in the order
/// its call takes them. Empty for an unknown op.
std::vector<RoleSpec> opRoles(const std::string &op);

/// The product of `shape`'s extents (1 for a scalar).
int64_t elementCount(const std::vector<int64_t> &shape);

/// `shape` as "4x?x8" (a dynamic extent as ?), "scalar" for none.
std::string shapeText(const std::vector<int64_t> &shape);

/// What is wrong with a caller's tensor `t` for a parameter of `dtype`
/// holding `expected` elements, empty when nothing: a null pointer,
/// another dtype, another element count (`createdFor` says the shape the
/// op was created for).
std::string tensorMismatch(const TensorRef &t, const std::string &dtype,
                           int64_t expected, const std::string &createdFor);

/// One tensor role of a call as an op expects it: its name, dtype, the
/// elements of what is passed for it and the shape the op was created for
/// (the text the messages quote).
struct RoleExpectation {
  std::string name;
  std::string dtype;
  int64_t elements = 0;
  std::string createdFor;

  /// A rows x cols matrix role ("RxC" in messages), or `parts` equal row
  /// blocks of one ("1/parts of RxC": a member's shard of it).
  static RoleExpectation matrix(std::string name, std::string dtype,
                                int64_t rows, int64_t cols, int64_t parts = 1) {
    std::string shape = std::to_string(rows) + "x" + std::to_string(cols);
    return {std::move(name), std::move(dtype), rows * cols / parts,
            parts == 1 ? shape : "1/" + std::to_string(parts) + " of " + shape};
  }
};

/// What is wrong with the counts of a call of an op whose tensor roles are
/// `roleNames`, empty when nothing: `streams` is not one stream per local
/// member, `tensorLists` not one list per role, `inPlaceEntries` neither 0
/// nor one per role.
std::string callCountsMismatch(size_t streams, size_t tensorLists,
                               size_t inPlaceEntries, size_t locals,
                               const std::vector<std::string> &roleNames);

/// Where a tensor of a role marked `disjoint` overlaps another role's
/// tensor of the same local member, the text naming both and the member;
/// empty when none does. tensors[r][i] is role r's tensor of local member
/// i and bytes[r] its size; roles with caller[r] false (bound to a symmetric
/// buffer in place: the op's own memory) take no part. The tensors have
/// passed roleTensorsMismatch.
std::string
overlappingTensors(const std::vector<RoleSpec> &roles,
                   const std::vector<std::vector<TensorRef>> &tensors,
                   const std::vector<uint64_t> &bytes,
                   const std::vector<bool> &caller, size_t locals);

/// What is wrong with the tensors passed for `role` (one per local member),
/// empty when nothing: not one per local member, a tensorMismatch, an
/// address not a multiple of `alignment` bytes. The text names the role and
/// the local member.
std::string roleTensorsMismatch(const std::vector<TensorRef> &tensors,
                                const RoleExpectation &role, size_t locals,
                                uint64_t alignment = 1);

/// What is wrong with a symmetric buffer passed in place for `role` (the
/// whole parameter: `role.elements` of `role.dtype`), empty when nothing:
/// a buffer of another heap than `heapId`, another dtype, another size.
std::string inPlaceMismatch(const SymmetricBuffer &buffer, uint64_t heapId,
                            const RoleExpectation &role);

/// What is wrong with a call of the GEMM + reduce-scatter's algorithms that
/// bind no role in place ("copy_engine", "scatter", "input_gather"): the
/// counts, a symmetric buffer passed, or a tensor of a (D·m x k), b (k x
/// n), c (m x n) of `dtype` not 16-byte aligned (their tensor maps and
/// vectors); empty when nothing.
std::string matmulReduceScatterCallMismatch(
    const std::vector<std::vector<TensorRef>> &tensors, size_t streams,
    const std::vector<std::optional<SymmetricBuffer>> &inPlace, size_t locals,
    const std::string &dtype, int64_t d, int64_t m, int64_t k, int64_t n);

/// What is wrong with a call of the all-gather matmul's host-driven
/// algorithms ("gather", "copy_engine"), which may take `a` in place (a
/// symmetric buffer of D·m x k, every member's rows written) and nothing
/// else: the counts, a symmetric b or c, a placed `a` of another heap,
/// dtype or size, or a tensor of a (m x k, the member's block of D·m), b
/// (k x n), c (D·m x n) of `dtype` not 16-byte aligned; empty when nothing.
std::string allGatherMatmulCallMismatch(
    const std::vector<std::vector<TensorRef>> &tensors, size_t streams,
    const std::vector<std::optional<SymmetricBuffer>> &inPlace, size_t locals,
    uint64_t heapId, const std::string &dtype, int64_t d, int64_t m, int64_t k,
    int64_t n);

/// Per local member's pointer, a tensor of `dtype` and `shape` (its bytes
/// from `elementBytes` a element): a kernel argument the copy-engine
/// algorithms bind for their plain matmul and sum launches.
DeviceBuffers tensorView(std::vector<uint64_t> pointers,
                         const std::string &dtype, std::vector<int64_t> shape,
                         uint64_t elementBytes);

/// The shapes a fused matmul op gives its kernel's dynamic parameters (its
/// OpSpec::matmulParamShapes: all-gather matmul: `a` and `c` of team size x
/// mShard rows, `own` of mShard; matmul reduce-scatter: `a`, `c`, one row tile of `partial`
/// and `slots` of 2 x team size x mShard rows). Empty for an unknown op.
ParamShapes matmulParamShapes(const std::string &op, uint32_t teamSize,
                              const MatmulShape &shape);

} // namespace weave::ops::detail

#endif // WEAVE_OPS_LIB_BINDINGS_H
