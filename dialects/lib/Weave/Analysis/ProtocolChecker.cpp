//===- ProtocolChecker.cpp - races and deadlocks between team members -----===//
//
// The structure (docs/PROTOCOL_CHECKER.md has the model):
//   - Kernel: what a kernel's parameters are (buffers, semaphores, sizes);
//   - Agent: one thread block of one member in one launch (or one role of a
//     block's weave.matmul_pipeline), a resumable interpreter over its frames
//     whose values are per-thread lanes (SIMT: a block runs in lock step,
//     conditions on the thread id split the active lanes);
//   - World: the team for one configuration (team size, grid, schedule):
//     semaphore counters, barriers, integer memory, the access history of
//     every member's copy of every symmetric buffer, and the scheduler;
//   - checkProtocol: the configurations, the deduplicated findings, the
//     summary.
// To model a new op, add a case to Agent::exec (and to writesOf if it
// writes a buffer); anything else with side effects is a "not modelled"
// finding, never silently ignored.
//
//===----------------------------------------------------------------------===//

#include "weave/Dialect/Weave/Analysis/ProtocolChecker.h"
#include "weave/Dialect/Weave/Transforms/Pipeline/EpilogueBoxes.h"
#include "weave/Dialect/Weave/Transforms/Pipeline/TileOrder.h"

#include "weave/Dialect/Weave/IR/WeaveDialect.h"
#include "weave/Dialect/Weave/IR/WeaveOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <random>
#include <set>
#include <unordered_map>

using namespace mlir;
using namespace mlir::weave;

namespace {

/// Threads of a warpgroup: a consumer's leader is thread 128 of the block
/// (warpgroup 1), and a combine region runs on all of the warpgroup's.
constexpr int64_t kWarpgroupLanes = 128;

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

/// One value per thread of the block, or one for all (size 1).
using Lanes = SmallVector<int64_t, 1>;

inline int64_t at(const Lanes &l, int t) { return l.size() == 1 ? l[0] : l[t]; }

enum class Space { Global, Symmetric, Shared, Private };

/// A memref as the checker sees it: which buffer, whose copy, where.
struct View {
  int buf = -1; ///< Kernel::buffers index
  Space space = Space::Global;
  Lanes owner;  ///< member whose copy (symmetric and global)
  Lanes offset; ///< in elements from the buffer's start
  SmallVector<int64_t, 4> sizes, strides;
  int64_t elemBytes = 1;
  bool remote = false; ///< reached through weave.remote_ref
  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t s : sizes)
      n *= s;
    return n;
  }
};

struct Val {
  enum Kind : uint8_t { Unset, Int, Unknown, Mem, Sem } kind = Unset;
  Lanes v;
  std::shared_ptr<View> mem;
  int sem = -1;             ///< Kernel::semaphores index
  Operation *why = nullptr; ///< Unknown: the op whose result it is
  static Val integer(int64_t x) {
    Val r;
    r.kind = Int;
    r.v = {x};
    return r;
  }
  static Val unknown(Operation *op) {
    Val r;
    r.kind = Unknown;
    r.why = op;
    return r;
  }
};

unsigned widthOf(Type type) {
  if (type.isIndex())
    return 64;
  if (auto it = dyn_cast<IntegerType>(type))
    return it.getWidth();
  return 0;
}

int64_t norm(int64_t v, unsigned w) {
  if (w == 0 || w >= 64)
    return v;
  if (w == 1)
    return v & 1;
  return (int64_t)((uint64_t)v << (64 - w)) >> (64 - w);
}

uint64_t uns(int64_t v, unsigned w) {
  if (w == 0 || w >= 64)
    return (uint64_t)v;
  return (uint64_t)v & ((uint64_t(1) << w) - 1);
}

//===----------------------------------------------------------------------===//
// Vector clocks
//===----------------------------------------------------------------------===//

struct VC {
  std::vector<uint32_t> c;
  uint32_t get(int a) const { return a < (int)c.size() ? c[a] : 0; }
  void set(int a, uint32_t v) {
    if (a >= (int)c.size())
      c.resize(a + 1, 0);
    c[a] = v;
  }
  void join(const VC &o) {
    if (o.c.size() > c.size())
      c.resize(o.c.size(), 0);
    for (size_t i = 0; i < o.c.size(); ++i)
      c[i] = std::max(c[i], o.c[i]);
  }
};

constexpr uint32_t kPending = UINT32_MAX;

/// Schedules per configuration while they stay cheap: up to kMaxSchedules
/// as long as the configuration has interpreted fewer than kCheapSteps
/// operations (a small collective: about 1000 per schedule).
constexpr unsigned kMaxSchedules = 32;
constexpr uint64_t kCheapSteps = 200000;

//===----------------------------------------------------------------------===//
// The kernel's parameters
//===----------------------------------------------------------------------===//

struct Buffer {
  std::string name;
  Space space = Space::Global;
  SmallVector<int64_t, 4> sizes;
  int64_t elemBytes = 1;
  bool integer = false;
  bool writtenByKernel = false;
  int64_t bytes() const {
    int64_t n = elemBytes;
    for (int64_t s : sizes)
      n *= s;
    return n;
  }
};

struct Semaphore {
  std::string name;
  int64_t count = 1;
};

struct Finding {
  std::string
      kind; ///< "deadlock", "race", "out of bounds", "not modelled", ...
  LocationAttr loc;
  std::string message;
  std::vector<std::pair<Location, std::string>> notes;
  std::string key;
};

/// Operand -> kernel argument through views, casts and remote_ref.
Value rootOf(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto r = dyn_cast<RemoteRefOp>(def))
      v = r.getBuffer();
    else if (isa<memref::SubViewOp, memref::CastOp, memref::CollapseShapeOp,
                 memref::ExpandShapeOp, memref::MemorySpaceCastOp,
                 memref::ReinterpretCastOp, memref::AssumeAlignmentOp>(def))
      v = def->getOperand(0);
    else
      break;
  }
  return v;
}

/// The memrefs `op` writes (for the host model's "inputs").
SmallVector<Value> writesOf(Operation *op) {
  if (auto s = dyn_cast<memref::StoreOp>(op))
    return {s.getMemref()};
  if (auto s = dyn_cast<vector::StoreOp>(op))
    return {s.getBase()};
  if (auto p = dyn_cast<PutOp>(op))
    return {p.getTarget()};
  if (auto g = dyn_cast<GetOp>(op))
    return {g.getTarget()};
  if (auto r = dyn_cast<ReadPacketsOp>(op))
    return {r.getTarget()};
  if (auto c = dyn_cast<CopySmemToGmemOp>(op))
    return {c.getTarget()};
  if (auto a = dyn_cast<AtomicAddOp>(op))
    return {a.getBuffer()};
  if (auto a = dyn_cast<memref::AtomicRMWOp>(op))
    return {a.getMemref()};
  if (auto m = dyn_cast<MatmulPipelineOp>(op))
    if (Value out = m.getOut()) // none when the epilogue stores every box
      return {out};
  return {};
}

std::string describeLoc(Location loc) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto f = dyn_cast<FileLineColLoc>(loc))
    os << llvm::sys::path::filename(f.getFilename().getValue()) << ":"
       << f.getLine();
  else
    os << loc;
  return s;
}

//===----------------------------------------------------------------------===//
// Agents
//===----------------------------------------------------------------------===//

struct World;
struct PipelineState;

enum class Role { Block, Producer, Callback, Consumer };

struct Frame {
  enum Kind { Body, If, For, While, Switch, Call, RegionFrame } kind = Body;
  Block *block = nullptr;
  Block::iterator it;
  std::vector<int> mask;
  Operation *op = nullptr;
  // If / Switch: the lanes still to run and the results gathered so far.
  std::vector<std::pair<mlir::Region *, std::vector<int>>> pending;
  std::vector<int> outerMask;
  std::vector<Val> results;
  bool haveResults = false;
  // For.
  Lanes iv, ub, step;
  std::vector<Val> iters;
  // Region (pipeline role): which callback finished.
  int regionTag = 0;
};

struct Agent {
  int id = 0;
  int member = 0, launch = 0, block = 0;
  Role role = Role::Block;
  int threads = 1;
  Agent *parent = nullptr;
  std::vector<Frame> stack;
  DenseMap<Value, Val> vals;
  VC clock;
  /// What a packet this agent deposits orders before it: its clock at its
  /// launch's start (a kernel boundary orders everything before it) or at
  /// its last release (a signal, or a fence of the memory model). A packet
  /// store is relaxed: the agent's plain accesses after that point are not
  /// ordered before a reader of the packet.
  VC released;
  /// The agent that stands for this agent's packet deposits (-1: none yet):
  /// a deposit is stamped by it, so that a reader that joins the deposit
  /// learns the deposit and `released`, not the depositor's whole clock.
  int packetChannel = -1;
  bool done = false;
  bool blocked = false;
  std::string blockReason;
  Operation *blockOp = nullptr;
  int laneProgress = 0;      ///< lanes of a per-thread wait already through
  int64_t barrierRound = -1; ///< the round of the barrier it arrived at
  bool yieldNow = false;     ///< a role asks the scheduler to look again
  /// Writes to symmetric memory since the block last synchronized (a
  /// gpu.barrier or an op that starts with one), with the threads that made
  /// them: a signal releases only its own thread's writes.
  std::vector<std::pair<Operation *, std::vector<int>>> unsynced;
  /// After a wait that only some threads ran (scope thread or warp) and
  /// before the next block barrier: what the other threads know (the clock
  /// before the wait), which threads waited, and the wait.
  std::optional<VC> lagging;
  std::vector<int> acquiredLanes;
  Operation *laggingWait = nullptr;
  VC preWait;
  /// Set while an access by threads that did not wait is checked.
  const VC *viewClock = nullptr;
  /// Integer elements the block's threads touched since its last barrier
  /// (buffer, owner, element): which threads, whether one wrote, the op.
  struct BlockTouch {
    std::vector<int> lanes;
    bool write = false, atomic = false;
    Operation *op = nullptr;
  };
  std::map<std::tuple<int, int, int64_t>, BlockTouch> touched;
  /// A block barrier: every thread now knows what any thread acquired.
  void blockSync() {
    unsynced.clear();
    lagging.reset();
    acquiredLanes.clear();
    laggingWait = nullptr;
    touched.clear();
  }
  /// Accesses of bulk (TMA) stores not complete yet: the write of the
  /// destination until a wait_smem_to_gmem that is not read_only, the read
  /// of the shared-memory source until any; per bulk group (one per op).
  struct PendingBulk {
    size_t index;
    int owner, buf;
    int64_t group;
    bool read;
  };
  std::vector<PendingBulk> pendingBulk;
  int64_t bulkGroups = 0;
  PipelineState *pipe = nullptr; ///< for roles: the pipeline they serve
  int64_t roleStep = 0;          ///< roles: next step
  int rolePhase = 0;
  int64_t roleBox = 0;
  std::map<int, std::map<int64_t, int64_t>> sharedInts; ///< workgroup ints

  uint32_t now() const { return clock.get(id); }
  void tick() { clock.set(id, clock.get(id) + 1); }

  const Val *lookup(Value v) const {
    for (const Agent *a = this; a; a = a->parent) {
      auto it = a->vals.find(v);
      if (it != a->vals.end())
        return &it->second;
    }
    return nullptr;
  }
};

struct PipeStep {
  int64_t m, n, k;
  /// The first and last steps of its unit (a split unit's part of a tile).
  bool firstOfUnit, lastOfTile;
};

struct PipelineState {
  MatmulPipelineOp op;
  Agent *owner = nullptr;
  std::vector<PipeStep> steps;
  std::deque<VC> full; ///< full[s - fullBase]: the producer's clock at load s
  int64_t fullBase = 0;
  int64_t loaded = 0, consumed = 0, calledBack = 0;
  std::vector<Agent *> roles;
  int64_t tileM, tileN, tileK, stages, delay;
  int lhsRing = -1, rhsRing = -1; ///< World::slots ids
  int64_t lhsTileBytes = 0, rhsTileBytes = 0;
  /// lhs_rows: lhs's rows [first, end) are read from the part (empty
  /// range: none).
  int64_t lhsRowsFirst = 0, lhsRowsEnd = 0;
};

//===----------------------------------------------------------------------===//
// Memory and synchronization state
//===----------------------------------------------------------------------===//

struct Access {
  int64_t base, rows, pitch, width; // bytes
  int agent;
  uint32_t stamp;
  bool write, atomic;
  Operation *op; ///< null: the host stream
  int member, launch, block;
  Role role;
  const char *what;
  bool dead = false; ///< superseded by a later write that covers it
};

struct CopyHistory {
  std::vector<Access> acc;
  /// Per 64 KiB page: the reads and the writes that touch it.
  std::unordered_map<int64_t, std::vector<uint32_t>> readPages, writePages;
  std::vector<uint32_t> seen; ///< per access: the last query that saw it
  uint32_t queries = 0;
  /// Accesses already recorded with the same agent, stamp and box, and the
  /// history's length then.
  std::map<std::tuple<int, uint32_t, int64_t, int64_t, int64_t, int64_t, bool>,
           size_t>
      recorded;
};

constexpr int64_t kPageBytes = 1 << 16;

/// A semaphore counter. `vc` joins every signal since the last `set`; `log`
/// keeps, per add, the value it made, who made it (agent and its stamp) and
/// the join of the signals up to it, so that a wait can synchronize with
/// the add it needed rather than with every add so far (Exec::execWait).
struct Counter {
  uint32_t value = 0;
  VC vc;
  struct Entry {
    uint32_t value;
    int agent;
    uint32_t stamp;
    VC upTo;
  };
  std::vector<Entry> log;
  /// The value and clock before log[0]: the last `set`, or entries folded
  /// away once the log grew past kCounterLog.
  uint32_t baseValue = 0;
  VC base;
};

/// Adds a counter remembers individually; older ones are folded into its
/// base (a wait that needs one of them then joins all of them: fewer races
/// found, never more).
constexpr size_t kCounterLog = 1024;

/// Whether a counter holding `value` passes a wait for `target`: equal
/// (cmp(eq)), at least it modulo 2^32 (cmp(ge_wrap): within 2^31 below),
/// or at least it.
bool waitPasses(uint32_t value, uint32_t target, bool eq, bool wrap) {
  return eq     ? value == target
         : wrap ? (int32_t)(uint32_t)(value - target) >= 0
                : value >= target;
}

struct BarrierRound {
  std::vector<int> arrived; ///< agent ids
  std::vector<int> members; ///< arrivals per member
  VC joined;
  bool complete = false;
  Operation *op = nullptr;
};

struct PacketDeposit {
  int64_t lo, hi; // element range
  int64_t flag;
  VC vc;
  /// The 32-bit words the packets carry, one a packet, where the source is
  /// an integer buffer (counts the receiver computes offsets from); empty
  /// otherwise. read_packets stores them into an integer target, so a
  /// kernel that exchanges its counts as packets runs with the real counts
  /// (without them every size read back was 0, and a kernel that moved
  /// nothing passed whatever its offsets).
  std::vector<int64_t> words;
};

struct Kernel {
  gpu::GPUFuncOp func;
  KernelAttr attr;
  std::vector<Buffer> buffers; ///< by argument index (non-buffers empty)
  std::vector<int> semOfArg;   ///< argument -> Semaphore index or -1
  std::vector<Semaphore> semaphores;
  int threads = 1;
  int64_t meshSize = ShapedType::kDynamic;
};

/// How the scheduler picks the next agent: the lowest rank that can move
/// (it runs ahead), the highest, every member before `victim` (it lags), or
/// at random.
enum class Policy { Forward, Backward, Delay, Random };

struct World {
  Kernel &k;
  const ProtocolCheckOptions &opts;
  int D, G, L;
  Policy policy;
  int victim = 0; ///< Policy::Delay: the member that runs last
  std::mt19937_64 rng;
  std::vector<std::unique_ptr<Agent>> agents;
  std::vector<int> launchOf;              ///< per member: current launch
  std::vector<std::vector<Agent *>> live; ///< per member: agents of its launch
  std::vector<VC> memberEnd; ///< per member: join of its ended launches
  std::map<std::tuple<int, int, int64_t>, Counter> counters; // member, sem, idx
  std::map<std::tuple<int, int, int64_t>, BarrierRound> rounds; // sem, scope, r
  std::map<std::pair<int, int>, int64_t> teamRound;             // member, sem
  std::map<std::tuple<int, int, int>, int64_t> blockRound; // member, block, sem
  std::map<std::pair<int, int>, std::vector<PacketDeposit>> packets;
  std::map<std::pair<int, int>, std::map<int64_t, int64_t>> ints; // member, buf
  std::map<std::pair<int, int>, CopyHistory> history;             // owner, buf
  std::set<std::string> reported;
  std::vector<Finding> &findings;
  uint64_t steps = 0;
  bool aborted = false;
  bool hostSync = false; ///< launches separated by a team-wide host sync
  uint64_t syncEvents = 0;
  // Per member and launch: symmetric buffers the kernel read locally.
  std::set<std::tuple<int, int, int>> localReads; // member, launch, buf
  std::map<std::tuple<int, int, int>, std::vector<Access>> delivered;

  World(Kernel &k, const ProtocolCheckOptions &opts, int D, int G,
        Policy policy, uint64_t seed, std::vector<Finding> &findings)
      : k(k), opts(opts), D(D), G(G), L(opts.launches), policy(policy),
        rng(seed), findings(findings) {}

  //--- findings ------------------------------------------------------------

  void report(Finding f) {
    if (f.key.empty()) {
      llvm::raw_string_ostream os(f.key);
      os << f.kind << "|" << f.loc;
      for (auto &n : f.notes)
        os << "|" << n.first;
    }
    if (!reported.insert(f.key).second)
      return;
    findings.push_back(std::move(f));
  }

  void notModelled(Operation *op, const Twine &what) {
    Finding f;
    f.kind = "not modelled";
    f.loc = op->getLoc();
    f.message = ("protocol check: not modelled: " + what).str();
    report(std::move(f));
    aborted = true;
  }

  std::string who(const Agent &a) const {
    std::string s = "member " + std::to_string(a.member) + " (launch " +
                    std::to_string(a.launch);
    if (G > 1 || a.block != 0)
      s += ", block " + std::to_string(a.block);
    if (a.role == Role::Producer)
      s += ", pipeline producer";
    else if (a.role == Role::Callback)
      s += ", pipeline callback";
    else if (a.role == Role::Consumer)
      s += ", pipeline consumer";
    return s + ")";
  }

  //--- agents --------------------------------------------------------------

