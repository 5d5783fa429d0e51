//===- BundleDetail.h - Internals of the bundle reader ----------*- C++ -*-===//
//
// Checked arithmetic, the bundle checksum and the cubin's ELF symbol reader:
// used by the bundle reader and verifier, the runtime and their tests, not
// part of the installed API.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_RUNTIME_DETAIL_BUNDLEDETAIL_H
#define WEAVE_RUNTIME_DETAIL_BUNDLEDETAIL_H

#include "weave/runtime/Bundle.h"

#include <cstddef>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace weave {

/// `a * b` in `out`; false (and `out` untouched) when it overflows 64 bits.
inline bool checkedMul(uint64_t a, uint64_t b, uint64_t &out) {
  uint64_t product;
  if (__builtin_mul_overflow(a, b, &product))
    return false;
  out = product;
  return true;
}
/// `a + b` in `out`; false (and `out` untouched) when it overflows 64 bits.
inline bool checkedAdd(uint64_t a, uint64_t b, uint64_t &out) {
  uint64_t sum;
  if (__builtin_add_overflow(a, b, &sum))
    return false;
  out = sum;
  return true;
}

/// FNV-1a 64-bit hash (the bundle checksum).
uint64_t fnv1a64(const uint8_t *data, size_t size, uint64_t seed = 0xcbf29ce484222325ull);

/// Names of the symbols in an ELF64 image's symbol tables; InvalidBundle when
/// the image is not a little-endian ELF64 for EM_CUDA or is malformed.
Expected<std::vector<std::string>> readCubinSymbols(const uint8_t *data,
                                                    size_t size);
/// One entry of a cubin's symbol table (index = position in it).
struct CubinSymbol {
  std::string name;
  uint32_t index = 0;
  uint16_t section = 0;
  bool isFunction = false;
};
/// Every entry of the cubin's symbol tables, checked as readCubinSymbols.
Expected<std::vector<CubinSymbol>> readCubinSymbolTable(const uint8_t *data,
                                                        size_t size);
/// One section of a cubin: its name (.text.<kernel>, .nv.shared.<kernel>,
/// .nv.constant0.<kernel>, .nv.info, ...), type and place in the image.
struct CubinSection {
  std::string name;
  uint32_t type = 0;
  uint64_t offset = 0, size = 0;
};
Expected<std::vector<CubinSection>> readCubinSections(const uint8_t *data,
                                                      size_t size);
/// The registers per thread ptxas gave the function at `symbolIndex`
/// (EIATTR_REGCOUNT in .nv.info), if recorded.
std::optional<uint32_t>
cubinRegisterCount(const uint8_t *data,
                   const std::vector<CubinSection> &sections,
                   uint32_t symbolIndex);
/// ELF machine number of CUDA images.
inline constexpr uint16_t kElfMachineCuda = 190;

/// An InvalidBundle error.
Error bundleError(const std::string &message);
/// Kernel and parameter names: letters, digits, '_', '.', '$'.
bool isValidName(const std::string &name);
/// Buffer, Symmetric, Semaphore or Scalar: the kinds the caller binds.
bool isUserKind(abi::ParamKind kind);
/// "kernel 'NAME'", and " (function 'F')" after it when the entry launches
/// a function of another name (KernelInfo::function): how messages about
/// loading or checking an entry's cubin function name it.
std::string describeKernel(const KernelInfo &kernel);
/// The kind a manifest spells `name` ("peer_bases"), if any.
std::optional<abi::ParamKind> paramKindFromName(const std::string &name);
/// "X Y Z", as the manifest writes launch dims.
std::string formatDims(const std::array<uint32_t, 3> &dims);
/// "1,2,3", as the manifest writes shapes and boxes.
std::string formatList(const std::vector<int64_t> &values);
std::string formatList(const std::vector<uint64_t> &values);
/// "1..256", or "1.." without an upper bound, as the manifest writes a
/// dimension's range.
std::string formatRange(const DimRange &range);
/// Parses manifest text into `bundle` (arch, producer, kernels; no cubin,
/// no consistency checks: verifyBundle). InvalidBundle naming the line.
Status parseManifest(const std::string &text, Bundle &bundle);

} // namespace weave

#endif // WEAVE_RUNTIME_DETAIL_BUNDLEDETAIL_H
