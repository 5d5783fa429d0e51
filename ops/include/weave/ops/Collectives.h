//===- Collectives.h - Ready-made collectives on a team ---------*- C++ -*-===//
//
// All-reduce, all-gather, reduce-scatter, all-to-all and all-to-all-v, each
// a dialect kernel of ops/templates/<name>/ (the op's entry in Registry.h
// says which) instantiated for the op's dtype and size. The caller passes plain device buffers, one
// per local member, and one stream per local member; the op owns the
// symmetric staging buffers and semaphores its kernel needs, so repeated
// calls need no host synchronization and a call can be captured in a CUDA
// graph (the first call builds the kernel: make it before capturing).
//
//   auto comm = ops::Communicator(team, heap, std::make_shared<ops::JitSource>());
//   auto sum = ops::AllReduce::create(comm, "bf16", n).value();
//   sum({in}, {out}, {stream});
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_OPS_COLLECTIVES_H
#define WEAVE_OPS_COLLECTIVES_H

#include "weave/ops/Communicator.h"
#include "weave/ops/Registry.h"

#include <cuda.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace weave::ops {

/// A device buffer of one local member. Its element count must match what
/// the op was created for (any shape with that many elements).
struct TensorRef {
  uint64_t data = 0;
  std::string dtype; ///< "f32", "bf16", ... ("i32" for all-to-all-v counts)
  std::vector<int64_t> shape;
};

namespace detail {
class OpKernel;
} // namespace detail

/// The common part of every op: its kernel and its symmetric staging.
class CollectiveOp {
public:
  CollectiveOp(CollectiveOp &&) noexcept;
  CollectiveOp &operator=(CollectiveOp &&) noexcept;
  ~CollectiveOp();
  /// The kernel instance this op runs (for messages, tools and tests).
  const KernelInstance &instance() const;

  /// Built by the ops' create functions.
  explicit CollectiveOp(std::unique_ptr<detail::OpKernel> kernel);

protected:
  /// Runs the op: `tensors[r]` holds one TensorRef per local member for the
  /// op's tensor role r (in the order the op documents).
  Status run(const std::vector<std::vector<TensorRef>> &tensors,
             const std::vector<CUstream> &streams);
  /// The same, with role `role` bound to `buffer` (a symmetric buffer of
  /// the communicator's heap holding the whole parameter) instead of a
  /// staging copy of tensors[role], which is not read.
  Status runInPlace(size_t role, const SymmetricBuffer &buffer,
                    const std::vector<std::vector<TensorRef>> &tensors,
                    const std::vector<CUstream> &streams);

private:
  std::unique_ptr<detail::OpKernel> kernel_;
};

/// An op with one input and one output tensor per local member.
class InOutOp : public CollectiveOp {
public:
  using CollectiveOp::CollectiveOp;
  Status operator()(const std::vector<TensorRef> &in,
                    const std::vector<TensorRef> &out,
                    const std::vector<CUstream> &streams) {
    return run({in, out}, streams);
  }
};

/// How a collective chooses its kernel (issue #30): the OpSpec::choices
/// rows of every op (Registry.h), flattened; rows in order; `Auto` (algorithm "auto") takes the first row for the op whose
/// team range holds the team size and whose maxBytes is at least the bytes
/// a member sends each peer (N x element size; N: the op's count).
/// `weave_bench_collectives --table` prints rows of this form from a sweep.
struct CollectiveChoice {
  const char *op;
  uint32_t minTeam, maxTeam;
  int64_t maxBytes;
  const char *algorithm;
};
const std::vector<CollectiveChoice> &collectiveChoices();
/// The algorithm the table picks ("" if no row matches).
std::string chooseAlgorithm(const std::string &op, uint32_t teamSize,
                            const std::string &dtype, int64_t count);