  Agent *newAgent(int member, int launch, int block, Role role, Agent *parent) {
    auto a = std::make_unique<Agent>();
    a->id = agents.size();
    a->member = member;
    a->launch = launch;
    a->block = block;
    a->role = role;
    a->parent = parent;
    a->threads = k.threads;
    if (parent)
      a->clock = parent->clock;
    else
      a->clock = memberEnd[member];
    // A pipeline's roles see the block's private and shared integers (a
    // region's `memref.alloca` state defined before the op) and hand them
    // back when the op ends (execPipeline).
    if (parent)
      a->sharedInts = parent->sharedInts;
    a->released = parent ? parent->released : a->clock;
    a->tick();
    agents.push_back(std::move(a));
    Agent *p = agents.back().get();
    live[member].push_back(p);
    return p;
  }

  /// The agent that stamps `a`'s packet deposits (made on first use): never
  /// scheduled (done), named as `a` in findings.
  Agent &packetChannelOf(Agent &a) {
    if (a.packetChannel < 0) {
      auto ch = std::make_unique<Agent>();
      ch->id = agents.size();
      ch->member = a.member;
      ch->launch = a.launch;
      ch->block = a.block;
      ch->role = a.role;
      ch->threads = a.threads;
      ch->done = true;
      a.packetChannel = ch->id;
      agents.push_back(std::move(ch));
    }
    return *agents[a.packetChannel];
  }

  /// The pipelines' shared-memory rings (one buffer per operand and block),
  /// numbered after the kernel's parameters.
  std::vector<Buffer> slots;
  const Buffer &bufferOf(int id) const {
    return id < (int)k.buffers.size() ? k.buffers[id]
                                      : slots[id - k.buffers.size()];
  }
  int newSlots(const std::string &name) {
    Buffer b;
    b.name = name;
    b.space = Space::Shared;
    slots.push_back(b);
    return k.buffers.size() + slots.size() - 1;
  }
  void startLaunch(int member, int launch);
  void endLaunch(int member, bool startNext = true);
  /// ProtocolCheckOptions::hostSignals: the host stream of `member` sets
  /// them before the launch, or clears them after it.
  void setHostSignals(int member, int launch, bool before);
  void run();
  bool step(Agent &a); ///< true: progress
  void deadlock();

  //--- memory --------------------------------------------------------------

  void access(Agent &a, Operation *op, int owner, int buf, int64_t base,
              int64_t rows, int64_t pitch, int64_t width, bool write,
              bool atomic, const char *what, bool pendingBulk = false);
  void hostAccess(int member, int launch, int buf, const Access &box,
                  bool write, const VC &clock, int hostAgent);
  bool checkBounds(Agent &a, Operation *op, int owner, int buf, int64_t lo,
                   int64_t hi, const char *what);
  /// Reports a read of bytes of member `owner`'s copy of a buffer that
  /// holds only what the kernels write (ProtocolCheckOptions::
  /// kernelWritten) that no one has written before: on a GPU it reads
  /// whatever was there (e.g. the all-gather matmul's own rows, which come
  /// from an lhs_rows part, not from its gathered rows).
  void checkWritten(Agent &a, Operation *op, int owner, int buf, int64_t base,
                    int64_t rows, int64_t pitch, int64_t width,
                    const char *what);

  /// Whether `buf` is a kernel parameter named by
  /// ProtocolCheckOptions::kernelWritten (not a shared-memory ring).
  bool isKernelWritten(int buf) const {
    return !opts.kernelWritten.empty() && buf < (int)k.buffers.size() &&
           k.buffers[buf].space == Space::Symmetric &&
           opts.kernelWritten.count(k.buffers[buf].name);
  }
  /// Per (member, buffer) of those: the byte intervals [lo, hi) written so
  /// far by anyone (merged; ordering is the race check's business).
  std::map<std::pair<int, int>, std::map<int64_t, int64_t>> written;
  void markWritten(int owner, int buf, int64_t base, int64_t rows,
                   int64_t pitch, int64_t width);

  int64_t loadInt(int member, int buf, int64_t index) {
    auto &m = ints[{member, buf}];
    auto it = m.find(index);
    if (it != m.end())
      return it->second;
    // The initial contents (--fill, else 1 for integer inputs, 0 else).
    const Buffer &b = k.buffers[buf];
    auto f = opts.fills.find(b.name);
    if (f != opts.fills.end() && !f->second.empty())
      return f->second[index % f->second.size()];
    return b.writtenByKernel ? 0 : 1;
  }
};

//===----------------------------------------------------------------------===//
// Race detection
//===----------------------------------------------------------------------===//

bool boxesOverlap(const Access &a, const Access &b) {
  const Access &s = a.rows <= b.rows ? a : b;
  const Access &l = a.rows <= b.rows ? b : a;
  for (int64_t r = 0; r < s.rows; ++r) {
    int64_t lo = s.base + r * s.pitch, hi = lo + s.width;
    if (l.rows == 1) {
      if (lo < l.base + l.width && l.base < hi)
        return true;
      continue;
    }
    // Rows q of l with l.base + q*pitch < hi and l.base + q*pitch + width > lo.
    int64_t qmin = lo - l.width - l.base; // q*pitch > qmin
    int64_t qlo = qmin < 0 ? 0 : qmin / l.pitch + 1;
    if (qmin >= 0 && qmin % l.pitch == 0 && qmin / l.pitch + 1 > qlo)
      qlo = qmin / l.pitch + 1;
    int64_t qhiNum = hi - l.base; // q*pitch < qhiNum
    if (qhiNum <= 0)
      continue;
    int64_t qhi = (qhiNum - 1) / l.pitch; // largest q with q*pitch < qhiNum
    qhi = std::min(qhi, l.rows - 1);
    if (qlo <= qhi)
      return true;
  }
  return false;
}

std::string describeBytes(const Access &x) {
  int64_t hi = x.base + (x.rows - 1) * x.pitch + x.width;
  std::string s =
      "bytes [" + std::to_string(x.base) + ", " + std::to_string(hi) + ")";
  if (x.rows > 1)
    s += " (" + std::to_string(x.rows) + " rows of " + std::to_string(x.width) +
         ")";
  return s;
}

void World::access(Agent &a, Operation *op, int owner, int buf, int64_t base,
                   int64_t rows, int64_t pitch, int64_t width, bool write,
                   bool atomic, const char *what, bool pendingBulk) {
  if (width <= 0 || rows <= 0)
    return;
  if (rows == 1)
    pitch = width;
  if (pitch == width && rows > 1) { // contiguous rows: one interval
    width *= rows;
    rows = 1;
    pitch = width;
  }
  if (!write && owner == a.member)
    localReads.insert({a.member, a.launch, buf});
  if (isKernelWritten(buf)) {
    if (write)
      markWritten(owner, buf, base, rows, pitch, width);
    else if (op)
      checkWritten(a, op, owner, buf, base, rows, pitch, width, what);
  }
  Access cur{base,     rows,     pitch,
             width,    a.id,     pendingBulk ? kPending : a.now(),
             write,    atomic,   op,
             a.member, a.launch, a.block,
             a.role,   what};
  CopyHistory &h = history[{owner, buf}];
  // The same box again, from the same agent with no synchronization in
  // between (the pipeline's loads of one lhs tile for every column tile):
  // not recorded again, only checked against what was recorded since.
  uint32_t index = h.acc.size();
  uint32_t since = 0;
  bool duplicate = false;
  if (!pendingBulk) {
    auto [it, fresh] = h.recorded.try_emplace(
        {a.id, cur.stamp, base, rows, pitch, width, write}, index);
    if (!fresh) {
      duplicate = true;
      since = it->second + 1;
      if (since == index)
        return;
      // Checked up to here: the next duplicate starts after.
      it->second = index - 1;
    }
  }
  uint32_t query = ++h.queries;
  std::vector<uint32_t> superseded;
  size_t deadSeen = 0;
  int64_t lo = base, hi = base + (rows - 1) * pitch + width;
  for (int64_t p = lo / kPageBytes; p <= (hi - 1) / kPageBytes; ++p) {
    for (int list = 0; list < (write ? 2 : 1); ++list) {
      auto &pages = list == 0 ? h.writePages : h.readPages;
      auto it = pages.find(p);
      if (it != pages.end()) {
        // Page lists hold increasing indices: start at `since`.
        auto from =
            std::lower_bound(it->second.begin(), it->second.end(), since);
        for (auto jt = from; jt != it->second.end(); ++jt) {
          uint32_t j = *jt;
          if (h.seen[j] == query)
            continue;
          h.seen[j] = query;
          const Access &prev = h.acc[j];
          if (prev.dead) {
            ++deadSeen;
            continue;
          }
          if (!prev.write && !write)
            continue;
          bool ordered =
              (prev.agent == a.id && prev.stamp != kPending) ||
              (prev.stamp != kPending &&
               (a.viewClock ? *a.viewClock : a.clock).get(prev.agent) >=
                   prev.stamp);
          // A plain write that covers an access ordered before it stands
          // for it from now on: a later access that races with the old one
          // but not with this write is ordered after both.
          if (ordered && write && !atomic && !pendingBulk && !duplicate &&
              prev.rows == 1 && rows == 1 && prev.base >= base &&
              prev.base + prev.width <= base + width)
            superseded.push_back(j);
          if (prev.atomic && atomic)
            continue;
          if (ordered)
            continue;
          if (!boxesOverlap(prev, cur))
            continue;
          Finding f;
          f.kind = "race";
          std::string bufName = bufferOf(buf).name;
          auto side = [&](const Access &x) {
            std::string s;
            if (!x.op)
              s = "the host stream of member " + std::to_string(x.member) +
                  (x.write ? " (writing the input before launch " +
                                 std::to_string(x.launch) + ")"
                           : " (reading the output after launch " +
                                 std::to_string(x.launch) + ")");
            else {
              Agent &xa = *agents[x.agent];
              s = std::string(x.what) + " by " + who(xa);
            }
            return s;
          };
          // The primary location is a kernel access (the host has none).
          const Access &one = cur.op ? cur : prev;
          const Access &other = cur.op ? prev : cur;
          f.loc = one.op->getLoc();
          f.message =
              "race: " + side(one) + (one.write ? " writes " : " reads ") +
              describeBytes(one) + " of member " + std::to_string(owner) +
              "'s '" + bufName + "' while " + side(other) +
              (other.write ? " writes " : " reads ") + describeBytes(other) +
              ", and no signal/wait or barrier orders the two";
          if (prev.stamp == kPending && prev.write)
            f.message +=
                " (the earlier bulk store is not complete: wait for it "
                "with weave.wait_smem_to_gmem 0 before signalling)";
          else if (prev.stamp == kPending)
            f.message += " (the bulk store has not finished reading its "
                         "source: wait with weave.wait_smem_to_gmem N "
                         "read_only before the slot is reused)";
          if (a.viewClock && a.laggingWait && cur.op)
            f.message += " (threads of the block that did not run the wait "
                         "at " +
                         describeLoc(a.laggingWait->getLoc()) +
                         " access it with no gpu.barrier after that wait to "
                         "hand them its acquire)";
          // The host's side: the parameter it reads or writes.
          f.notes.push_back(
              {other.op ? other.op->getLoc() : k.func.getArgument(buf).getLoc(),
               "the other access: " + side(other)});
          std::string l1, l2;
          llvm::raw_string_ostream o1(l1), o2(l2);
          o1 << LocationAttr(f.loc) << (one.op ? "k" : "h");
          o2 << f.notes.back().first << (other.op ? "k" : "h");
          f.key = "race|" + std::min(l1, l2) + "|" + std::max(l1, l2);
          report(std::move(f));
          break;
        }
      }
    }
    if (!duplicate)
      (write ? h.writePages : h.readPages)[p].push_back(index);
  }
  // Drop what this write supersedes; compact page lists that are mostly
  // dead (a pipeline's ring slots are rewritten every few steps).
  for (uint32_t j : superseded)
    h.acc[j].dead = true;
  if (deadSeen + superseded.size() > 64) {
    for (int64_t p = lo / kPageBytes; p <= (hi - 1) / kPageBytes; ++p)
      for (auto *pages : {&h.writePages, &h.readPages}) {
        auto it = pages->find(p);
        if (it != pages->end())
          llvm::erase_if(it->second, [&](uint32_t j) { return h.acc[j].dead; });
      }
  }
  if (duplicate)
    return;
  h.acc.push_back(cur);
  h.seen.push_back(0);
  if (pendingBulk)
    a.pendingBulk.push_back({index, owner, buf, a.bulkGroups, !write});
  if (write && op) {
    // What the host stream of `owner` may read after its launch.
    delivered[{owner, 0, buf}].push_back(cur);
  }
}

bool World::checkBounds(Agent &a, Operation *op, int owner, int buf, int64_t lo,
                        int64_t hi, const char *what) {
  const Buffer &b = k.buffers[buf];
  if (b.space != Space::Symmetric && b.space != Space::Global)
    return true;
  if (lo >= 0 && hi <= b.bytes())
    return true;
  Finding f;
  f.kind = "out of bounds";
  f.loc = op->getLoc();
  f.message = std::string(owner != a.member ? "remote access out of bounds: "
                                            : "access out of bounds: ") +
              what + " by " + who(a) + " touches bytes [" + std::to_string(lo) +
              ", " + std::to_string(hi) + ") of member " +
              std::to_string(owner) + "'s '" + b.name + "', which has " +
              std::to_string(b.bytes()) + " bytes";
  report(std::move(f));
  return false;
}

void World::markWritten(int owner, int buf, int64_t base, int64_t rows,
                        int64_t pitch, int64_t width) {
  auto &set = written[{owner, buf}];
  for (int64_t r = 0; r < rows; ++r) {
    int64_t lo = base + r * pitch, hi = lo + width;
    // Merge with every interval that touches [lo, hi).
    auto it = set.upper_bound(lo);
    if (it != set.begin() && std::prev(it)->second >= lo)
      --it;
    while (it != set.end() && it->first <= hi) {
      lo = std::min(lo, it->first);
      hi = std::max(hi, it->second);
      it = set.erase(it);
    }
    set.emplace(lo, hi);
  }
}

void World::checkWritten(Agent &a, Operation *op, int owner, int buf,
                         int64_t base, int64_t rows, int64_t pitch,
                         int64_t width, const char *what) {
  const Buffer &b = k.buffers[buf];
  auto found = written.find({owner, buf});
  for (int64_t r = 0; r < rows; ++r) {
    int64_t lo = base + r * pitch, hi = lo + width;
    bool covered = false;
    if (found != written.end()) {
      auto it = found->second.upper_bound(lo);
      covered = it != found->second.begin() && std::prev(it)->first <= lo &&
                std::prev(it)->second >= hi;
    }
    if (covered)
      continue;
    Finding f;
    f.kind = "unwritten read";
    f.loc = op->getLoc();
    f.message = std::string("read of memory nothing wrote: ") + what +
                " by " + who(a) + " reads bytes [" + std::to_string(lo) +
                ", " + std::to_string(hi) + ") of member " +
                std::to_string(owner) + "'s '" + b.name +
                "', which no member has written before it (--check-kernel-"
                "written " +
                b.name +
                ": it holds only what the kernels write; a part that no "
                "peer delivers, or rows that should come from elsewhere, "
                "e.g. an lhs_rows part)";
    report(std::move(f));
    return;
  }
}

//===----------------------------------------------------------------------===//
// The interpreter
//===----------------------------------------------------------------------===//

struct Exec {
  World &w;
  Agent &a;
  enum Result { Next, Jump, Block, Sync, Stop };

  Val &set(Value v, Val x) { return a.vals[v] = std::move(x); }
  const Val &get(Value v) {
    const Val *x = a.lookup(v);
    if (!x) {
      static Val unset;
      return unset;
    }
    return *x;
  }
  /// Integer lanes of `v`; reports (and stops) when they are data.
  bool ints(Operation *op, Value v, Lanes &out) {
    const Val &x = get(v);
    if (x.kind == Val::Int) {
      out = x.v;
      return true;
    }
    std::string why = "the value is data the checker abstracts";
    if (x.kind == Val::Unknown && x.why)
      why += " (computed by '" + x.why->getName().getStringRef().str() +
             "' at " + describeLoc(x.why->getLoc()) + ")";
    else if (x.kind == Val::Unset)
      why = "the value was never computed";
    w.notModelled(op, "'" + op->getName().getStringRef() +
                          "' depends on an operand the checker cannot "
                          "compute: " +
                          why);
    return false;
  }
  bool uniform(Operation *op, Value v, const std::vector<int> &mask,
               int64_t &out) {
    Lanes l;
    if (!ints(op, v, l))
      return false;
    out = at(l, mask.empty() ? 0 : mask[0]);
    for (int t : mask)
      if (at(l, t) != out) {
        w.notModelled(op, "an operand differs between threads where the "
                          "checker needs one value");
        return false;
      }
    return true;
  }

