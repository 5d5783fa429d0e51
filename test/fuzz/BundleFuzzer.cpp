//===- BundleFuzzer.cpp - Fuzz target: the runtime's bundle reader --------===//
//
// Feeds arbitrary bytes to weave::parseBundle, the entry point of
// readBundleFile and of everything that loads a bundle. A mutated bundle
// almost never keeps its FNV checksum, so the target also parses a repaired
// copy: header magic, version, sizes and checksum recomputed around the
// mutated manifest text, which lets mutations reach the manifest parser and
// verifyBundle. The manifest ends where the cubin's ELF magic starts.
//
// A bundle the reader accepts must also be one the runtime can use: it must
// survive a serialize/parse round trip unchanged, and its tensor sizes and
// TMA layouts must be what they claim (no 64-bit overflow, no zero stride).
// A violation aborts, like a crash: the reader accepted a bad bundle.
//
//===----------------------------------------------------------------------===//

#include "FuzzTarget.h"

#include "weave/runtime/Bundle.h"
#include "weave/runtime/detail/BundleDetail.h"
#include "weave/runtime/detail/TmaLayout.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace weave;

namespace {

[[noreturn]] void fail(const std::string &message) {
  std::fprintf(stderr, "bundle fuzzer: accepted bundle violates: %s\n",
               message.c_str());
  std::abort();
}

void putLE(uint8_t *p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i)
    p[i] = static_cast<uint8_t>(v >> (8 * i));
}

/// Checks what the runtime relies on in a bundle parseBundle accepted.
void checkAccepted(const Bundle &bundle) {
  for (const KernelInfo &kernel : bundle.kernels) {
    for (const ParamInfo &param : kernel.params) {
      if (param.kind != abi::ParamKind::Tma &&
          param.kind != abi::ParamKind::TmaTable)
        continue;
      const ParamInfo &source = kernel.params.at(param.tma.sourceParam);
      auto layout = computeTmaLayout(param, source);
      if (!layout)
        fail("tma parameter '" + param.name +
             "' passed verifyBundle but computeTmaLayout rejects it: " +
             layout.error().message());
      // A stride is known (and must not be 0) up to the first dynamic
      // dimension, innermost first; the rest is checked at launch.
      for (uint32_t d = 0; d + 1 < layout->rank; ++d) {
        if (layout->globalDim[d] == 0)
          break;
        if (layout->globalStride[d] == 0)
          fail("tma parameter '" + param.name + "' has a zero stride");
      }
      if (layout->complete != !source.hasDynamicDims())
        fail("tma parameter '" + param.name + "' has a layout that is " +
             (layout->complete ? "complete over dynamic dimensions"
                               : "incomplete over a static shape"));
      // What a launch computes: the `?` given a size, the layout complete.
      if (source.hasDynamicDims()) {
        ParamInfo launched = source;
        for (int64_t &d : launched.shape)
          if (d == abi::kDynamicDim)
            d = 16;
        auto bound = computeTmaLayout(param, launched);
        if (bound && !bound->complete)
          fail("tma parameter '" + param.name +
               "' has an incomplete layout at launch");
        for (uint32_t d = 0; bound && d + 1 < bound->rank; ++d)
          if (bound->globalStride[d] == 0)
            fail("tma parameter '" + param.name +
                 "' has a zero stride at launch");
      }
    }
    for (const ParamInfo &param : kernel.params) {
      (void)paramBytes(param);
      if (param.kind != abi::ParamKind::Buffer &&
          param.kind != abi::ParamKind::Symmetric)
        continue;
      // The allocation size the runtime computes must be the true size.
      unsigned __int128 exact = dtypeBytes(param.dtype);
      for (int64_t d : param.shape) {
        // A dynamic dimension counts as 1 (tensorBytes' documented rule).
        exact *= d == abi::kDynamicDim ? 1 : static_cast<uint64_t>(d);
        if (exact >> 64)
          fail("kernel '" + kernel.name + "' parameter '" + param.name +
               "' has a byte size over 2^64 (tensorBytes wraps to " +
               std::to_string(tensorBytes(param)) + ")");
      }
      if (tensorBytes(param) != static_cast<uint64_t>(exact) || exact == 0)
        fail("kernel '" + kernel.name + "' parameter '" + param.name +
             "' sizes to " + std::to_string(tensorBytes(param)) + " bytes");
    }
  }
  // What the reader accepted, the writer must reproduce and the reader
  // accept again, with the same manifest.
  std::string manifest = printManifest(bundle);
  std::vector<uint8_t> bytes = serializeBundle(bundle);
  auto again = parseBundle(bytes.data(), bytes.size());
  if (!again)
    fail("round trip: the re-serialized bundle is rejected: " +
         again.error().message());
  if (printManifest(*again) != manifest || again->cubin != bundle.cubin)
    fail("round trip: the re-serialized bundle differs");
}

void parse(const uint8_t *data, size_t size) {
  auto bundle = parseBundle(data, size);
  if (bundle) {
    checkAccepted(*bundle);
    for (const KernelInfo &kernel : bundle->kernels)
      if (findKernel(*bundle, kernel.name) == nullptr)
        fail("findKernel misses '" + kernel.name + "'");
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // Bundles are small; a megabyte says nothing more than a few kilobytes.
  if (size > (1u << 20))
    return 0;
  parse(data, size);
  if (size <= kBundleHeaderBytes)
    return 0;

  // The repaired copy: the manifest runs from the header to the cubin's ELF
  // magic (or to the end), the cubin from there to the end.
  std::vector<uint8_t> copy(data, data + size);
  const uint8_t *payload = copy.data() + kBundleHeaderBytes;
  size_t payloadSize = size - kBundleHeaderBytes;
  size_t manifestSize = payloadSize;
  for (size_t i = 0; i + 4 <= payloadSize; ++i)
    if (std::memcmp(payload + i, "\x7f" "ELF", 4) == 0) {
      manifestSize = i;
      break;
    }
  std::memcpy(copy.data(), kBundleMagic, 8);
  putLE(copy.data() + 8, abi::kAbiVersion, 4);
  putLE(copy.data() + 12, manifestSize, 4);
  putLE(copy.data() + 16, payloadSize - manifestSize, 8);
  putLE(copy.data() + 24, fnv1a64(payload, payloadSize), 8);
  parse(copy.data(), copy.size());

  // The ELF reader on its own, so that cubin mutations count too.
  auto symbols = readCubinSymbols(payload + manifestSize,
                                  payloadSize - manifestSize);
  (void)symbols;
  return 0;
}