enum class AllReduceAlgorithm {
  Auto,    ///< by the choice table: push on the latency path, two-shot above
  OneShot, ///< every member reads every peer's whole input (2 grid barriers)
  TwoShot, ///< reduce-scatter, then all-gather: each element read once
  Push,    ///< a few blocks push their chunk into every peer's scratch,
           ///< one flag per block and peer (ops/templates/all_reduce/push_all_reduce)
  PushTwoShot, ///< push reduce-scatter into the owners' scratch, then the
               ///< sums stored into every member's output: the bandwidth
               ///< path (ops/templates/all_reduce/push_two_shot_all_reduce)
  Ll, ///< low-latency packets: data and flag in one store, no barrier
      ///< (ops/templates/all_reduce/ll_all_reduce)
};
/// "auto", "one_shot", "two_shot", "push", "push_two_shot", "ll".
std::string allReduceAlgorithmName(AllReduceAlgorithm algorithm);

/// out = the sum over the team of `in` (`count` elements of f32 or bf16,
/// summed in f32 in rank order: every member gets the same bits).
class AllReduce : public InOutOp {
public:
  static Expected<AllReduce> create(Communicator &comm, const std::string &dtype,
                                    int64_t count,
                                    AllReduceAlgorithm algorithm =
                                        AllReduceAlgorithm::Auto);
  AllReduceAlgorithm algorithm() const { return algorithm_; }

  /// The kernel instance create() builds (no GPU needed: tools and tests
  /// compile it ahead of time). Auto picks by size, as create() does.
  static Expected<KernelInstance> instanceFor(uint32_t teamSize,
                                           const std::string &dtype,
                                           int64_t count,
                                           AllReduceAlgorithm algorithm);
  /// What Auto picks for `count` elements of `dtype` on a team of `teamSize`.
  static AllReduceAlgorithm choose(uint32_t teamSize, const std::string &dtype,
                                   int64_t count);
  using InOutOp::InOutOp;

private:
  AllReduceAlgorithm algorithm_ = AllReduceAlgorithm::OneShot;
};

/// The ops below differ only in their kernel: each has an input and an
/// output tensor per member, a create() and the instance it builds.
/// `algorithm`: "auto" (the choice table) or one of the op's kernels:
/// all-gather "put" (one block, a team barrier), "push" (scratch, one flag
/// per block and peer) or "direct" (into the peers' output, ready and done
/// flags per block); reduce-scatter "pull" (the persistent grid reads every
/// peer's input between two grid barriers) or "push"; all-to-all "put",
/// "push" or "direct"; all-to-all-v "put".
#define WEAVE_OPS_IN_OUT_OP(Name)                                              \
  class Name : public InOutOp {                                                \
  public:                                                                      \
    static Expected<Name> create(Communicator &comm, const std::string &dtype, \
                                 int64_t count,                                \
                                 const std::string &algorithm = "auto");       \
    /** The kernel instance create() builds (no GPU needed). */                \
    static Expected<KernelInstance>                                            \
    instanceFor(uint32_t teamSize, const std::string &dtype, int64_t count,    \
                const std::string &algorithm = "auto");                        \
    using InOutOp::InOutOp;                                                    \
  };

/// out (team size x count) = every member's `in` (count), in rank order.
WEAVE_OPS_IN_OUT_OP(AllGather)
/// Member m's out (count) = the sum over the team of block m of `in`
/// (team size x count), summed in f32 in rank order.
WEAVE_OPS_IN_OUT_OP(ReduceScatter)
/// Block j of member i's `in` (team size x count) lands in block i of
/// member j's `out`.
WEAVE_OPS_IN_OUT_OP(AllToAll)
#undef WEAVE_OPS_IN_OUT_OP