  Result exec(Operation *op, std::vector<int> &mask);
  Result execArith(Operation *op);
  Result execMemAccess(Operation *op, Value memref, ValueRange indices,
                       int64_t elems, bool write, bool atomic,
                       const std::vector<int> &mask, Value stored);
  Result execSignal(SemaphoreSignalOp op, const std::vector<int> &mask);
  Result execWait(SemaphoreWaitOp op, const std::vector<int> &mask);
  /// What a passing wait for `target` on `c` synchronizes with.
  const VC &acquiredBy(const Counter &c, bool eq, bool wrap,
                       uint32_t target) const;
  void logCounter(Counter &c);
  Result execBarrier(BarrierOp op, const std::vector<int> &mask);
  Result execCopy(Operation *op, Value src, Value srcDev, Value dst,
                  Value dstDev, CopyScope scope, Value sig, Value sigIdx,
                  Value sigVal, Value sigDev, const std::vector<int> &mask,
                  bool packets, Value flag);
  Result execReadPackets(ReadPacketsOp op, const std::vector<int> &mask);
  Result execBulk(Operation *op, Value gmem, ValueRange indices, Value smem,
                  Value device, bool write, bool reduce,
                  const std::vector<int> &mask);
  Result execPipeline(MatmulPipelineOp op, const std::vector<int> &mask);
  bool viewOf(Operation *op, Value v, std::shared_ptr<View> &out);
  void signalCounter(int member, int sem, int64_t idx, int64_t value, bool set);
  /// Checks accesses by `lanes` with the clock of the threads that did not
  /// run the last partial wait, when some of `lanes` did not.
  void viewFor(const std::vector<int> &lanes) {
    a.viewClock = nullptr;
    if (!a.lagging)
      return;
    for (int t : lanes)
      if (!std::binary_search(a.acquiredLanes.begin(), a.acquiredLanes.end(),
                              t)) {
        a.viewClock = &*a.lagging;
        return;
      }
  }
  /// Intra-block races on integer elements: `lanes` touch element `e` of
  /// (`buf`, `owner`) that another thread touched since the last barrier.
  bool touch(Operation *op, int buf, int owner, int64_t e,
             const std::vector<int> &lanes, bool write, bool atomic) {
    auto &t = a.touched[{buf, owner, e}];
    if (t.op && (t.write || write) && !(t.atomic && atomic)) {
      bool sameSingle =
          t.lanes.size() == 1 && lanes.size() == 1 && t.lanes[0] == lanes[0];
      if (!sameSingle) {
        Finding f;
        f.kind = "race";
        f.loc = op->getLoc();
        f.message =
            "race: within " + w.who(a) + ", " + std::to_string(lanes.size()) +
            " thread" + (lanes.size() == 1 ? "" : "s") +
            (write ? " write" : " read") + (lanes.size() == 1 ? "s" : "") +
            " element " + std::to_string(e) + " of '" +
            (buf >= 0 ? w.k.buffers[buf].name : std::string("shared")) +
            "' that " + std::to_string(t.lanes.size()) + " thread" +
            (t.lanes.size() == 1 ? "" : "s") + (t.write ? " wrote" : " read") +
            " with no gpu.barrier between";
        f.notes.push_back({t.op->getLoc(), "the other threads' access"});
        w.report(std::move(f));
        return false;
      }
    }
    std::vector<int> merged;
    std::set_union(t.lanes.begin(), t.lanes.end(), lanes.begin(), lanes.end(),
                   std::back_inserter(merged));
    t.lanes = std::move(merged);
    if (write || !t.op)
      t.op = op;
    t.atomic = (t.op ? t.atomic || !t.write : true) && atomic;
    t.write |= write;
    return true;
  }
  /// Writes of `lanes` to symmetric memory that no block barrier ordered.
  void unsyncedWrite(Operation *op, std::vector<int> lanes) {
    if (a.unsynced.size() < 64)
      a.unsynced.push_back({op, std::move(lanes)});
  }
  /// A signal by `signallers` releases only their own writes: report the
  /// writes of other threads of the block that no barrier ordered first.
  void checkRelease(Operation *sigOp, const std::vector<int> &signallers) {
    for (auto &[wop, lanes] : a.unsynced) {
      if (std::includes(signallers.begin(), signallers.end(), lanes.begin(),
                        lanes.end()))
        continue;
      Finding f;
      f.kind = "race";
      f.loc = sigOp->getLoc();
      f.message =
          "race: the signal by " +
          std::string(signallers.size() == 1
                          ? "thread " + std::to_string(signallers[0])
                          : std::to_string(signallers.size()) + " threads") +
          " of " + w.who(a) + " releases only its own writes, but " +
          std::to_string(lanes.size()) +
          " threads of the block wrote "
          "symmetric memory with '" +
          wop->getName().getStringRef().str() +
          "' and no gpu.barrier orders their writes before the "
          "signal: a peer that sees the signal may read data that "
          "has not landed";
      f.notes.push_back({wop->getLoc(), "the writes of the other threads"});
      w.report(std::move(f));
      return;
    }
  }
  void release() {
    // Bulk stores still in flight are not covered by this release.
    a.released = a.clock;
    a.tick();
  }
  /// Completes the bulk groups but the last `keep` (reads only, for a
  /// read_only wait).
  void completeBulk(int64_t keep = 0, bool readsOnly = false) {
    std::vector<Agent::PendingBulk> still;
    for (const Agent::PendingBulk &p : a.pendingBulk) {
      if (p.group < a.bulkGroups - keep && (p.read || !readsOnly))
        w.history[{p.owner, p.buf}].acc[p.index].stamp = a.now();
      else
        still.push_back(p);
    }
    a.pendingBulk = std::move(still);
  }
};

bool Exec::viewOf(Operation *op, Value v, std::shared_ptr<View> &out) {
  const Val &x = get(v);
  if (x.kind != Val::Mem || !x.mem) {
    w.notModelled(op, "a memref operand the checker cannot follow");
    return false;
  }
  out = x.mem;
  return true;
}

Exec::Result Exec::execArith(Operation *op) {
  // Results of an op on integers computed lane by lane.
  SmallVector<Lanes, 3> in;
  bool allInt = true;
  Operation *unknownWhy = nullptr;
  for (Value v : op->getOperands()) {
    const Val &x = get(v);
    if (x.kind != Val::Int) {
      allInt = false;
      unknownWhy = x.kind == Val::Unknown && x.why ? x.why : op;
      break;
    }
    in.push_back(x.v);
  }
  if (op->getNumResults() != 1 || !allInt ||
      !widthOf(op->getResult(0).getType())) {
    for (Value r : op->getResults())
      set(r, Val::unknown(unknownWhy ? unknownWhy : op));
    return Next;
  }
  Type rt = op->getResult(0).getType();
  unsigned w0 =
      op->getNumOperands() ? widthOf(op->getOperand(0).getType()) : 64;
  unsigned rw = widthOf(rt);
  size_t n = 1;
  for (auto &l : in)
    n = std::max(n, l.size());
  Lanes out(n);
  bool ok = true;
  for (size_t t = 0; t < n && ok; ++t) {
    auto A = [&](int i) { return at(in[i], t); };
    int64_t r = 0;
    if (auto c = dyn_cast<arith::CmpIOp>(op)) {
      int64_t x = A(0), y = A(1);
      uint64_t ux = uns(x, w0), uy = uns(y, w0);
      int64_t sx = norm(x, w0), sy = norm(y, w0);
      switch (c.getPredicate()) {
      case arith::CmpIPredicate::eq:
        r = ux == uy;
        break;
      case arith::CmpIPredicate::ne:
        r = ux != uy;
        break;
      case arith::CmpIPredicate::slt:
        r = sx < sy;
        break;
      case arith::CmpIPredicate::sle:
        r = sx <= sy;
        break;
      case arith::CmpIPredicate::sgt:
        r = sx > sy;
        break;
      case arith::CmpIPredicate::sge:
        r = sx >= sy;
        break;
      case arith::CmpIPredicate::ult:
        r = ux < uy;
        break;
      case arith::CmpIPredicate::ule:
        r = ux <= uy;
        break;
      case arith::CmpIPredicate::ugt:
        r = ux > uy;
        break;
      case arith::CmpIPredicate::uge:
        r = ux >= uy;
        break;
      }
    } else if (isa<arith::SelectOp>(op)) {
      r = (A(0) & 1) ? A(1) : A(2);
    } else if (isa<arith::AddIOp>(op)) {
      r = (int64_t)((uint64_t)A(0) + (uint64_t)A(1));
    } else if (isa<arith::SubIOp>(op)) {
      r = (int64_t)((uint64_t)A(0) - (uint64_t)A(1));
    } else if (isa<arith::MulIOp>(op)) {
      r = (int64_t)((uint64_t)A(0) * (uint64_t)A(1));
    } else if (isa<arith::DivUIOp, arith::RemUIOp, arith::CeilDivUIOp>(op)) {
      uint64_t x = uns(A(0), w0), y = uns(A(1), w0);
      if (y == 0) {
        r = 0;
      } else if (isa<arith::DivUIOp>(op))
        r = x / y;
      else if (isa<arith::RemUIOp>(op))
        r = x % y;
      else
        r = (x + y - 1) / y;
    } else if (isa<arith::DivSIOp, arith::RemSIOp, arith::CeilDivSIOp,
                   arith::FloorDivSIOp>(op)) {
      int64_t x = norm(A(0), w0), y = norm(A(1), w0);
      if (y == 0)
        r = 0;
      else if (isa<arith::DivSIOp>(op))
        r = x / y;
      else if (isa<arith::RemSIOp>(op))
        r = x % y;
      else if (isa<arith::CeilDivSIOp>(op))
        r = x / y + ((x % y != 0) && ((x < 0) == (y < 0)));
      else
        r = x / y - ((x % y != 0) && ((x < 0) != (y < 0)));
    } else if (isa<arith::AndIOp>(op)) {
      r = A(0) & A(1);
    } else if (isa<arith::OrIOp>(op)) {
      r = A(0) | A(1);
    } else if (isa<arith::XOrIOp>(op)) {
      r = A(0) ^ A(1);
    } else if (isa<arith::ShLIOp>(op)) {
      r = A(1) >= rw ? 0 : (int64_t)((uint64_t)A(0) << A(1));
    } else if (isa<arith::ShRUIOp>(op)) {
      r = A(1) >= rw ? 0 : (int64_t)(uns(A(0), w0) >> A(1));
    } else if (isa<arith::ShRSIOp>(op)) {
      r = norm(A(0), w0) >> std::min<int64_t>(A(1), 63);
    } else if (isa<arith::MaxUIOp>(op)) {
      r = uns(A(0), w0) >= uns(A(1), w0) ? A(0) : A(1);
    } else if (isa<arith::MinUIOp>(op)) {
      r = uns(A(0), w0) <= uns(A(1), w0) ? A(0) : A(1);
    } else if (isa<arith::MaxSIOp>(op)) {
      r = std::max(norm(A(0), w0), norm(A(1), w0));
    } else if (isa<arith::MinSIOp>(op)) {
      r = std::min(norm(A(0), w0), norm(A(1), w0));
    } else if (isa<arith::IndexCastOp, arith::ExtSIOp>(op)) {
      r = norm(A(0), w0);
    } else if (isa<arith::IndexCastUIOp, arith::ExtUIOp>(op)) {
      r = (int64_t)uns(A(0), w0);
    } else if (isa<arith::TruncIOp, arith::BitcastOp>(op)) {
      r = A(0);
    } else {
      ok = false;
    }
    out[t] = norm(r, rw);
  }
  if (!ok) {
    set(op->getResult(0), Val::unknown(op));
    return Next;
  }
  Val v;
  v.kind = Val::Int;
  v.v = std::move(out);
  set(op->getResult(0), std::move(v));
  return Next;
}

/// Byte offset of `indices` in a view, per lane.
static Lanes elementOffset(const View &view, ArrayRef<Lanes> idx, int threads) {
  size_t n = view.offset.size();
  for (auto &l : idx)
    n = std::max(n, l.size());
  Lanes out(n == 1 ? 1 : threads);
  for (size_t t = 0; t < out.size(); ++t) {
    int64_t e = at(view.offset, t);
    for (size_t d = 0; d < idx.size() && d < view.strides.size(); ++d)
      e += at(idx[d], t) * view.strides[d];
    out[t] = e;
  }
  return out;
}

Exec::Result Exec::execMemAccess(Operation *op, Value memref,
                                 ValueRange indices, int64_t elems, bool write,
                                 bool atomic, const std::vector<int> &mask,
                                 Value stored) {
  std::shared_ptr<View> view;
  if (!viewOf(op, memref, view))
    return Stop;
  SmallVector<Lanes, 4> idx;
  for (Value i : indices) {
    Lanes l;
    if (!ints(op, i, l))
      return Stop;
    idx.push_back(std::move(l));
  }
  Lanes off = elementOffset(*view, idx, a.threads);
  const Buffer *buf = view->buf >= 0 ? &w.k.buffers[view->buf] : nullptr;
  bool loadResult = !write && !atomic && op->getNumResults() == 1;
  Val result;
  if (loadResult) {
    if (buf && buf->integer && elems == 1 &&
        (view->space == Space::Symmetric || view->space == Space::Global)) {
      result.kind = Val::Int;
      result.v.assign(
          off.size() == 1 && view->owner.size() == 1 ? 1 : a.threads, 0);
    } else if (view->space == Space::Shared && elems == 1 &&
               widthOf(op->getResult(0).getType())) {
      result.kind = Val::Int;
      result.v.assign(off.size() == 1 ? 1 : a.threads, 0);
    } else {
      result = Val::unknown(op);
    }
  }
  Lanes storedLanes;
  bool storeInt = false;
  if (write && stored) {
    const Val &sv = get(stored);
    storeInt = sv.kind == Val::Int;
    if (storeInt)
      storedLanes = sv.v;
  }
  if (view->space == Space::Shared || view->space == Space::Private) {
    auto &mem = a.sharedInts[view->buf];
    for (int t : mask) {
      int64_t e = at(off, t);
      if (write)
        mem[e] = storeInt ? at(storedLanes, t) : 0;
      else if (loadResult && result.kind == Val::Int) {
        auto it = mem.find(e);
        int64_t v = it == mem.end() ? 0 : it->second;
        if (result.v.size() == 1)
          result.v[0] = v;
        else
          result.v[t] = v;
      }
    }
    if (loadResult)
      set(op->getResult(0), std::move(result));
    return Next;
  }
  // Global and symmetric memory: group the lanes' element ranges into
  // contiguous runs per owner, one access each.
  const char *what =
      write ? (atomic ? "an atomic update" : "a store") : "a load";
  if (view->remote)
    what = write ? (atomic ? "a remote atomic" : "a remote store")
                 : "a remote load";
  bool uniformAddr = off.size() == 1 && view->owner.size() == 1;
  std::vector<int> lanes = uniformAddr && !atomic
                               ? std::vector<int>{mask.empty() ? 0 : mask[0]}
                               : mask;
  std::vector<std::pair<int64_t, int64_t>> runs; // (owner, element) sorted
  // Threads of this block touching the same integer element with no
  // barrier between (an epoch word read by all and bumped by one).
  if (buf && buf->integer && elems == 1) {
    std::map<std::pair<int64_t, int64_t>, std::vector<int>> byElement;
    for (int t : mask)
      byElement[{at(view->owner, t), at(off, t)}].push_back(t);
    for (auto &[key, who] : byElement)
      if (!touch(op, view->buf, key.first, key.second, who, write, atomic))
        break;
  }
  for (int t : lanes) {
    int64_t owner = at(view->owner, t);
    int64_t e = at(off, t);
    if (buf && buf->integer && elems == 1) {
      auto &mem = w.ints[{(int)owner, view->buf}];
      if (write) {
        if (atomic) {
          // memref.atomic_rmw: apply per lane in order.
          int64_t cur = w.loadInt(owner, view->buf, e);
          int64_t add = storeInt ? at(storedLanes, t) : 0;
          auto rmw = cast<memref::AtomicRMWOp>(op);
          int64_t nv = cur;
          switch (rmw.getKind()) {
          case arith::AtomicRMWKind::addi:
            nv = cur + add;
            break;
          case arith::AtomicRMWKind::assign:
            nv = add;
            break;
          case arith::AtomicRMWKind::maxs:
            nv = std::max(cur, add);
            break;
          case arith::AtomicRMWKind::mins:
            nv = std::min(cur, add);
            break;
          case arith::AtomicRMWKind::ori:
            nv = cur | add;
            break;
          case arith::AtomicRMWKind::andi:
            nv = cur & add;
            break;
          default:
            w.notModelled(op, "this atomic_rmw kind");
            return Stop;
          }
          mem[e] = norm(nv, widthOf(rmw.getValue().getType()));
          if (op->getNumResults() == 1) {
            Val r = Val::integer(cur);
            set(op->getResult(0), r);
          }
        } else {
          mem[e] = storeInt ? at(storedLanes, t) : 0;
        }
      } else if (loadResult && result.kind == Val::Int) {
        int64_t v = w.loadInt(owner, view->buf, e);
        if (result.v.size() == 1)
          result.v[0] = v;
        else
          result.v[t] = v;
      }
    }
    runs.push_back({owner, e});
  }
  if (atomic && op->getNumResults() == 1 && !get(op->getResult(0)).kind)
    set(op->getResult(0), Val::unknown(op));
  if (buf &&
      (view->space == Space::Symmetric || view->space == Space::Global)) {
    std::sort(runs.begin(), runs.end());
    runs.erase(std::unique(runs.begin(), runs.end()), runs.end());
    int64_t eb = view->elemBytes;
    for (size_t i = 0; i < runs.size();) {
      size_t j = i + 1;
      while (j < runs.size() && runs[j].first == runs[i].first &&
             runs[j].second <= runs[j - 1].second + elems)
        ++j;
      int owner = runs[i].first;
      int64_t lo = runs[i].second * eb;
      int64_t hi = (runs[j - 1].second + elems) * eb;
      if (!w.checkBounds(a, op, owner, view->buf, lo, hi, what))
        return Stop;
      if (view->space == Space::Symmetric) {
        viewFor(mask);
        w.access(a, op, owner, view->buf, lo, 1, hi - lo, hi - lo, write,
                 atomic, what);
        a.viewClock = nullptr;
      }
      if (view->space == Space::Symmetric && write)
        unsyncedWrite(op, mask);
      i = j;
    }
  }
  if (loadResult)
    set(op->getResult(0), std::move(result));
  return Next;
}

void Exec::signalCounter(int member, int sem, int64_t idx, int64_t value,
                         bool setMode) {
  Counter &c = w.counters[{member, sem, idx}];
  if (setMode) {
    // A plain store starts a new release sequence: waits that read it or
    // a later add synchronize with it, not with the adds before it.
    c.value = (uint32_t)value;
    c.vc = a.clock;
    c.log.clear();
    c.baseValue = c.value;
    c.base = a.clock;
    return;
  }
  c.value += (uint32_t)value;
  c.vc.join(a.clock);
  logCounter(c);
}

void Exec::logCounter(Counter &c) {
  if (c.log.size() >= kCounterLog) {
    size_t fold = kCounterLog / 2;
    c.baseValue = c.log[fold - 1].value;
    c.base = std::move(c.log[fold - 1].upTo);
    c.log.erase(c.log.begin(), c.log.begin() + fold);
  }
  c.log.push_back({c.value, a.id, a.now(), c.vc});
}

const VC &Exec::acquiredBy(const Counter &c, bool eq, bool wrap,
                           uint32_t target) const {
  // A passing wait reads some value of the counter and synchronizes with
  // the adds up to the one that wrote it (a release sequence of atomic
  // adds), not with the adds after it. It may read the first value that
  // satisfies it, unless it already knows (happens after) a later add:
  // coherence then forbids reading an older value. Joining every add so
  // far, as the interleaving happened to run them, hid a wait whose target
  // was too low whenever the missing adds came before the wait in the
  // schedule (the all-gather matmul's PUSH mode waiting for 1 add instead
  // of one per block: the other blocks' puts raced with the reads).
  int floor = -1;
  for (int j = (int)c.log.size() - 1; j >= 0; --j)
    if (c.log[j].agent >= 0 && a.clock.get(c.log[j].agent) >= c.log[j].stamp) {
      floor = j;
      break;
    }
  for (int j = floor; j < (int)c.log.size(); ++j) {
    uint32_t value = j < 0 ? c.baseValue : c.log[j].value;
    if (waitPasses(value, target, eq, wrap))
      return j < 0 ? c.base : c.log[j].upTo;
  }
  return c.vc;
}

