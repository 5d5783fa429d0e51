//===- Registry.cpp - The one table of the ready-made ops -----------------===//
//
// One entry per op. Everything else that names an op (Instances.cpp,
// Bindings.cpp, Collectives.cpp, weave-ops, the Python module, the checker
// in examples/support, bench/collectives, test/gpu/run_loopback.sh) reads
// this table; test/unit/ops/OpsRegistryTest.cpp fails when one of them
// misses an entry or an entry disagrees with its template.
//
//===----------------------------------------------------------------------===//

#include "weave/ops/Registry.h"

#include "weave/ops/FusedMatmul.h"

namespace weave::ops {

namespace {

constexpr int64_t kAny = int64_t(1) << 62;

// Shorthands for the table below.
constexpr Owned kSems = Owned::Semaphores;
constexpr Owned kSym = Owned::SymmetricWorkspace;
constexpr Owned kLocal = Owned::LocalWorkspace;
const std::vector<std::string> kSumTypes = {"f32", "bf16"};
const std::vector<std::string> kMoveTypes = {"f16", "bf16", "f32"};
const std::vector<std::string> kMatmulTypes = {"f16", "bf16"};
const std::vector<RoleSpec> kInOut = {{"input", false}, {"output", true}};

/// The issue #30 push protocol: the peers' double-buffered scratch, a
/// launch epoch per block, one flag per parity, block and peer.
std::vector<OwnedParam> pushState() {
  return {{"scratch", kSym}, {"epoch", kLocal}, {"arrived", kSems}};
}
/// The low-latency packet protocol (issue #30): the peers' packet buffer
/// `lines`, a launch epoch per block, one padded word's `tail`; the
/// reducing kernels read the packets into the local `gathered` to sum.
std::vector<OwnedParam> packetState(bool reduces) {
  std::vector<OwnedParam> owns = {{"lines", kSym}};
  if (reduces)
    owns.push_back({"gathered", kLocal});
  owns.push_back({"tail", kLocal});
  owns.push_back({"epoch", kLocal});
  return owns;
}
/// The direct (bandwidth) protocol: ready and done flags per block.
std::vector<OwnedParam> directState() {
  return {{"epoch", kLocal}, {"ready", kSems}, {"done", kSems}};
}

std::vector<OpSpec> makeRegistry() {
  std::vector<OpSpec> ops;

  // The choice tables (issue #30): for each op, rows in order; Auto takes
  // the first row whose team range holds the team size and whose maxBytes
  // is at least N x the element size (N: the template's count, i.e. what a
  // member sends to each peer: the all-reduce's whole input, the
  // all-gather's input, the reduce-scatter's output block, the
  // all-to-all's block per pair). The all-reduce, all-gather and
  // reduce-scatter rows: 4 x H100 (NV18), bf16 and f32 summed, CUDA
  // graphs, 2026-11-26 (docs/PERF.md, "Collectives on 4 x H100: the
  // bandwidth path (issue #30, continued)"); the all-to-all rows are the
  // 4 x H200 sweep's ("Collectives on 2 and 4 GPUs (issue #30)": the H100
  // sweep stopped in the all-to-all at 4 MB). The packet (ll) rows of teams
  // 1-2 and the all-to-all-v rows: 2 x H100, 2026-11-26 ("The packet
  // kernels of the latency path on 2 x H100 (issue #30, round 4)"); the
  // packet rows of teams from 3: 4 x H100, 2026-11-26, 4 KB-1 MB ("The
  // packet kernels at D = 4"), above which the push / direct / pull rows
  // of the earlier 4-GPU sweeps stay. The fastest kernel of ours
  // at each size, D = 2 for the rows up to team 2 and D = 4 for the rows
  // from team 3 (a team of 3 takes D = 4's crossovers). Each op's last row
  // also holds team size 0 (an instance for any team size): only the
  // all-reduce's two-shot is one. `bench/collectives/choice_table.py`
  // prints these rows from sweeps of `weave_bench_collectives`.

  ops.push_back(
      {"all_reduce",
       "all-reduce",
       OpFamily::Collective,
       "count",
       /*reduces=*/true,
       kSumTypes,
       kInOut,
       {{"one_shot", "all_reduce/one_shot_all_reduce", "one_shot_all_reduce",
         /*perTeam=*/false, true, true, {{"barrier", kSems}}},
        {"two_shot", "all_reduce/two_shot_all_reduce", "two_shot_all_reduce",
         false, true, true, {{"barrier", kSems}}},
        {"push", "all_reduce/push_all_reduce", "push_all_reduce", true, true,
         true, pushState()},
        // The bandwidth path: a push reduce-scatter into the owners'
        // scratch, the sums stored into every member's symmetric output,
        // an arrived and a done flag per block and peer.
        {"push_two_shot", "all_reduce/push_two_shot_all_reduce",
         "push_two_shot_all_reduce", true, true, true,
         {{"scratch", kSym}, {"epoch", kLocal}, {"flags", kSems}}},
        // Low-latency packets: data and flag in one 64-bit store, no
        // barrier, no flag round (the latency path).
        {"ll", "all_reduce/ll_all_reduce", "ll_all_reduce", true, true, true,
         packetState(true)},
        // Sums by weave.atomic_add (order-dependent bits); its template
        // takes WIDTH, LOAD, LOADED and VALUE besides.
        {"atomic", "all_reduce/atomic_all_reduce", "atomic_all_reduce", false,
         /*offered=*/false, /*rankOrder=*/false, {{"barrier", kSems}}}},
       // ll: 2.9-4.8 us up to 256 KB at D = 2 (push 4.5-5.8, NCCL 6.5-8.8,
       // PyTorch's one_shot_all_reduce 8.5-10.7); push at 1 MB (9.0 us, ll
       // 10.5: the packets' doubled bytes); at D = 4 ll up to 64 KB (3.6-5.0
       // us, push 5.1-6.1, NCCL 9.8-11.2), push at 256 KB (7.6, ll 8.2-8.4);
       // push two-shot from 4 MB at D = 2
       // (1.3-1.7x NCCL to 16 MB) and from 1 MB at D = 4 (0.97-1.57x NCCL to
       // 256 MB); the grid two-shot at D = 2 from 64 MB (2-11% ahead of push
       // two-shot there).
       {{1, 2, 256 << 10, "ll"},
        {1, 2, 1 << 20, "push"},
        {1, 2, 16 << 20, "push_two_shot"},
        {3, 1024, 64 << 10, "ll"},
        {3, 1024, 256 << 10, "push"},
        {3, 1024, kAny, "push_two_shot"},
        {0, 1024, kAny, "two_shot"}}});

  ops.push_back(
      {"all_gather",
       "all-gather",
       OpFamily::Collective,
       "count",
       false,
       kMoveTypes,
       {{"input", false}, {"output", true, false, RoleExtent::TeamTimesCount}},
       {{"put", "all_gather/all_gather", "all_gather", true, true, true,
         {{"arrived", kSems}, {"barrier", kSems}}},
        {"push", "all_gather/push_all_gather", "push_all_gather", true, true,
         true, pushState()},
        {"direct", "all_gather/direct_all_gather", "direct_all_gather", true,
         true, true, directState()},
        // The direct kernel on kNarrowAllGatherBlocks blocks, for an
        // all-gather that runs beside a matmul and leaves it the other SMs
        // (the all-gather matmul's gather, GatherSchedule::BesideNarrow).
        // Never the choice table's: alone, the 64 blocks are faster.
        {"narrow", "all_gather/direct_all_gather", "direct_all_gather", true,
         true, true, directState(), "all_gather", {},
         {{"BLOCKS", std::to_string(kNarrowAllGatherBlocks)}}},
        // Epoch flags (mode(set) / cmp(eq)) instead of a counter.
        {"flags", "all_gather/all_gather_flags", "all_gather_flags", true,
         false, true,
         {{"epoch", kLocal}, {"arrived", kSems}, {"barrier", kSems}}},
        {"ll", "all_gather/ll_all_gather", "ll_all_gather", true, true, true,
         packetState(false)},
        // The one-block packet all-gather: whole 32-bit words only (even
        // bf16 counts).
        {"ll_one_block", "all_gather/all_gather_ll", "all_gather_ll", true,
         false, true, {{"lines", kSym}, {"epoch", kLocal}}}},
       // ll (packets, no flag) up to 512 KB per peer at D = 2: 2.9-6.5 us
       // against push's 4.7-7.0; ll up to 256 KB per peer at D = 4 too
       // (3.4-8.1 us against push's 5.6-8.8, NCCL 7.4-13.0); the
       // paired-load direct kernel wins above (4 x H100).
       {{1, 2, 512 << 10, "ll"},
        {3, 1024, 256 << 10, "ll"},
        {0, 1024, kAny, "direct"}}});

  ops.push_back(
      {"reduce_scatter",
       "reduce-scatter",
       OpFamily::Collective,
       "count",
       true,
       kSumTypes,
       {{"input", false, false, RoleExtent::TeamTimesCount}, {"output", true}},
       {{"pull", "reduce_scatter/reduce_scatter", "reduce_scatter", true, true,
         true, {{"barrier", kSems}}},
        {"push", "reduce_scatter/push_reduce_scatter", "push_reduce_scatter",
         true, true, true, pushState()},
        {"ll", "reduce_scatter/ll_reduce_scatter", "ll_reduce_scatter", true,
         true, true, packetState(true)}},
       // ll up to 512 KB per peer at D = 2 (3.1-6.8 us against push's
       // 4.6-6.9); at D = 4 up to 64 KB per peer (3.7-5.1 us against push's
       // 5.5-7.2; push 8.0-8.2 at 256 KB per peer, ll 8.4-8.5); push sums
       // its scratch locally; the pull kernel reads the peers in place and
       // wins from 8 MB per peer (D = 2) / 16 MB (D = 4).
       {{1, 2, 512 << 10, "ll"},
        {1, 2, 2 << 20, "push"},
        {3, 1024, 64 << 10, "ll"},
        {3, 1024, 4 << 20, "push"},
        {0, 1024, kAny, "pull"}}});

  ops.push_back(
      {"all_to_all",
       "all-to-all",
       OpFamily::Collective,
       "count",
       false,
       kMoveTypes,
       {{"input", false, false, RoleExtent::TeamTimesCount},
        {"output", true, false, RoleExtent::TeamTimesCount}},
       {{"put", "all_to_all/all_to_all", "all_to_all", true, true, true,
         {{"arrived", kSems}, {"barrier", kSems}}},
        {"push", "all_to_all/push_all_to_all", "push_all_to_all", true, true,
         true, pushState()},
        {"direct", "all_to_all/direct_all_to_all", "direct_all_to_all", true,
         true, true, directState()},
        {"ll", "all_to_all/ll_all_to_all", "ll_all_to_all", true, true, true,
         packetState(false)}},
       // ll up to 512 KB per pair at D = 2 (3.0-6.5 us against push's
       // 4.8-7.1), and up to 256 KB per pair at D = 4 (3.7-8.2 us against
       // push's 6.1-9.8, NCCL 6.7-14.0); direct from 2 MB per pair (13.6 us
       // at 4 MB, push 15.7).
       {{1, 2, 512 << 10, "ll"},
        {3, 1024, 256 << 10, "ll"},
        {0, 1024, kAny, "direct"}}});

  ops.push_back(
      {"all_to_all_v",
       "all-to-all-v",
       OpFamily::Collective,
       "capacity",
       false,
       kMoveTypes,
       // input and counts are disjoint: no algorithm runs in place (peers'
       // data lands in output while the member still reads input), and the
       // packet kernel reads both as noalias.
       {{"input", false, false, RoleExtent::TeamTimesCount, true},
        {"counts", false, false, RoleExtent::Team, true},
        {"output", true, false, RoleExtent::TeamTimesCount}},
       {{"put", "all_to_all/all_to_all_v", "all_to_all_v", true, true, true,
         {{"table", kSym}, {"arrived", kSems}, {"barrier", kSems}}},
        // Many blocks storing into the peers' output; the counts travel as
        // packets that also say the peer has started the launch.
        {"direct", "all_to_all/direct_all_to_all_v", "direct_all_to_all_v",
         true, true, true,
         {{"table", kSym}, {"seen", kLocal}, {"epoch", kLocal},
          {"done", kSems}}},
        // Low-latency packets: the counts and the data carry the epoch;
        // a plain output, one NVLink trip.
        {"ll", "all_to_all/ll_all_to_all_v", "ll_all_to_all_v", true, true,
         true,
         {{"lines", kSym}, {"heads", kSym}, {"seen", kLocal},
          {"epoch", kLocal}}}},
       // ll up to 512 KB of capacity per pair at D = 2 (2.7-3.6 us, NCCL's
       // grouped send/recv 5.6-6.5, direct 5.6-6.4); direct above (1.0-1.6x
       // NCCL from 2 MB to 32 MB sent; the one-block put kernel 17-390 us).
       // From 3 members ll up to 256 KB of capacity per pair, the largest
       // ll bundle timed at D = 4 (4 x H100: 4.7-6.3 us against direct's
       // 7.8-11.7 and NCCL's 6.8-11.4; at D = 3, 341 KB a pair: 5.4-5.6
       // against 8.4-11.0 and 13.2-13.4), direct above (its protocol is the
       // direct all-to-all's). The earlier 76242 was the bench's size column
       // (the bytes its random counts send in all, 0.29 x the nominal size),
       // not the capacity per pair that N x the element size is.
       {{1, 2, 512 << 10, "ll"},
        {3, 1024, 256 << 10, "ll"},
        {0, 1024, kAny, "direct"}}});

  // The all-gather matmul's kernels take the gathered rows `a` (symmetric,
  // D x m_shard rows: the op's, or the caller's buffer passed in place) and
  // the member's own shard `own` (the caller's `a`, or rows r of the buffer:
  // a plain buffer that no role names, bound by the kernel classes,
  // RingGather.h and CopyEngineGather.h). The ring's `launches` (the
  // kernel's epoch) and semaphores are the op's.
  OpSpec agmm{"all_gather_matmul",
              "all-gather matmul",
              OpFamily::FusedMatmul,
              "",
              false,
              kMatmulTypes,
              {{"a", false, /*memberBlock=*/true}, {"b", false}, {"c", true}},
              {{"ring",
                "collective_matmul/all_gather_matmul",
                "all_gather_matmul",
                true,
                true,
                true,
                {{"own", kLocal},
                 {"ready", kSems},
                 {"launches", kLocal},
                 {"done", kSems}}},
               // The all-gather beside the own shard's matmul (issue #32,
               // ninth session; ops/lib/GatherMatmul.h): the collectives'
               // all-gather into the op's gathered rows on a side stream,
               // the plain matmul of the own shard at once and of each
               // peer's after it. Its matmul is the GEMM + reduce-scatter's
               // ce_matmul (kernelOf): the same instance and bundle; the
               // all-gather's instance is ops::AllGather's, and its
               // workspace is the op's, not a kernel parameter. "auto"
               // takes it where AllGatherMatmul::choose says. It replaced
               // the copy engines' push (slower than the ring at 15 of 16
               // shapes, docs/PERF.md).
               {"gather",
                "matmul_reduce_scatter/ce_matmul",
                "ce_matmul",
                true,
                true,
                true,
                {},
                "matmul_reduce_scatter"},
               // The own shard pushed to every peer by the copy engines,
               // one persistent matmul over every row whose tiles wait for
               // their shard's flag (issue #32, sixteenth session;
               // ops/lib/CopyEngineGather.h). Its kernel is its own
               // (ROWS = ?, variants per m_shard as the ring's); `ready`
               // is the op's: CopyEngineLanes' flags, which the kernel
               // class binds, as it binds `a` (the gathered rows) and
               // `own` (the caller's shard, read by the own tiles: a plain
               // buffer that no role names, so a local one by the plan).
               {"copy_engine",
                "collective_matmul/ce_all_gather_matmul",
                "ce_all_gather_matmul",
                true,
                true,
                true,
                {{"own", kLocal}, {"ready", kSems}}}},
              {}};
  agmm.matmulInstance = [](uint32_t d, const std::string &dtype,
                           const MatmulShape &s,
                           const std::string &algorithm)
      -> Expected<KernelInstance> {
    WEAVE_TRY(AllGatherMatmul::checkShape(d, dtype, s.mShard, s.k, s.n));
    return AllGatherMatmul::instanceFor(
        d, dtype, s.k, s.n,
        matmulOpAlgorithm("all_gather_matmul", d, dtype, s, algorithm));
  };
  agmm.matmulParamShapes = [](uint32_t d, const MatmulShape &s) {
    // Saturated: a shard too large to multiply (checkShape rejects it with
    // its reason) must not wrap into a small, valid-looking row count.
    int64_t rows;
    if (__builtin_mul_overflow(int64_t(d), s.mShard, &rows))
      rows = INT64_MAX;
    return ParamShapes{
        {"a", {rows, s.k}}, {"own", {s.mShard, s.k}}, {"c", {rows, s.n}}};
  };
  ops.push_back(std::move(agmm));

  // `slots` (symmetric, 2 x D slots of m_shard rows: the template says
  // why), `partial` (the pipeline's operand, whose stores the epilogue
  // replaces), `launches` (the kernel's epoch) and the barrier are the
  // op's.
  OpSpec mrs{"matmul_reduce_scatter",
             "matmul reduce-scatter",
             OpFamily::FusedMatmul,
             "",
             false,
             kMatmulTypes,
             {{"a", false}, {"b", false}, {"c", true}},
             {{"owner_slots", "matmul_reduce_scatter/matmul_reduce_scatter",
               "matmul_reduce_scatter", true, true, true,
               {{"partial", kLocal},
                {"slots", kSym},
                {"launches", kLocal},
                {"barrier", kSems}}},
              // The owner sums its own rows in the pipeline's combine
              // region, per-source flags instead of the barrier and the
              // pass: correct, measured slower than owner_slots on 4 x H100
              // (docs/PERF.md, "the owner sums its own rows"), so the op
              // does not run it; the benchmark and the protocol checker's
              // tests do.
              {"owner_combine", "matmul_reduce_scatter/owner_combine",
               "owner_combine", true, /*offered=*/false, true,
               {{"partial", kLocal},
                {"slots", kSym},
                {"launches", kLocal},
                {"flags", kSems}}},
              // The copy engines (issue #31, seventh session): D chunk
              // matmuls per member (ce_matmul, own chunk last), each other
              // owner's chunk moved by cuMemcpyAsync into this member's slot
              // on its owner, stream memory operations on symmetric flags
              // in between, then the owner's sum (in the own chunk's
              // epilogue, ce_matmul_sum, or as a pass, ce_sum:
              // MatmulReduceScatter::sumsInEpilogue). Its workspace
              // (staging, slots, flags, copy streams) is the op's, not a
              // kernel parameter: ops/lib/CopyEngine.h; ce_matmul's own
              // `ws` (its tail split's and split-K's partials and counters)
              // is allocated per member by PlainMatmulOpKernel for every
              // op that launches it ("scatter", "gather"). The default
              // from D = 2 (MatmulReduceScatter::choose).
              {"copy_engine", "matmul_reduce_scatter/ce_matmul", "ce_matmul",
               true, true, true, {{"ws", kLocal}}},
              // One matmul of every row, then the collectives'
              // reduce-scatter (issue #31, fourteenth session;
              // ops/lib/ScatterMatmul.h): the copy-engine algorithm's
              // ce_matmul (kernelOf: the same instance and bundle), the
              // reduce-scatter's instance ops::ReduceScatter's, its
              // workspace the op's. "auto" takes it where
              // MatmulReduceScatter::choose says. bf16 only: the
              // reduce-scatter sums bf16 or f32.
              {"scatter", "matmul_reduce_scatter/ce_matmul", "ce_matmul",
               true, true, true, {}, "matmul_reduce_scatter", {"bf16"}},
              // The inputs gathered instead of the partial products (issue
              // #31, thirty-ninth session): the copy engines push each
              // member's rows of a and its b into their owner's symmetric
              // stages while the owner multiplies its own rows
              // (ig_matmul), then one launch multiplies the stages and
              // adds the own product in its epilogue (ig_matmul_add). Its
              // workspace (stages, flags, copy streams) is the op's:
              // ops/lib/InputGather.h; `ws` as ce_matmul's.
              {"input_gather", "matmul_reduce_scatter/ig_matmul",
               "ig_matmul", true, true, true, {{"ws", kLocal}}}},
             {}};
  mrs.matmulInstance = [](uint32_t d, const std::string &dtype,
                          const MatmulShape &s,
                          const std::string &algorithm)
      -> Expected<KernelInstance> {
    WEAVE_TRY(MatmulReduceScatter::checkShape(d, dtype, s.mShard, s.k, s.n));
    return MatmulReduceScatter::instanceFor(
        d, dtype, s.k, s.n,
        matmulOpAlgorithm("matmul_reduce_scatter", d, dtype, s, algorithm),
        s.mShard);
  };
  mrs.matmulParamShapes = [](uint32_t d, const MatmulShape &s) {
    int64_t rows;
    if (__builtin_mul_overflow(int64_t(d), s.mShard, &rows))
      rows = INT64_MAX;
    // The GEMM + RS's `partial` is the pipeline's out operand, which its
    // epilogue region replaces: nothing is stored to it and no tensor map
    // is built for it, so one row tile of memory backs the argument.
    return ParamShapes{{"a", {rows, s.k}},
                       {"partial", {MatmulReduceScatter::kRowTile, s.n}},
                       {"slots", {2 * rows, s.n}},
                       {"c", {s.mShard, s.n}}};
  };
  ops.push_back(std::move(mrs));
  return ops;
}

} // namespace

const std::vector<OpSpec> &opRegistry() {
  static const std::vector<OpSpec> registry = makeRegistry();
  return registry;
}

const OpSpec *findOp(const std::string &name) {
  for (const OpSpec &op : opRegistry())
    if (op.name == name)
      return &op;
  return nullptr;
}

std::string opNames(OpFamily family) {
  std::string names;
  for (const OpSpec &op : opRegistry())
    if (op.family == family)
      names += (names.empty() ? "" : ", ") + op.name;
  return names;
}

const AlgorithmSpec *OpSpec::algorithm(const std::string &name) const {
  for (const AlgorithmSpec &a : algorithms)
    if (a.name == name)
      return &a;
  return nullptr;
}

std::string OpSpec::offeredNames() const {
  std::string names;
  for (const AlgorithmSpec &a : algorithms)
    if (a.offered)
      names += (names.empty() ? "'" : ", '") + a.name + "'";
  return names;
}

bool OpSpec::takesDtype(const std::string &dtype) const {
  for (const std::string &t : dtypes)
    if (t == dtype)
      return true;
  return false;
}

bool OpSpec::takesDtype(const std::string &dtype,
                        const AlgorithmSpec &a) const {
  if (!takesDtype(dtype))
    return false;
  if (a.dtypes.empty())
    return true;
  for (const std::string &t : a.dtypes)
    if (t == dtype)
      return true;
  return false;
}

std::vector<RegisteredKernel> registeredKernels() {
  std::vector<RegisteredKernel> kernels;
  for (const OpSpec &op : opRegistry())
    for (const AlgorithmSpec &a : op.algorithms)
      kernels.push_back({&op, &a});
  return kernels;
}

RegisteredKernel findRegisteredKernel(const std::string &kernel) {
  for (const RegisteredKernel &k : registeredKernels())
    if (k.algorithm->kernel == kernel && k.algorithm->kernelOf.empty())
      return k;
  return {nullptr, nullptr};
}

} // namespace weave::ops
