//===- BenchGraphStreamOps.cpp - A copy-engine call's graph nodes ------===//
//
// One GPU, no team: what the stream operations and the second stream of
// the ops' copy-engine algorithms (ops/lib/CopyEngineLanes.h) add to a CUDA
// graph replay, apart from any communication. Each variant is one call
// captured from stream s (and a side stream cs), two "chunk" kernels that
// hold every SM for --chunk-us each (a globaltimer spin; with
// --write-mib, storing into a buffer of that size all the while), and
// around them:
//
//   plain             nothing else (the reference)
//   end-clears        after the second chunk, on s: one batch of --flags
//                     u32 writes, each after a memory barrier (the clears
//                     at the end of a call: main's CopyEngineLanes::finish)
//   ready-wait        between the chunks, on s: a wait for --flags flags
//                     that are already 1 (the ready wait of the pass form)
//   fork-join         cs forked from s at the start and joined at the end,
//                     nothing on it but an event (an edge into the end)
//   start-clears      cs forked at the start, the batch of writes on it,
//                     the second chunk waiting for it (an event edge from
//                     cs into s's critical path), cs joined at the end
//                     (branch r27-defer's protocol)
//   start-clears-noedge  the same without the second chunk's wait
//
// (The writes without the barrier, CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER,
// are refused with CUDA_ERROR_INVALID_VALUE by the H200 machines' driver,
// CUDA 13, eager or captured, so they are not a variant.)
//
// Each graph is replayed --replays times back to back after --warmup; the
// time is CUDA events around the replays on s, per replay; --rounds
// rounds rotate the variants' order, the median is printed with the
// difference to plain. Without --write-mib a barrier has nothing of the
// kernels' to wait for: the nodes' own costs.
//
// Usage: weave_bench_graph_stream_ops [--chunk-us US] [--write-mib MIB]
//            [--flags N] [--replays N] [--warmup N] [--rounds N]
//            [--device ORDINAL]
//
//===----------------------------------------------------------------------===//

#include "weave/bench/Args.h"

#include <cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

constexpr const char *kProgram = "weave_bench_graph_stream_ops";

#define CHECK_CU(call)                                                         \
  do {                                                                         \
    CUresult result_ = (call);                                                 \
    if (result_ != CUDA_SUCCESS) {                                             \
      const char *name = "?";                                                  \
      cuGetErrorName(result_, &name);                                          \
      std::fprintf(stderr, "%s: error: %s failed with %s\n", kProgram, #call,  \
                   name);                                                      \
      std::exit(1);                                                            \
    }                                                                          \
  } while (false)

/// Spins until `ns` nanoseconds of the global timer have passed; with
/// `vectors` > 0, each thread stores 16 bytes a turn into `buffer` (a
/// grid-stride walk over `vectors` 16-byte slots, wrapping): memory traffic
/// for a barrier to wait on.
constexpr const char *kSpinPtx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry spin(.param .u64 ns, .param .u64 buffer, .param .u64 vectors) {
  .reg .u64 %start, %now, %elapsed, %limit, %base, %count, %at, %stride;
  .reg .u64 %slot, %address, %thread64;
  .reg .u32 %thread, %threads, %block, %blocks, %zero;
  .reg .pred %more, %stores;
  ld.param.u64 %limit, [ns];
  ld.param.u64 %base, [buffer];
  ld.param.u64 %count, [vectors];
  mov.u32 %thread, %tid.x;
  mov.u32 %threads, %ntid.x;
  mov.u32 %block, %ctaid.x;
  mov.u32 %blocks, %nctaid.x;
  mul.wide.u32 %at, %block, %threads;
  cvt.u64.u32 %thread64, %thread;
  add.u64 %at, %at, %thread64;
  mul.wide.u32 %stride, %blocks, %threads;
  mov.u32 %zero, 0;
  setp.ne.u64 %stores, %count, 0;
  mov.u64 %start, %globaltimer;
LOOP:
  @!%stores bra TIME;
  rem.u64 %slot, %at, %count;
  mad.lo.u64 %address, %slot, 16, %base;
  st.global.v4.u32 [%address], {%zero, %zero, %zero, %zero};
  add.u64 %at, %at, %stride;
TIME:
  mov.u64 %now, %globaltimer;
  sub.u64 %elapsed, %now, %start;
  setp.lt.u64 %more, %elapsed, %limit;
  @%more bra LOOP;
  ret;
}
)";

struct Options {
  double chunkUs = 40;
  double writeMiB = 0;
  unsigned flags = 2;
  int replays = 200, warmup = 20, rounds = 5, device = 0;
};

void usage(FILE *out) {
  std::fprintf(out,
               "usage: %s [--chunk-us US] [--write-mib MIB] [--flags N] "
               "[--replays N]\n       [--warmup N] [--rounds N] "
               "[--device ORDINAL]\n"
               "What a copy-engine call's stream operations and side stream "
               "add to a CUDA graph replay\nof two kernels that hold every "
               "SM (one GPU; see the source's header for the variants).\n",
               kProgram);
}