Exec::Result Exec::execSignal(SemaphoreSignalOp op,
                              const std::vector<int> &mask) {
  int sem = get(op.getSemaphore()).sem;
  if (sem < 0) {
    w.notModelled(op, "a semaphore the checker cannot follow");
    return Stop;
  }
  Lanes idx{0}, dev{a.member}, value;
  if (op.getIndex() && !ints(op, op.getIndex(), idx))
    return Stop;
  if (op.getDevice() && !ints(op, op.getDevice(), dev))
    return Stop;
  if (!ints(op, op.getValue(), value))
    return Stop;
  bool setMode = op.getMode() == SemaphoreSignalMode::Set;
  checkRelease(op, mask);
  for (int t : mask) {
    int64_t d = at(dev, t), i = at(idx, t);
    if (d < 0 || d >= w.D || i < 0 || i >= w.k.semaphores[sem].count) {
      Finding f;
      f.kind = "out of bounds";
      f.loc = op.getLoc();
      f.message = "signal out of bounds: " + w.who(a) + " signals counter " +
                  std::to_string(i) + " of '" + w.k.semaphores[sem].name +
                  "' on member " + std::to_string(d) + " (team of " +
                  std::to_string(w.D) + ", " +
                  std::to_string(w.k.semaphores[sem].count) + " counters)";
      w.report(std::move(f));
      return Stop;
    }
    signalCounter(d, sem, i, at(value, t), setMode);
  }
  release();
  ++w.syncEvents;
  return Sync;
}

Exec::Result Exec::execWait(SemaphoreWaitOp op, const std::vector<int> &mask) {
  int sem = get(op.getSemaphore()).sem;
  if (sem < 0) {
    w.notModelled(op, "a semaphore the checker cannot follow");
    return Stop;
  }
  Lanes idx{0}, value;
  if (op.getIndex() && !ints(op, op.getIndex(), idx))
    return Stop;
  if (!ints(op, op.getValue(), value))
    return Stop;
  // Who waits: every lane, the first lane of each warp, or the block once.
  std::vector<int> waiters;
  if (op.getScope() == CopyScope::Thread) {
    waiters = mask;
  } else if (op.getScope() == CopyScope::Warp) {
    for (int t : mask)
      if (waiters.empty() || waiters.back() / 32 != t / 32)
        waiters.push_back(t);
  } else {
    if ((int)mask.size() != a.threads) {
      Finding f;
      f.kind = "deadlock";
      f.loc = op.getLoc();
      f.message = "deadlock: a scope(block) wait reached by " +
                  std::to_string(mask.size()) + " of " +
                  std::to_string(a.threads) + " threads of " + w.who(a) +
                  " (its bar.sync waits for the others forever)";
      w.report(std::move(f));
      return Stop;
    }
    waiters = {mask.empty() ? 0 : mask[0]};
  }
  bool eq = op.getCmp() == SemaphoreCmp::EQ;
  // ge_wrap: serial-number order, as the lowering compares (a counter that
  // wrapped past 2^32 is still ahead of a target just below the wrap).
  bool wrap = op.getCmp() == SemaphoreCmp::GEWrap;
  if (a.laneProgress == 0 && !a.blocked)
    a.preWait = a.clock;
  for (; a.laneProgress < (int)waiters.size(); ++a.laneProgress) {
    int t = waiters[a.laneProgress];
    int64_t i = at(idx, t);
    if (i < 0 || i >= w.k.semaphores[sem].count) {
      w.notModelled(op, "a wait on a counter index out of range");
      return Stop;
    }
    Counter &c = w.counters[{a.member, sem, i}];
    uint32_t v = (uint32_t)at(value, t);
    if (!waitPasses(c.value, v, eq, wrap)) {
      a.blocked = true;
      a.blockOp = op;
      a.blockReason =
          "waits for '" + w.k.semaphores[sem].name + "'" +
          (w.k.semaphores[sem].count > 1 ? "[" + std::to_string(i) + "]"
                                         : std::string()) +
          (eq ? " == " : wrap ? " >= (mod 2^32) " : " >= ") + std::to_string(v) + " (it holds " +
          std::to_string(c.value) + ")";
      if (waiters.size() > 1)
        a.blockReason += " in thread " + std::to_string(t) + ", " +
                         std::to_string(a.laneProgress) + " of the " +
                         std::to_string(waiters.size()) +
                         " threads that run this wait having passed" +
                         (op.getDecrement() ? " and decremented" : "");
      return Block;
    }
    if (op.getDecrement()) {
      // The decrement is a read-modify-write: it reads the latest value.
      a.clock.join(c.vc);
      c.value -= v;
      logCounter(c);
    } else {
      a.clock.join(acquiredBy(c, eq, wrap, v));
    }
  }
  a.laneProgress = 0;
  a.blocked = false;
  if (op.getScope() == CopyScope::Block) {
    a.blockSync();
  } else if ((int)waiters.size() < a.threads) {
    // Only `waiters` acquired: the other threads know what they knew.
    std::vector<int> lanes;
    for (int t : waiters)
      if (op.getScope() == CopyScope::Thread)
        lanes.push_back(t);
      else
        for (int u = t; u < std::min(a.threads, t / 32 * 32 + 32); ++u)
          lanes.push_back(u);
    if (!a.lagging) {
      a.lagging = a.preWait;
      a.acquiredLanes = lanes;
      a.laggingWait = op;
    } else {
      std::vector<int> both;
      std::set_intersection(a.acquiredLanes.begin(), a.acquiredLanes.end(),
                            lanes.begin(), lanes.end(),
                            std::back_inserter(both));
      a.acquiredLanes = both;
    }
  }
  ++w.syncEvents;
  return Sync;
}

Exec::Result Exec::execBarrier(BarrierOp op, const std::vector<int> &mask) {
  int sem = get(op.getSemaphore()).sem;
  if (sem < 0) {
    w.notModelled(op, "a semaphore the checker cannot follow");
    return Stop;
  }
  if ((int)mask.size() != a.threads) {
    Finding f;
    f.kind = "deadlock";
    f.loc = op.getLoc();
    f.message = "deadlock: weave.barrier reached by " +
                std::to_string(mask.size()) + " of " +
                std::to_string(a.threads) + " threads of " + w.who(a) +
                " (every thread of a participating block must reach it)";
    w.report(std::move(f));
    return Stop;
  }
  bool team = op.getScope() == BarrierScope::Team;
  a.blockSync(); // it starts and ends with bar.sync 0
  if (a.barrierRound < 0) {
    // Arrive: the round is this member's count of such barriers.
    int64_t r;
    if (team)
      r = w.teamRound[{a.member, sem}]++;
    else
      r = w.blockRound[{a.member, a.block, sem}]++;
    a.barrierRound = r;
    BarrierRound &round = w.rounds[{sem, team ? 0 : 1, r}];
    if (round.members.empty())
      round.members.assign(w.D, 0);
    round.op = op;
    round.arrived.push_back(a.id);
    if (team && round.members[a.member] > 0) {
      Finding f;
      f.kind = "deadlock";
      f.loc = op.getLoc();
      f.message = "scope(team) barrier reached by more than one block of "
                  "member " +
                  std::to_string(a.member) + " (launch " +
                  std::to_string(a.launch) +
                  "): its counter gets too many arrivals";
      w.report(std::move(f));
      return Stop;
    }
    round.members[a.member]++;
    round.joined.join(a.clock);
    release();
    int need = team ? 1 : w.G;
    bool complete = true;
    for (int m = 0; m < w.D; ++m)
      complete &= round.members[m] >= need;
    round.complete = complete;
  }
  BarrierRound &round = w.rounds[{sem, team ? 0 : 1, a.barrierRound}];
  if (!round.complete) {
    a.blockOp = op;
    std::string missing;
    int need = team ? 1 : w.G;
    for (int m = 0; m < w.D; ++m)
      if (round.members[m] < need)
        missing += (missing.empty() ? "" : ", ") + std::to_string(m) +
                   (team ? std::string()
                         : " (" + std::to_string(round.members[m]) + " of " +
                               std::to_string(need) + " blocks arrived)");
    a.blockReason =
        "waits at weave.barrier scope(" +
        std::string(team ? "team" : "team_blocks") + ") on '" +
        w.k.semaphores[sem].name + "' (barrier " +
        std::to_string(a.barrierRound) + " of the counters) for member" +
        (missing.find(',') != std::string::npos ? "s " : " ") + missing;
    return Block;
  }
  a.clock.join(round.joined);
  a.blocked = false;
  a.barrierRound = -1;
  ++w.syncEvents;
  return Sync;
}

/// A 2-D box of a view (rows of its last dimension), in bytes of the buffer.
static bool viewBox(const View &v, int t, Access &box) {
  int64_t eb = v.elemBytes;
  int64_t off = at(v.offset, t) * eb;
  if (v.sizes.empty()) {
    box = {off,   1,       eb, eb, 0, 0,           false,
           false, nullptr, 0,  0,  0, Role::Block, ""};
    return true;
  }
  // Contiguous (the copies require it): one interval.
  int64_t n = v.numElements();
  int rank = v.sizes.size();
  bool contiguous = true;
  int64_t expect = 1;
  for (int d = rank - 1; d >= 0; --d) {
    if (v.sizes[d] != 1 && v.strides[d] != expect)
      contiguous = false;
    expect *= v.sizes[d];
  }
  if (contiguous) {
    box = {off,   1,       n * eb, n * eb, 0, 0,           false,
           false, nullptr, 0,      0,      0, Role::Block, ""};
    return true;
  }
  if (rank == 2 && v.strides[1] == 1) {
    box = {off,
           v.sizes[0],
           v.strides[0] * eb,
           v.sizes[1] * eb,
           0,
           0,
           false,
           false,
           nullptr,
           0,
           0,
           0,
           Role::Block,
           ""};
    return true;
  }
  return false;
}

Exec::Result Exec::execCopy(Operation *op, Value src, Value srcDev, Value dst,
                            Value dstDev, CopyScope scope, Value sig,
                            Value sigIdx, Value sigVal, Value sigDev,
                            const std::vector<int> &mask, bool packets,
                            Value flag) {
  std::shared_ptr<View> sv, dv;
  if (!viewOf(op, src, sv) || !viewOf(op, dst, dv))
    return Stop;
  Lanes sd, dd, flagLanes;
  if (srcDev && !ints(op, srcDev, sd))
    return Stop;
  if (dstDev && !ints(op, dstDev, dd))
    return Stop;
  if (flag && !ints(op, flag, flagLanes))
    return Stop;
  std::vector<int> actors;
  if (scope == CopyScope::Thread)
    actors = mask;
  else if (scope == CopyScope::Warp) {
    for (int t : mask)
      if (actors.empty() || actors.back() / 32 != t / 32)
        actors.push_back(t);
  } else {
    if ((int)mask.size() != a.threads) {
      Finding f;
      f.kind = "deadlock";
      f.loc = op->getLoc();
      f.message = "deadlock: a scope(block) copy reached by " +
                  std::to_string(mask.size()) + " of " +
                  std::to_string(a.threads) + " threads of " + w.who(a);
      w.report(std::move(f));
      return Stop;
    }
    actors = {mask.empty() ? 0 : mask[0]};
  }
  int sem = sig ? get(sig).sem : -1;
  Lanes si{0}, sval, sdev;
  if (sig) {
    if ((sigIdx && !ints(op, sigIdx, si)) || !ints(op, sigVal, sval))
      return Stop;
    if (sigDev && !ints(op, sigDev, sdev))
      return Stop;
  }
  bool isGet = isa<GetOp>(op);
  // The threads each actor stands for.
  auto lanesOf = [&](int t) {
    std::vector<int> l;
    if (scope == CopyScope::Thread)
      l = {t};
    else
      for (int u : mask)
        if (scope == CopyScope::Block || u / 32 == t / 32)
          l.push_back(u);
    return l;
  };
  for (int t : actors) {
    Access sb, db;
    if (!viewBox(*sv, t, sb) || !viewBox(*dv, t, db)) {
      w.notModelled(op, "a copy between non-contiguous views");
      return Stop;
    }
    auto side = [&](const View &v, const Lanes &dev, Access &b, bool write,
                    const char *what) -> bool {
      if (v.buf < 0)
        return true;
      int owner = dev.empty() ? at(v.owner, t) : at(dev, t);
      if (owner < 0 || owner >= w.D) {
        Finding f;
        f.kind = "out of bounds";
        f.loc = op->getLoc();
        f.message = "remote access out of bounds: " + std::string(what) +
                    " by " + w.who(a) + " names member " +
                    std::to_string(owner) + ", outside the team of " +
                    std::to_string(w.D);
        w.report(std::move(f));
        return false;
      }
      if (v.space != Space::Symmetric && v.space != Space::Global)
        return true;
      int64_t hi = b.base + (b.rows - 1) * b.pitch + b.width;
      if (!w.checkBounds(a, op, owner, v.buf, b.base, hi, what))
        return false;
      if (v.space == Space::Symmetric && !(packets && write))
        w.access(a, op, owner, v.buf, b.base, b.rows, b.pitch, b.width, write,
                 false, what);
      if (packets && write) {
        // The deposit is checked with all the depositor knows (it comes
        // after all of it in program order) but stamped by its packet
        // channel, and a reader joins only the channel's stamp and the
        // depositor's last release: a packet store is relaxed, so the
        // depositor's plain writes since its launch began or its last
        // release are not ordered before the packet's reader (a flag sent
        // as a packet after plain data is a race).
        Agent &ch = w.packetChannelOf(a);
        ch.clock = a.clock;
        ch.tick();
        PacketDeposit dep;
        dep.lo = b.base / v.elemBytes;
        dep.hi = dep.lo + b.rows * b.width / v.elemBytes;
        dep.flag = at(flagLanes, t);
        dep.vc = a.released;
        dep.vc.set(ch.id, ch.now());
        auto &list = w.packets[{owner, v.buf}];
        list.push_back(std::move(dep));
        // Writing packets over ones not yet read is a race with the reader:
        // recorded as a plain write (readers acquire the deposits they read).
        w.access(ch, op, owner, v.buf, b.base, b.rows, b.pitch, b.width, true,
                 false, what);
        a.clock.set(ch.id, ch.now());
        // A reader of this deposit acquires what came before it, not what
        // the depositor does after: without a tick, the depositor's later
        // accesses kept the deposit's stamp and looked ordered before every
        // reader's (all-to-all-v parts written over each other passed).
        a.tick();
      }
      return true;
    };
    const char *rd = isGet ? "a get (remote read)" : "a put's read";
    const char *wr = isGet
                         ? "a get's write"
                         : (packets ? "a packet put" : "a put (remote write)");
    if (!side(*sv, sd, sb, false, rd) || !side(*dv, dd, db, true, wr))
      return Stop;
    // The words a packet put carries, from an integer source of 32-bit
    // elements (one a packet), for read_packets to deliver.
    if (packets && sv->buf >= 0 && dv->buf >= 0 &&
        w.k.buffers[sv->buf].integer && sv->elemBytes == 4) {
      int so = sd.empty() ? at(sv->owner, t) : at(sd, t);
      int dow = dd.empty() ? at(dv->owner, t) : at(dd, t);
      PacketDeposit &dep = w.packets[{dow, dv->buf}].back();
      int64_t s0 = at(sv->offset, t);
      for (int64_t e = 0; e < dep.hi - dep.lo && e < (1 << 20); ++e)
        dep.words.push_back(w.loadInt(so, sv->buf, s0 + e));
    }
    // Copy integer contents.
    if (sv->buf >= 0 && dv->buf >= 0 && w.k.buffers[sv->buf].integer &&
        w.k.buffers[dv->buf].integer && !packets) {
      int so = sd.empty() ? at(sv->owner, t) : at(sd, t);
      int dow = dd.empty() ? at(dv->owner, t) : at(dd, t);
      int64_t n = sv->numElements();
      int64_t s0 = at(sv->offset, t), d0 = at(dv->offset, t);
      for (int64_t e = 0; e < n && e < (1 << 20); ++e)
        w.ints[{dow, dv->buf}][d0 + e] = w.loadInt(so, sv->buf, s0 + e);
    }
    if (dv->space == Space::Symmetric && !sig)
      unsyncedWrite(op, lanesOf(t));
    if (sig) {
      // The copy's threads synchronize before one of them signals.
      std::vector<int> group = lanesOf(t);
      if (scope == CopyScope::Block)
        a.blockSync();
      else
        checkRelease(op, group);
      int64_t target = isGet ? a.member : (dd.empty() ? a.member : at(dd, t));
      if (sem < 0) {
        w.notModelled(op, "a semaphore the checker cannot follow");
        return Stop;
      }
      signalCounter(target, sem, at(si, t), at(sval, t), false);
      release();
    }
  }
  if (sig)
    ++w.syncEvents;
  return sig ? Sync : Next;
}

Exec::Result Exec::execReadPackets(ReadPacketsOp op,
                                   const std::vector<int> &mask) {
  std::shared_ptr<View> pv;
  if (!viewOf(op, op.getPackets(), pv))
    return Stop;
  Lanes flag;
  if (!ints(op, op.getFlag(), flag))
    return Stop;
  int t = mask.empty() ? 0 : mask[0];
  Access box;
  if (!viewBox(*pv, t, box)) {
    w.notModelled(op, "packets in a non-contiguous view");
    return Stop;
  }
  int owner = at(pv->owner, t);
  int64_t lo = box.base / pv->elemBytes, hi = lo + box.width / pv->elemBytes;
  auto &list = w.packets[{owner, pv->buf}];
  // Every element must be covered by deposits with this flag (the latest
  // deposit of each element wins).
  // The deposits read, each with the first element read from it.
  std::vector<std::pair<int64_t, const PacketDeposit *>> from;
  int64_t e = lo;
  int64_t f = at(flag, t);
  while (e < hi) {
    const PacketDeposit *best = nullptr;
    for (auto it = list.rbegin(); it != list.rend(); ++it)
      if (it->lo <= e && e < it->hi) {
        best = &*it;
        break;
      }
    if (!best || (uint32_t)best->flag != (uint32_t)f) {
      a.blocked = true;
      a.blockOp = op;
      a.blockReason = "waits for packets of '" + w.k.buffers[pv->buf].name +
                      "' at element " + std::to_string(e) + " with flag " +
                      std::to_string(f);
      return Block;
    }
    from.push_back({e, best});
    e = best->hi;
  }
  for (auto [first, d] : from)
    a.clock.join(d->vc);
  a.blocked = false;
  w.access(a, op, owner, pv->buf, box.base, box.rows, box.pitch, box.width,
           false, false, "a packet read");
  std::shared_ptr<View> tv;
  if (viewOf(op, op.getTarget(), tv) && tv->space == Space::Symmetric) {
    Access tb;
    if (viewBox(*tv, t, tb))
      w.access(a, op, at(tv->owner, t), tv->buf, tb.base, tb.rows, tb.pitch,
               tb.width, true, false, "read_packets' store");
  }
  // The words into an integer target of 32-bit elements: element i of the
  // target is packet lo + i's word.
  if (tv && tv->buf >= 0 && w.k.buffers[tv->buf].integer &&
      tv->elemBytes == 4) {
    int tOwner = at(tv->owner, t);
    int64_t t0 = at(tv->offset, t);
    for (size_t i = 0; i < from.size(); ++i) {
      const PacketDeposit *dep = from[i].second;
      int64_t end = i + 1 < from.size() ? from[i + 1].first : hi;
      for (int64_t x = from[i].first; x < end; ++x)
        if (x - dep->lo < (int64_t)dep->words.size())
          w.ints[{tOwner, tv->buf}][t0 + (x - lo)] = dep->words[x - dep->lo];
    }
  }
  ++w.syncEvents;
  return Sync;
}

