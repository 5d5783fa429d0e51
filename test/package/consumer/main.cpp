//===- main.cpp - a program built against an installed Weave ---------------===//
//
//   weave-consumer [bundle-dir]
//
// Uses the installed package the way the README shows: weave::ops. First it
// gets the all-reduce's kernel for 1001 elements from the ops' kernel
// source (JIT-compiled where the package has Weave::jit, else the bundle in
// bundle-dir, made ahead of time with weave-ops + weavec), then, on a GPU,
// runs ops::AllReduce and ops::AllGather twice each, then
// ops::AllGatherMatmul and ops::MatmulReduceScatter (bf16), on a loopback
// team of 2 members and checks every member's output. Without a GPU (no driver, the driver's stub
// library, no device) it says so and exits 0: the package builds, links
// and runs. Exits 1 on any failure; with WEAVE_REQUIRE_GPU=1 a missing GPU
// is a failure too.
//
//===----------------------------------------------------------------------===//

#include "weave/ops.h"
#include "weave/runtime.h"
#ifdef WEAVE_CONSUMER_HAVE_JIT
#include "weave/ops/JitSource.h"
#endif

#include <cuda.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <string>
#include <vector>

using namespace weave;

static_assert(abi::kAbiVersion == WEAVE_PACKAGE_ABI_VERSION,
              "WeaveConfig.cmake's WEAVE_ABI_VERSION differs from the headers'");

namespace {

constexpr int64_t kElements = 1001;
constexpr uint32_t kMembers = 2;

int fail(const Error &error) {
  std::fprintf(stderr, "weave-consumer: error: %s\n",
               error.toString().c_str());
  return 1;
}

Status check(size_t wrong, const std::string &what) {
  if (wrong == 0)
    return ok();
  return Error(ErrorCode::InvalidArgument,
               what + ": " + std::to_string(wrong) + " wrong elements");
}

/// Per member: a device buffer of `count` f32 and a stream.
struct Member {
  CUdeviceptr input = 0, sum = 0, gathered = 0;
  CUstream stream = nullptr;
};

/// The README's program: a team, a heap, the ops, a call each. Member r's
/// input is r + 1 + round in every element.
Status runOps(std::shared_ptr<ops::KernelSource> source) {
  WEAVE_ASSIGN_OR_RETURN(Team team, Team::createLoopback(kMembers));
  WEAVE_ASSIGN_OR_RETURN(SymmetricHeap heap, SymmetricHeap::create(team, 1 << 20));
  ops::Communicator comm(team, heap, std::move(source));
  WEAVE_ASSIGN_OR_RETURN(ops::AllReduce sum,
                         ops::AllReduce::create(comm, "f32", kElements));
  WEAVE_ASSIGN_OR_RETURN(ops::AllGather gather,
                         ops::AllGather::create(comm, "f32", kElements));

  uint64_t bytes = kElements * sizeof(float);
  std::vector<Member> members(team.localCount());
  std::vector<CUdeviceptr> inputs, sums, gathered;
  std::vector<CUstream> streams;
  for (size_t i = 0; i < members.size(); ++i) {
    WEAVE_TRY(team.device(i).makeCurrent());
    Member &m = members[i];
    WEAVE_CU_TRY(cuMemAlloc(&m.input, bytes), "allocating an input");
    WEAVE_CU_TRY(cuMemAlloc(&m.sum, bytes), "allocating an output");
    WEAVE_CU_TRY(cuMemAlloc(&m.gathered, bytes * kMembers),
                 "allocating an output");
    WEAVE_CU_TRY(cuStreamCreate(&m.stream, CU_STREAM_NON_BLOCKING),
                 "creating a stream");
    inputs.push_back(m.input);
    sums.push_back(m.sum);
    gathered.push_back(m.gathered);
    streams.push_back(m.stream);
  }
  for (int round = 0; round < 2; ++round) {
    for (size_t i = 0; i < members.size(); ++i) {
      WEAVE_TRY(team.device(i).makeCurrent());
      std::vector<float> mine(kElements, float(team.rankOf(i) + 1 + round));
      WEAVE_CU_TRY(cuMemcpyHtoD(members[i].input, mine.data(), bytes),
                   "writing an input");
    }
    auto refs = [](const std::vector<CUdeviceptr> &pointers, int64_t count) {
      std::vector<ops::TensorRef> out;
      for (CUdeviceptr p : pointers)
        out.push_back({p, "f32", {count}});
      return out;
    };
    WEAVE_TRY(sum(refs(inputs, kElements), refs(sums, kElements), streams));
    WEAVE_TRY(gather(refs(inputs, kElements),
                     refs(gathered, kElements * kMembers), streams));
    WEAVE_TRY(team.synchronize());
    size_t wrongSum = 0, wrongGather = 0;
    for (size_t i = 0; i < members.size(); ++i) {
      WEAVE_TRY(team.device(i).makeCurrent());
      std::vector<float> got(kElements), all(kElements * kMembers);
      WEAVE_CU_TRY(cuMemcpyDtoH(got.data(), members[i].sum, bytes),
                   "reading an output");
      WEAVE_CU_TRY(cuMemcpyDtoH(all.data(), members[i].gathered,
                                bytes * kMembers),
                   "reading an output");
      float expected = 0;
      for (uint32_t r = 0; r < kMembers; ++r)
        expected += float(r + 1 + round);
      for (float x : got)
        wrongSum += x != expected;
      for (int64_t e = 0; e < kElements * kMembers; ++e)
        wrongGather += all[e] != float(e / kElements + 1 + round);
    }
    WEAVE_TRY(check(wrongSum, "AllReduce round " + std::to_string(round)));
    WEAVE_TRY(check(wrongGather, "AllGather round " + std::to_string(round)));
  }
  for (size_t i = 0; i < members.size(); ++i) {
    (void)team.device(i).makeCurrent();
    cuMemFree(members[i].input);
    cuMemFree(members[i].sum);
    cuMemFree(members[i].gathered);
    cuStreamDestroy(members[i].stream);
  }
  return ok();
}

/// A bf16 input value: a multiple of 1/8 in [-1/2, 1/2] (exact in bf16; the
/// f32 sums of their products are exact too).
float exactValue(int64_t i, int64_t j, uint32_t seed) {
  return float((i * 7 + j * 3 + seed * 5) % 9 - 4) / 8;
}
uint16_t bf16Bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return uint16_t(b >> 16);
}
/// `v` rounded to the nearest bf16, ties to even (finite values).
uint16_t bf16Round(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return uint16_t((b + 0x7fff + ((b >> 16) & 1)) >> 16);
}
float bf16Value(uint16_t h) {
  uint32_t b = uint32_t(h) << 16;
  float v;
  std::memcpy(&v, &b, 4);
  return v;
}