/// MoE dispatch: member i sends counts_i[j] (0..capacity) elements to
/// member j, packed in `in` in destination order; member j receives them
/// packed in source order in `out`. `in` and `out` hold team size x
/// capacity elements; `counts` is an i32 device array of team size.
/// The token form (`rowElements` > 1, as an MoE dispatch counts tokens of a
/// hidden size): `capacity` and the counts are in rows of `rowElements`
/// elements, and `in` and `out` hold team size x capacity rows.
class AllToAllV : public CollectiveOp {
public:
  static Expected<AllToAllV> create(Communicator &comm, const std::string &dtype,
                                    int64_t capacity,
                                    const std::string &algorithm = "auto",
                                    int64_t rowElements = 1);
  Status operator()(const std::vector<TensorRef> &in,
                    const std::vector<TensorRef> &counts,
                    const std::vector<TensorRef> &out,
                    const std::vector<CUstream> &streams) {
    return run({in, counts, out}, streams);
  }

  /// The kernel instance create() builds (no GPU needed). The token form's
  /// is the element form's template with HIDDEN = rowElements and count =
  /// capacity x rowElements, keyed `all_to_all_v_<T>_d<D>_r<capacity>x<rowElements>`.
  static Expected<KernelInstance> instanceFor(uint32_t teamSize,
                                           const std::string &dtype,
                                           int64_t capacity,
                                           const std::string &algorithm = "auto",
                                           int64_t rowElements = 1);
  using CollectiveOp::CollectiveOp;
};

/// Any op of the registry (Registry.h) by its name: what the Python module
/// binds, so an op registered with no class of its own is callable too.
/// The typed ops above are the same kernels with a typed call.
class RegisteredOp : public CollectiveOp {
public:
  /// A collective (OpFamily::Collective) of `count` elements;
  /// `rowElements` > 1: the all-to-all-v's token form (AllToAllV::create).
  static Expected<RegisteredOp> create(Communicator &comm,
                                       const std::string &op,
                                       const std::string &dtype, int64_t count,
                                       const std::string &algorithm = "auto",
                                       int64_t rowElements = 1);
  /// A fused matmul (OpFamily::FusedMatmul) of `shape`; `algorithm`
  /// "auto" (the op's rule) or one of its offered algorithms.
  static Expected<RegisteredOp> createMatmul(Communicator &comm,
                                             const std::string &op,
                                             const std::string &dtype,
                                             const MatmulShape &shape,
                                             const std::string &algorithm =
                                                 "auto");
  const OpSpec &spec() const { return *spec_; }
  /// Runs the op: `tensors[r]` holds one TensorRef per local member for
  /// role r of spec().roles.
  Status operator()(const std::vector<std::vector<TensorRef>> &tensors,
                    const std::vector<CUstream> &streams) {
    return run(tensors, streams);
  }
  /// The same with role `role` bound to `buffer`, a symmetric buffer of the
  /// communicator's heap holding the whole parameter (tensors[role] is not
  /// read): e.g. the all-gather matmul's gathered `a`.
  Status inPlace(size_t role, const SymmetricBuffer &buffer,
                 const std::vector<std::vector<TensorRef>> &tensors,
                 const std::vector<CUstream> &streams) {
    return runInPlace(role, buffer, tensors, streams);
  }

private:
  RegisteredOp(std::unique_ptr<detail::OpKernel> kernel,
               const OpSpec *spec);
  const OpSpec *spec_;
};

/// "auto", "one_shot", "two_shot", "push", "push_two_shot" or "ll": the spelling of tools and
/// bindings.
Expected<AllReduceAlgorithm> parseAllReduceAlgorithm(const std::string &name);

/// The kernel instance of the collective named `op` (an OpSpec of family
/// Collective: "all_reduce", "all_gather", "reduce_scatter", "all_to_all",
/// "all_to_all_v"; `algorithm` "auto" or one of the op's offered
/// algorithms, as above): the one dispatch from an op's name, for
/// weave-ops, the Python bindings and RegisteredOp. `rowElements` other
/// than 1 is the all-to-all-v's token form (AllToAllV::instanceFor); any
/// other op refuses it.
Expected<KernelInstance> opInstance(const std::string &op, uint32_t teamSize,
                                    const std::string &dtype, int64_t count,
                                    const std::string &algorithm = "auto",
                                    int64_t rowElements = 1);

} // namespace weave::ops

#endif // WEAVE_OPS_COLLECTIVES_H