/// A bulk (TMA) copy between `gmem` at `indices` (on `device`) and the
/// shared tile `smem`: a store is pending until the issuing thread waits for
/// it; a load reads at issue (its mbarrier is the block's own business).
Exec::Result Exec::execBulk(Operation *op, Value gmem, ValueRange indices,
                            Value smem, Value device, bool write, bool reduce,
                            const std::vector<int> &mask) {
  std::shared_ptr<View> tv, sv;
  if (!viewOf(op, gmem, tv) || !viewOf(op, smem, sv))
    return Stop;
  // One bulk group per op (what wait_smem_to_gmem counts).
  struct NextGroup {
    int64_t &groups;
    ~NextGroup() { ++groups; }
  } nextGroup{a.bulkGroups};
  // A store from a pipeline's ring slot reads it until a wait says so.
  if (write && sv->buf >= (int)w.k.buffers.size()) {
    int64_t lo = at(sv->offset, mask.empty() ? 0 : mask[0]) * sv->elemBytes;
    int64_t bytes = sv->numElements() * sv->elemBytes;
    w.access(a, op, a.member, sv->buf, lo, 1, bytes, bytes, false, false,
             "a bulk store's read of its source", /*pendingBulk=*/true);
  }
  if (tv->buf < 0 || tv->space == Space::Shared)
    return Next;
  SmallVector<Lanes, 4> idx;
  for (Value i : indices) {
    Lanes l;
    if (!ints(op, i, l))
      return Stop;
    idx.push_back(l);
  }
  Lanes dev;
  if (device && !ints(op, device, dev))
    return Stop;
  for (int t : mask) {
    int owner = device ? at(dev, t) : at(tv->owner, t);
    // The tile's box, clipped to the view (TMA clips at the edges).
    int rank = tv->sizes.size();
    if (rank == 0 || (int)idx.size() != rank || (int)sv->sizes.size() != rank) {
      w.notModelled(op, "a bulk copy of this rank");
      return Stop;
    }
    int64_t rows = 1, row0 = 0;
    for (int d = 0; d < rank - 1; ++d) {
      int64_t i0 = at(idx[d], t);
      int64_t hi = std::min(i0 + sv->sizes[d], tv->sizes[d]);
      if (d == rank - 2) {
        row0 = i0;
        rows = std::max<int64_t>(hi - std::max<int64_t>(i0, 0), 0);
        row0 = std::max<int64_t>(i0, 0);
      } else if (sv->sizes[d] != 1) {
        w.notModelled(op, "a bulk copy of a box with more than two "
                          "non-unit dimensions");
        return Stop;
      }
    }
    int64_t c0 = at(idx[rank - 1], t);
    int64_t c1 = std::min(c0 + sv->sizes[rank - 1], tv->sizes[rank - 1]);
    c0 = std::max<int64_t>(c0, 0);
    if (rows <= 0 || c1 <= c0)
      continue;
    int64_t eb = tv->elemBytes;
    int64_t base = at(tv->offset, t);
    for (int d = 0; d < rank - 1; ++d)
      base += (d == rank - 2 ? row0 : at(idx[d], t)) * tv->strides[d];
    base += c0 * tv->strides[rank - 1];
    int64_t pitch = rank >= 2 ? tv->strides[rank - 2] * eb : 0;
    int64_t lo = base * eb, hi = lo + (rows - 1) * pitch + (c1 - c0) * eb;
    bool remote = device && owner != a.member;
    const char *what =
        !write ? (remote ? "a remote bulk (TMA) load" : "a bulk (TMA) load")
        : reduce
            ? (remote ? "a remote bulk reduction" : "a bulk reduction")
            : (remote ? "a remote bulk (TMA) store" : "a bulk (TMA) store");
    if (owner < 0 || owner >= w.D) {
      Finding f;
      f.kind = "out of bounds";
      f.loc = op->getLoc();
      f.message = "remote access out of bounds: " + std::string(what) + " by " +
                  w.who(a) + " names member " + std::to_string(owner) +
                  ", outside the team of " + std::to_string(w.D);
      w.report(std::move(f));
      return Stop;
    }
    if (!w.checkBounds(a, op, owner, tv->buf, lo, hi, what))
      return Stop;
    if (tv->space == Space::Symmetric)
      w.access(a, op, owner, tv->buf, lo, rows, pitch, (c1 - c0) * eb, write,
               reduce, what, /*pendingBulk=*/write);
  }
  return Next;
}

//===----------------------------------------------------------------------===//
// weave.matmul_pipeline: three roles per block
//===----------------------------------------------------------------------===//

Exec::Result Exec::execPipeline(MatmulPipelineOp op,
                                const std::vector<int> &mask) {
  if (a.pipe) {
    // Resumed: wait for the roles, then join them.
    for (Agent *r : a.pipe->roles)
      if (!r->done) {
        a.blocked = true;
        a.blockOp = op;
        a.blockReason = "waits for its pipeline's warps";
        return Block;
      }
    for (Agent *r : a.pipe->roles) {
      a.clock.join(r->clock);
      // The roles' integers, the consumer's last (it runs the epilogue
      // and combine regions, whose state code after the op reads).
      for (auto &[buf, mem] : r->sharedInts)
        for (auto &[e, v] : mem)
          a.sharedInts[buf][e] = v;
    }
    a.blocked = false;
    delete a.pipe;
    a.pipe = nullptr;
    a.tick();
    return Next;
  }
  if (op.isAutoTile()) {
    w.notModelled(op, "a pipeline whose tile is still auto");
    return Stop;
  }
  std::shared_ptr<View> lhs, rhs, out;
  // No `into` (the epilogue region stores every box): no out to view.
  if (!viewOf(op, op.getLhs(), lhs) || !viewOf(op, op.getRhs(), rhs) ||
      (op.getOut() && !viewOf(op, op.getOut(), out)))
    return Stop;
  // A pipeline with no region and no symmetric operand is local arithmetic:
  // nothing in it talks to another member. (Without regions it has `into`.)
  if (op.getBeforeLoad().empty() && op.getCallback().empty() &&
      op.getAfterLoads().empty() && op.getEpilogue().empty() &&
      op.getCombine().empty() &&
      lhs->space != Space::Symmetric && rhs->space != Space::Symmetric &&
      out->space != Space::Symmetric)
    return Next;
  if (lhs->sizes.size() != 2 || rhs->sizes.size() != 2) {
    w.notModelled(op, "a pipeline on operands that are not matrices");
    return Stop;
  }
  auto *ps = new PipelineState();
  ps->op = op;
  ps->owner = &a;
  ps->tileM = op.tileM();
  ps->tileN = op.tileN();
  ps->tileK = op.tileK();
  ps->stages = std::max<int64_t>(op.numStages(), 1);
  ps->delay = op.getDelayRelease();
  int64_t M = lhs->sizes[0], K = lhs->sizes[1], N = rhs->sizes[1];
  int64_t c = op.getClusterM(), splitK = op.getSplitK();
  int64_t tilesM = (M + ps->tileM - 1) / ps->tileM;
  int64_t tilesN = (N + ps->tileN - 1) / ps->tileN;
  int64_t numK = (K + ps->tileK - 1) / ps->tileK;
  int64_t rot = 0;
  if (op.getRotateM() && !uniform(op, op.getRotateM(), mask, rot)) {
    delete ps;
    return Stop;
  }
  if (op.getLhsRows()) {
    std::shared_ptr<View> part;
    int64_t first = 0;
    if (!viewOf(op, op.getLhsRows(), part) ||
        !uniform(op, op.getLhsRowsAt(), mask, first) || part->sizes.empty()) {
      delete ps;
      return Stop;
    }
    ps->lhsRowsFirst = first;
    ps->lhsRowsEnd = first + part->sizes[0];
  }
  // walk_m: the walk's first W row tiles. The kernel reads W as unsigned (a
  // negative one is the whole walk, as no bound) and traps on a W that is
  // not whole clusters, which this model does not follow.
  int64_t walk = -1;
  if (op.getWalkM()) {
    if (!uniform(op, op.getWalkM(), mask, walk)) {
      delete ps;
      return Stop;
    }
    if (walk >= 0 && walk % c != 0) {
      w.notModelled(op, "a walk_m (" + std::to_string(walk) +
                            ") that is not a multiple of cluster_m (" +
                            std::to_string(c) + "), where the kernel traps");
      delete ps;
      return Stop;
    }
    walk = std::max<int64_t>(walk, -1);
  }
  // The compiler's schedule (TileOrder: TileScheduler's arithmetic on
  // integers, unit-tested to agree with it).
  int64_t workers = std::max<int64_t>(w.G / c, 1), worker = a.block / c,
          rank = a.block % c;
  pipeline::TileOrder order;
  order.tilesM = tilesM;
  order.tilesN = tilesN;
  order.clusterSize = c;
  order.groupWidth = op.getGridTileWidth();
  order.splitK = splitK;
  order.segments = op.getGridTileSegments();
  order.keepWidth = op.getGridTileKeepWidth();
  order.interleave = op.getGridTileInterleave();
  order.lag = op.getGridTileLag();
  order.columnBlock = op.getGridTileColumnBlock();
  order.tileN = ps->tileN;
  order.kRotation = op.getKRotation();
  order.rotateM = op.getRotateM() ? rot : -1;
  order.walkM = walk;
  if (op.getTailSplit() > 1 && splitK == 1) {
    // The kernel's tail split (its workspace's room bounds the ways).
    pipeline::MatmulTiling tiling = op.getTiling();
    pipeline::TailSplitRoom room = pipeline::tailSplitRoom(
        tiling.workspaceWords, tiling.tm, tiling.tn, tiling.consumers);
    order.tailSplit = op.getTailSplit();
    order.tailPartialTiles = room.partialTiles;
    order.tailCounterTiles = room.counterTiles;
  }
  int64_t numUnits = order.units(workers, numK),
          stepT = order.stride(workers, numK);
  for (int64_t u = order.first(worker, workers, numK); u < numUnits;
       u += stepT) {
    auto [tile, kb, ke] = order.unitAt(u, workers, numK);
    auto [m, n] = order.coords(tile, rank, stepT);
    for (int64_t kk = kb; kk < ke; ++kk)
      ps->steps.push_back({m, n, order.kAt(n, kk, numK), kk == kb, kk + 1 == ke});
  }
  ps->lhsRing = w.newSlots("lhs ring (shared memory) of the pipeline at " +
                           describeLoc(op.getLoc()));
  ps->rhsRing = w.newSlots("rhs ring (shared memory) of the pipeline at " +
                           describeLoc(op.getLoc()));
  ps->lhsTileBytes = ps->tileM * ps->tileK * lhs->elemBytes;
  ps->rhsTileBytes = ps->tileK * ps->tileN * rhs->elemBytes;
  a.pipe = ps;
  for (Role r : {Role::Producer, Role::Callback, Role::Consumer}) {
    if (r == Role::Callback && op.getCallback().empty())
      continue;
    Agent *ra = w.newAgent(a.member, a.launch, a.block, r, &a);
    ra->pipe = ps;
    ps->roles.push_back(ra);
  }
  // Spawning the roles is progress; the op runs again to wait for them.
  return Jump;
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

Exec::Result Exec::exec(Operation *op, std::vector<int> &mask) {
  if (isa<arith::ConstantOp>(op)) {
    auto c = cast<arith::ConstantOp>(op);
    if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
      set(op->getResult(0), Val::integer(norm(i.getValue().getSExtValue(),
                                              widthOf(i.getType()))));
    else
      set(op->getResult(0), Val::unknown(op));
    return Next;
  }
  if (op->getDialect() && op->getDialect()->getNamespace() == "arith")
    return execArith(op);
  if (auto d = dyn_cast<DeviceIdOp>(op)) {
    set(d, Val::integer(a.member));
    return Next;
  }
  if (auto n = dyn_cast<NumDevicesOp>(op)) {
    set(n, Val::integer(w.D));
    return Next;
  }
  if (auto t = dyn_cast<gpu::ThreadIdOp>(op)) {
    int bx = w.k.attr.isBlockAuto() ? a.threads : w.k.attr.getBlock()[0];
    int by = w.k.attr.isBlockAuto() ? 1 : w.k.attr.getBlock()[1];
    Val v;
    v.kind = Val::Int;
    v.v.resize(a.threads);
    for (int i = 0; i < a.threads; ++i)
      v.v[i] = t.getDimension() == gpu::Dimension::x   ? i % bx
               : t.getDimension() == gpu::Dimension::y ? (i / bx) % by
                                                       : i / (bx * by);
    bool same = std::all_of(v.v.begin(), v.v.end(),
                            [&](int64_t x) { return x == v.v[0]; });
    if (same)
      v.v.resize(1);
    set(t, v);
    return Next;
  }
  // Other ids: warps, clusters, global ids, and their NVVM special registers.
  {
    StringRef name = op->getName().getStringRef();
    int64_t cluster = w.k.attr.isClusterAuto() ? 1 : w.k.attr.getCluster()[0];
    int64_t bx = w.k.attr.isBlockAuto() ? a.threads : w.k.attr.getBlock()[0];
    auto perLane = [&](auto fn) {
      Val v;
      v.kind = Val::Int;
      v.v.resize(a.threads);
      for (int i = 0; i < a.threads; ++i)
        v.v[i] = fn(i);
      set(op->getResult(0), v);
      return Next;
    };
    auto uniformX = [&](int64_t x) {
      set(op->getResult(0), Val::integer(x));
      return Next;
    };
    auto xDim = [&]() {
      if (auto d = op->getAttrOfType<gpu::DimensionAttr>("dimension"))
        return d.getValue() == gpu::Dimension::x;
      return true;
    };
    if (isa<gpu::SubgroupIdOp>(op) || name == "nvvm.read.ptx.sreg.warpid")
      return perLane([](int i) { return i / 32; });
    if (isa<gpu::NumSubgroupsOp>(op))
      return uniformX((a.threads + 31) / 32);
    if (isa<gpu::SubgroupSizeOp>(op) || name == "nvvm.read.ptx.sreg.warpsize")
      return uniformX(32);
    if (name == "nvvm.read.ptx.sreg.laneid")
      return perLane([](int i) { return i % 32; });
    if (name == "nvvm.read.ptx.sreg.tid.x")
      return perLane([&](int i) { return i % bx; });
    if (name == "nvvm.read.ptx.sreg.ctaid.x")
      return uniformX(a.block);
    if (name == "nvvm.read.ptx.sreg.ntid.x")
      return uniformX(bx);
    if (name == "nvvm.read.ptx.sreg.nctaid.x")
      return uniformX(w.G);
    if (isa<gpu::GlobalIdOp>(op) && xDim())
      return perLane([&](int i) { return a.block * bx + i % bx; });
    if (isa<gpu::ClusterIdOp>(op))
      return uniformX(xDim() ? a.block / cluster : 0);
    if (isa<gpu::ClusterBlockIdOp>(op))
      return uniformX(xDim() ? a.block % cluster : 0);
    if (isa<gpu::ClusterDimOp>(op))
      return uniformX(xDim() ? std::max<int64_t>(w.G / cluster, 1) : 1);
    if (isa<gpu::ClusterDimBlocksOp>(op))
      return uniformX(xDim() ? cluster : 1);
  }
  if (auto l = dyn_cast<gpu::LaneIdOp>(op)) {
    Val v;
    v.kind = Val::Int;
    for (int i = 0; i < a.threads; ++i)
      v.v.push_back(i % 32);
    set(l, v);
    return Next;
  }
  if (auto b = dyn_cast<gpu::BlockIdOp>(op)) {
    set(b, Val::integer(b.getDimension() == gpu::Dimension::x ? a.block : 0));
    return Next;
  }
  if (auto g = dyn_cast<gpu::GridDimOp>(op)) {
    set(g, Val::integer(g.getDimension() == gpu::Dimension::x ? w.G : 1));
    return Next;
  }
  if (auto b = dyn_cast<gpu::BlockDimOp>(op)) {
    int64_t v = 1;
    if (!w.k.attr.isBlockAuto())
      v = w.k.attr.getBlock()[(int)b.getDimension()];
    else if (b.getDimension() == gpu::Dimension::x)
      v = a.threads;
    set(b, Val::integer(v));
    return Next;
  }
  // Block barriers: gpu.barrier, nvvm.barrier0, and nvvm.barrier without a
  // thread count (barrier 0 of the whole block).
  if (isa<gpu::BarrierOp, NVVM::Barrier0Op>(op) ||
      (op->getName().getStringRef() == "nvvm.barrier" &&
       op->getNumOperands() == 0)) {
    if ((int)mask.size() != a.threads) {
      Finding f;
      f.kind = "deadlock";
      f.loc = op->getLoc();
      f.message = "deadlock: gpu.barrier reached by " +
                  std::to_string(mask.size()) + " of " +
                  std::to_string(a.threads) + " threads of " + w.who(a);
      w.report(std::move(f));
      return Stop;
    }
    a.blockSync();
    return Next;
  }
  StringRef opName = op->getName().getStringRef();
  bool memoryBarrier =
      opName == "nvvm.memory_barrier" || opName == "nvvm.memory.barrier";
  // A fence of the memory model (not a proxy fence: nvvm.fence.proxy*)
  // makes a later relaxed store, such as a packet, a release of what came
  // before it.
  if (opName.starts_with("nvvm.fence.sc") || memoryBarrier)
    a.released = a.clock;
  if (isa<gpu::PrintfOp, NVVM::FenceProxyOp, gpu::ReturnOp>(op) ||
      opName.starts_with("nvvm.fence") || memoryBarrier ||
      // Warp synchronization: the block runs in lock step already.
      opName == "nvvm.bar.warp.sync")
    return Next;
  if (op->getName().getStringRef() == "llvm.intr.trap") {
    Finding f;
    f.kind = "trap";
    f.loc = op->getLoc();
    f.message = "trap: " + w.who(a) + " reaches a trap at team size " +
                std::to_string(w.D);
    w.report(std::move(f));
    return Stop;
  }
  if (auto r = dyn_cast<RemoteRefOp>(op)) {
    std::shared_ptr<View> v;
    if (!viewOf(op, r.getBuffer(), v))
      return Stop;
    Lanes dev;
    if (!ints(op, r.getDevice(), dev))
      return Stop;
    auto nv = std::make_shared<View>(*v);
    nv->owner = dev;
    nv->remote = true;
    for (int t : mask)
      if (at(dev, t) < 0 || at(dev, t) >= w.D) {
        Finding f;
        f.kind = "out of bounds";
        f.loc = op->getLoc();
        f.message = "remote reference out of bounds: " + w.who(a) +
                    " names member " + std::to_string(at(dev, t)) +
                    " of a team of " + std::to_string(w.D);
        w.report(std::move(f));
        return Stop;
      }
    Val x;
    x.kind = Val::Mem;
    x.mem = nv;
    set(r, x);
    return Next;
  }
  if (auto s = dyn_cast<memref::SubViewOp>(op)) {
    std::shared_ptr<View> v;
    if (!viewOf(op, s.getSource(), v))
      return Stop;
    auto nv = std::make_shared<View>(*v);
    auto offs = s.getMixedOffsets(), sizes = s.getMixedSizes(),
         strides = s.getMixedStrides();
    auto value = [&](OpFoldResult f, Lanes &out) -> bool {
      if (auto attr = dyn_cast<Attribute>(f)) {
        out = {cast<IntegerAttr>(attr).getInt()};
        return true;
      }
      return ints(op, cast<Value>(f), out);
    };
    Lanes off = v->offset;
    SmallVector<int64_t, 4> ns, nst;
    llvm::SmallBitVector dropped = s.getDroppedDims();
    for (size_t d = 0; d < offs.size() && d < v->strides.size(); ++d) {
      Lanes o, z, st;
      if (!value(offs[d], o) || !value(sizes[d], z) || !value(strides[d], st))
        return Stop;
      if (z.size() != 1 || st.size() != 1) {
        w.notModelled(op, "a view whose size differs between threads");
        return Stop;
      }
      size_t n = std::max(off.size(), o.size());
      Lanes no(n);
      for (size_t t = 0; t < n; ++t)
        no[t] = at(off, t) + at(o, t) * v->strides[d];
      off = no;
      if (!dropped.test(d)) {
        ns.push_back(z[0]);
        nst.push_back(v->strides[d] * st[0]);
      }
    }
    nv->offset = off;
    nv->sizes = ns;
    nv->strides = nst;
    Val x;
    x.kind = Val::Mem;
    x.mem = nv;
    set(s, x);
    return Next;
  }
  // An alignment promise is the same view.
  if (isa<memref::CastOp, memref::MemorySpaceCastOp, memref::AssumeAlignmentOp>(
          op)) {
    set(op->getResult(0), get(op->getOperand(0)));
    return Next;
  }
  if (isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(op)) {
    std::shared_ptr<View> v;
    if (!viewOf(op, op->getOperand(0), v))
      return Stop;
    auto nv = std::make_shared<View>(*v);
    auto type = cast<MemRefType>(op->getResult(0).getType());
    int64_t total = v->numElements();
    nv->sizes.clear();
    int64_t known = 1, dyn = -1;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      int64_t s = type.getDimSize(d);
      if (ShapedType::isDynamic(s))
        dyn = d;
      else
        known *= s;
      nv->sizes.push_back(s);
    }
    if (dyn >= 0)
      nv->sizes[dyn] = known ? total / known : 0;
    nv->strides.assign(nv->sizes.size(), 1);
    for (int d = (int)nv->sizes.size() - 2; d >= 0; --d)
      nv->strides[d] = nv->strides[d + 1] * nv->sizes[d + 1];
    Val x;
    x.kind = Val::Mem;
    x.mem = nv;
    set(op->getResult(0), x);
    return Next;
  }
  if (auto d = dyn_cast<memref::DimOp>(op)) {
    std::shared_ptr<View> v;
    if (!viewOf(op, d.getSource(), v))
      return Stop;
    Lanes i;
    if (!ints(op, d.getIndex(), i))
      return Stop;
    set(d, Val::integer(v->sizes[at(i, 0)]));
    return Next;
  }
  if (auto l = dyn_cast<memref::LoadOp>(op))
    return execMemAccess(op, l.getMemref(), l.getIndices(), 1, false, false,
                         mask, {});
  if (auto s = dyn_cast<memref::StoreOp>(op))
    return execMemAccess(op, s.getMemref(), s.getIndices(), 1, true, false,
                         mask, s.getValue());
  if (auto r = dyn_cast<memref::AtomicRMWOp>(op))
    return execMemAccess(op, r.getMemref(), r.getIndices(), 1, true, true, mask,
                         r.getValue());
  if (auto l = dyn_cast<vector::LoadOp>(op))
    return execMemAccess(op, l.getBase(), l.getIndices(),
                         l.getVectorType().getNumElements(), false, false, mask,
                         {});
  if (auto s = dyn_cast<vector::StoreOp>(op))
    return execMemAccess(op, s.getBase(), s.getIndices(),
                         s.getVectorType().getNumElements(), true, false, mask,
                         {});
  // A prefetch is a hint: it orders nothing and no thread sees its data.
  if (isa<PrefetchL2Op>(op))
    return Next;
  if (auto aa = dyn_cast<AtomicAddOp>(op)) {
    // On `device` when given: a view on that member.
    std::shared_ptr<View> v;
    if (!viewOf(op, aa.getBuffer(), v))
      return Stop;
    Value buf = aa.getBuffer();
    if (aa.getDevice()) {
      Lanes dev;
      if (!ints(op, aa.getDevice(), dev))
        return Stop;
      auto nv = std::make_shared<View>(*v);
      nv->owner = dev;
      nv->remote = true;
      Val tmp;
      tmp.kind = Val::Mem;
      tmp.mem = nv;
      Val saved = get(buf);
      a.vals[buf] = tmp;
      int64_t elems = isa<VectorType>(aa.getValue().getType()) ? 2 : 1;
      Result r =
          execMemAccess(op, buf, aa.getIndices(), elems, true, true, mask, {});
      a.vals[buf] = saved;
      return r;
    }
    int64_t elems = isa<VectorType>(aa.getValue().getType()) ? 2 : 1;
    return execMemAccess(op, buf, aa.getIndices(), elems, true, true, mask, {});
  }
  if (auto s = dyn_cast<SemaphoreSignalOp>(op))
    return execSignal(s, mask);
  if (auto s = dyn_cast<SemaphoreWaitOp>(op))
    return execWait(s, mask);
  if (auto b = dyn_cast<BarrierOp>(op))
    return execBarrier(b, mask);
  if (auto p = dyn_cast<PutOp>(op))
    return execCopy(op, p.getSource(), {}, p.getTarget(), p.getDevice(),
                    p.getScope(), p.getSignal(), p.getSignalIndex(),
                    p.getSignalValue(), p.getDevice(), mask,
                    (bool)p.getPacketFlag(), p.getPacketFlag());
  if (auto g = dyn_cast<GetOp>(op))
    return execCopy(op, g.getSource(), g.getDevice(), g.getTarget(), {},
                    g.getScope(), g.getSignal(), g.getSignalIndex(),
                    g.getSignalValue(), {}, mask, false, {});
  if (auto r = dyn_cast<ReadPacketsOp>(op))
    return execReadPackets(r, mask);
  if (auto c = dyn_cast<CopySmemToGmemOp>(op))
    return execBulk(op, c.getTarget(), c.getIndices(), c.getSource(),
                    c.getDevice(), /*write=*/true, (bool)c.getReduce(), mask);
  if (auto c = dyn_cast<CopyGmemToSmemOp>(op))
    return execBulk(op, c.getSource(), c.getIndices(), c.getTarget(),
                    c.getDevice(), /*write=*/false, false, mask);
  if (auto wt = dyn_cast<WaitSmemToGmemOp>(op)) {
    completeBulk(wt.getPending(), wt.getReadOnly());
    return Next;
  }
  if (auto p = dyn_cast<MatmulPipelineOp>(op))
    return execPipeline(p, mask);
  // Local memory, or a view of it: a fresh shared buffer of this member,
  // row-major over the result's static shape.
  if (isa<gpu::DynamicSharedMemoryOp, memref::AllocaOp, memref::AllocOp,
          memref::ViewOp>(op)) {
    auto type = cast<MemRefType>(op->getResult(0).getType());
    auto v = std::make_shared<View>();
    v->buf = -2 - (int)(reinterpret_cast<uintptr_t>(op) & 0xffffff);
    v->space = Space::Shared;
    v->owner = {a.member};
    v->offset = {0};
    v->elemBytes = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
    for (int64_t s : type.getShape())
      v->sizes.push_back(ShapedType::isDynamic(s) ? 1 : s);
    v->strides.assign(v->sizes.size(), 1);
    for (int d = (int)v->sizes.size() - 2; d >= 0; --d)
      v->strides[d] = v->strides[d + 1] * v->sizes[d + 1];
    Val x;
    x.kind = Val::Mem;
    x.mem = v;
    set(op->getResult(0), x);
    return Next;
  }
  // Pure ops on data (vector, float math, shuffles): their results are data.
  if (isMemoryEffectFree(op) && op->getNumRegions() == 0) {
    for (Value r : op->getResults())
      set(r, Val::unknown(op));
    return Next;
  }
  if (isa<gpu::ShuffleOp>(op) ||
      op->getName().getStringRef().starts_with("nvvm.read.ptx")) {
    for (Value r : op->getResults())
      set(r, Val::unknown(op));
    return Next;
  }
  w.notModelled(op, "'" + op->getName().getStringRef() +
                        "' (the checker does not know what it does to memory "
                        "or to the other threads)");
  return Stop;
}

