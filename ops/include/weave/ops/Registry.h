//===- Registry.h - The one table of the ready-made ops ---------*- C++ -*-===//
//
// Every op weave::ops offers is one OpSpec of opRegistry() (ops/lib/
// Registry.cpp): its name, the tensor roles its call takes, the dtypes its
// templates take, its algorithms (each a template of ops/templates/ and the
// kernel launched from it, with the parameters the op owns for it) and the
// rows of Auto's choice table. The C++ ops, weave-ops, the Python module,
// the collectives' checker in examples/ and bench/collectives read this
// table instead of spelling op names; test/unit/ops checks that each of
// them covers every entry. No CUDA call, no compiler: library WeaveOpsHost.
//
// Adding a collective: its template under ops/templates/<op>/ and an entry
// here (docs/ARCHITECTURE.md, "Where do I add X").
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_OPS_REGISTRY_H
#define WEAVE_OPS_REGISTRY_H

#include "weave/ops/KernelSource.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace weave::ops {

/// How an op is sized: by one element count (the collectives), or by a
/// fused matmul's (m_shard, k, n).
enum class OpFamily { Collective, FusedMatmul };

/// How many elements a collective's tensor role holds on a team of D with
/// the op's count N: N, D x N (a block per member) or D (one i32 per member:
/// all-to-all-v's counts).
enum class RoleExtent { Count, TeamTimesCount, Team };

/// One tensor the op's call takes, in call order.
struct RoleSpec {
  std::string param; ///< the kernel parameter the role binds
  bool written;      ///< the kernel writes it (copied out when staged)
  /// The caller's tensor is the member's own block of the (symmetric)
  /// parameter: elements [rank x n, (rank + 1) x n), n = the parameter's
  /// elements / team size (the all-gather matmul's shard of A). Its op's
  /// kernel classes bind it, and copy nothing: their kernels read the
  /// block where the caller has it (`own`); a staged kernel refuses such a
  /// role.
  bool memberBlock = false;
  /// A collective's element count for this role (unused for fused ops,
  /// whose roles are matrices).
  RoleExtent extent = RoleExtent::Count;
  /// The caller's tensor may not overlap another tensor of the same call:
  /// the kernel declares the parameter noalias (read-only loads that
  /// another role's writes must not reach; StagedKernel checks it).
  bool disjoint = false;
};

/// What the op holds for a kernel parameter no role binds (planBindings
/// derives it from the kernel's manifest; the registry declares it and
/// test/unit/ops checks the two agree for every template).
enum class Owned {
  Semaphores,         ///< semaphore words, zeroed by the heap
  SymmetricWorkspace, ///< a symmetric buffer (scratch, flags, tables)
  LocalWorkspace,     ///< plain device memory per local member, zeroed once
};
struct OwnedParam {
  std::string param;
  Owned kind;
};

/// One kernel an op can run: a template of ops/templates/ and the gpu.func
/// launched from it.
struct AlgorithmSpec {
  std::string name;         ///< what `algorithm` spells: "one_shot", "push"
  std::string templateName; ///< `<folder>/<stem>` under ops/templates/
  std::string kernel;       ///< the gpu.func (the template's stem)
  bool perTeam;             ///< compiled per team size (false: any size)
  /// The op runs it when asked (or chosen); false: a variant of the
  /// collective that only examples/ and the benchmark run (it needs
  /// template values the op does not give, or another op superseded it).
  bool offered = true;
  /// Sums are taken in rank order (bit for bit reproducible); false for
  /// sums by atomics, whose order depends on timing.
  bool rankOrder = true;
  /// The kernel parameters the op owns (every user parameter no role binds).
  std::vector<OwnedParam> owns;
  /// The op whose entry owns templateName and kernel, when this algorithm
  /// launches another algorithm's kernel (the all-gather matmul's "gather"
  /// runs the GEMM + reduce-scatter's chunk matmul, ce_matmul, from that
  /// op's instance; the GEMM + reduce-scatter's "scatter" runs its own
  /// "copy_engine"'s): findRegisteredKernel finds the owner's entry, and
  /// this algorithm's instance of it is the owner's (one bundle; unless
  /// `values` sets template values). Empty: its own.
  std::string kernelOf = {};
  /// The dtypes it takes where fewer than its op's (OpSpec::dtypes; the
  /// GEMM + reduce-scatter's "scatter": bf16, which its reduce-scatter
  /// sums). Empty: every one of the op's.
  std::vector<std::string> dtypes = {};
  /// Template values this algorithm fixes over its kernel's defaults (the
  /// all-gather's "narrow": BLOCKS). Its instance is then a bundle of its
  /// own: the key spells the algorithm after the count
  /// (`direct_all_gather_bf16_d4_n2097152_narrow`).
  TemplateValues values = {};
};