Options parse(int argc, char **argv) {
  Options o;
  weave::bench::Args args(kProgram, usage, argc, argv);
  // The current option's value, a number from `lo` to `hi` (a whole one
  // where `whole`); exits otherwise.
  auto number = [&](double lo, double hi, bool whole) {
    std::string text = args.value();
    char *end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end || v < lo || v > hi ||
        (whole && v != std::floor(v))) {
      char range[64];
      std::snprintf(range, sizeof range, " (%s %g to %g)",
                    whole ? "a whole number" : "a number", lo, hi);
      args.fail("bad " + args.key() + " '" + text + "'" + range);
    }
    return v;
  };
  while (args.next()) {
    const std::string &key = args.key();
    if (key == "-h" || key == "--help")
      args.help();
    else if (key == "--chunk-us")
      o.chunkUs = number(1, 1e5, false);
    else if (key == "--write-mib")
      o.writeMiB = number(0, 65536, false);
    else if (key == "--flags")
      o.flags = unsigned(number(1, 64, true));
    else if (key == "--replays")
      o.replays = int(number(1, 1e5, true));
    else if (key == "--warmup")
      o.warmup = int(number(0, 1e5, true));
    else if (key == "--rounds")
      o.rounds = int(number(1, 100, true));
    else if (key == "--device")
      o.device = int(number(0, 64, true));
    else
      args.unexpected();
  }
  return o;
}

struct Gpu {
  CUfunction spin = nullptr;
  unsigned sms = 0;
  CUstream s = nullptr, cs = nullptr;
  CUevent forked = nullptr, cleared = nullptr, joined = nullptr;
  CUdeviceptr flags = 0;
  CUdeviceptr buffer = 0; ///< what the kernels store into (--write-mib)
  unsigned long long vectors = 0;
};

void launchSpin(const Gpu &g, const Options &o) {
  unsigned long long ns = (unsigned long long)(o.chunkUs * 1000);
  CUdeviceptr buffer = g.buffer;
  unsigned long long vectors = g.vectors;
  void *args[] = {&ns, &buffer, &vectors};
  CHECK_CU(cuLaunchKernel(g.spin, g.sms, 1, 1, 128, 1, 1, 0, g.s, args,
                          nullptr));
}

void writes(const Gpu &g, const Options &o, CUstream stream, unsigned value) {
  std::vector<CUstreamBatchMemOpParams> ops(o.flags);
  for (unsigned i = 0; i < o.flags; ++i) {
    std::memset(&ops[i], 0, sizeof(ops[i]));
    ops[i].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
    ops[i].writeValue.address = g.flags + 4 * i;
    ops[i].writeValue.value = value;
    ops[i].writeValue.flags = CU_STREAM_WRITE_VALUE_DEFAULT;
  }
  CHECK_CU(cuStreamBatchMemOp(stream, o.flags, ops.data(), 0));
}

void fork(const Gpu &g) {
  CHECK_CU(cuEventRecord(g.forked, g.s));
  CHECK_CU(cuStreamWaitEvent(g.cs, g.forked, 0));
}

void join(const Gpu &g) {
  CHECK_CU(cuEventRecord(g.joined, g.cs));
  CHECK_CU(cuStreamWaitEvent(g.s, g.joined, 0));
}

/// The clears on the forked copy stream beside the first chunk; `edge`:
/// the second chunk waits for them (r27-defer's protocol). Without it no
/// event is recorded, as in the measured form (docs/PERF.md).
void startClears(const Gpu &g, const Options &o, bool edge) {
  fork(g);
  writes(g, o, g.cs, 0);
  if (edge)
    CHECK_CU(cuEventRecord(g.cleared, g.cs));
  launchSpin(g, o);
  if (edge)
    CHECK_CU(cuStreamWaitEvent(g.s, g.cleared, 0));
  launchSpin(g, o);
  join(g);
}

struct Variant {
  const char *name;
  std::function<void(const Gpu &, const Options &)> call;
};

std::vector<Variant> variants() {
  return {
      {"plain",
       [](const Gpu &g, const Options &o) {
         launchSpin(g, o);
         launchSpin(g, o);
       }},
      {"end-clears",
       [](const Gpu &g, const Options &o) {
         launchSpin(g, o);
         launchSpin(g, o);
         writes(g, o, g.s, 0);
       }},
      {"ready-wait",
       [](const Gpu &g, const Options &o) {
         launchSpin(g, o);
         // The flags past the clears' are 1 (set once, never cleared).
         std::vector<CUstreamBatchMemOpParams> ops(o.flags);
         for (unsigned i = 0; i < o.flags; ++i) {
           std::memset(&ops[i], 0, sizeof(ops[i]));
           ops[i].waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
           ops[i].waitValue.address = g.flags + 4 * (64 + i);
           ops[i].waitValue.value = 1;
           ops[i].waitValue.flags = CU_STREAM_WAIT_VALUE_EQ;
         }
         CHECK_CU(cuStreamBatchMemOp(g.s, o.flags, ops.data(), 0));
         launchSpin(g, o);
       }},
      {"fork-join",
       [](const Gpu &g, const Options &o) {
         fork(g);
         launchSpin(g, o);
         launchSpin(g, o);
         join(g);
       }},
      {"start-clears",
       [](const Gpu &g, const Options &o) { startClears(g, o, true); }},
      {"start-clears-noedge",
       [](const Gpu &g, const Options &o) { startClears(g, o, false); }},
  };
}

} // namespace