//===----------------------------------------------------------------------===//
// Control flow and roles
//===----------------------------------------------------------------------===//

/// Merges `src` into `dst` for the lanes of `mask`.
void mergeLanes(Val &dst, const Val &src, const std::vector<int> &mask,
                bool whole, int threads) {
  if (whole || dst.kind == Val::Unset) {
    dst = src;
    return;
  }
  if (dst.kind != src.kind || (dst.kind != Val::Int && dst.kind != Val::Mem)) {
    if (dst.kind == Val::Sem && src.kind == Val::Sem && dst.sem == src.sem)
      return;
    dst = src.kind == Val::Unknown ? src
                                   : Val::unknown(src.why ? src.why : dst.why);
    return;
  }
  if (dst.kind == Val::Int) {
    if (dst.v.size() == 1 && src.v.size() == 1 && dst.v[0] == src.v[0])
      return;
    Lanes out(threads);
    for (int t = 0; t < threads; ++t)
      out[t] = at(dst.v, t);
    for (int t : mask)
      out[t] = at(src.v, t);
    dst.v = std::move(out);
    return;
  }
  // Memrefs: same buffer, lanes of owner and offset.
  if (dst.mem->buf != src.mem->buf || dst.mem->sizes != src.mem->sizes) {
    dst = Val::unknown(nullptr);
    return;
  }
  auto nv = std::make_shared<View>(*dst.mem);
  Lanes o(threads), f(threads);
  for (int t = 0; t < threads; ++t) {
    o[t] = at(dst.mem->owner, t);
    f[t] = at(dst.mem->offset, t);
  }
  for (int t : mask) {
    o[t] = at(src.mem->owner, t);
    f[t] = at(src.mem->offset, t);
  }
  nv->owner = o;
  nv->offset = f;
  nv->remote = dst.mem->remote || src.mem->remote;
  dst.mem = nv;
}

bool startsBlock(Frame &f, Region &r) {
  if (r.empty())
    return false;
  f.block = &r.front();
  f.it = f.block->begin();
  return true;
}

} // namespace

//===----------------------------------------------------------------------===//
// World: the scheduler
//===----------------------------------------------------------------------===//

namespace {

/// The next step of a pipeline role whose frames are empty: pushes a region
/// frame, records the loads, or blocks. Returns false when the role is done.
bool advanceRole(World &w, Agent &a, bool &progressed, bool &blocked) {
  PipelineState &ps = *a.pipe;
  MatmulPipelineOp op = ps.op;
  int64_t nsteps = ps.steps.size();
  auto pushRegionOn = [&](Region &r, ArrayRef<Val> args,
                          std::vector<int> lanes) {
    Frame f;
    f.kind = Frame::RegionFrame;
    f.op = op;
    f.mask = std::move(lanes);
    if (!startsBlock(f, r))
      return false;
    for (auto [arg, v] : llvm::zip(f.block->getArguments(), args))
      a.vals[arg] = v;
    a.stack.push_back(std::move(f));
    return true;
  };
  auto pushRegion = [&](Region &r, ArrayRef<Val> args, int lane) {
    return pushRegionOn(r, args, {lane});
  };
  auto smemView = [&](Value arg, int ring = -1, int64_t offsetBytes = 0) {
    Val v;
    v.kind = Val::Mem;
    auto view = std::make_shared<View>();
    view->space = Space::Shared;
    view->buf = ring;
    view->owner = {a.member};
    view->offset = {0};
    if (auto t = dyn_cast<MemRefType>(arg.getType())) {
      view->elemBytes = std::max<int64_t>(1, t.getElementTypeBitWidth() / 8);
      for (int64_t s : t.getShape())
        view->sizes.push_back(s);
      view->strides.assign(view->sizes.size(), 1);
      for (int d = (int)view->sizes.size() - 2; d >= 0; --d)
        view->strides[d] = view->strides[d + 1] * view->sizes[d + 1];
    }
    view->offset = {offsetBytes / view->elemBytes};
    v.mem = view;
    return v;
  };
  // The ring slots of step s: what the producer's loads write, the
  // consumers' wgmma and the callback's bulk stores read.
  auto slotAccess = [&](int64_t s, bool write, const char *what) {
    int64_t slot = s % ps.stages;
    w.access(a, op, a.member, ps.lhsRing, slot * ps.lhsTileBytes, 1,
             ps.lhsTileBytes, ps.lhsTileBytes, write, false, what);
    w.access(a, op, a.member, ps.rhsRing, slot * ps.rhsTileBytes, 1,
             ps.rhsTileBytes, ps.rhsTileBytes, write, false, what);
  };
  Exec x{w, a};
  switch (a.role) {
  case Role::Producer: {
    while (true) {
      int64_t s = a.roleStep;
      if (s >= nsteps) {
        if (a.rolePhase == 0 && !op.getAfterLoads().empty()) {
          a.rolePhase = 3;
          if (pushRegion(op.getAfterLoads(), {}, 0)) {
            progressed = true;
            return true;
          }
        }
        return false;
      }
      const PipeStep &st = ps.steps[s];
      if (a.rolePhase == 0) {
        // The ring: slot s is free once the consumers have used step
        // s - stages and the callback finished step s - stages + delay.
        if (s >= ps.stages) {
          int64_t need = s - ps.stages;
          bool ok = ps.consumed > need;
          if (!op.getCallback().empty())
            ok = ok && ps.calledBack > std::min(need + ps.delay, nsteps - 1);
          if (!ok) {
            blocked = true;
            a.blockOp = op;
            a.blockReason = "waits for a free slot of its pipeline's ring";
            return true;
          }
          for (Agent *r : ps.roles)
            if (r->role != Role::Producer)
              a.clock.join(r->clock);
        }
        a.rolePhase = 1;
        if (!op.getBeforeLoad().empty()) {
          std::vector<Val> args{Val::integer(st.m), Val::integer(st.n),
                                Val::integer(st.k)};
          if (beforeLoadTakesFirst(op.getBeforeLoad()))
            args.push_back(Val::integer(st.firstOfUnit ? 1 : 0));
          if (beforeLoadTakesTile(op.getBeforeLoad())) {
            args.push_back(Val::integer(ps.tileM));
            args.push_back(Val::integer(ps.tileN));
          }
          pushRegion(op.getBeforeLoad(), args, 0);
          progressed = true;
          return true;
        }
      }
      // The loads of step s.
      auto load = [&](Value operand, int64_t r0, int64_t rows, int64_t c0,
                      int64_t cols) {
        const Val *v = a.lookup(operand);
        if (!v || v->kind != Val::Mem)
          return;
        const View &view = *v->mem;
        if (view.space != Space::Symmetric || view.sizes.size() != 2)
          return;
        int64_t r1 = std::min(r0 + rows, view.sizes[0]);
        int64_t c1 = std::min(c0 + cols, view.sizes[1]);
        if (r1 <= r0 || c1 <= c0)
          return;
        int64_t eb = view.elemBytes;
        int64_t base = (at(view.offset, 0) + r0 * view.strides[0] + c0) * eb;
        w.access(a, op, at(view.owner, 0), view.buf, base, r1 - r0,
                 view.strides[0] * eb, (c1 - c0) * eb, false, false,
                 "the pipeline's TMA load");
      };
      // A row tile of lhs_rows' range is read from the part.
      int64_t lhsRow = st.m * ps.tileM;
      bool inPart = lhsRow >= ps.lhsRowsFirst && lhsRow < ps.lhsRowsEnd;
      load(inPart ? op.getLhsRows() : op.getLhs(),
           inPart ? lhsRow - ps.lhsRowsFirst : lhsRow, ps.tileM,
           st.k * ps.tileK, ps.tileK);
      load(op.getRhs(), st.k * ps.tileK, ps.tileK, st.n * ps.tileN, ps.tileN);
      slotAccess(s, /*write=*/true, "the pipeline's TMA load into its ring");
      ps.full.push_back(a.clock);
      ps.loaded = s + 1;
      a.roleStep = s + 1;
      a.rolePhase = 0;
      progressed = true;
      ++w.syncEvents;
      return true;
    }
  }
  case Role::Callback: {
    int64_t s = a.roleStep;
    if (a.rolePhase == 1) {
      // The callback of step s finished; at the end of a tile the warp
      // waits for its bulk stores to read shared memory.
      if (ps.steps[s].lastOfTile)
        x.completeBulk(0, /*readsOnly=*/true);
      ps.calledBack = s + 1;
      a.tick();
      a.roleStep = ++s;
      a.rolePhase = 0;
      // The slot may be reused from here: a scheduling point, so that the
      // producer may refill it before the callback goes on.
      progressed = true;
      a.yieldNow = true;
      return s < nsteps;
    }
    if (s >= nsteps)
      return false;
    if (ps.loaded <= s) {
      blocked = true;
      a.blockOp = op;
      a.blockReason =
          "waits for the producer's loads of step " + std::to_string(s);
      return true;
    }
    a.clock.join(ps.full[s - ps.fullBase]);
    const PipeStep &st = ps.steps[s];
    a.rolePhase = 1;
    Block &body = op.getCallback().front();
    int64_t slot = s % ps.stages;
    pushRegion(
        op.getCallback(),
        {smemView(body.getArgument(0), ps.lhsRing, slot * ps.lhsTileBytes),
         smemView(body.getArgument(1), ps.rhsRing, slot * ps.rhsTileBytes),
         Val::integer(st.m), Val::integer(st.n), Val::integer(st.k)},
        32);
    progressed = true;
    return true;
  }
  case Role::Consumer: {
    while (true) {
      int64_t s = a.roleStep;
      if (s >= nsteps) {
        x.completeBulk();
        return false;
      }
      const PipeStep &st = ps.steps[s];
      if (a.rolePhase == 0) {
        if (ps.loaded <= s) {
          blocked = true;
          a.blockOp = op;
          a.blockReason =
              "waits for the producer's loads of step " + std::to_string(s);
          return true;
        }
        a.clock.join(ps.full[s - ps.fullBase]);
        slotAccess(s, /*write=*/false, "the pipeline's wgmma");
        a.tick();
        ps.consumed = s + 1;
        // Drop the clocks nobody needs any more.
        int64_t keep =
            std::min(ps.consumed,
                     op.getCallback().empty() ? ps.consumed : ps.calledBack);
        while (ps.fullBase < keep && !ps.full.empty()) {
          ps.full.pop_front();
          ++ps.fullBase;
        }
        if (!st.lastOfTile) {
          a.roleStep = s + 1;
          progressed = true;
          continue;
        }
        a.rolePhase = 1;
        a.roleBox = 0;
      }
      // The epilogue of the tile: boxes, or the store of the tile to out.
      // getOutType: out's type, or the lhs rows x rhs columns of the
      // element an epilogue-only pipeline names.
      MemRefType outType = op.getOutType();
      int64_t outBytes =
          std::max<int64_t>(1, outType.getElementTypeBitWidth() / 8);
      pipeline::TileBoxes tileBoxes{ps.tileM, ps.tileN, 128 / outBytes};
      int64_t boxes = tileBoxes.count();
      // Per box: the combine region on the warpgroup's 128 threads
      // (threads 128..255 of the block, lane = thread - 128: they split
      // the box between them), then the epilogue on its leader. roleBox
      // counts these runs.
      bool combine = !op.getCombine().empty();
      bool epilogue = !op.getEpilogue().empty();
      int64_t perBox = (combine ? 1 : 0) + (epilogue ? 1 : 0);
      if (perBox > 0 && a.roleBox < boxes * perBox) {
        int64_t i = a.roleBox / perBox, run = a.roleBox % perBox;
        ++a.roleBox;
        // The box's place as the region takes it (boxRegionForm): the
        // tile indices, or its first row and column in the output
        // (TileBoxes: the epilogue's numbering, EpilogueTest checks them
        // against each other).
        auto place = [&](Region &region, bool withLane) -> std::vector<Val> {
          if (boxRegionForm(region, withLane) == BoxRegionForm::Coordinates)
            return {Val::integer(tileBoxes.row(st.m, i)),
                    Val::integer(tileBoxes.col(st.n, i))};
          return {Val::integer(st.m), Val::integer(st.n), Val::integer(i)};
        };
        if (combine && run == 0) {
          Block &body = op.getCombine().front();
          std::vector<int> lanes;
          Val lane;
          lane.kind = Val::Int;
          lane.v.assign(a.threads, 0);
          for (int t = kWarpgroupLanes;
               t < std::min<int64_t>(a.threads, 2 * kWarpgroupLanes); ++t) {
            lanes.push_back(t);
            lane.v[t] = t - kWarpgroupLanes;
          }
          std::vector<Val> args{smemView(body.getArgument(0))};
          for (Val &v : place(op.getCombine(), /*withLane=*/true))
            args.push_back(std::move(v));
          args.push_back(std::move(lane));
          pushRegionOn(op.getCombine(), std::move(args), std::move(lanes));
        } else {
          Block &body = op.getEpilogue().front();
          std::vector<Val> args{smemView(body.getArgument(0))};
          for (Val &v : place(op.getEpilogue(), /*withLane=*/false))
            args.push_back(std::move(v));
          pushRegion(op.getEpilogue(), std::move(args), kWarpgroupLanes);
        }
        progressed = true;
        return true;
      }
      if (op.getEpilogue().empty()) {
        const Val *v = a.lookup(op.getOut());
        if (v && v->kind == Val::Mem && v->mem->space == Space::Symmetric &&
            v->mem->sizes.size() == 2) {
          const View &view = *v->mem;
          int64_t r0 = st.m * ps.tileM, c0 = st.n * ps.tileN;
          int64_t r1 = std::min(r0 + ps.tileM, view.sizes[0]);
          int64_t c1 = std::min(c0 + ps.tileN, view.sizes[1]);
          if (r1 > r0 && c1 > c0)
            w.access(a, op, at(view.owner, 0), view.buf,
                     (at(view.offset, 0) + r0 * view.strides[0] + c0) *
                         view.elemBytes,
                     r1 - r0, view.strides[0] * view.elemBytes,
                     (c1 - c0) * view.elemBytes, true, false,
                     "the pipeline's output store", true);
        }
      }
      a.rolePhase = 0;
      a.roleStep = s + 1;
      progressed = true;
    }
  }
  case Role::Block:
    return false;
  }
  return false;
}

} // namespace

