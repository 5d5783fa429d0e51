//===- FusedMatmul.h - Matmuls fused with a collective ----------*- C++ -*-===//
//
// The all-gather matmul (examples/collective_matmul) and the GEMM +
// reduce-scatter (examples/matmul_reduce_scatter) as ops: the caller passes
// one device tensor per local member for each operand and one stream per
// local member; the op owns the symmetric staging of the gathered rows, the
// accumulator, semaphores and launch counters its kernel needs, so repeated
// calls need no host synchronization and a call can be captured in a CUDA
// graph and replayed (make the op before capturing).
//
//   auto agmm = ops::AllGatherMatmul::create(comm, "bf16", mShard, k, n).value();
//   agmm({a}, {b}, {c}, {stream});   // c = AllGather(a) @ b
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_OPS_FUSEDMATMUL_H
#define WEAVE_OPS_FUSEDMATMUL_H

#include "weave/ops/Collectives.h"

namespace weave::ops {

/// c = AllGather(a) @ b on a ring: member r holds a (mShard x k, its row
/// shard of A), b (k x n, its column shard of B) and gets c (team size x
/// mShard rows x n) = [A_0; ...; A_{D-1}] @ b, f16 or bf16 (f32 sums). The
/// ring forwards A's tiles from the matmul's shared memory while it computes
/// (docs/OPS.md). One kernel instance serves every mShard (a dynamic row
/// count): ops of other mShard on the same communicator share it. A team of
/// at least 2 (a ring). Two algorithms: "ring", the fused kernel above (the
/// default), and "gather": the collectives' all-gather (ops::AllGather's
/// kernel) into the op's gathered rows on a side stream, beside one
/// plain-matmul launch of the own shard, then one launch per peer's shard
/// (docs/OPS.md, ops/lib/GatherMatmul.h).
class AllGatherMatmul : public CollectiveOp {
public:
  /// The row tile: mShard must be a multiple of it.
  static constexpr int64_t kRowTile = 128;
  /// `algorithm`: "auto" (choose()), "ring" or "gather".
  static Expected<AllGatherMatmul> create(Communicator &comm,
                                          const std::string &dtype,
                                          int64_t mShard, int64_t k, int64_t n,
                                          const std::string &algorithm =
                                              "auto");
  Status operator()(const std::vector<TensorRef> &a,
                    const std::vector<TensorRef> &b,
                    const std::vector<TensorRef> &c,
                    const std::vector<CUstream> &streams) {
    return run({a, b, c}, streams);
  }
  /// The same without the staging copy of `a`: `gathered` is a symmetric
  /// buffer of the communicator's heap of team size x mShard rows x k (the
  /// kernel's own `a`), in which every member has written its shard into
  /// rows [rank x mShard, (rank + 1) x mShard) before the call (ordered on
  /// its stream); the call gathers the other rows into it. Every member
  /// passes the same buffer (a collective call).
  Status operator()(const SymmetricBuffer &gathered,
                    const std::vector<TensorRef> &b,
                    const std::vector<TensorRef> &c,
                    const std::vector<CUstream> &streams) {
    return runInPlace(0, gathered, {{}, b, c}, streams);
  }

