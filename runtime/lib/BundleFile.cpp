//===- BundleFile.cpp - The bundle file format -----------------------------===//
//
// Layout (little-endian), see docs/BUNDLE.md:
//   0  char[8] "WEAVEBND"
//   8  u32     format version (abi::kAbiVersion)
//  12  u32     manifest byte size
//  16  u64     cubin byte size
//  24  u64     FNV-1a 64 of manifest bytes followed by cubin bytes
//  32  manifest (UTF-8 text, Manifest.cpp), then the cubin
//
// The header, the checksum and reading/writing files; the manifest's text is
// Manifest.cpp's, the consistency checks BundleVerify.cpp's.
//
//===----------------------------------------------------------------------===//

#include "weave/runtime/Bundle.h"
#include "weave/runtime/detail/BundleDetail.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace weave {

namespace {

void putU32(std::vector<uint8_t> &out, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void putU64(std::vector<uint8_t> &out, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
uint64_t getLE(const uint8_t *p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}

} // namespace

uint64_t fnv1a64(const uint8_t *data, size_t size, uint64_t seed) {
  uint64_t hash = seed;
  for (size_t i = 0; i < size; ++i) {
    hash ^= data[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

std::vector<uint8_t> serializeBundle(const Bundle &bundle) {
  std::string manifest = printManifest(bundle);
  // Starting from the magic rather than inserting it into a reserved empty
  // vector keeps GCC 12's -Wstringop-overflow from misreading the insert.
  std::vector<uint8_t> out(kBundleMagic, kBundleMagic + 8);
  out.reserve(kBundleHeaderBytes + manifest.size() + bundle.cubin.size());
  putU32(out, abi::kAbiVersion);
  putU32(out, static_cast<uint32_t>(manifest.size()));
  putU64(out, bundle.cubin.size());
  uint64_t hash = fnv1a64(reinterpret_cast<const uint8_t *>(manifest.data()),
                          manifest.size());
  hash = fnv1a64(bundle.cubin.data(), bundle.cubin.size(), hash);
  putU64(out, hash);
  out.insert(out.end(), manifest.begin(), manifest.end());
  out.insert(out.end(), bundle.cubin.begin(), bundle.cubin.end());
  return out;
}

Expected<Bundle> parseBundle(const uint8_t *data, size_t size) {
  if (size < kBundleHeaderBytes)
    return bundleError("truncated bundle: expected at least " +
                       std::to_string(kBundleHeaderBytes) +
                       " header bytes, found " + std::to_string(size));
  if (std::memcmp(data, kBundleMagic, 8) != 0) {
    std::string found;
    for (int i = 0; i < 8; ++i)
      found += std::isprint(data[i]) ? static_cast<char>(data[i]) : '?';
    return bundleError("bad magic: expected 'WEAVEBND', found '" + found +
                       "'");
  }
  uint32_t version = static_cast<uint32_t>(getLE(data + 8, 4));
  if (version != abi::kAbiVersion)
    return bundleError("unsupported bundle version: expected " +
                       std::to_string(abi::kAbiVersion) + ", found " +
                       std::to_string(version));
  uint64_t manifestSize = getLE(data + 12, 4);
  uint64_t cubinSize = getLE(data + 16, 8);
  uint64_t checksum = getLE(data + 24, 8);
  uint64_t payload = size - kBundleHeaderBytes;
  if (manifestSize > payload || cubinSize > payload - manifestSize)
    return bundleError("truncated bundle: header declares " +
                       std::to_string(manifestSize) + " manifest + " +
                       std::to_string(cubinSize) +
                       " cubin bytes, file has " + std::to_string(payload) +
                       " bytes after the header");
  if (manifestSize + cubinSize != payload)
    return bundleError("bundle has " +
                       std::to_string(payload - manifestSize - cubinSize) +
                       " trailing bytes after the cubin");
  const uint8_t *manifest = data + kBundleHeaderBytes;
  uint64_t actual = fnv1a64(manifest, manifestSize);
  actual = fnv1a64(manifest + manifestSize, cubinSize, actual);
  if (actual != checksum) {
    char text[80];
    std::snprintf(text, sizeof(text), "expected 0x%016llx, found 0x%016llx",
                  static_cast<unsigned long long>(checksum),
                  static_cast<unsigned long long>(actual));
    return bundleError(std::string("checksum mismatch (file corrupted): ") +
                       text);
  }
  Bundle bundle;
  std::string text(reinterpret_cast<const char *>(manifest), manifestSize);
  if (text.find('\0') != std::string::npos)
    return bundleError("manifest contains a NUL byte");
  WEAVE_TRY(parseManifest(text, bundle));
  bundle.cubin.assign(manifest + manifestSize,
                      manifest + manifestSize + cubinSize);
  WEAVE_TRY(verifyBundle(bundle));
  return bundle;
}

namespace {

const char *fileTypeName(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISSOCK(mode))
    return "a socket";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  return "not a regular file";
}

/// Closes a descriptor on every path out of readBundleBytes.
struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

/// The bytes of the regular file at `path`, at most kMaxBundleFileBytes.
Expected<std::vector<uint8_t>> readBundleBytes(const std::string &path) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer. The type is then
  // checked on the opened descriptor (fstat), not on the path, so that the
  // file cannot be swapped between the check and the read.
  int fd;
  do
    fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    int err = errno;
    return Error(err == ENOENT ? ErrorCode::NotFound : ErrorCode::System,
                 "cannot open bundle '" + path + "': " + std::strerror(err));
  }
  FdCloser closer{fd};
  struct stat info;
  if (::fstat(fd, &info) != 0)
    return Error(ErrorCode::System,
                 "cannot stat bundle '" + path + "': " + std::strerror(errno));
  if (!S_ISREG(info.st_mode))
    return Error(ErrorCode::InvalidArgument,
                 "cannot read bundle '" + path +
                     "': expected a regular file, found " +
                     fileTypeName(info.st_mode));
  uint64_t size = static_cast<uint64_t>(info.st_size);
  if (size > kMaxBundleFileBytes)
    return Error(ErrorCode::InvalidBundle,
                 "cannot read bundle '" + path + "': expected at most " +
                     std::to_string(kMaxBundleFileBytes) + " bytes, found " +
                     std::to_string(size));
  // Read one byte more than fstat reported, to notice a file that grows
  // while it is read instead of parsing a cut copy of it.
  std::vector<uint8_t> data(static_cast<size_t>(size) + 1);
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::read(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return Error(ErrorCode::System, "cannot read bundle '" + path +
                                          "': " + std::strerror(errno));
    if (n == 0)
      break;
    done += static_cast<size_t>(n);
  }
  if (done != size)
    return Error(ErrorCode::System,
                 "cannot read bundle '" + path + "': its size changed from " +
                     std::to_string(size) + " bytes while it was read");
  data.resize(done);
  return data;
}

} // namespace

Expected<Bundle> readBundleFile(const std::string &path) {
  WEAVE_ASSIGN_OR_RETURN(std::vector<uint8_t> data, readBundleBytes(path));
  auto bundle = parseBundle(data.data(), data.size());
  if (!bundle)
    return std::move(bundle).takeError().addContext("reading '" + path + "'");
  return bundle;
}

Status writeBundleFile(const std::string &path, const Bundle &bundle) {
  WEAVE_TRY(verifyBundle(bundle));
  std::vector<uint8_t> data = serializeBundle(bundle);
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file)
    return Error(ErrorCode::System, "cannot create bundle '" + path +
                                        "': " + std::strerror(errno));
  file.write(reinterpret_cast<const char *>(data.data()),
             static_cast<std::streamsize>(data.size()));
  file.close();
  if (!file)
    return Error(ErrorCode::System, "cannot write bundle '" + path + "'");
  return ok();
}

} // namespace weave