bool World::step(Agent &a) {
  // Runs `a` until it blocks, finishes or passes a synchronizing op.
  Exec x{*this, a};
  bool progressed = false;
  while (!a.done && !aborted) {
    if (++steps > opts.stepLimit) {
      Finding f;
      f.kind = "step limit";
      f.loc = k.func.getLoc();
      f.message = "protocol check: gave up after " +
                  std::to_string(opts.stepLimit) +
                  " interpreted operations (raise --check-step-limit, or "
                  "check smaller sizes)";
      report(std::move(f));
      aborted = true;
      return false;
    }
    if (a.stack.empty()) {
      if (a.role != Role::Block) {
        bool blocked = false;
        bool more = advanceRole(*this, a, progressed, blocked);
        if (blocked) {
          a.blocked = true;
          return progressed;
        }
        a.blocked = false;
        if (!more) {
          x.completeBulk();
          a.done = true;
          return true;
        }
        if (a.yieldNow) {
          a.yieldNow = false;
          return true;
        }
        continue;
      }
      x.completeBulk();
      a.tick();
      a.done = true;
      return true;
    }
    Frame &f = a.stack.back();
    if (f.it == f.block->end()) {
      a.stack.pop_back();
      continue;
    }
    Operation *op = &*f.it;
    // Terminators: yields of the frame's op.
    if (isa<scf::YieldOp>(op) || isa<scf::ConditionOp>(op) ||
        isa<func::ReturnOp>(op) || isa<YieldOp>(op) || isa<gpu::ReturnOp>(op)) {
      SmallVector<Val, 4> yielded;
      for (Value v : op->getOperands())
        yielded.push_back(*(a.lookup(v) ? a.lookup(v) : &x.get(v)));
      if (f.kind == Frame::Body || f.kind == Frame::RegionFrame) {
        a.stack.pop_back();
        continue;
      }
      if (f.kind == Frame::Call) {
        Operation *call = f.op;
        a.stack.pop_back();
        for (auto [r, v] : llvm::zip(call->getResults(), yielded))
          a.vals[r] = v;
        if (!a.stack.empty())
          ++a.stack.back().it;
        continue;
      }
      if (f.kind == Frame::If || f.kind == Frame::Switch) {
        bool whole = f.mask.size() == f.outerMask.size();
        if (!f.haveResults) {
          f.results.assign(yielded.begin(), yielded.end());
          f.haveResults = true;
        } else {
          for (size_t i = 0; i < yielded.size(); ++i)
            mergeLanes(f.results[i], yielded[i], f.mask, whole, a.threads);
        }
        if (!f.pending.empty()) {
          auto next = std::move(f.pending.back());
          f.pending.pop_back();
          f.mask = std::move(next.second);
          startsBlock(f, *next.first);
          continue;
        }
        Operation *owner = f.op;
        std::vector<Val> res = std::move(f.results);
        a.stack.pop_back();
        for (auto [r, v] : llvm::zip(owner->getResults(), res))
          a.vals[r] = v;
        ++a.stack.back().it;
        continue;
      }
      if (f.kind == Frame::For) {
        auto forOp = cast<scf::ForOp>(f.op);
        bool whole = f.mask.size() == f.outerMask.size();
        for (size_t i = 0; i < yielded.size(); ++i)
          mergeLanes(f.iters[i], yielded[i], f.mask, whole, a.threads);
        // Next iteration for the active lanes.
        if (f.iv.size() == 1 && f.ub.size() == 1 && f.step.size() == 1) {
          f.iv[0] += f.step[0];
          if (f.iv[0] >= f.ub[0])
            f.mask.clear();
        } else {
          Lanes iv(a.threads);
          for (int t = 0; t < a.threads; ++t)
            iv[t] = at(f.iv, t);
          std::vector<int> next;
          for (int t : f.mask) {
            iv[t] += at(f.step, t);
            if (iv[t] < at(f.ub, t))
              next.push_back(t);
          }
          f.iv = std::move(iv);
          f.mask = std::move(next);
        }
        if (f.mask.empty()) {
          std::vector<Val> res = std::move(f.iters);
          a.stack.pop_back();
          for (auto [r, v] : llvm::zip(forOp.getResults(), res))
            a.vals[r] = v;
          ++a.stack.back().it;
          continue;
        }
        Val ivv;
        ivv.kind = Val::Int;
        ivv.v = f.iv;
        a.vals[forOp.getInductionVar()] = ivv;
        for (auto [arg, v] : llvm::zip(forOp.getRegionIterArgs(), f.iters))
          a.vals[arg] = v;
        f.it = f.block->begin();
        continue;
      }
      if (f.kind == Frame::While) {
        auto whileOp = cast<scf::WhileOp>(f.op);
        if (auto cond = dyn_cast<scf::ConditionOp>(op)) {
          Lanes c;
          if (!x.ints(op, cond.getCondition(), c))
            return progressed;
          std::vector<int> cont;
          for (int t : f.mask)
            if (at(c, t) & 1)
              cont.push_back(t);
          SmallVector<Val, 4> args(yielded.begin() + 1, yielded.end());
          bool whole = f.mask.size() == f.outerMask.size();
          for (size_t i = 0; i < args.size(); ++i)
            mergeLanes(f.iters[i], args[i], f.mask, whole, a.threads);
          if (cont.empty()) {
            std::vector<Val> res = std::move(f.iters);
            a.stack.pop_back();
            for (auto [r, v] : llvm::zip(whileOp.getResults(), res))
              a.vals[r] = v;
            ++a.stack.back().it;
            continue;
          }
          f.mask = cont;
          f.block = &whileOp.getAfter().front();
          for (auto [arg, v] : llvm::zip(f.block->getArguments(), f.iters))
            a.vals[arg] = v;
          f.it = f.block->begin();
          continue;
        }
        // Yield of the after region: back to before.
        bool whole = f.mask.size() == f.outerMask.size();
        for (size_t i = 0; i < yielded.size(); ++i)
          mergeLanes(f.iters[i], yielded[i], f.mask, whole, a.threads);
        f.block = &whileOp.getBefore().front();
        for (auto [arg, v] : llvm::zip(f.block->getArguments(), f.iters))
          a.vals[arg] = v;
        f.it = f.block->begin();
        continue;
      }
      a.stack.pop_back();
      continue;
    }
    // Structured control flow.
    if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
      Lanes c;
      if (!x.ints(op, ifOp.getCondition(), c))
        return progressed;
      std::vector<int> thenMask, elseMask;
      for (int t : f.mask)
        (at(c, t) & 1 ? thenMask : elseMask).push_back(t);
      Frame n;
      n.kind = Frame::If;
      n.op = op;
      n.outerMask = f.mask;
      if (!elseMask.empty() && !ifOp.getElseRegion().empty())
        n.pending.push_back({&ifOp.getElseRegion(), elseMask});
      if (!thenMask.empty()) {
        n.mask = thenMask;
        startsBlock(n, ifOp.getThenRegion());
      } else if (!n.pending.empty()) {
        n.mask = elseMask;
        startsBlock(n, ifOp.getElseRegion());
        n.pending.clear();
      } else {
        ++f.it;
        continue;
      }
      a.stack.push_back(std::move(n));
      continue;
    }
    if (auto sw = dyn_cast<scf::IndexSwitchOp>(op)) {
      Lanes c;
      if (!x.ints(op, sw.getArg(), c))
        return progressed;
      Frame n;
      n.kind = Frame::Switch;
      n.op = op;
      n.outerMask = f.mask;
      std::map<int, std::vector<int>> byCase; // -1: default
      auto cases = sw.getCases();
      for (int t : f.mask) {
        int which = -1;
        for (size_t i = 0; i < cases.size(); ++i)
          if (cases[i] == at(c, t))
            which = i;
        byCase[which].push_back(t);
      }
      for (auto &[which, lanes] : byCase)
        n.pending.push_back(
            {which < 0 ? &sw.getDefaultRegion() : &sw.getCaseRegions()[which],
             lanes});
      auto first = std::move(n.pending.back());
      n.pending.pop_back();
      n.mask = first.second;
      startsBlock(n, *first.first);
      a.stack.push_back(std::move(n));
      continue;
    }
    if (auto forOp = dyn_cast<scf::ForOp>(op)) {
      Frame n;
      n.kind = Frame::For;
      n.op = op;
      n.outerMask = f.mask;
      if (!x.ints(op, forOp.getLowerBound(), n.iv) ||
          !x.ints(op, forOp.getUpperBound(), n.ub) ||
          !x.ints(op, forOp.getStep(), n.step))
        return progressed;
      for (Value init : forOp.getInitArgs())
        n.iters.push_back(x.get(init));
      std::vector<int> active;
      for (int t : f.mask)
        if (at(n.iv, t) < at(n.ub, t))
          active.push_back(t);
      for (int t : f.mask)
        if (at(n.step, t) <= 0 && at(n.iv, t) < at(n.ub, t)) {
          notModelled(op, "a loop whose step is not positive");
          return progressed;
        }
      if (active.empty()) {
        for (auto [r, v] : llvm::zip(forOp.getResults(), n.iters))
          a.vals[r] = v;
        ++f.it;
        continue;
      }
      n.mask = active;
      startsBlock(n, forOp.getRegion());
      Val ivv;
      ivv.kind = Val::Int;
      ivv.v = n.iv;
      a.vals[forOp.getInductionVar()] = ivv;
      for (auto [arg, v] : llvm::zip(forOp.getRegionIterArgs(), n.iters))
        a.vals[arg] = v;
      a.stack.push_back(std::move(n));
      continue;
    }
    if (auto whileOp = dyn_cast<scf::WhileOp>(op)) {
      Frame n;
      n.kind = Frame::While;
      n.op = op;
      n.outerMask = f.mask;
      n.mask = f.mask;
      for (Value init : whileOp.getInits())
        n.iters.push_back(x.get(init));
      startsBlock(n, whileOp.getBefore());
      for (auto [arg, v] : llvm::zip(n.block->getArguments(), n.iters))
        a.vals[arg] = v;
      a.stack.push_back(std::move(n));
      continue;
    }
    if (auto call = dyn_cast<func::CallOp>(op)) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          op, call.getCalleeAttr());
      if (!callee || callee.isExternal() || a.stack.size() > 64) {
        notModelled(op, "a call the checker cannot follow");
        return progressed;
      }
      Frame n;
      n.kind = Frame::Call;
      n.op = op;
      n.mask = f.mask;
      n.outerMask = f.mask;
      startsBlock(n, callee.getBody());
      for (auto [arg, v] :
           llvm::zip(n.block->getArguments(), call.getOperands()))
        a.vals[arg] = x.get(v);
      a.stack.push_back(std::move(n));
      continue;
    }
    if (op->getNumRegions() && !isa<MatmulPipelineOp>(op)) {
      notModelled(op, "'" + op->getName().getStringRef() +
                          "' (an op with regions the checker does not know)");
      return progressed;
    }
    Exec::Result r = x.exec(op, f.mask);
    if (aborted)
      return progressed;
    switch (r) {
    case Exec::Next:
      ++f.it;
      progressed = true;
      break;
    case Exec::Jump:
      return true;
    case Exec::Sync:
      ++f.it;
      a.blocked = false;
      return true;
    case Exec::Block:
      a.blocked = true;
      return progressed;
    case Exec::Stop:
      // A finding ends this agent (and the schedule: the rest would only
      // report its consequences).
      aborted = true;
      return progressed;
    }
  }
  return progressed;
}

void World::startLaunch(int member, int launch) {
  launchOf[member] = launch;
  live[member].clear();
  // The host stream of this member rewrites the inputs: symmetric buffers
  // the kernel never writes.
  if (opts.hostIO) {
    Agent *host = newAgent(member, launch, -1, Role::Block, nullptr);
    host->done = true;
    live[member].clear();
    for (size_t b = 0; b < k.buffers.size(); ++b) {
      const Buffer &buf = k.buffers[b];
      if (buf.space != Space::Symmetric || buf.writtenByKernel)
        continue;
      Access box{0,           1,    buf.bytes(), buf.bytes(), host->id,
                 host->now(), true, false,       nullptr,     member,
                 launch,      -1,   Role::Block, "host write"};
      hostAccess(member, launch, b, box, true, host->clock, host->id);
    }
    host->tick();
    memberEnd[member].join(host->clock);
  }
  setHostSignals(member, launch, /*before=*/true);
  for (int b = 0; b < G; ++b) {
    Agent *a = newAgent(member, launch, b, Role::Block, nullptr);
    Frame f;
    f.kind = Frame::Body;
    f.mask.resize(k.threads);
    for (int t = 0; t < k.threads; ++t)
      f.mask[t] = t;
    startsBlock(f, k.func.getBody());
    // Workgroup and private attributions: this block's own memory.
    SmallVector<BlockArgument> attributions(k.func.getWorkgroupAttributions());
    llvm::append_range(attributions, k.func.getPrivateAttributions());
    for (BlockArgument arg : attributions) {
      auto type = cast<MemRefType>(arg.getType());
      auto view = std::make_shared<View>();
      view->buf = -2 - (int)arg.getArgNumber();
      view->space = Space::Shared;
      view->owner = {member};
      view->offset = {0};
      view->elemBytes = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
      for (int64_t s : type.getShape())
        view->sizes.push_back(ShapedType::isDynamic(s) ? 1 : s);
      view->strides.assign(view->sizes.size(), 1);
      for (int d = (int)view->sizes.size() - 2; d >= 0; --d)
        view->strides[d] = view->strides[d + 1] * view->sizes[d + 1];
      Val v;
      v.kind = Val::Mem;
      v.mem = view;
      a->vals[arg] = v;
    }
    // Parameters.
    for (unsigned i = 0; i < k.func.getNumArguments(); ++i) {
      BlockArgument arg = k.func.getArgument(i);
      Val v;
      if (k.semOfArg[i] >= 0) {
        v.kind = Val::Sem;
        v.sem = k.semOfArg[i];
      } else if (isa<MemRefType>(arg.getType())) {
        const Buffer &buf = k.buffers[i];
        auto view = std::make_shared<View>();
        view->buf = i;
        view->space = buf.space;
        view->owner = {member};
        view->offset = {0};
        view->sizes = buf.sizes;
        view->elemBytes = buf.elemBytes;
        view->strides.assign(buf.sizes.size(), 1);
        for (int d = (int)buf.sizes.size() - 2; d >= 0; --d)
          view->strides[d] = view->strides[d + 1] * buf.sizes[d + 1];
        v.kind = Val::Mem;
        v.mem = view;
      } else if (widthOf(arg.getType())) {
        auto it = opts.scalarArgs.find(k.buffers[i].name);
        v = Val::integer(it != opts.scalarArgs.end() ? it->second : launch + 1);
      } else {
        v = Val::unknown(nullptr);
      }
      a->vals[arg] = v;
    }
    a->stack.push_back(std::move(f));
  }
}