  /// The kernel instance create() builds (no GPU needed); it does not
  /// depend on mShard. "ring" (and "auto": create() and matmulOpInstance
  /// resolve "auto" with choose() at the op's m_shard first): its kernel
  /// has a dynamic m_shard and comes as variants over ranges of it
  /// (KernelInstance::variants), each with the column tile tileN chooses
  /// there, picked by the runtime at launch. "gather": the GEMM +
  /// reduce-scatter's copy-engine instance (MatmulReduceScatter::
  /// instanceFor(teamSize, dtype, k, n, "copy_engine")), whose ce_matmul
  /// it launches: one bundle for both ops; its all-gather is a second
  /// instance, AllGather::instanceFor(teamSize, dtype, mShard x k).
  static Expected<KernelInstance> instanceFor(uint32_t teamSize,
                                              const std::string &dtype,
                                              int64_t k, int64_t n,
                                              const std::string &algorithm =
                                                  "auto");
  /// What "auto" runs: "copy_engine" where copyEngineWins; else "gather"
  /// where gatherFill is at most 1 (one shard's plain matmul is at most
  /// one round of tiles) or where b is streamed (streamsB: the ring reads
  /// all of b from memory at each of its D steps), "ring" elsewhere; but
  /// where ringKeepsShortShard, "gather" only where b is streamed and a
  /// shard is more than one round (unless ringStreamsShortShard), or
  /// where every member's rows together are one round of 128 x 128 tiles
  /// (the measurements are in the definition, ops/lib/Instances.cpp).
  static std::string choose(uint32_t teamSize, int64_t mShard, int64_t k,
                            int64_t n);
  /// Whether the ring's steps are so few and its groups so wide that it
  /// beats the one-round gather: a team of fewer than
  /// kGatherOneRoundMinTeam members, and a shard of 2 to
  /// kUnnarrowedSegmentRows row tiles (the ring's segments then keep
  /// their groups' width: Utils/MatmulTiling.h; one row tile is one row
  /// either way).
  static bool ringKeepsShortShard(uint32_t teamSize, int64_t mShard);
  /// Where ringKeepsShortShard and b streams past one round of a shard,
  /// whether the ring still beats the gather: b is at most
  /// kShortShardRingMaxBBytes (reading it at each of the two steps costs
  /// less than the gather's all-gather before its first tile) and the
  /// ring's steps leave less than kCopyEngineMinRingIdle of a round idle
  /// (ringStepIdle; at 3 row tiles of n 14336 they leave 0.73 and the
  /// ring lost by 15-25%).
  static bool ringStreamsShortShard(uint32_t teamSize, int64_t mShard,
                                    int64_t k, int64_t n,
                                    int64_t smCount = kSmCount);
  /// 2 x H200, D = 2, bf16, the Python op in graphs (thirty-fourth
  /// session, docs/PERF.md "The ring where b barely streams"), ring /
  /// gather, ms, bursts (sustained 0.5 s): 98-112 MiB of b, the ring
  /// ahead in bursts: 512 x 7168 x 7168 0.153 / 0.179 (0.181 / 0.189),
  /// 512 x 8192 x 7168 0.170 / 0.200 (0.207 / 0.215), 512 x 4096 x 14336
  /// 0.172 / 0.182 (0.215 / 0.206), 256 x 4096 x 14336 0.095 / 0.102
  /// (0.115 / 0.111): the burst winner where the sustained loss is 3-4%,
  /// as at D = 2 for the copy engines; from 135 MiB the ring's burst lead (4-8%)
  /// turned into the gather's sustained (2-10%: 256 x 5120 x 13824 0.116
  /// / 0.126 (0.136 / 0.134), 256 x 8192 x 28672 0.366 / 0.367 (0.430 /
  /// 0.390)): the ring reads b from memory at each step, and under the
  /// 700 W limit those reads cost clock.
  static constexpr int64_t kShortShardRingMaxBBytes = int64_t(128) << 20;
  /// From this many members the one-round gather stays: at D = 4 it led
  /// the ring at every one-round shape of 256-384 rows measured (D = 3:
  /// 384 x 8192 x 7168, 0.265 against 0.269 ms).
  static constexpr uint32_t kGatherOneRoundMinTeam = 3;
  /// One shard's output tiles (mShard x n) per SM: of 128 x 128 or 128 x
  /// 192 tiles (the latter up to kGatherWideTileMaxRows rows), whichever
  /// makes the fuller single round; the 128 x 128 count where neither
  /// makes one round.
  static double gatherFill(int64_t mShard, int64_t n,
                           int64_t smCount = kSmCount);
  /// The most m_shard at which a round of 128 x 192 tiles counts for
  /// "gather". The peers' matmuls wait for the whole all-gather, and it
  /// grows with m_shard while the round does not. Measured (4 x H100,
  /// bf16, K = 4096, the Python op in graphs, eleventh session): gather
  /// beat the ring at m_shard 640 and 768 (N = 4096; D = 4 0.171 / 0.197
  /// and 0.175 / 0.198 ms) and 384 (N = 8192, D = 4: 0.180 / 0.255), and
  /// lost at 1152, 1280 and 1536 (N = 2048: D = 2 0.106 / 0.086 to 0.105
  /// / 0.100, D = 4 0.198 / 0.173 to 0.234 / 0.192), where the all-gather
  /// alone takes 1.4-3.2 rounds.
  static constexpr int64_t kGatherWideTileMaxRows = 1024;
  /// Whether a matmul that takes its rows mShard at a time (the ring's
  /// steps, the copy engines' chunks) reads b (k x n, 2-byte elements)
  /// from memory at every step, and that costs more than gathering the
  /// rows first: b is at least kStreamedBBytes, so it does not stay in
  /// the L2 from one step to the next, and a step's rows are at most
  /// kStreamedMaxRows, so reading b takes about as long as the step's
  /// math (H100: 3.35 TB/s against about 700 TFLOP/s is about 210 rows).
  /// One launch over every row reads b once. Measured
  /// (2 x H100 of a 4-GPU machine, bf16, graphs, fourteenth session;
  /// docs/PERF.md "Where b does not stay in the L2"): the ring at m_shard
  /// 256, k 8192, n 28672 took 2.1x local cuBLAS of the whole product,
  /// After 1.05x.
  static bool streamsB(int64_t mShard, int64_t k, int64_t n) {
    return mShard <= kStreamedMaxRows &&
           double(k) * double(n) * 2 > double(kStreamedBBytes);
  }
  /// About twice H100's 50 MB of L2: at 64 MiB of b (m_shard 512, k
  /// 4096, n 8192) the ring still matched gather (D = 2 0.111 against
  /// 0.114 ms, D = 4 0.209 against 0.226; docs/PERF.md, "The rule at
  /// shapes it was not fitted on"), at 112 MiB (n 14336) After won.
  static constexpr int64_t kStreamedBBytes = int64_t(96) << 20;
  static constexpr int64_t kStreamedMaxRows = 512;
  /// How "gather" orders its matmul against its all-gather.
  enum class GatherSchedule {
    /// The own shard's launch beside the all-gather, then the peers' rows.
    Beside,
    /// As Beside, the all-gather on kNarrowAllGatherBlocks blocks (the
    /// all-gather's "narrow" algorithm), so that the own shard's launch
    /// keeps the other SMs.
    BesideNarrow,
    /// The all-gather, then one launch over every gathered row.
    After,
  };
  /// After where the shard's rows of `a` (m_shard x k elements of 2
  /// bytes) are under kGatherAfterBaseBytes + kGatherAfterIdleBytes x (1 -
  /// gatherFill): the all-gather is then shorter than what Beside loses to
  /// the own shard's round. Where b is streamed past one round of tiles
  /// (streamsB): BesideNarrow from kNarrowMinTeam members where the split
  /// costs no round (narrowPaysNoRound: the all-gather of D - 1 shards is
  /// then hidden for the price of reading b twice), After elsewhere (one
  /// launch reads b once). Beside elsewhere (the measurements are in the
  /// definition).
  static GatherSchedule gatherSchedule(uint32_t teamSize, int64_t mShard,
                                       int64_t k, int64_t n);
  /// The line's two constants, fitted to 4 x H100 (After at 2 and 3 MiB
  /// with fill 0.97 and 0.73 and at 4 MiB with 0.48; Beside at 4 MiB with
  /// 0.97, 5 MiB with 0.83, 8 MiB with 0.97).
  static constexpr double kGatherAfterBaseBytes = 3.5 * 1024 * 1024;
  static constexpr double kGatherAfterIdleBytes = 2.0 * 1024 * 1024;
  /// Whether the own shard's launch and the peers' launch take no more
  /// rounds of kRowTile x 256 output tiles on `smCount` SMs than one
  /// launch over every row (BesideNarrow's condition besides streamed b).
  static bool narrowPaysNoRound(uint32_t teamSize, int64_t mShard, int64_t n,
                                int64_t smCount = kSmCount);
  /// The rows of the ring's tile groups (grid_tile_segments narrows them
  /// so that a shard's rows complete a wave before the next member needs
  /// them, except in shards of at most kUnnarrowedSegmentRows row tiles:
  /// TileOrder::groupRows, the dialect's rule, computes it) for a
  /// team of teamSize members of mShard rows, its column tile tileN's, on
  /// `smCount` SMs.
  static int64_t ringGroupRows(uint32_t teamSize, int64_t mShard, int64_t n,
                               int64_t smCount = kSmCount);
  /// The wave rule alone on the same launch (TileOrder::waveNarrowedRows):
  /// 1 where one wave covers a whole shard's rows. The ring's schedule
  /// keeps the width of shards of at most kUnnarrowedSegmentRows row tiles
  /// (ringGroupRows is then 8); copyEngineWins reads this instead, so that
  /// "auto" chooses as at its measured points, which were taken against
  /// the narrowed ring. Re-measured against the kept groups (4 x H200,
  /// sustained, twenty-fifth session): D = 4 512 x 8192 x 14336
  /// copy_engine 0.781 ms, gather 0.772, the ring 0.820 (0.99 before);
  /// gather also led the copy engines by 3-5% at 512 x 5120 x 13824
  /// (docs/PERF.md): the rule wants a refit, not yet made.
  static int64_t ringWaveRows(uint32_t teamSize, int64_t mShard, int64_t n,
                              int64_t smCount = kSmCount);
  /// The rows of a tile group in the all-gather matmul's templates
  /// (GROUP_ROWS), before the segments narrow them.
  static constexpr int64_t kGroupRows = 8;
  /// The idle share of the last round of one ring step: a step is one
  /// shard's mShard / kRowTile x ceil(n / tileN) tiles, so it takes
  /// tiles / smCount rounds, and ceil of that minus it is what its last
  /// round leaves idle (0 for whole rounds, near 1 just past one). The
  /// ring's steps follow its forwarding, so that part of a round is
  /// mostly lost at each of its D steps; one launch over every row (the
  /// copy engines') pays a partial round once.
  static double ringStepIdle(uint32_t teamSize, int64_t mShard, int64_t n,
                             int64_t smCount = kSmCount);
  /// Whether "copy_engine" (its copies land while one launch walks the
  /// shards in order, in groups that keep their width) is "auto"'s
  /// choice: from kCopyEngineMinTeam members and kCopyEngineMinRows rows
  /// a shard, where b is at least kStreamedBBytes (it does not stay in
  /// L2), and the ring's waves cover a whole shard (ringWaveRows is 1:
  /// its groups narrow to one row, each row tile of a wave reading all of
  /// b, or at up to 4 row tiles a shard one wave holds every row) or it
  /// leaves at least kCopyEngineMinRingIdle of a round idle at each step
  /// (ringStepIdle).
  static bool copyEngineWins(uint32_t teamSize, int64_t mShard, int64_t k,
                             int64_t n, int64_t smCount = kSmCount);
  /// At D = 2 the copy engines lost to the ring or the gather at every
  /// measured point on 4 x H100 (bursts; docs/PERF.md, "The all-gather
  /// matmul's copy engines in one launch"). On 2 x H200 (twenty-fourth
  /// session, 11 shapes of 512-4096 rows, "The block's activations were
  /// never computed, and the D = 2 algorithm A/B") they led the ring by
  /// 0.2-4.6% at 10 shapes timed sustained (at the 700 W limit's clock)
  /// and trailed it by 1-15% at 10 in bursts (from 256 MiB of b, 5 more
  /// shapes: 0.3-4.1% ahead sustained, up to 12% behind): the ring stays.
  static constexpr uint32_t kCopyEngineMinTeam = 3;
  /// The copy engines were measured from 512 rows a shard; below, the
  /// gather's all-gather is short and its After or BesideNarrow already
  /// matched or beat PyTorch (D = 4 256 x 8192 x 14336 0.361-0.370 ms
  /// against 0.395-0.410, 384 x 5120 x 13824 0.321 against 0.341).
  static constexpr int64_t kCopyEngineMinRows = 512;
  /// The ring step's idle share (ringStepIdle) from which the copy
  /// engines win where the ring's groups are wider than a row. 4 x H100,
  /// bf16, graphs (seventeenth session, docs/PERF.md "The copy engines'
  /// rule on the ring's idle rounds"), copy_engine / ring: idle 0.88 (640
  /// x 8192 x 14336, groups of 2) 0.81 at D = 4 and 0.91 at D = 3; the
  /// ring won at 0.55 (768 x 5120 x 13824: 1.05, 1.08), 0.52 (896 x 8192
  /// x 7168: 1.07), 0.45 (768 x 8192 x 14336: 1.01, 1.05) and below.
  static constexpr double kCopyEngineMinRingIdle = 0.7;
  /// The least team that runs BesideNarrow: at D = 2 the all-gather it
  /// hides is one shard, and After won at every measured point (by 7-19%).
  static constexpr uint32_t kNarrowMinTeam = 3;
  /// The algorithm this op runs ("ring", "gather" or "copy_engine").
  const std::string &algorithm() const { return algorithm_; }
  /// The output tile's columns (256, 192 or 128; its rows are kRowTile)
  /// for a team of teamSize members with mShard rows each and n columns,
  /// on `smCount` SMs: the estimate is rounds of persistent tiles,
  /// ceil(tiles / SMs), times a tile's time (its columns / 256, slower per
  /// column for the narrower tiles by tileEfficiency); a narrower tile
  /// only where it is estimated at least 3% faster than 256. 192 is for
  /// the quantization of a last round (m_shard 1152, D = 2, N = 4096: 288
  /// tiles of 256 columns take 3 rounds for 2.18 waves, 396 of 192 columns
  /// 3 whole rounds; measured 1.17x faster); 128 where every tile fits in
  /// one round (m_shard 256: 64 tiles of 256 columns on 132 SMs).
  static int64_t tileN(uint32_t teamSize, int64_t mShard, int64_t n,
                       int64_t smCount = kSmCount);
  /// tileN's estimate for `tileCols` (128, 192 or 256) columns, in times
  /// of a 128 x 256 tile.
  static double estimate(uint32_t teamSize, int64_t mShard, int64_t n,
                         int64_t tileCols, int64_t smCount = kSmCount);
  /// The most variants the dynamic instance has (each a whole kernel the
  /// JIT compiles: 8 took 3.1 s against 0.5 s for one).
  static constexpr size_t kMaxVariants = 8;
  /// The SMs tileN assumes when the instance is made without a device
  /// (an H100 SXM's; the instances do not depend on the device).
  static constexpr int64_t kSmCount = 132;
  /// Throughput per column of 128-column tiles against 256-column ones in
  /// this kernel, measured (2 x H100, bf16, K = N = 4096, D = 2, static
  /// bundles, time per round of tiles): 0.74 at m_shard 1152, 0.70 at
  /// 2176, 0.71 at 3200 (0.89 at K = 5120, N = 6912, m_shard 640), against
  /// 0.92 for the plain matmul's 128x128 (ConfigChooser.h): a wave of
  /// 128-column tiles reads all of B for half the work (docs/PERF.md).
  static constexpr double kTile128Efficiency = 0.75;
  /// The same for 128 x 192 tiles (4 stages), measured (2 x H100, bf16,
  /// K = N = 4096, D = 2, static bundles in one call): 0.1109 ms against
  /// 0.1299 for 256 columns at m_shard 1152, both 3 rounds, so 0.75 /
  /// (0.1109 / 0.1299) = 0.88 per column (the last of 22 column tiles is
  /// a third full: counted as a whole tile in the rounds). The model with
  /// it matched the four shapes measured: 192 faster at m_shard 640 and
  /// 1152 (0.0935 / 0.0986, 0.1109 / 0.1299 ms), 256 faster at 2176 and
  /// 3200 (0.2173 / 0.2306, 0.3091 / 0.3210). Through the op's instance
  /// (its 192-column variant, 2 x H100): 0.1136 ms at m_shard 1152 against
  /// 0.1296-0.1303 for one 128 x 256 kernel, 1.10x local cuBLAS instead of
  /// 1.26x (docs/PERF.md, round 5).
  static constexpr double kTile192Efficiency = 0.88;
  /// The column tiles tileN weighs: 256 first (the default, which the
  /// others must beat by 3%), then the narrower ones.
  static constexpr int64_t kTileCols[] = {256, 192, 128};
  /// Throughput per column of a tile of `tileCols` columns against 256.
  static double tileEfficiency(int64_t tileCols);
  /// The largest m_shard tileN is asked about for the variants: above it
  /// a launch takes the last range's tile (the dynamic instance's last
  /// variant has no upper bound; there the two tiles' estimates are within
  /// 3% of each other at every n, the rounds being many).
  static constexpr int64_t kVariantMaxShard = 16384;
  /// Whether the kernel pushes its own shard to every peer at its start
  /// (its template's PUSH) instead of forwarding row tiles along the ring
  /// from the computing tiles, at `mShard` rows a shard and `colTiles`
  /// column tiles on `smCount` SMs: where a shard's tiles fill at most
  /// half the SMs. There the peer's shard is computed in the same wave as
  /// its forwarding, so with the ring a peer's row tile arrives only with
  /// its column tiles' last k steps, a whole tile late at every hop.
  /// Measured (bf16, K = N = 4096, the op's instances, docs/PERF.md):
  ///  - the ring at m_shard 128-512: 2.1-3.2x local cuBLAS at D = 2,
  ///    2.2-5.1x at D = 4 (4 x H100);
  ///  - the ring's k rotation (column tile n starting its k loop at n x s,
  ///    so a row tile is forwarded in its column tiles' first steps; the
  ///    op's rule of the sixth session): 1.8-2.5x and 1.9-3.1x; it makes
  ///    the matmul itself 15-18% slower;
  ///  - the push (4 x H200, commit 8bdc134): 7-18% faster than the
  ///    rotation at D = 2 (0.0404 against 0.0461 ms at m_shard 128), 13-29%
  ///    at D = 4 (0.0575 against 0.0728 at 128), except D = 4 at 384, 5-9%
  ///    slower (0.131-0.136 against 0.1245; 4 x H100 0.142-0.150 against
  ///    0.138): there a shard is exactly half the SMs' tiles and every
  ///    block's first tile waited for its share of the push;
  ///  - the push left to the blocks without an own first tile, with
  ///    weave.put's four vectors in flight (4 x H100): 0.139-0.142 ms at
  ///    384, D = 4 (every block pushing: 0.149), 2-5% faster at 256-512.
  /// From a shard of more tiles on the ring wins: 0.094 against 0.114 ms
  /// at m_shard 640, D = 2 (4 x H100), and a push by few blocks is slower
  /// still (its own tiles fill the grid).
  static bool pushes(int64_t mShard, int64_t colTiles,
                     int64_t smCount = kSmCount);
  /// InvalidArgument unless the shapes are ones the kernel takes.
  static Status checkShape(uint32_t teamSize, const std::string &dtype,
                           int64_t mShard, int64_t k, int64_t n);
  using CollectiveOp::CollectiveOp;

private:
  std::string algorithm_ = "ring";
};

/// GEMM + reduce-scatter: member r holds a (team size x mShard rows x k)
/// and b (k x n) and gets c (mShard x n) = rows [r x mShard, (r + 1) x
/// mShard) of sum over the team of a @ b, f16 or bf16. Two algorithms with
/// the same numerics (each member's partial rounded to the dtype once, the
/// owner's f32 sum in source order rounded once; "input_gather", below
/// with the others, rounds the peers' f32 sum as one partial, which at D
/// = 2 is the same): "copy_engine", the
/// default from 2 members (choose()), computes the partial product one
/// owner's chunk at a time and lets the copy engines move each chunk into
/// its slot on the owner, ordered by stream memory operations on flags
/// (docs/OPS.md, ops/lib/CopyEngine.h); "owner_slots", the fused kernel,
/// as follows. The matmul's
/// epilogue stores each output box, rounded to the dtype, into this
/// member's slot on the box's owner (a per-source slot: plain TMA stores,
/// over NVLink for a peer's rows, the member's own shard last and local);
/// after one barrier every owner sums its slots in f32 and rounds once
/// (examples/matmul_reduce_scatter: never less accurate than cuBLAS + an
/// NCCL reduce-scatter). Any team size (a box for another member goes
/// through a per-member tensor-map table). One kernel instance serves every
/// mShard (a dynamic row count): ops of other mShard on the same
/// communicator share it.
class MatmulReduceScatter : public CollectiveOp {
public:
  /// The row tile: mShard must be a multiple of it (a box never straddles
  /// two owners' slots).
  static constexpr int64_t kRowTile = 128;
  /// The most rows of an owner's chunk at which "auto" takes "scatter" at
  /// D = 2 ...
  static constexpr int64_t kScatterMaxRows = 256;
  /// ... and from 3 members (with a chunk of at most one round of tiles):
  /// past it the copy engines won at every shape measured since their
  /// flags went out batched (choose()'s definition has the numbers).
  static constexpr int64_t kScatterMaxRowsFrom3 = 512;
  /// ... where, past kScatterMaxRows rows, an owner's chunk (m_shard x n
  /// elements, what the reduce-scatter after the matmul moves and sums
  /// with nothing to hide it) is at most this many (384 x 4096, 3 MiB of
  /// bf16): past it the copy engines won, sustained and in bursts, on 4 x
  /// H200 (choose()'s definition has the numbers).
  static constexpr int64_t kScatterMaxElementsPastMaxRows = 3 << 19;
  /// Where "scatter" would run, "auto" takes the fused kernel instead when
  /// its one launch over every member's chunk (teamSize x mShard rows by
  /// n, kRowTile x kOwnerSlotsTileColumns tiles) fills its rounds of
  /// smCount tiles to at least kOwnerSlotsMinRoundFill (rounds / whole
  /// rounds): the partial tiles' stores to their owners run inside
  /// those rounds, where "scatter"'s reduce-scatter runs after its matmul.
  /// Measured in choose()'s definition.
  static bool ownerSlotsFillsRounds(uint32_t teamSize, int64_t mShard,
                                    int64_t n,
                                    int64_t smCount = AllGatherMatmul::kSmCount);
  static constexpr int64_t kOwnerSlotsTileColumns = 256;
  static constexpr double kOwnerSlotsMinRoundFill = 0.95;
  /// Where "auto" would take the copy engines, whether the fused kernel
  /// is faster: k is at most kOwnerSlotsMaxK, so a chunk's copy (m_shard x
  /// n elements) no longer hides behind a chunk's matmul (m_shard x n x k;
  /// about even near 2048 on an H200, where a copy engine moves some 250
  /// GB/s and the matmul runs some 650 TFLOP/s), while the fused kernel's
  /// stores to the owners run inside its rounds; past
  /// kOwnerSlotsAnyRoundsMaxK only where its launch (ownerSlotsFillsRounds'
  /// tiles) is at most kOwnerSlotsShortKMaxRounds rounds of smCount tiles.
  /// Measured in choose()'s definition.
  static bool ownerSlotsBeatsCopyEngines(
      uint32_t teamSize, int64_t mShard, int64_t k, int64_t n,
      int64_t smCount = AllGatherMatmul::kSmCount);
  static constexpr int64_t kOwnerSlotsMaxK = 2048;
  static constexpr int64_t kOwnerSlotsAnyRoundsMaxK = 1792;
  static constexpr int64_t kOwnerSlotsShortKMaxRounds = 4;
  /// Whether "copy_engine" sums in its own chunk's epilogue (ce_matmul_sum:
  /// each output box plus the peers' slot rows, no pass and no launch
  /// after the matmul) rather than in a pass after it (ce_sum). The own
  /// chunk's tiles wait there for the peers' last copy, which starts with
  /// the own chunk (the members run in step), so the epilogue is taken
  /// where that wait holds back no later round of tiles: the own chunk is
  /// one round of 128 x 256 tiles at most, or (teams of at most
  /// kSumInEpilogueMaxTeamPastRound) its copy (m_shard x n elements)
  /// lands within a round (about k, the steps of a tile: m_shard x n / k
  /// at most kSumInEpilogueMaxPerK). The measurements are in the
  /// definition (ops/lib/Instances.cpp).
  static bool sumsInEpilogue(uint32_t teamSize, int64_t mShard, int64_t k,
                             int64_t n,
                             int64_t smCount = AllGatherMatmul::kSmCount);
  static constexpr int64_t kSumInEpilogueMaxPerK = 1280;
  /// Whether "auto" gathers the inputs ("input_gather"): at D = 2, where a
  /// member's share of the inputs, k x (mShard + n) elements, is at most
  /// kInputGatherMaxBytesShare of its share of the partial products,
  /// mShard x n (twice: k 1024 with mShard and n 2048 and up, k 4096 with
  /// 4096 x 4096), with mShard at least kInputGatherMinRows and mShard x n
  /// at least kInputGatherMinElements: there the copies hide behind the
  /// own product, or nearly (a's rows land in parts, so the peers' product
  /// starts on the first), and no slot is summed. Measured in the
  /// definition (ops/lib/Instances.cpp).
  static bool inputGatherWins(uint32_t teamSize, int64_t mShard, int64_t k,
                              int64_t n);
  static constexpr double kInputGatherMaxBytesShare = 2.0;
  static constexpr int64_t kInputGatherMinRows = 2048;
  static constexpr int64_t kInputGatherMinElements = int64_t(2048) * 4096;
  /// "input_gather" moves each peer's rows of a in this many parts (after
  /// its b), each with its own ready value, and the add's tiles wait only
  /// for the part their rows are in: the add starts on the first rows
  /// while the last parts are on the link (ops/lib/InputGather.h).
  static constexpr int64_t kInputGatherRowParts = 2;
  /// The column blocks "input_gather" moves each peer's b in: their
  /// width W, n for one block. kInputGatherColumnParts blocks where b (k x
  /// n) is at least kInputGatherColumnMinShare times a member's rows of a
  /// (mShard x k: n >= share x mShard) and the copies outlast the own
  /// product (mShard x n / (mShard + n), the own product's flops over the
  /// copies' bytes up to a factor k, at most
  /// kInputGatherColumnMaxOwnPerCopy); one elsewhere or where mShard is not
  /// known (0); W is ceil(n / blocks) rounded up to
  /// kInputGatherColumnQuantum (whole tiles of 128 and 256 columns), so
  /// the last block may be narrower or there may be fewer; where a block's
  /// rows would be between kCopyEngineSlowRowMinBytes and
  /// kCopyEngineSlowRowMaxBytes wide (`elementBytes` an element), the
  /// nearest W in quanta (at most n / 4 away) whose blocks are not. Block 0 goes
  /// before a's rows, the others after them, and the add walks its tiles
  /// in runs of the blocks (grid_tile_column_block): where b is most of
  /// the bytes the add starts on block 0 while the others are on the link
  /// (ops/lib/InputGather.h). The measurements are in the definition
  /// (ops/lib/Instances.cpp).
  static int64_t inputGatherColumnBlock(int64_t mShard, int64_t k,
                                        int64_t n, int64_t elementBytes = 2);
  static constexpr int64_t kInputGatherColumnParts = 2;
  static constexpr int64_t kInputGatherColumnMinShare = 4;
  static constexpr int64_t kInputGatherColumnMaxOwnPerCopy = 1900;
  static constexpr int64_t kInputGatherColumnQuantum = 256;
  /// A copy engine's pitched copy whose rows are more than 8 KB and less
  /// than 11 KB wide moves 8-29% slower than a plain copy of the same
  /// bytes (2 x H200; wider, narrower and 8 KB rows within 5%).
  static constexpr int64_t kCopyEngineSlowRowMinBytes = 8 * 1024;
  static constexpr int64_t kCopyEngineSlowRowMaxBytes = 11 * 1024;
  static constexpr uint32_t kSumInEpilogueMaxTeamPastRound = 2;
  /// `algorithm`: "auto" (choose()), "owner_slots" (the fused kernel
  /// above), "copy_engine" (D chunk matmuls, the copy engines moving
  /// each into its owner's slot, the owner's sum: docs/OPS.md) or
  /// "scatter" (one matmul of every row, then the collectives'
  /// reduce-scatter: ops/lib/ScatterMatmul.h; bf16 only) or
  /// "input_gather" (the copy engines move each member's rows of a for
  /// the owner and its b into the owner's stages while the owner
  /// multiplies its own rows, then one matmul of the stages adds the own
  /// product in its epilogue: ops/lib/InputGather.h).
  static Expected<MatmulReduceScatter> create(Communicator &comm,
                                              const std::string &dtype,
                                              int64_t mShard, int64_t k,
                                              int64_t n,
                                              const std::string &algorithm =
                                                  "auto");
  Status operator()(const std::vector<TensorRef> &a,
                    const std::vector<TensorRef> &b,
                    const std::vector<TensorRef> &c,
                    const std::vector<CUstream> &streams) {
    return run({a, b, c}, streams);
  }