int main(int argc, char **argv) {
  Options o = parse(argc, argv);
  if (cuInit(0) != CUDA_SUCCESS) {
    std::printf("%s: SKIP: no GPU (cuInit failed)\n", kProgram);
    return 0;
  }
  CUdevice device;
  CHECK_CU(cuDeviceGet(&device, o.device));
  CUcontext context;
  CHECK_CU(cuDevicePrimaryCtxRetain(&context, device));
  CHECK_CU(cuCtxSetCurrent(context));
  Gpu g;
  int sms = 0;
  CHECK_CU(cuDeviceGetAttribute(
      &sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device));
  g.sms = unsigned(sms);
  CUmodule module;
  CHECK_CU(cuModuleLoadData(&module, kSpinPtx));
  CHECK_CU(cuModuleGetFunction(&g.spin, module, "spin"));
  CHECK_CU(cuStreamCreate(&g.s, CU_STREAM_NON_BLOCKING));
  CHECK_CU(cuStreamCreate(&g.cs, CU_STREAM_NON_BLOCKING));
  for (CUevent *e : {&g.forked, &g.cleared, &g.joined})
    CHECK_CU(cuEventCreate(e, CU_EVENT_DISABLE_TIMING));
  CHECK_CU(cuMemAlloc(&g.flags, 4 * 128));
  CHECK_CU(cuMemsetD32(g.flags, 0, 64));
  CHECK_CU(cuMemsetD32(g.flags + 4 * 64, 1, 64));
  if (o.writeMiB > 0) {
    g.vectors = (unsigned long long)(o.writeMiB * (1 << 20)) / 16;
    CHECK_CU(cuMemAlloc(&g.buffer, g.vectors * 16));
  }

  std::vector<Variant> all = variants();
  std::vector<CUgraphExec> execs;
  for (const Variant &v : all) {
    // Once eagerly first: an operation the driver refuses fails here, named.
    std::fprintf(stderr, "%s: %s\n", kProgram, v.name);
    v.call(g, o);
    CHECK_CU(cuStreamSynchronize(g.s));
    CHECK_CU(cuStreamBeginCapture(g.s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    v.call(g, o);
    CUgraph graph;
    CHECK_CU(cuStreamEndCapture(g.s, &graph));
    CUgraphExec exec;
    CHECK_CU(cuGraphInstantiate(&exec, graph, 0));
    CHECK_CU(cuGraphDestroy(graph));
    execs.push_back(exec);
  }
  CUevent start, stop;
  CHECK_CU(cuEventCreate(&start, CU_EVENT_DEFAULT));
  CHECK_CU(cuEventCreate(&stop, CU_EVENT_DEFAULT));
  std::vector<std::vector<double>> us(all.size());
  for (int round = 0; round < o.rounds; ++round)
    for (size_t j = 0; j < all.size(); ++j) {
      size_t v = (j + size_t(round)) % all.size();
      for (int i = 0; i < o.warmup; ++i)
        CHECK_CU(cuGraphLaunch(execs[v], g.s));
      CHECK_CU(cuEventRecord(start, g.s));
      for (int i = 0; i < o.replays; ++i)
        CHECK_CU(cuGraphLaunch(execs[v], g.s));
      CHECK_CU(cuEventRecord(stop, g.s));
      CHECK_CU(cuEventSynchronize(stop));
      float ms = 0;
      CHECK_CU(cuEventElapsedTime(&ms, start, stop));
      us[v].push_back(1000.0 * ms / o.replays);
    }
  char name[256] = {};
  CHECK_CU(cuDeviceGetName(name, sizeof(name), device));
  int driver = 0;
  CHECK_CU(cuDriverGetVersion(&driver));
  std::printf("%s: %s (driver API %d), %u SMs; two chunks of %.1f us "
              "storing into %.0f MiB, %u flags, %d replays x %d rounds, "
              "median us per replay\n",
              kProgram, name, driver, g.sms, o.chunkUs, o.writeMiB, o.flags,
              o.replays, o.rounds);
  std::printf("| variant | us per replay | over plain |\n|---|---|---|\n");
  auto median = [](std::vector<double> x) {
    std::sort(x.begin(), x.end());
    return x[x.size() / 2];
  };
  double plain = median(us[0]);
  for (size_t v = 0; v < all.size(); ++v) {
    double m = median(us[v]);
    std::printf("| %s | %.2f | %+.2f |\n", all[v].name, m, m - plain);
  }
  for (CUgraphExec e : execs)
    CHECK_CU(cuGraphExecDestroy(e));
  return 0;
}
