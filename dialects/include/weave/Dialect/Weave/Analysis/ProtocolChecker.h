//===- ProtocolChecker.h - races and deadlocks between team members -*- C++
//-*-===//
//
// An abstract interpreter of a kernel's communication skeleton: every member
// of a team of D devices runs the kernel on the CPU for L consecutive
// launches; semaphores, barriers, one-sided copies, remote loads, stores and
// atomics and the pipeline's TMA traffic are kept, arithmetic on data is
// abstracted. It explores interleavings of the members and reports
// deadlocks, races on symmetric memory (a happens-before relation built from
// vector clocks through signal -> wait and barriers) and remote accesses out
// of bounds. docs/PROTOCOL_CHECKER.md says what it models and what it does
// not.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_DIALECT_WEAVE_ANALYSIS_PROTOCOLCHECKER_H
#define WEAVE_DIALECT_WEAVE_ANALYSIS_PROTOCOLCHECKER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mlir::weave {

struct ProtocolCheckOptions {
  /// Team sizes to check (a kernel with a static mesh size is checked at
  /// that size only).
  std::vector<int64_t> teamSizes = {2, 3, 4, 8};
  /// Consecutive launches of the kernel on every member, with no host
  /// synchronization between them.
  int64_t launches = 2;
  /// Blocks of a `grid = [persistent, 1, 1]` kernel (the runtime sizes it
  /// at launch; each value is one configuration).
  std::vector<int64_t> persistentGrids = {1, 3};
  /// Schedules explored per configuration: two deterministic ones (members
  /// in rank order, and in reverse), the rest random from `seed`.
  unsigned schedules = 4;
  uint64_t seed = 1;
  /// Interpreted operations per schedule before the checker gives up.
  uint64_t stepLimit = 20000000;
  /// Run-time sizes of dynamic memref dimensions, by parameter name
  /// (`weave.name`, else `argN`): every `?` in order.
  std::map<std::string, std::vector<int64_t>> shapes;
  /// Contents of integer buffers (repeated to fill), by parameter name.
  std::map<std::string, std::vector<int64_t>> fills;
  /// By-value integer parameters; a parameter without a value takes the
  /// launch number + 1 (an epoch).
  std::map<std::string, int64_t> scalarArgs;
  /// Model the host stream between launches: it reads what peers delivered
  /// into buffers the kernel does not read itself, and rewrites symmetric
  /// buffers the kernel only reads, before every launch.
  bool hostIO = true;
  /// Semaphores the host sets, by parameter name: before every launch each
  /// member's host stream sets every counter of it to the value (with a
  /// release: after the inputs it wrote), and after the launch back to 0.
  /// This is how a kernel whose flags stream memory operations raise (the
  /// copy-engine algorithms' `ready`, set after each copy has landed) is
  /// checked on its own: the copies are then the host's input writes.
  std::map<std::string, int64_t> hostSignals;
  /// Symmetric buffers that hold only what the team's kernels write, by
  /// parameter name (the all-gather matmul's gathered rows: the own shard
  /// comes from elsewhere): a read of bytes no member has written yet is
  /// reported ("unwritten read"). Without it a buffer's unwritten bytes
  /// count as inputs the host provided.
  std::set<std::string> kernelWritten;
};

/// Checks every kernel (`gpu.func` with `weave.kernel`) of `module`.
/// Findings are emitted as errors (with notes for the other side) on the
/// module's context; on success a one-line summary of what was explored is
/// written to `summary`. Fails when anything was found or could not be
/// modelled.
LogicalResult checkProtocol(ModuleOp module,
                            const ProtocolCheckOptions &options,
                            llvm::raw_ostream &summary);

} // namespace mlir::weave

#endif // WEAVE_DIALECT_WEAVE_ANALYSIS_PROTOCOLCHECKER_H