/// A row of Auto's choice table (issue #30): the first row whose team range
/// holds the team size and whose maxBytes is at least N x the element size
/// (N: the op's count) is taken. `minTeam` 0 also holds an instance for any
/// team size.
struct ChoiceRow {
  uint32_t minTeam, maxTeam;
  int64_t maxBytes;
  std::string algorithm;
};

/// The shape of a fused matmul op: rows per member's shard, the reduction
/// dimension, the columns (of a member's b).
struct MatmulShape {
  int64_t mShard = 0;
  int64_t k = 0;
  int64_t n = 0;
};

/// The shape of every kernel parameter with dynamic dimensions, by name.
using ParamShapes = std::map<std::string, std::vector<int64_t>>;

struct OpSpec {
  /// The op's one spelling: opInstance / matmulOpInstance, weave-ops,
  /// Python's `weave._cuda.<name>_op` and `Collectives.<name>`.
  std::string name;
  std::string title; ///< in messages: "all-reduce"
  OpFamily family;
  std::string countName; ///< a collective's count: "count", "capacity"
  /// Sums (f32 or bf16: accumulated in f32; f16 would round on the way).
  bool reduces = false;
  /// The dtypes its templates take (what instanceFor accepts).
  std::vector<std::string> dtypes;
  std::vector<RoleSpec> roles;
  /// Its kernels; the first offered one is the default where Auto has no
  /// table.
  std::vector<AlgorithmSpec> algorithms;
  /// Auto's table (collectives; empty for the fused ops, whose rule is
  /// their class's: MatmulReduceScatter::choose).
  std::vector<ChoiceRow> choices;
  /// Fused ops: the kernel instance of a shape and algorithm ("auto": the
  /// op's rule; checks the shape first) and the shapes of the kernel's
  /// dynamic parameters.
  Expected<KernelInstance> (*matmulInstance)(uint32_t teamSize,
                                             const std::string &dtype,
                                             const MatmulShape &shape,
                                             const std::string &algorithm) =
      nullptr;
  ParamShapes (*matmulParamShapes)(uint32_t teamSize,
                                   const MatmulShape &shape) = nullptr;

  /// The algorithm named `name` (offered or not), or null.
  const AlgorithmSpec *algorithm(const std::string &name) const;
  /// The names of the offered algorithms, as "'put', 'push', 'direct'".
  std::string offeredNames() const;
  bool takesDtype(const std::string &dtype) const;
  /// The op takes `dtype` and so does its algorithm `a` (AlgorithmSpec::
  /// dtypes).
  bool takesDtype(const std::string &dtype, const AlgorithmSpec &a) const;
};

/// Every op, in a fixed order (collectives first, then the fused matmuls).
const std::vector<OpSpec> &opRegistry();
/// The op named `name`, or null.
const OpSpec *findOp(const std::string &name);
/// Every op's name, ", "-separated (for messages).
std::string opNames(OpFamily family);

/// A kernel of the registry: its op and algorithm.
struct RegisteredKernel {
  const OpSpec *op;
  const AlgorithmSpec *algorithm;
};
/// Every kernel of every op (offered or not), in registry order.
std::vector<RegisteredKernel> registeredKernels();
/// The registered kernel launched as `kernel` (a template's stem): the
/// entry that owns it (not one whose kernelOf names another op), or
/// {null, null}.
RegisteredKernel findRegisteredKernel(const std::string &kernel);

} // namespace weave::ops

#endif // WEAVE_OPS_REGISTRY_H