  /// The kernel instance create() builds (no GPU needed); every m_shard
  /// runs on it ("auto": "copy_engine"'s from 2 members, which "scatter"
  /// shares). For "copy_engine" one bundle holds both of its kernels
  /// (ce_matmul, launched per chunk, and ce_sum); "scatter" launches its
  /// ce_matmul once over every row; "input_gather"'s bundle holds
  /// ig_matmul (k) and ig_matmul_add ((D - 1) k), and the one `mShard`
  /// picks (inputGatherColumnBlock: b in one or more column blocks; 0,
  /// m_shard not known, picks one block).
  static Expected<KernelInstance> instanceFor(uint32_t teamSize,
                                              const std::string &dtype,
                                              int64_t k, int64_t n,
                                              const std::string &algorithm =
                                                  "auto",
                                              int64_t mShard = 0);
  /// What "auto" runs on a team of `teamSize` at this shape: "owner_slots"
  /// for one member; "input_gather" where inputGatherWins; from 2,
  /// "scatter" for bf16 where one owner's chunk is
  /// at most one round of tiles (AllGatherMatmul::gatherFill), at most
  /// kScatterMaxRows rows (D = 2) or kScatterMaxRowsFrom3 (D >= 3; past
  /// kScatterMaxRows only up to kScatterMaxElementsPastMaxRows elements),
  /// unless ownerSlotsFillsRounds ("owner_slots" then); else
  /// "copy_engine", or "owner_slots" where ownerSlotsBeatsCopyEngines
  /// (the measurements are in the definition, ops/lib/Instances.cpp). A loopback team runs
  /// the copy engines for "auto" (ScatterMatmul.h says why).
  static std::string choose(uint32_t teamSize, const std::string &dtype,
                            int64_t mShard, int64_t k, int64_t n);
  /// The algorithm this op runs ("owner_slots", "copy_engine", "scatter"
  /// or "input_gather").
  const std::string &algorithm() const { return algorithm_; }
  /// InvalidArgument unless the shapes are ones the kernel takes.
  static Status checkShape(uint32_t teamSize, const std::string &dtype,
                           int64_t mShard, int64_t k, int64_t n);
  using CollectiveOp::CollectiveOp;

private:
  std::string algorithm_ = "owner_slots";
};

/// The kernel instance of the fused matmul op named `op` (an OpSpec of
/// family FusedMatmul: "all_gather_matmul", "matmul_reduce_scatter"; shape
/// checked first; `algorithm` "auto" or one of the op's offered ones): the dispatch from an op's name for weave-ops and the
/// Python bindings, as opInstance for the collectives. MatmulShape is in
/// Registry.h.
Expected<KernelInstance> matmulOpInstance(const std::string &op,
                                          uint32_t teamSize,
                                          const std::string &dtype,
                                          const MatmulShape &shape,
                                          const std::string &algorithm =
                                              "auto");

/// An op whose kernel a fused matmul op also runs at a shape, beside its
/// own instance (matmulOpInstance): its name, count and algorithm, as
/// opInstance takes them.
struct CompanionOp {
  std::string op;
  int64_t count = 0;
  std::string algorithm = "auto";
};

/// The algorithm the fused matmul op `op` runs at `shape` when asked for
/// `algorithm`: "auto" resolved by the op's choose(), any other name as it
/// is (matmulOpInstance checks it). The one place "auto" is resolved from
/// the shape; an op on a loopback team keeps the GEMM + RS's copy engines
/// where this says "scatter" (ScatterMatmul.h).
std::string matmulOpAlgorithm(const std::string &op, uint32_t teamSize,
                              const std::string &dtype,
                              const MatmulShape &shape,
                              const std::string &algorithm = "auto");

/// Every companion of the fused matmul op `op` at `shape` (checked as by
/// matmulOpInstance; "auto" resolved by matmulOpAlgorithm): the all-gather
/// matmul's "gather" runs the all-gather of m_shard x k elements
/// (GatherMatmul.cpp; "narrow" where its schedule is BesideNarrow), the
/// GEMM + reduce-scatter's "scatter" the reduce-scatter of m_shard x n
/// (ScatterMatmul.cpp); the others none.
/// What a machine without the compiler needs bundles of beside the op's
/// own (weave-ops companions, Python's compile_op).
Expected<std::vector<CompanionOp>>
matmulOpCompanions(const std::string &op, uint32_t teamSize,
                   const std::string &dtype, const MatmulShape &shape,
                   const std::string &algorithm = "auto");

} // namespace weave::ops

#endif // WEAVE_OPS_FUSEDMATMUL_H
