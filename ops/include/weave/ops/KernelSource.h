//===- KernelSource.h - Where the ops' kernels come from --------*- C++ -*-===//
//
// Every op runs a kernel written in the dialect: one of the templates of
// ops/templates/ (embedded in the library) with its placeholders filled for the
// op's shape and dtype, a *kernel instance*. A KernelSource turns an
// instance into a bundle: the JIT compiles it (JitSource.h, needs
// Weave::jit), or a folder of bundles compiled ahead of time with weavec
// answers it on a machine without LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_OPS_KERNELSOURCE_H
#define WEAVE_OPS_KERNELSOURCE_H

#include "weave/runtime/Bundle.h"
#include "weave/runtime/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace weave::ops {

using TemplateValues = std::vector<std::pair<std::string, std::string>>;

/// A template (ops/templates/<folder>/<stem>.mlir.in) instantiated
/// for a dtype, a team size and an element count. Every placeholder a
/// collective template may use follows from these three
/// (collectiveValues); `extra` adds what a particular template needs
/// besides.
struct KernelInstance {
  /// The template, as `<folder>/<stem>`, e.g.
  /// "all_reduce/one_shot_all_reduce".
  std::string templateName;
  /// The kernel (gpu.func) to launch from it.
  std::string kernelName;
  std::string dtype;     ///< @T@: "f32", "bf16", "f16"
  uint32_t teamSize = 0; ///< @D@; 0: the kernel serves any team size
  int64_t count = 0;     ///< @N@: elements (per member, block or pair)
  TemplateValues extra;  ///< template-specific placeholders; a key also
                         ///< in collectiveValues overrides it
  /// For an instance that `extra` shapes (the fused matmuls): a short
  /// spelling of that shape for the key, e.g. "mdyn_k4096_n4096"; empty
  /// when teamSize, dtype and count say everything.
  std::string shape;
  /// Copies of the template's kernel, each filled with `values()` and then
  /// these keys over them (a per-range tile, the kernel's name and its
  /// `weave.variant` attribute): source() repeats the lines between the
  /// template's "// kernel begin" and "// kernel end" once per entry, in
  /// order, inside one module, so that the runtime picks one at launch
  /// (KernelInfo::variantOf). Empty: the template as it is.
  std::vector<TemplateValues> variants = {};

  /// `<kernel>_<dtype>_d<D|any>_n<count>`, or `<kernel>_<dtype>_d<D>_<shape>`
  /// with a shape: unique to the instance, the bundle's file name
  /// (`<key>.wbundle`) in a bundle folder and in the build's examples/
  /// (examples/CMakeLists.txt names the collectives' so).
  std::string key() const;
  /// Every placeholder's value: collectiveValues, with `extra`'s keys
  /// replacing theirs, then `extra`.
  TemplateValues values() const;
  /// The embedded template's text with every placeholder filled (its
  /// kernel once per entry of `variants`, if any); NotFound for an unknown
  /// template, InvalidArgument when a placeholder is left or, with
  /// variants, the template has no "kernel begin" / "kernel end" lines.
  Expected<std::string> source() const;
};

/// The placeholders every collective template may use, from the dtype, the
/// team size (0: any, then the team-dependent ones are absent) and the
/// element count N: T, N, CAP (= N), WIDEN / NARROW (arith.extf /
/// arith.truncf between a 16-bit T and f32, an identity arith.bitcast for
/// f32), WORDS (32-bit words of N elements), VW (the most elements, a power
/// of two, within 16 bytes, that divides N), VB (VW's bytes), NV (N / VW),
/// FW (the elements of 16 bytes, whatever N: for kernels that split off an
/// unaligned head and tail), EB (the element's bytes),
/// HIDDEN (1: the elements per row the all-to-all-v's counts are in; its
/// token form replaces it),
/// and with a team size D, LAST (D - 1), ROWS (D x N), DD (D x D),
/// LINES (2 x D x WORDS), the packet kernels' PWORDS (ceil(N x T / 4
/// bytes)), PN, PLINES (2 x D x PWORDS), PROWS (D x PN), PBLOCKS
/// (packetBlocks) and PSEEN (PBLOCKS x D), the direct all-to-all-v's TABLE (2 x
/// D x D) and SEEN (BLOCKS x D x D), SLOTS (2 x D x N: the push kernels' two
/// halves of D slots), BLOCKS (collectiveBlocks), FLAGS (2 x BLOCKS x D: a flag
/// per parity, block and source) and PULL_SMEM (kPullReduceScatterSmemBytes).
/// With `extra` holding WIDTH, also PIECES (N / WIDTH).
TemplateValues collectiveValues(uint32_t teamSize, const std::string &dtype,
                                int64_t count, const TemplateValues &extra = {});