/// The fused matmuls as the README shows them, bf16 on a loopback team:
/// c = AllGather(a) @ b (a: kShard x kDepth per member, b: kDepth x kCols),
/// and the GEMM + reduce-scatter of a (team x kRsShard rows) @ b. Each
/// output element must be the exact f32 sum rounded once to bf16 (for the
/// GEMM + reduce-scatter, the sum of the members' partials each rounded to
/// bf16, as its kernel sums them).
constexpr int64_t kShard = 128, kRsShard = 384, kDepth = 256, kCols = 320;

Status runFusedOps(std::shared_ptr<ops::KernelSource> source) {
  WEAVE_ASSIGN_OR_RETURN(Team team, Team::createLoopback(kMembers));
  WEAVE_ASSIGN_OR_RETURN(SymmetricHeap heap, SymmetricHeap::create(team, 16 << 20));
  ops::Communicator comm(team, heap, std::move(source));
  WEAVE_ASSIGN_OR_RETURN(
      ops::AllGatherMatmul agmm,
      ops::AllGatherMatmul::create(comm, "bf16", kShard, kDepth, kCols));
  WEAVE_ASSIGN_OR_RETURN(
      ops::MatmulReduceScatter mmrs,
      ops::MatmulReduceScatter::create(comm, "bf16", kRsShard, kDepth, kCols));

  struct Buffers {
    CUdeviceptr a = 0, tall = 0, b = 0, gathered = 0, scattered = 0;
    CUstream stream = nullptr;
  };
  int64_t d = kMembers;
  std::vector<Buffers> m(team.localCount());
  std::vector<CUstream> streams;
  auto upload = [](CUdeviceptr to, const std::vector<uint16_t> &from) -> Status {
    WEAVE_CU_TRY(cuMemcpyHtoD(to, from.data(), from.size() * 2), "uploading");
    return ok();
  };
  for (size_t i = 0; i < m.size(); ++i) {
    WEAVE_TRY(team.device(i).makeCurrent());
    uint32_t rank = team.rankOf(i);
    WEAVE_CU_TRY(cuMemAlloc(&m[i].a, kShard * kDepth * 2), "allocating");
    WEAVE_CU_TRY(cuMemAlloc(&m[i].tall, d * kRsShard * kDepth * 2), "allocating");
    WEAVE_CU_TRY(cuMemAlloc(&m[i].b, kDepth * kCols * 2), "allocating");
    WEAVE_CU_TRY(cuMemAlloc(&m[i].gathered, d * kShard * kCols * 2), "allocating");
    WEAVE_CU_TRY(cuMemAlloc(&m[i].scattered, kRsShard * kCols * 2), "allocating");
    WEAVE_CU_TRY(cuStreamCreate(&m[i].stream, CU_STREAM_NON_BLOCKING), "creating a stream");
    streams.push_back(m[i].stream);
    std::vector<uint16_t> a(kShard * kDepth), tall(d * kRsShard * kDepth),
        b(kDepth * kCols);
    for (int64_t e = 0; e < kShard * kDepth; ++e)
      a[e] = bf16Bits(exactValue(e / kDepth, e % kDepth, rank));
    for (int64_t e = 0; e < d * kRsShard * kDepth; ++e)
      tall[e] = bf16Bits(exactValue(e / kDepth, e % kDepth, rank + 7));
    for (int64_t e = 0; e < kDepth * kCols; ++e)
      b[e] = bf16Bits(exactValue(e % kCols, e / kCols, rank + 3));
    WEAVE_TRY(upload(m[i].a, a));
    WEAVE_TRY(upload(m[i].tall, tall));
    WEAVE_TRY(upload(m[i].b, b));
  }
  auto refs = [&](CUdeviceptr Buffers::*field, std::vector<int64_t> shape) {
    std::vector<ops::TensorRef> out;
    for (const Buffers &buffers : m)
      out.push_back({buffers.*field, "bf16", shape});
    return out;
  };
  // The README's calls.
  WEAVE_TRY(agmm(refs(&Buffers::a, {kShard, kDepth}), refs(&Buffers::b, {kDepth, kCols}),
                 refs(&Buffers::gathered, {d * kShard, kCols}), streams));
  WEAVE_TRY(mmrs(refs(&Buffers::tall, {d * kRsShard, kDepth}),
                 refs(&Buffers::b, {kDepth, kCols}),
                 refs(&Buffers::scattered, {kRsShard, kCols}), streams));
  WEAVE_TRY(team.synchronize());

  size_t wrongGather = 0, wrongScatter = 0;
  auto near = [](float got, double want) {
    return std::fabs(got - want) <= std::fabs(want) * (1.0 / 256);
  };
  for (size_t i = 0; i < m.size(); ++i) {
    WEAVE_TRY(team.device(i).makeCurrent());
    uint32_t rank = team.rankOf(i);
    std::vector<uint16_t> gathered(d * kShard * kCols), scattered(kRsShard * kCols);
    WEAVE_CU_TRY(cuMemcpyDtoH(gathered.data(), m[i].gathered, gathered.size() * 2),
                 "reading an output");
    WEAVE_CU_TRY(cuMemcpyDtoH(scattered.data(), m[i].scattered, scattered.size() * 2),
                 "reading an output");
    for (int64_t r = 0; r < d * kShard; ++r)
      for (int64_t c = 0; c < kCols; ++c) {
        double want = 0;
        for (int64_t k = 0; k < kDepth; ++k)
          want += double(exactValue(r % kShard, k, uint32_t(r / kShard))) *
                  exactValue(c, k, rank + 3);
        wrongGather += !near(bf16Value(gathered[r * kCols + c]), want);
      }
    for (int64_t r = 0; r < kRsShard; ++r)
      for (int64_t c = 0; c < kCols; ++c) {
        double want = 0;
        for (uint32_t member = 0; member < kMembers; ++member) {
          double partial = 0;
          for (int64_t k = 0; k < kDepth; ++k)
            partial += double(exactValue(rank * kRsShard + r, k, member + 7)) *
                       exactValue(c, k, member + 3);
          want += bf16Value(bf16Round(float(partial)));
        }
        wrongScatter += !near(bf16Value(scattered[r * kCols + c]), want);
      }
  }
  WEAVE_TRY(check(wrongGather, "AllGatherMatmul"));
  WEAVE_TRY(check(wrongScatter, "MatmulReduceScatter"));
  for (Buffers &buffers : m) {
    cuMemFree(buffers.a);
    cuMemFree(buffers.tall);
    cuMemFree(buffers.b);
    cuMemFree(buffers.gathered);
    cuMemFree(buffers.scattered);
    cuStreamDestroy(buffers.stream);
  }
  return ok();
}

} // namespace

