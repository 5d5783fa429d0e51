//===- BundleSeeds.cpp - Writes the seed corpus of the bundle fuzzer ------===//
//
// weave-fuzz-bundle-seeds OUT_DIR [CUBIN]
//
// Writes valid bundles covering every parameter kind and manifest keyword:
// hand-built manifests (test/support's BundleBuilder) over a tiny ELF image
// holding the kernel names (test/unit/runtime/FakeCubin.h), the manifest of
// docs/BUNDLE.md, and the ABI test bundle over the real, nvcc-built cubin
// (CUBIN, default: where the build put it) when there is one.
//
//===----------------------------------------------------------------------===//

#include "FakeCubin.h"
#include "weave/test/AbiTestKernels.h"
#include "weave/test/BundleBuilder.h"

#include <cstdio>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

using namespace weave;
using namespace weave::test;
using abi::ParamKind;

namespace {

int written = 0;

bool write(const std::string &dir, const std::string &name,
           const Bundle &bundle) {
  Status status = verifyBundle(bundle);
  if (!status) {
    std::fprintf(stderr, "weave-fuzz-bundle-seeds: seed '%s' is invalid: %s\n",
                 name.c_str(), status.error().message().c_str());
    return false;
  }
  std::vector<uint8_t> bytes = serializeBundle(bundle);
  std::ofstream file(dir + "/" + name + ".wbundle", std::ios::binary);
  file.write(reinterpret_cast<const char *>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  if (!file)
    return false;
  ++written;
  return true;
}

std::vector<uint8_t> cubinFor(const std::vector<KernelInfo> &kernels) {
  // One symbol per function (entries may share one: KernelInfo::function).
  std::vector<std::string> names;
  for (const KernelInfo &kernel : kernels)
    if (kernel.function.empty())
      names.push_back(kernel.name);
  return makeFakeCubin(names);
}

Bundle fakeBundle(std::vector<KernelInfo> kernels) {
  std::vector<uint8_t> cubin = cubinFor(kernels);
  return wrapCubin(std::move(cubin), std::move(kernels), "weave fuzz seeds");
}

ParamInfo tma(std::string name, uint32_t source, std::vector<uint64_t> box,
              uint32_t swizzle, bool peer = false, int32_t offset = 0) {
  ParamInfo p = param(ParamKind::Tma, std::move(name));
  p.tma.sourceParam = source;
  p.tma.box = std::move(box);
  p.tma.swizzleBytes = swizzle;
  p.tma.isPeerView = peer;
  p.tma.peerOffset = offset;
  return p;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: weave-fuzz-bundle-seeds OUT_DIR [CUBIN]\n");
    return 2;
  }
  std::string dir = argv[1];
  bool ok = true;

  // The smallest bundle: one kernel, team parameters only.
  ok &= write(dir, "minimal",
              fakeBundle({kernelInfo("k", {1, 1, 1}, {32, 1, 1}, 0, {})}));

  // Every user parameter kind and dtype.
  ok &= write(dir, "user-params",
              fakeBundle({kernelInfo(
                  "all_kinds", {4, 2, 1}, {128, 2, 1}, 4,
                  {param(ParamKind::Buffer, "b16", "f16", {64, 32}),
                   param(ParamKind::Buffer, "bbf", "bf16", {7}),
                   param(ParamKind::Symmetric, "s32", "f32", {2, 3, 4}),
                   param(ParamKind::Buffer, "d", "f64", {1}),
                   param(ParamKind::Buffer, "c", "i8", {4096}),
                   param(ParamKind::Symmetric, "w", "i64", {8}),
                   semaphoreParam("sems", 8),
                   param(ParamKind::Scalar, "alpha", "f32"),
                   param(ParamKind::Scalar, "beta", "f64"),
                   param(ParamKind::Scalar, "n", "i32"),
                   param(ParamKind::Scalar, "m", "i64"),
                   param(ParamKind::Scalar, "u", "u32")})}));

  // docs/BUNDLE.md's example: clusters, smem, local and peer TMA views.
  {
    KernelInfo k = kernelInfo(
        "ag_matmul", {132, 2, 1}, {384, 1, 1}, 2,
        {param(ParamKind::Buffer, "b", "f16", {4096, 512}),
         param(ParamKind::Symmetric, "a", "f16", {1024, 4096}),
         semaphoreParam("sems", 8), param(ParamKind::Scalar, "alpha", "f32")});
    k.cluster = {2, 1, 1};
    k.dynamicSmemBytes = 200000;
    k.params.push_back(tma("a_peer", 1, {64, 128}, 128, true, -1));
    ParamInfo local = tma("b_desc", 0, {8, 64}, 0);
    local.dtype = "f16";
    k.params.push_back(local);
    ParamInfo shaped = tma("a_local", 1, {32, 16}, 64);
    shaped.shape = {1024, 4096};
    k.params.push_back(shaped);
    k.params[0].alignment = 128;
    ok &= write(dir, "bundle-md", fakeBundle({k}));
  }

  // Several kernels, f32 and bf16 TMA views, 3-D shapes, a compute
  // capability other than the default.
  {
    KernelInfo a = kernelInfo(
        "first", {8, 8, 2}, {64, 4, 2}, 8,
        {param(ParamKind::Symmetric, "x", "f32", {16, 8, 64}),
         param(ParamKind::Buffer, "y", "bf16", {256, 128})});
    a.cluster = {2, 2, 1};
    a.params.push_back(tma("x_view", 0, {32, 4, 2}, 128, true, 3));
    a.params.push_back(tma("y_view", 1, {64, 32}, 128));
    KernelInfo b = kernelInfo("second.v2", {1, 1, 1}, {1024, 1, 1}, 0,
                              {semaphoreParam("flags", 1)});
    b.computeCapability = 100;
    ok &= write(dir, "multi-kernel", fakeBundle({a, b}));
  }

  // Dynamic dimensions (`?`): their dim parameters after the team's, and
  // tensor maps over dynamic buffers (their sizes checked at launch).
  {
    KernelInfo k = kernelInfo(
        "dynamic", {0, 1, 1}, {256, 1, 1}, 0,
        {param(ParamKind::Symmetric, "rows", "f16", {abi::kDynamicDim, 4096}),
         param(ParamKind::Buffer, "cube", "f32",
               {abi::kDynamicDim, 8, abi::kDynamicDim}),
         param(ParamKind::Buffer, "fixed", "i32", {16}),
         semaphoreParam("sems", 2)});
    addDimParams(k);
    k.params.push_back(tma("rows_view", 0, {64, 128}, 128, true, 1));
    k.params.push_back(tma("cube_view", 1, {4, 8, 2}, 0));
    ok &= write(dir, "dynamic-dims", fakeBundle({k}));
  }

  // Variants of one name (variant_of), each for a range of rows (range=).
  {
    std::vector<KernelInfo> variants;
    for (auto [name, lo, hi] :
         {std::tuple<const char *, int64_t, int64_t>{"mm__m1_128", 1, 128},
          {"mm__m129_256", 129, 256},
          {"mm__m257_up", 257, DimRange::kUnbounded}}) {
      KernelInfo k = kernelInfo(
          name, {0, 1, 1}, {384, 1, 1}, 0,
          {param(ParamKind::Buffer, "a", "f16", {abi::kDynamicDim, 64}),
           param(ParamKind::Buffer, "b", "f16", {64, 32})});
      k.variantOf = "mm";
      k.params[0].ranges = {{lo, hi}, {64, 64}};
      addDimParams(k);
      variants.push_back(k);
    }
    // The last range runs the first's code (a function of the bundle
    // shared by two entries, as weavec writes one configuration chosen
    // for two ranges of rows).
    variants.back().function = variants.front().name;
    ok &= write(dir, "variants", fakeBundle(variants));
  }

  // A per-member tensor-map table (a TMA store to a member known at run
  // time) and a peer view over the same dynamic symmetric buffer, a
  // two-counter semaphore: what GEMM + reduce-scatter and the
  // back-to-back ring examples use.
  {
    KernelInfo k = kernelInfo(
        "table_store", {0, 1, 1}, {384, 1, 1}, 0,
        {param(ParamKind::Buffer, "a", "bf16", {abi::kDynamicDim, 256}),
         param(ParamKind::Symmetric, "acc", "f32", {abi::kDynamicDim, 512}),
         semaphoreParam("ready", 2)});
    addDimParams(k);
    k.params.push_back(tma("a.tma0", 0, {64, 128}, 128));
    ParamInfo table = tma("acc.tma0", 1, {32, 64}, 128);
    table.kind = ParamKind::TmaTable;
    k.params.push_back(table);
    k.params.push_back(tma("acc.tma1", 1, {32, 64}, 128, true, 1));
    ok &= write(dir, "tma-table", fakeBundle({k}));
  }

  // Three variants of one name over a dynamic lhs with a tensor map each,
  // ranges with a bounded last one.
  {
    std::vector<KernelInfo> variants;
    for (auto [name, lo, hi] :
         {std::tuple<const char *, int64_t, int64_t>{"gemm__m1_64", 1, 64},
          {"gemm__m65_4096", 65, 4096},
          {"gemm__m4097_65536", 4097, 65536}}) {
      KernelInfo k = kernelInfo(
          name, {0, 1, 1}, {384, 1, 1}, 0,
          {param(ParamKind::Buffer, "a", "f16", {abi::kDynamicDim, 128}),
           param(ParamKind::Buffer, "b", "f16", {128, 256}),
           param(ParamKind::Buffer, "c", "f16", {abi::kDynamicDim, 256})});
      k.variantOf = "gemm";
      k.params[0].ranges = {{lo, hi}, {128, 128}};
      addDimParams(k);
      k.params.push_back(tma("a.tma0", 0, {64, 128}, 128));
      k.params.push_back(tma("c.tma0", 2, {64, 64}, 128));
      variants.push_back(k);
    }
    ok &= write(dir, "variants-tma", fakeBundle(variants));
  }

  // The nvcc-built ABI test kernels: a real cubin with a full ELF.
  {
    auto bundle = loadAbiTestBundle(argc > 2 ? argv[2] : "");
    if (bundle)
      ok &= write(dir, "abi-test-kernels", *bundle);
    else
      std::fprintf(stderr, "weave-fuzz-bundle-seeds: no ABI test bundle: %s\n",
                   bundle.error().message().c_str());
  }

  std::fprintf(stderr, "weave-fuzz-bundle-seeds: %d seed(s) in %s\n", written,
               dir.c_str());
  return ok ? 0 : 1;
}