/// The blocks of the collectives with a fixed grid (push_* and direct_*):
/// one per kCollectiveBlockBytes of the N elements each member sends to
/// each peer, at most kCollectiveMaxBlocks. 8 KB is two passes of 256
/// threads with 16-byte stores: a 4 KB message runs on one block (its
/// latency is the flags' round trip, not bandwidth), a 256 KB all-reduce on
/// 32, and from 512 KB per peer on 64 blocks (half the SMs of an H100,
/// enough to fill NVLink with the stores in flight; bench/collectives
/// measures it). `--set BLOCKS=...` overrides it for an experiment.
///
/// These kernels' grid is `persistent(BLOCKS)` (the packet kernels':
/// `persistent(PBLOCKS)`): BLOCKS blocks on a GPU of its own, as a fixed
/// grid, and what fits where a loopback team shares one GPU (their work is
/// split over `gpu.grid_dim x`). As fixed grids, 64 blocks of 512 threads
/// could not launch for a loopback team of 8 (264 fit on an H100, 33 a
/// member), nor 128 for one of 4.
inline constexpr int64_t kCollectiveBlockBytes = 8192;
inline constexpr int64_t kCollectiveMaxBlocks = 64;
/// The all-gather's "narrow" algorithm: the direct kernel on this many
/// blocks, for an all-gather that runs beside a matmul (the all-gather
/// matmul's gather, GatherSchedule::BesideNarrow), which then keeps the
/// other SMs. 4 x H100, bf16, the gather Beside at m_shard 256 and 512, k
/// 8192, n 14336, D = 4 (docs/PERF.md, "The gather's all-gather on 8
/// blocks"): 0.391 and 0.782 ms with the all-gather on 64 blocks, 0.394
/// and 0.756 on 16, 0.361 and 0.720 on 8.
inline constexpr int64_t kNarrowAllGatherBlocks = 8;
/// Above kCollectiveMaxBlocks x kCollectiveWideBlockBytes (128 MB of N
/// elements: only the all-reduces' whole inputs reach it at the bench's
/// sizes), one block per kCollectiveWideBlockBytes, at most
/// kCollectiveWideMaxBlocks. The push two-shot all-reduce of 256 MB on 4 x
/// H100 took 1237 / 1232 us (bf16 / f32) on 64 blocks (4 MB each), 1288 /
/// 1276 on 96 and 1207 / 1202 on 128, NCCL 1190-1202 (one call, docs/PERF.md,
/// issue #30's sixth session); no size below 256 MB was measured, so the
/// blocks rise only past 128 MB.
inline constexpr int64_t kCollectiveWideBlockBytes = 2 << 20;
inline constexpr int64_t kCollectiveWideMaxBlocks = 128;
/// A team of 3's cap instead of kCollectiveWideMaxBlocks: its push two-shot
/// all-reduce of 256 MB took 1131-1135 us on 128 blocks, 1093-1094 on 192
/// and 1080-1082 on 256, NCCL 1078-1103 (4 x H100, tenth session, docs/
/// PERF.md "The pull reduce-scatter on one block a SM"), while a team of 4
/// gained nothing from 256 (1189-1193 against 1191-1194) and a team of 2
/// lost on 192 (897 against 836). On 256 (eleventh session, its capped
/// persistent grid): 1076 us against NCCL's 1082-1102 (docs/PERF.md, "The
/// push two-shot all-reduce's grid past 128 MB"). Other team sizes are not
/// measured and keep kCollectiveWideMaxBlocks.
inline constexpr int64_t kCollectiveWideMaxBlocksTeamOf3 = 256;
/// A team of 3's kCollectiveWideBlockBytes past the same 128 MB: 256
/// blocks at 256 MB.
inline constexpr int64_t kCollectiveWideBlockBytesTeamOf3 = 1 << 20;
/// collectiveBlocks(dtype, count) for a team of teamSize (0: none): a team
/// of 3 takes kCollectiveWideBlockBytesTeamOf3 and
/// kCollectiveWideMaxBlocksTeamOf3 past kCollectiveMaxBlocks.
int64_t collectiveBlocks(const std::string &dtype, int64_t count,
                         uint32_t teamSize = 0);