int main(int argc, char **argv) {
#ifdef WEAVE_CONSUMER_HAVE_JIT
  const bool jit = true;
#else
  const bool jit = false;
#endif
  std::printf("weave-consumer: Weave ABI version %u, %s\n", abi::kAbiVersion,
              jit ? "with the JIT" : "runtime only");
  std::shared_ptr<ops::KernelSource> source;
#ifdef WEAVE_CONSUMER_HAVE_JIT
  source = std::make_shared<ops::JitSource>();
#endif
  if (argc > 1)
    source = ops::bundleFolder(argv[1]);
  if (!source)
    return fail(Error(ErrorCode::InvalidArgument,
                      "runtime only: pass the folder of the ops' bundles"));
  Expected<ops::KernelInstance> instance = ops::AllReduce::instanceFor(
      kMembers, "f32", kElements, ops::AllReduceAlgorithm::Auto);
  if (!instance)
    return fail(instance.error());
  Expected<Bundle> bundle = source->bundleFor(*instance);
  if (!bundle)
    return fail(bundle.error());
  const KernelInfo *info = findKernel(*bundle, instance->kernelName);
  if (!info || info->params.empty() ||
      info->params[0].shape != std::vector<int64_t>{kElements})
    return fail(Error(ErrorCode::InvalidBundle,
                      "the bundle has no " + instance->kernelName + " over " +
                          std::to_string(kElements) + " elements"));
  std::printf("weave-consumer: %s %s (%zu bytes of cubin)\n",
              argc > 1 ? "read" : "JIT-compiled", instance->key().c_str(),
              bundle->cubin.size());
  // The fused matmuls' kernels too: a runtime-only tree names a missing
  // bundle.
  for (auto fused : {ops::matmulOpInstance("all_gather_matmul", kMembers, "bf16",
                                           {kShard, kDepth, kCols}),
                     ops::matmulOpInstance("matmul_reduce_scatter", kMembers,
                                           "bf16", {kRsShard, kDepth, kCols})}) {
    if (!fused)
      return fail(fused.error());
    Expected<Bundle> fusedBundle = source->bundleFor(*fused);
    if (!fusedBundle)
      return fail(fusedBundle.error());
    std::printf("weave-consumer: %s %s\n", argc > 1 ? "read" : "JIT-compiled",
                fused->key().c_str());
  }

  Expected<int> devices = deviceCount();
  if (!devices || *devices == 0) {
    const char *require = std::getenv("WEAVE_REQUIRE_GPU");
    if (require && std::string(require) == "1")
      return fail(devices ? Error(ErrorCode::NotFound, "no CUDA device")
                          : devices.error());
    std::printf("weave-consumer: SKIP: no CUDA device (%s); built, linked and "
                "ran against the installed package, nothing launched\n",
                devices ? "0 devices" : devices.error().toString().c_str());
    return 0;
  }
  if (Status s = runOps(source); !s)
    return fail(s.error());
  if (Status s = runFusedOps(source); !s)
    return fail(s.error());
  std::printf("weave-consumer: PASS: ops::AllReduce and ops::AllGather, twice "
              "each, ops::AllGatherMatmul and ops::MatmulReduceScatter, on a "
              "loopback team of %u members\n",
              kMembers);
  return 0;
}