void World::setHostSignals(int member, int launch, bool before) {
  for (size_t sem = 0; sem < k.semaphores.size(); ++sem) {
    auto it = opts.hostSignals.find(k.semaphores[sem].name);
    if (it == opts.hostSignals.end())
      continue;
    // The host stream's write: after what it did before (its input
    // writes, or the launch it follows), as a release.
    Agent *host = newAgent(member, launch, -1, Role::Block, nullptr);
    host->done = true;
    live[member].pop_back(); // never scheduled
    host->clock.join(memberEnd[member]);
    for (int64_t i = 0; i < k.semaphores[sem].count; ++i) {
      Counter &c = counters[{member, (int)sem, i}];
      c.value = before ? (uint32_t)it->second : 0;
      c.vc = host->clock;
      c.log.clear();
      c.baseValue = c.value;
      c.base = host->clock;
    }
    host->tick();
    memberEnd[member].join(host->clock);
  }
}

void World::hostAccess(int member, int launch, int buf, const Access &box,
                       bool write, const VC &clock, int hostAgent) {
  Agent &host = *agents[hostAgent];
  host.clock = clock;
  host.clock.set(hostAgent, std::max(host.clock.get(hostAgent), box.stamp));
  // The race check of kernel accesses, with the host as the agent.
  access(host, nullptr, member, buf, box.base, box.rows, box.pitch, box.width,
         write, false, write ? "the host's write" : "the host's read");
}

void World::endLaunch(int member, bool startNext) {
  int launch = launchOf[member];
  for (Agent *a : live[member])
    memberEnd[member].join(a->clock);
  // The host stream reads what was delivered into buffers the kernel of
  // this member did not read itself in this launch.
  if (opts.hostIO) {
    Agent *host = newAgent(member, launch, -1, Role::Block, nullptr);
    host->done = true;
    host->clock.join(memberEnd[member]);
    for (size_t b = 0; b < k.buffers.size(); ++b) {
      const Buffer &buf = k.buffers[b];
      if (buf.space != Space::Symmetric)
        continue;
      if (localReads.count({member, launch, (int)b}))
        continue;
      auto it = delivered.find({member, 0, (int)b});
      if (it == delivered.end())
        continue;
      std::vector<Access> boxes = std::move(it->second);
      delivered.erase(it);
      // One read per distinct box.
      std::set<std::tuple<int64_t, int64_t, int64_t, int64_t>> seenBoxes;
      for (const Access &x : boxes) {
        if (!seenBoxes.insert({x.base, x.rows, x.pitch, x.width}).second)
          continue;
        Access box = x;
        box.stamp = host->now();
        hostAccess(member, launch, b, box, false, host->clock, host->id);
      }
    }
    host->tick();
    memberEnd[member].join(host->clock);
  }
  // Deliveries into buffers the kernel reads are consumed by the kernel.
  for (size_t b = 0; b < k.buffers.size(); ++b)
    delivered.erase({member, 0, (int)b});
  setHostSignals(member, launch, /*before=*/false);
  live[member].clear();
  if (startNext && launch + 1 < L)
    startLaunch(member, launch + 1);
}

void World::deadlock() {
  Finding f;
  f.kind = "deadlock";
  std::vector<Agent *> blocked;
  for (auto &a : agents)
    if (!a->done && a->blocked && a->role != Role::Block)
      blocked.push_back(a.get());
  for (auto &a : agents)
    if (!a->done && a->blocked && a->role == Role::Block && !a->pipe)
      blocked.push_back(a.get());
  if (blocked.empty())
    for (auto &a : agents)
      if (!a->done)
        blocked.push_back(a.get());
  if (blocked.empty())
    return;
  // Barriers first (a member missing from a barrier is the usual cause),
  // then waits on semaphores: they name what is missing.
  auto rank = [](Agent *x) {
    if (x->blockOp && isa<BarrierOp>(x->blockOp))
      return 0;
    if (x->blockOp && isa<SemaphoreWaitOp>(x->blockOp))
      return 1;
    return 2;
  };
  std::stable_sort(blocked.begin(), blocked.end(),
                   [&](Agent *x, Agent *y) { return rank(x) < rank(y); });
  Agent *first = blocked.front();
  f.loc = first->blockOp ? first->blockOp->getLoc() : k.func.getLoc();
  std::string summary;
  int shown = 0;
  std::set<std::string> lines;
  for (Agent *a : blocked) {
    std::string line = who(*a) + " " + a->blockReason;
    if (!lines.insert(line).second)
      continue;
    if (shown++ < 6)
      f.notes.push_back(
          {a->blockOp ? a->blockOp->getLoc() : k.func.getLoc(), line});
  }
  std::set<int> membersBlocked;
  for (Agent *a : blocked)
    membersBlocked.insert(a->member);
  std::string finished;
  for (int m = 0; m < D; ++m)
    if (!membersBlocked.count(m))
      finished += (finished.empty() ? "" : ", ") + std::to_string(m);
  // A cycle: every member waits on a semaphore (roles that wait for their
  // own pipeline's producer only follow it).
  bool cycle = finished.empty() && membersBlocked.size() > 1 &&
               llvm::all_of(blocked, [](Agent *x) {
                 return !x->blockOp || isa<SemaphoreWaitOp>(x->blockOp) ||
                        isa<MatmulPipelineOp>(x->blockOp);
               });
  f.message = "deadlock at team size " + std::to_string(D) + " (grid of " +
              std::to_string(G) + "): " + who(*first) + " " +
              first->blockReason;
  if (cycle)
    f.message += "; every member waits (a cycle of waits)";
  else if (first->blockOp && isa<BarrierOp>(first->blockOp)) {
    // Where the members the barrier waits for are.
    for (Agent *b : blocked)
      if (b->member != first->member &&
          !(b->blockOp && isa<BarrierOp>(b->blockOp))) {
        f.message += "; " + who(*b) + " " + b->blockReason;
        break;
      }
  } else if (!finished.empty())
    f.message +=
        "; member" +
        std::string(finished.find(',') != std::string::npos ? "s " : " ") +
        finished + " finished every launch";
  if (shown > 6)
    f.message += " (" + std::to_string(shown - 6) + " more blocked)";
  // The counters' signals: where a matching signal could come from.
  if (first->blockOp) {
    if (auto wt = dyn_cast<SemaphoreWaitOp>(first->blockOp)) {
      Value root = wt.getSemaphore();
      int n = 0;
      k.func.walk([&](SemaphoreSignalOp s) {
        if (s.getSemaphore() == root && n++ < 3)
          f.notes.push_back({s.getLoc(), "a signal of the same semaphore"});
      });
      k.func.walk([&](Operation *o) {
        if (auto p = dyn_cast<PutOp>(o))
          if (p.getSignal() == root && n++ < 3)
            f.notes.push_back({o->getLoc(), "a signal of the same semaphore"});
      });
      if (n == 0)
        f.message += "; nothing in the kernel signals it (a semaphore the "
                     "host sets: --check-host-signal NAME=V)";
    }
  }
  std::string key = "deadlock|";
  {
    llvm::raw_string_ostream os(key);
    os << f.loc;
  }
  f.key = key;
  report(std::move(f));
}

void World::run() {
  launchOf.assign(D, 0);
  live.assign(D, {});
  hostSync = k.semaphores.empty();
  memberEnd.assign(D, VC());
  for (int m = 0; m < D; ++m)
    startLaunch(m, 0);
  std::vector<Agent *> order;
  while (!aborted) {
    // Launch ends.
    if (hostSync) {
      // A kernel with no semaphore cannot order its members: its contract
      // is a host synchronization of the whole team between launches.
      bool all = true, any = false;
      for (int m = 0; m < D; ++m)
        for (Agent *a : live[m]) {
          all &= a->done;
          any = true;
        }
      if (all && any) {
        VC team;
        for (int m = 0; m < D; ++m) {
          for (Agent *a : live[m])
            team.join(a->clock);
          team.join(memberEnd[m]);
        }
        for (int m = 0; m < D; ++m)
          memberEnd[m] = team;
        int next = launchOf[0] + 1;
        for (int m = 0; m < D; ++m) {
          endLaunch(m, /*startNext=*/false);
          team.join(memberEnd[m]);
        }
        for (int m = 0; m < D; ++m)
          memberEnd[m] = team;
        if (next < L)
          for (int m = 0; m < D; ++m)
            startLaunch(m, next);
      }
    } else {
      for (int m = 0; m < D; ++m) {
        if (live[m].empty())
          continue;
        bool all = true;
        for (Agent *a : live[m])
          all &= a->done;
        if (all)
          endLaunch(m);
      }
    }
    order.clear();
    for (int m = 0; m < D; ++m)
      for (Agent *a : live[m])
        if (!a->done)
          order.push_back(a);
    if (order.empty())
      return;
    if (policy == Policy::Backward)
      std::reverse(order.begin(), order.end());
    else if (policy == Policy::Delay)
      std::stable_partition(order.begin(), order.end(),
                            [&](Agent *x) { return x->member != victim; });
    else if (policy == Policy::Random)
      std::shuffle(order.begin(), order.end(), rng);
    bool any = false;
    for (Agent *a : order) {
      if (a->done)
        continue;
      bool p = step(*a);
      if (aborted)
        return;
      if (p) {
        any = true;
        // Deterministic policies run the first agent that can move, then
        // look again from the start (the lowest rank runs ahead).
        if (policy != Policy::Random || (rng() & 3) == 0)
          break;
      }
    }
    if (!any) {
      deadlock();
      return;
    }
  }
}

//===----------------------------------------------------------------------===//
// The driver
//===----------------------------------------------------------------------===//

static std::string paramName(gpu::GPUFuncOp func, unsigned i) {
  if (auto n = func.getArgAttrOfType<StringAttr>(i, "weave.name"))
    return n.str();
  return "arg" + std::to_string(i);
}

static LogicalResult describeKernel(gpu::GPUFuncOp func,
                                    const ProtocolCheckOptions &opts,
                                    int64_t teamSize, Kernel &k) {
  k.func = func;
  k.attr = cast<KernelAttr>(func->getAttr("weave.kernel"));
  k.meshSize = k.attr.getMesh().getSize();
  k.threads = k.attr.isBlockAuto() ? 384 : k.attr.getNumThreads();
  unsigned n = func.getNumArguments();
  k.buffers.assign(n, {});
  k.semOfArg.assign(n, -1);
  for (unsigned i = 0; i < n; ++i) {
    Type t = func.getArgument(i).getType();
    std::string name = paramName(func, i);
    k.buffers[i].name = name;
    if (auto s = dyn_cast<SemaphoreType>(t)) {
      k.semOfArg[i] = k.semaphores.size();
      k.semaphores.push_back({name, (int64_t)s.getCount()});
      continue;
    }
    auto mt = dyn_cast<MemRefType>(t);
    if (!mt)
      continue;
    Buffer &b = k.buffers[i];
    b.space = isa_and_nonnull<SymmetricMemorySpaceAttr>(mt.getMemorySpace())
                  ? Space::Symmetric
                  : Space::Global;
    b.elemBytes = std::max<int64_t>(1, (mt.getElementTypeBitWidth() + 7) / 8);
    b.integer = mt.getElementType().isIntOrIndex();
    auto given = opts.shapes.find((func.getName() + ":" + name).str());
    if (given == opts.shapes.end())
      given = opts.shapes.find(name);
    size_t next = 0;
    for (int64_t d : mt.getShape()) {
      if (ShapedType::isDynamic(d)) {
        if (given == opts.shapes.end() || next >= given->second.size()) {
          emitError(func.getLoc())
              << "protocol check: parameter '" << name
              << "' has a dynamic size: give it with --check-shape " << name
              << "=S0x... (one size per '?', N*D for N times the team size)";
          return failure();
        }
        // A negative size -k means k times the team size.
        d = given->second[next++];
        if (d < 0)
          d = -d * teamSize;
      }
      b.sizes.push_back(d);
    }
  }
  // Which buffers the kernel writes (for the host model's inputs).
  func.walk([&](Operation *op) {
    for (Value v : writesOf(op))
      if (auto arg = dyn_cast<BlockArgument>(rootOf(v)))
        if (arg.getOwner()->getParentOp() == func &&
            arg.getArgNumber() < k.buffers.size()) // not an attribution
          k.buffers[arg.getArgNumber()].writtenByKernel = true;
  });
  return success();
}

LogicalResult mlir::weave::checkProtocol(ModuleOp module,
                                         const ProtocolCheckOptions &opts,
                                         llvm::raw_ostream &summary) {
  std::vector<gpu::GPUFuncOp> kernels;
  module.walk([&](gpu::GPUFuncOp f) {
    if (f->getAttr("weave.kernel"))
      kernels.push_back(f);
  });
  if (kernels.empty()) {
    emitError(module.getLoc())
        << "protocol check: no weave kernel in the input";
    return failure();
  }
  // A name an option gives must be a parameter of the kind it takes: a
  // misspelt host signal would leave its waits to deadlock, reported far
  // from the cause, and a misspelt kernel-written buffer would check
  // nothing.
  auto namesParams = [&](const std::vector<std::string> &names,
                         function_ref<bool(Type)> ofKind, StringRef flag,
                         StringRef kind) -> LogicalResult {
    std::set<std::string> params;
    for (gpu::GPUFuncOp func : kernels)
      for (unsigned i = 0; i < func.getNumArguments(); ++i)
        if (ofKind(func.getArgument(i).getType()))
          params.insert(paramName(func, i));
    for (const std::string &name : names) {
      if (params.count(name))
        continue;
      std::string known;
      for (const std::string &p : params)
        known += (known.empty() ? "" : ", ") + p;
      emitError(module.getLoc())
          << "protocol check: --" << flag << " names '" << name
          << "', which is no " << kind << " parameter of a kernel here ("
          << (known.empty() ? std::string("none has one") : "they are: " + known)
          << ")";
      return failure();
    }
    return success();
  };
  std::vector<std::string> signalNames;
  for (const auto &entry : opts.hostSignals)
    signalNames.push_back(entry.first);
  if (failed(namesParams(
          signalNames, [](Type t) { return isa<SemaphoreType>(t); },
          "check-host-signal", "semaphore")) ||
      failed(namesParams(
          {opts.kernelWritten.begin(), opts.kernelWritten.end()},
          [](Type t) {
            auto m = dyn_cast<MemRefType>(t);
            return m && isSymmetric(m);
          },
          "check-kernel-written", "symmetric buffer")))
    return failure();
  std::vector<Finding> findings;
  uint64_t schedulesRun = 0, totalSteps = 0, totalSync = 0;
  std::set<int64_t> sizesChecked;
  std::set<int64_t> gridsChecked;
  bool failedSetup = false;
  for (gpu::GPUFuncOp func : kernels) {
    int64_t meshSize =
        cast<KernelAttr>(func->getAttr("weave.kernel")).getMesh().getSize();
    std::vector<int64_t> sizes;
    if (!ShapedType::isDynamic(meshSize))
      sizes = {meshSize};
    else
      sizes = opts.teamSizes;

    for (int64_t D : sizes) {
      Kernel k;
      if (failed(describeKernel(func, opts, D, k))) {
        failedSetup = true;
        break;
      }
      std::vector<int64_t> grids;
      if (k.attr.isPersistent()) {
        // A capped grid launches no more than its cap.
        int64_t cap = k.attr.getPersistentCap();
        for (int64_t g : opts.persistentGrids) {
          int64_t launched = cap ? std::min(g, cap) : g;
          if (!llvm::is_contained(grids, launched))
            grids.push_back(launched);
        }
      } else {
        auto g = k.attr.getGrid();
        grids = {(int64_t)g[0] * g[1] * g[2]};
      }
      for (int64_t G : grids) {
        sizesChecked.insert(D);
        gridsChecked.insert(G);
        size_t before = findings.size();
        // The schedules: rank order, reverse, each member lagging behind
        // the others, then random ones; at least --check-schedules, and
        // more while they are cheap (small kernels get many interleavings
        // for little time).
        uint64_t configSteps = 0;
        for (unsigned s = 0;; ++s) {
          unsigned minimum = std::max(opts.schedules, 1u);
          if (s >= minimum && (s >= kMaxSchedules || configSteps > kCheapSteps))
            break;
          Policy p = Policy::Random;
          int victim = 0;
          if (s == 0)
            p = Policy::Forward;
          else if (s == 1)
            p = Policy::Backward;
          else if (s < 1 + (unsigned)D) {
            p = Policy::Delay;
            victim = s - 1;
          }
          uint64_t seed = opts.seed + s;
          size_t had = findings.size();
          World w(k, opts, D, G, p, seed, findings);
          w.victim = victim;
          w.run();
          ++schedulesRun;
          configSteps += w.steps;
          totalSteps += w.steps;
          totalSync += w.syncEvents;
          for (size_t i = had; i < findings.size(); ++i) {
            std::string how =
                p == Policy::Forward    ? "members in rank order"
                : p == Policy::Backward ? "members in reverse rank order"
                : p == Policy::Delay
                    ? "member " + std::to_string(victim) + " lagging"
                    : "random schedule, seed " + std::to_string(seed);
            findings[i].message += " [team size " + std::to_string(D) +
                                   ", grid " + std::to_string(G) + ", " +
                                   std::to_string(opts.launches) +
                                   " launches, " + how + "]";
          }
          if (findings.size() != before &&
              findings.back().kind == "not modelled")
            break;
        }
        // One configuration's findings are enough to act on; later ones
        // repeat them.
        if (findings.size() != before)
          break;
      }
      if (!findings.empty())
        break;
    }
  }
  // Deduplicate across configurations (the key ignores the bracket).
  std::set<std::string> keys;
  for (const Finding &f : findings) {
    if (!keys.insert(f.key).second)
      continue;
    InFlightDiagnostic d = emitError(Location(f.loc)) << f.message;
    for (auto &n : f.notes)
      d.attachNote(n.first) << n.second;
  }
  if (!findings.empty() || failedSetup)
    return failure();
  std::string sz, gr;
  for (int64_t s : sizesChecked)
    sz += (sz.empty() ? "" : ",") + std::to_string(s);
  for (int64_t g : gridsChecked)
    gr += (gr.empty() ? "" : ",") + std::to_string(g);
  summary << "protocol check passed: " << kernels.size() << " kernel"
          << (kernels.size() == 1 ? "" : "s") << ", team sizes " << sz
          << ", grids " << gr << ", " << opts.launches << " launches, "
          << schedulesRun << " schedules (seed " << opts.seed << "), "
          << totalSync << " synchronizing events, " << totalSteps
          << " interpreted operations; no deadlock, race or out-of-bounds "
             "access\n";
  return success();
}