/// The pull reduce-scatter's dynamic shared memory (PULL_SMEM), which it
/// does not use: more than half of a SM's (228 KB on an H100 or H200), so
/// that its persistent grid gets one block a SM (132 on an H100) and not
/// every block that fits (six of 256 threads), whose NVLink loads in flight
/// made f32 lose to bf16 of the same bytes. 4 x H100, D = 4, a fixed grid
/// of 132 blocks against the six a SM: f32 16 / 64 MB 62.5 / 186.3 us
/// against 86.5 / 209.5 (NCCL 61.2 / 194.1); 16, 32, 64 and 264 blocks
/// were slower at 64 MB f32; at D = 3 and 2 the 132 were as fast as the
/// best or faster (docs/PERF.md, "The pull reduce-scatter on one block a
/// SM"). A fixed grid of 132 could not launch on a loopback team of 8
/// (528-660 blocks fit on the GPU); the persistent grid divides what fits
/// among the members, and follows a GPU's SM count.
inline constexpr int64_t kPullReduceScatterSmemBytes = 120 << 10;
/// The blocks of the packet (ll_*) kernels: one per kPacketBlockBytes of
/// the N elements each member sends each peer, at most kPacketMaxBlocks.
/// A packet read spins on one 8-byte load at a time per thread, so the
/// latency of a block's reads grows with its words per thread: 1 KB is one
/// word per thread of 256 per source. `--set PBLOCKS=...` overrides it.
inline constexpr int64_t kPacketBlockBytes = 1024;
inline constexpr int64_t kPacketMaxBlocks = 256;
int64_t packetBlocks(const std::string &dtype, int64_t count);
/// `text` with every @KEY@ of `values` replaced; InvalidArgument naming
/// `what` when a placeholder is left.
Expected<std::string> fillTemplate(std::string text, const TemplateValues &values,
                                   const std::string &what);

/// `values` with the keys of `over` replaced by (or, when new, added as)
/// theirs.
TemplateValues overrideValues(const TemplateValues &values,
                              const TemplateValues &over);

/// The names of the embedded templates (`<folder>/<stem>`).
std::vector<std::string> templateNames();
/// The embedded text of one template; NotFound if there is none.
Expected<std::string> templateText(const std::string &name);

class KernelSource {
public:
  virtual ~KernelSource();
  /// The bundle holding `instance.kernelName`, compiled for `instance`.
  virtual Expected<Bundle> bundleFor(const KernelInstance &instance) = 0;
};

/// Bundles compiled ahead of time: `<folder>/<instance.key()>.wbundle`. A
/// missing one is NotFound, naming the file and how to make it (the
/// instance's source, written by `weave-ops-source`-style tooling or by
/// KernelInstance::source, through `weavec --emit=bundle`).
std::unique_ptr<KernelSource> bundleFolder(std::string folder);

} // namespace weave::ops

#endif // WEAVE_OPS_KERNELSOURCE_H
