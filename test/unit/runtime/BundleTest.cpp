//===- BundleTest.cpp - Bundle roundtrip and corruption tests -------------===//

#include "FakeCubin.h"
#include "weave/runtime/Bundle.h"
#include "weave/runtime/detail/BundleDetail.h"
#include "weave/runtime/detail/TmaLayout.h"
#include "weave/test/BundleBuilder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace weave;
using weave::test::addTeamParams;
using weave::test::makeFakeCubin;
using weave::test::param;

namespace {

/// A bundle using every parameter kind.
Bundle makeBundle() {
  Bundle b;
  b.arch = "sm_90a";
  b.producer = "weavec 0.1 (LLVM 22)";
  KernelInfo k;
  k.name = "ag_matmul";
  k.grid = {132, 1, 1};
  k.block = {384, 1, 1};
  k.cluster = {2, 1, 1};
  k.grid = {132, 2, 1};
  k.dynamicSmemBytes = 200000;
  k.teamSize = 2;
  k.params.push_back(param(weave::abi::ParamKind::Buffer, "b", "f16", {4096, 512}));
  k.params.push_back(param(weave::abi::ParamKind::Symmetric, "a", "f16", {1024, 4096}));
  ParamInfo sem = param(weave::abi::ParamKind::Semaphore, "sems");
  sem.semaphoreCount = 8;
  k.params.push_back(sem);
  k.params.push_back(param(weave::abi::ParamKind::Scalar, "alpha", "f32"));
  addTeamParams(k);
  ParamInfo tmaA = param(weave::abi::ParamKind::Tma, "a_peer");
  tmaA.tma.sourceParam = 1;
  tmaA.tma.box = {64, 128};
  tmaA.tma.swizzleBytes = 128;
  tmaA.tma.isPeerView = true;
  tmaA.tma.peerOffset = -1;
  k.params.push_back(tmaA);
  ParamInfo tmaB = param(weave::abi::ParamKind::Tma, "b_desc", "f16");
  tmaB.tma.sourceParam = 0;
  tmaB.tma.box = {8, 64};
  k.params.push_back(tmaB);
  b.kernels.push_back(k);

  KernelInfo small;
  small.name = "signal_only";
  small.teamSize = 0;
  small.computeCapability = 90;
  addTeamParams(small);
  b.kernels.push_back(small);
  b.cubin = makeFakeCubin({"ag_matmul", "signal_only", "helper"});
  return b;
}

void expectSame(const Bundle &a, const Bundle &b) {
  EXPECT_EQ(a.arch, b.arch);
  EXPECT_EQ(a.producer, b.producer);
  EXPECT_EQ(a.cubin, b.cubin);
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  for (size_t i = 0; i < a.kernels.size(); ++i) {
    const KernelInfo &x = a.kernels[i], &y = b.kernels[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.grid, y.grid);
    EXPECT_EQ(x.block, y.block);
    EXPECT_EQ(x.cluster, y.cluster);
    EXPECT_EQ(x.dynamicSmemBytes, y.dynamicSmemBytes);
    EXPECT_EQ(x.teamSize, y.teamSize);
    EXPECT_EQ(x.computeCapability, y.computeCapability);
    EXPECT_EQ(x.variantOf, y.variantOf);
    EXPECT_EQ(x.function, y.function);
    ASSERT_EQ(x.params.size(), y.params.size());
    for (size_t p = 0; p < x.params.size(); ++p) {
      const ParamInfo &u = x.params[p], &v = y.params[p];
      EXPECT_EQ(u.kind, v.kind);
      EXPECT_EQ(u.name, v.name);
      EXPECT_EQ(u.dtype, v.dtype);
      EXPECT_EQ(u.shape, v.shape);
      EXPECT_EQ(u.alignment, v.alignment);
      EXPECT_EQ(u.semaphoreCount, v.semaphoreCount);
      EXPECT_EQ(u.tma.sourceParam, v.tma.sourceParam);
      EXPECT_EQ(u.tma.box, v.tma.box);
      EXPECT_EQ(u.tma.swizzleBytes, v.tma.swizzleBytes);
      EXPECT_EQ(u.tma.isPeerView, v.tma.isPeerView);
      EXPECT_EQ(u.tma.peerOffset, v.tma.peerOffset);
    }
  }
}

/// Parses `data`, expects InvalidBundle whose message contains `needle`.
void expectInvalid(const std::vector<uint8_t> &data, const std::string &needle) {
  auto parsed = parseBundle(data.data(), data.size());
  ASSERT_FALSE(parsed) << "expected failure containing '" << needle << "'";
  EXPECT_EQ(parsed.error().code(), ErrorCode::InvalidBundle);
  EXPECT_NE(parsed.error().message().find(needle), std::string::npos)
      << "message: " << parsed.error().message();
}

void expectInvalid(const Bundle &bundle, const std::string &needle) {
  Status status = verifyBundle(bundle);
  ASSERT_FALSE(status) << "expected failure containing '" << needle << "'";
  EXPECT_EQ(status.error().code(), ErrorCode::InvalidBundle);
  EXPECT_NE(status.error().message().find(needle), std::string::npos)
      << "message: " << status.error().message();
  // The serialized form is rejected by the reader too.
  expectInvalid(serializeBundle(bundle), needle);
}

/// Rebuilds a file with a replaced manifest and a correct checksum.
std::vector<uint8_t> withManifest(const std::string &manifest,
                                  const std::vector<uint8_t> &cubin) {
  Bundle empty;
  std::vector<uint8_t> out(kBundleMagic, kBundleMagic + 8);
  auto put = [&](uint64_t v, int n) {
    for (int i = 0; i < n; ++i)
      out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  put(weave::abi::kAbiVersion, 4);
  put(manifest.size(), 4);
  put(cubin.size(), 8);
  uint64_t h = fnv1a64(reinterpret_cast<const uint8_t *>(manifest.data()),
                       manifest.size());
  put(fnv1a64(cubin.data(), cubin.size(), h), 8);
  out.insert(out.end(), manifest.begin(), manifest.end());
  out.insert(out.end(), cubin.begin(), cubin.end());
  return out;
}

std::string replaceOnce(std::string text, const std::string &from,
                        const std::string &to) {
  size_t pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  if (pos != std::string::npos)
    text.replace(pos, from.size(), to);
  return text;
}

TEST(Bundle, RoundTripInMemory) {
  Bundle b = makeBundle();
  ASSERT_TRUE(verifyBundle(b)) << verifyBundle(b).error().toString();
  std::vector<uint8_t> data = serializeBundle(b);
  auto parsed = parseBundle(data.data(), data.size());
  ASSERT_TRUE(parsed) << parsed.error().toString();
  expectSame(b, *parsed);
  // Serializing again is byte-identical.
  EXPECT_EQ(serializeBundle(*parsed), data);
}

TEST(Bundle, ConfigIsACommentLine) {
  // What the compiler chose travels as `# config: ...` in the kernel's
  // block: parsed back by this reader, skipped by older ones (a comment).
  Bundle b = makeBundle();
  b.kernels[0].config = "matmul_pipeline tile=128x256x64\r\nstages=4 ";
  std::vector<uint8_t> data = serializeBundle(b);
  std::string text(data.begin(), data.end());
  EXPECT_NE(text.find("\n  # config: matmul_pipeline tile=128x256x64  "
                      "stages=4\n"),
            std::string::npos)
      << text;
  auto parsed = parseBundle(data.data(), data.size());
  ASSERT_TRUE(parsed) << parsed.error().toString();
  // One line: control characters as spaces, no trailing space.
  EXPECT_EQ(parsed->kernels[0].config,
            "matmul_pipeline tile=128x256x64  stages=4");
  EXPECT_EQ(serializeBundle(*parsed), data);
  // A comment elsewhere is no config.
  Bundle plain = makeBundle();
  auto again = parseBundle(serializeBundle(plain).data(),
                           serializeBundle(plain).size());
  ASSERT_TRUE(again);
  EXPECT_EQ(again->kernels[0].config, "");
}

TEST(Bundle, RoundTripThroughFile) {
  Bundle b = makeBundle();
  std::string path = ::testing::TempDir() + "/weave_bundle_test_" +
                     std::to_string(getpid()) + ".wbundle";
  ASSERT_TRUE(writeBundleFile(path, b));
  auto read = readBundleFile(path);
  ASSERT_TRUE(read) << read.error().toString();
  expectSame(b, *read);
  std::remove(path.c_str());
  auto missing = readBundleFile(path);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), ErrorCode::NotFound);
}

//===----------------------------------------------------------------------===//
// readBundleFile: regular files only, bounded, never blocking
//===----------------------------------------------------------------------===//

std::string tempPath(const std::string &name) {
  return ::testing::TempDir() + "/weave_bundle_test_" +
         std::to_string(getpid()) + "_" + name;
}

void expectUnreadable(const std::string &path, ErrorCode code,
                      const std::string &needle) {
  auto start = std::chrono::steady_clock::now();
  auto read = readBundleFile(path);
  auto seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  ASSERT_FALSE(read) << path;
  EXPECT_EQ(read.error().code(), code) << read.error().toString();
  EXPECT_NE(read.error().message().find(needle), std::string::npos)
      << read.error().message();
  EXPECT_LT(seconds, 1.0) << "reading '" << path << "' took that long";
}

TEST(BundleFile, DirectoryIsAnErrorNotAnException) {
  std::string dir = tempPath("dir.wbundle");
  ASSERT_EQ(mkdir(dir.c_str(), 0700), 0);
  expectUnreadable(dir, ErrorCode::InvalidArgument,
                   "cannot read bundle '" + dir +
                       "': expected a regular file, found a directory");
  rmdir(dir.c_str());
}

TEST(BundleFile, FifoDoesNotBlock) {
  std::string fifo = tempPath("fifo.wbundle");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // If the reader blocks in open() waiting for a writer, this writer lets
  // it go after 3 s, so that the test fails on the elapsed time instead of
  // hanging.
  std::atomic<bool> done{false};
  std::thread unblocker([&] {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    while (!done && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    while (!done) {
      int fd = open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
      if (fd >= 0) {
        close(fd);
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  expectUnreadable(fifo, ErrorCode::InvalidArgument,
                   "expected a regular file, found a FIFO");
  done = true;
  unblocker.join();
  std::remove(fifo.c_str());
}

TEST(BundleFile, CharacterDeviceIsNotRead) {
  // /dev/zero never ends: reading it to EOF used to grow without bound.
  expectUnreadable("/dev/zero", ErrorCode::InvalidArgument,
                   "cannot read bundle '/dev/zero': expected a regular file, "
                   "found a character device");
}

TEST(BundleFile, LinkToCharacterDeviceIsNotRead) {
  std::string link = tempPath("zero.wbundle");
  ASSERT_EQ(symlink("/dev/zero", link.c_str()), 0);
  expectUnreadable(link, ErrorCode::InvalidArgument,
                   "expected a regular file, found a character device");
  std::remove(link.c_str());
}

TEST(BundleFile, OverLimitIsNotRead) {
  // A sparse file one byte over the limit: rejected from its size, without
  // reading (or allocating) its gigabyte.
  std::string path = tempPath("huge.wbundle");
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, static_cast<off_t>(kMaxBundleFileBytes + 1)), 0);
  close(fd);
  expectUnreadable(path, ErrorCode::InvalidBundle,
                   "expected at most 1073741824 bytes, found 1073741825");
  std::remove(path.c_str());
}

TEST(BundleFile, EmptyFileIsTruncated) {
  std::string path = tempPath("empty.wbundle");
  std::ofstream(path, std::ios::binary).close();
  expectUnreadable(path, ErrorCode::InvalidBundle,
                   "expected at least 32 header bytes, found 0");
  std::remove(path.c_str());
}

TEST(Bundle, ManifestIsReadableText) {
  std::string text = printManifest(makeBundle());
  EXPECT_NE(text.find("kernel ag_matmul\n"), std::string::npos);
  EXPECT_NE(text.find("  grid 132 2 1\n"), std::string::npos);
  EXPECT_NE(text.find("param symmetric a dtype=f16 shape=1024,4096 align=16"),
            std::string::npos);
  EXPECT_NE(text.find("param tma a_peer source=1 box=64,128 swizzle=128 "
                      "view=peer offset=-1"),
            std::string::npos);
  EXPECT_NE(text.find("param semaphore sems count=8"), std::string::npos);
}

TEST(Bundle, WriteRefusesInvalidBundle) {
  Bundle b = makeBundle();
  b.kernels[0].block = {0, 1, 1};
  std::string path = ::testing::TempDir() + "/weave_never_written.wbundle";
  Status status = writeBundleFile(path, b);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().code(), ErrorCode::InvalidBundle);
  EXPECT_NE(access(path.c_str(), F_OK), 0);
}

//===----------------------------------------------------------------------===//
// Corrupted files
//===----------------------------------------------------------------------===//

TEST(BundleCorruption, TruncatedHeader) {
  std::vector<uint8_t> data = serializeBundle(makeBundle());
  data.resize(10);
  expectInvalid(data, "expected at least 32 header bytes, found 10");
}

TEST(BundleCorruption, TruncatedPayload) {
  std::vector<uint8_t> data = serializeBundle(makeBundle());
  data.resize(data.size() - 5);
  expectInvalid(data, "truncated bundle");
}

TEST(BundleCorruption, TrailingBytes) {
  std::vector<uint8_t> data = serializeBundle(makeBundle());
  data.push_back(0);
  expectInvalid(data, "1 trailing bytes");
}

TEST(BundleCorruption, WrongMagic) {
  std::vector<uint8_t> data = serializeBundle(makeBundle());
  data[5] = 'X';
  expectInvalid(data, "bad magic: expected 'WEAVEBND', found 'WEAVEXND'");
}

TEST(BundleCorruption, WrongVersion) {
  std::vector<uint8_t> data = serializeBundle(makeBundle());
  data[8] = 99;
  expectInvalid(data, "expected " + std::to_string(weave::abi::kAbiVersion) +
                          ", found 99");
}

TEST(BundleCorruption, ManifestSizeExceedsFile) {
  std::vector<uint8_t> data = serializeBundle(makeBundle());
  data[12] = 0xff;
  data[13] = 0xff;
  data[14] = 0xff;
  expectInvalid(data, "truncated bundle: header declares");
}

TEST(BundleCorruption, CubinSizeExceedsFile) {
  std::vector<uint8_t> data = serializeBundle(makeBundle());
  data[23] = 0x80; // huge u64, must not overflow the bounds check
  expectInvalid(data, "truncated bundle: header declares");
}

TEST(BundleCorruption, ChecksumMismatchInCubin) {
  std::vector<uint8_t> data = serializeBundle(makeBundle());
  data[data.size() - 1] ^= 0x40;
  expectInvalid(data, "checksum mismatch");
}

TEST(BundleCorruption, ChecksumMismatchInManifest) {
  std::vector<uint8_t> data = serializeBundle(makeBundle());
  data[kBundleHeaderBytes + 3] ^= 0x01;
  expectInvalid(data, "checksum mismatch");
}

//===----------------------------------------------------------------------===//
// Manifest syntax
//===----------------------------------------------------------------------===//

class ManifestSyntax : public ::testing::Test {
protected:
  std::string manifest = printManifest(makeBundle());
  std::vector<uint8_t> cubin = makeBundle().cubin;
  void expectRejected(const std::string &from, const std::string &to,
                      const std::string &needle) {
    expectInvalid(withManifest(replaceOnce(manifest, from, to), cubin), needle);
  }
};

TEST_F(ManifestSyntax, AcceptsCommentsAndBlankLines) {
  std::string text = "# written by hand\n\n" + manifest;
  auto data = withManifest(text, cubin);
  auto parsed = parseBundle(data.data(), data.size());
  ASSERT_TRUE(parsed) << parsed.error().toString();
}

TEST_F(ManifestSyntax, MissingHeader) {
  std::string header =
      "weave-manifest " + std::to_string(weave::abi::kAbiVersion);
  expectRejected(header + "\n", "", "expected '" + header + "'");
}

TEST_F(ManifestSyntax, WrongManifestVersion) {
  std::string version = std::to_string(weave::abi::kAbiVersion);
  expectRejected("weave-manifest " + version, "weave-manifest 7",
                 "expected manifest version " + version + ", found '7'");
}

TEST_F(ManifestSyntax, UnknownTopLevelKeyword) {
  expectRejected("arch sm_90a", "arch sm_90a\nflavour spicy",
                 "line 3: unknown keyword 'flavour'");
}

TEST_F(ManifestSyntax, UnknownKernelKeyword) {
  expectRejected("  grid 132 2 1", "  gird 132 2 1",
                 "unknown keyword 'gird' in kernel 'ag_matmul'");
}

TEST_F(ManifestSyntax, UnknownParamKind) {
  expectRejected("param scalar alpha", "param scaler alpha",
                 "unknown parameter kind 'scaler'");
}

TEST_F(ManifestSyntax, UnknownDtype) {
  expectRejected("alpha dtype=f32", "alpha dtype=f8", "unknown dtype 'f8'");
}

TEST_F(ManifestSyntax, UnknownParamKey) {
  expectRejected("alpha dtype=f32", "alpha dtype=f32 colour=red",
                 "unknown key 'colour' for scalar parameter 'alpha'");
}

TEST_F(ManifestSyntax, BadNumber) {
  expectRejected("  block 384 1 1", "  block 384 1 x",
                 "expected an unsigned 32-bit integer in 'block', found 'x'");
}

TEST_F(ManifestSyntax, MissingEnd) {
  std::string text = manifest.substr(0, manifest.rfind("end\n"));
  expectInvalid(withManifest(text, cubin),
                "ends inside kernel 'signal_only': expected 'end'");
}

TEST_F(ManifestSyntax, DuplicateKernelLine) {
  expectRejected("  smem 200000", "  smem 200000\n  smem 1",
                 "duplicate 'smem' in kernel 'ag_matmul'");
}

TEST_F(ManifestSyntax, TmaWithoutSource) {
  expectRejected("source=1 ", "", "needs source=N");
}

//===----------------------------------------------------------------------===//
// Consistency checks (verifyBundle, also run by parseBundle)
//===----------------------------------------------------------------------===//

TEST(BundleVerify, DuplicateKernelNames) {
  Bundle b = makeBundle();
  b.kernels[1].name = "ag_matmul";
  expectInvalid(b, "duplicate kernel name 'ag_matmul'");
}

TEST(BundleVerify, BlockDimZero) {
  Bundle b = makeBundle();
  b.kernels[0].block = {0, 4, 1};
  expectInvalid(b, "kernel 'ag_matmul': block x is 0, expected 1 to 1024");
}

TEST(BundleVerify, BlockProductTooLarge) {
  Bundle b = makeBundle();
  b.kernels[0].block = {512, 4, 1};
  expectInvalid(b, "has 2048 threads, expected 1 to 1024");
}

TEST(BundleVerify, GridNotMultipleOfCluster) {
  Bundle b = makeBundle();
  b.kernels[0].grid = {131, 2, 1};
  expectInvalid(b, "is not a multiple of cluster");
}

TEST(BundleVerify, PersistentGrid) {
  // grid 0 1 1 (a persistent grid, any cluster width) roundtrips; its y and
  // z must be 1.
  Bundle b = makeBundle();
  b.kernels[0].grid = {KernelInfo::kPersistentGrid, 1, 1};
  ASSERT_TRUE(verifyBundle(b)) << verifyBundle(b).error().toString();
  std::vector<uint8_t> bytes = serializeBundle(b);
  Expected<Bundle> back = parseBundle(bytes.data(), bytes.size());
  ASSERT_TRUE(back) << back.error().toString();
  EXPECT_TRUE(back->kernels[0].persistentGrid());
  b.kernels[0].grid = {KernelInfo::kPersistentGrid, 2, 1};
  expectInvalid(b, "persistent grid 0 2 1 has y or z other than 1");
}

TEST(BundleVerify, PersistentGridCap) {
  // grid_max caps a persistent grid: written only where set, read back;
  // refused on a fixed grid and where it is not whole clusters.
  Bundle b = makeBundle();
  b.kernels[0].grid = {KernelInfo::kPersistentGrid, 1, 1};
  std::string uncapped = printManifest(b);
  EXPECT_EQ(uncapped.find("grid_max"), std::string::npos);
  b.kernels[0].gridMax = 96;
  ASSERT_TRUE(verifyBundle(b)) << verifyBundle(b).error().toString();
  EXPECT_NE(printManifest(b).find("  grid 0 1 1\n  grid_max 96\n"),
            std::string::npos)
      << printManifest(b);
  std::vector<uint8_t> bytes = serializeBundle(b);
  Expected<Bundle> back = parseBundle(bytes.data(), bytes.size());
  ASSERT_TRUE(back) << back.error().toString();
  EXPECT_EQ(back->kernels[0].gridMax, 96u);
  EXPECT_EQ(back->kernels[1].gridMax, 0u);
  b.kernels[0].cluster = {2, 1, 1};
  b.kernels[0].gridMax = 95;
  expectInvalid(b, "grid_max is 95, expected a multiple of cluster x (2)");
  b.kernels[0].cluster = {1, 1, 1};
  b.kernels[0].gridMax = 96;
  b.kernels[0].grid = {96, 1, 1};
  expectInvalid(b, "grid_max 96 with the fixed grid 96 1 1: only a "
                   "persistent grid has a cap");
}

TEST(BundleVerify, TeamParamsMissing) {
  Bundle b = makeBundle();
  b.kernels[1].params.pop_back();
  expectInvalid(b, "expected parameter 2 to be peer_bases");
}

TEST(BundleVerify, TeamParamsOutOfOrder) {
  Bundle b = makeBundle();
  std::swap(b.kernels[1].params[0], b.kernels[1].params[1]);
  expectInvalid(b, "expected parameter 0 ('team_size') to be rank, found "
                   "team_size");
}

TEST(BundleVerify, UserParamAfterTeamParams) {
  Bundle b = makeBundle();
  b.kernels[1].params.push_back(param(weave::abi::ParamKind::Scalar, "late", "i32"));
  expectInvalid(b, "expected parameter 3 ('late') to be tma or tma_table, found scalar");
}

TEST(BundleVerify, TmaBeforeTeamParams) {
  Bundle b = makeBundle();
  auto &params = b.kernels[0].params;
  ParamInfo tma = params.back();
  params.pop_back();
  params.insert(params.begin() + 4, tma);
  expectInvalid(b, "to be rank, found tma");
}

TEST(BundleVerify, TmaSourceNotABuffer) {
  Bundle b = makeBundle();
  b.kernels[0].params[7].tma.sourceParam = 2;
  expectInvalid(b, "source=2 must name a buffer or symmetric parameter, "
                   "found semaphore 'sems'");
}

TEST(BundleVerify, TmaSourceOutOfRange) {
  Bundle b = makeBundle();
  b.kernels[0].params[7].tma.sourceParam = 40;
  expectInvalid(b, "source=40 must name a buffer or symmetric parameter, "
                   "found no such parameter");
}

TEST(BundleVerify, TmaBoxRankDiffers) {
  Bundle b = makeBundle();
  b.kernels[0].params[7].tma.box = {64};
  expectInvalid(b, "box has rank 1 but source 'a' has rank 2");
}

TEST(BundleVerify, TmaBadSwizzle) {
  Bundle b = makeBundle();
  b.kernels[0].params[7].tma.swizzleBytes = 48;
  expectInvalid(b, "swizzle must be 0, 32, 64 or 128, found 48");
}

TEST(BundleVerify, TmaPeerViewOfLocalBuffer) {
  Bundle b = makeBundle();
  b.kernels[0].params[8].tma.isPeerView = true;
  expectInvalid(b, "is a peer view of 'b', which is not symmetric");
}

TEST(BundleVerify, TmaDtypeDiffersFromSource) {
  Bundle b = makeBundle();
  b.kernels[0].params[8].dtype = "f32";
  expectInvalid(b, "dtype 'f32' differs from its source's 'f16'");
}

// A name that is no dtype: the table's one message (parseDType), from
// verifyBundle and from the manifest reader alike.
TEST(BundleVerify, UnknownDtypeIsTheTablesError) {
  Bundle b = makeBundle();
  b.kernels[0].params[0].dtype = "x16";
  expectInvalid(b, "unknown dtype 'x16' (expected f16, bf16, ");
  Status status = verifyBundle(b);
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().message().find(
                "parameter '" + b.kernels[0].params[0].name +
                "': unknown dtype 'x16'"),
            std::string::npos)
      << status.error().message();
}

TEST(BundleVerify, ScalarNeedsFourOrEightBytes) {
  Bundle b = makeBundle();
  b.kernels[0].params[3].dtype = "f16";
  expectInvalid(b, "needs a 4- or 8-byte dtype, found 'f16'");
}

TEST(BundleVerify, SemaphoreNeedsCount) {
  Bundle b = makeBundle();
  b.kernels[0].params[2].semaphoreCount = 0;
  expectInvalid(b, "parameter 'sems' needs count >= 1");
}

TEST(BundleVerify, BufferNeedsShape) {
  Bundle b = makeBundle();
  b.kernels[0].params[0].shape.clear();
  expectInvalid(b, "parameter 'b' needs a shape");
}

TEST(BundleVerify, BadAlignment) {
  Bundle b = makeBundle();
  b.kernels[0].params[1].alignment = 24;
  expectInvalid(b, "alignment 24 is not a power of two >= 16");
}

TEST(BundleVerify, KernelMissingFromCubin) {
  Bundle b = makeBundle();
  b.cubin = makeFakeCubin({"ag_matmul", "other"});
  expectInvalid(b, "kernel 'signal_only' is not in the cubin's symbol table");
}

TEST(BundleVerify, CubinWrongMachine) {
  Bundle b = makeBundle();
  b.cubin = makeFakeCubin({"ag_matmul", "signal_only"}, /*machine=*/62);
  expectInvalid(b, "expected e_machine EM_CUDA (190), found 62");
}

TEST(BundleVerify, CubinNotElf) {
  Bundle b = makeBundle();
  b.cubin = std::vector<uint8_t>(128, 'x');
  expectInvalid(b, "expected ELF magic");
}

TEST(BundleVerify, CubinEmpty) {
  Bundle b = makeBundle();
  b.cubin.clear();
  expectInvalid(b, "bundle has no cubin");
}

TEST(BundleVerify, CubinSectionTableOutOfBounds) {
  Bundle b = makeBundle();
  weave::test::FakeCubinLayout layout;
  b.cubin = makeFakeCubin({"ag_matmul", "signal_only"}, 190, &layout);
  weave::test::putLE(b.cubin, 0x28, b.cubin.size() - 10, 8);
  expectInvalid(b, "section header table");
}

TEST(BundleVerify, CubinSymbolNameOutOfBounds) {
  Bundle b = makeBundle();
  weave::test::FakeCubinLayout layout;
  b.cubin = makeFakeCubin({"ag_matmul", "signal_only"}, 190, &layout);
  weave::test::putLE(b.cubin, layout.symtabOffset + 24, 100000, 4);
  expectInvalid(b, "name offset exceeds its string table");
}

TEST(BundleVerify, CubinSymtabOutOfBounds) {
  Bundle b = makeBundle();
  weave::test::FakeCubinLayout layout;
  b.cubin = makeFakeCubin({"ag_matmul", "signal_only"}, 190, &layout);
  weave::test::putLE(b.cubin, layout.sectionHeaderOffset + 128 + 32,
                     uint64_t(1) << 62, 8);
  expectInvalid(b, "symbol table section 2 exceeds the image");
}

//===----------------------------------------------------------------------===//
// Launch dimensions and sizes: in range, without wrapping
//===----------------------------------------------------------------------===//

TEST(BundleVerify, GridYOverLimit) {
  Bundle b = makeBundle();
  b.kernels[1].grid = {1, 65536, 1};
  expectInvalid(b, "kernel 'signal_only': grid y is 65536, expected 1 to "
                   "65535");
}

TEST(BundleVerify, GridZOverLimit) {
  Bundle b = makeBundle();
  b.kernels[1].grid = {1, 1, 70000};
  expectInvalid(b, "grid z is 70000, expected 1 to 65535");
}

TEST(BundleVerify, GridXOverLimit) {
  Bundle b = makeBundle();
  b.kernels[1].grid = {0x80000000u, 1, 1};
  expectInvalid(b, "grid x is 2147483648, expected 1 to 2147483647");
  b.kernels[1].grid = {0x7fffffffu, 65535, 65535};
  EXPECT_TRUE(verifyBundle(b)) << verifyBundle(b).error().toString();
}

TEST(BundleVerify, BlockZOverLimit) {
  Bundle b = makeBundle();
  b.kernels[1].block = {1, 1, 65};
  expectInvalid(b, "block z is 65, expected 1 to 64");
}

TEST(BundleVerify, ClusterOverSixteenBlocks) {
  Bundle b = makeBundle();
  b.kernels[0].grid = {128, 2, 1};
  b.kernels[0].cluster = {32, 1, 1};
  expectInvalid(b, "kernel 'ag_matmul': cluster 32 1 1 has 32 blocks, "
                   "expected 1 to 8 (or 16 where the device allows "
                   "non-portable cluster sizes)");
  // A non-portable 16-block cluster is the launch's to check.
  b.kernels[0].cluster = {8, 2, 1};
  EXPECT_TRUE(verifyBundle(b)) << verifyBundle(b).error().toString();
}

TEST(BundleVerify, ClusterProductDoesNotWrap) {
  // 65536 * 65536 wraps a 32-bit product to 0, which used to pass.
  Bundle b = makeBundle();
  b.kernels[1].grid = {0x40000000u, 1, 1};
  b.kernels[1].cluster = {0x40000000u, 1, 1};
  expectInvalid(b, "has 1073741824 blocks, expected 1 to 8");
  EXPECT_EQ(b.kernels[1].clusterBlocks(), 0x40000000u);
  b.kernels[1].cluster = {65536, 65536, 1};
  EXPECT_EQ(b.kernels[1].clusterBlocks(), uint64_t(1) << 32);
}

TEST(BundleVerify, ClusterDimZero) {
  Bundle b = makeBundle();
  b.kernels[1].cluster = {1, 0, 1};
  expectInvalid(b, "cluster y is 0, expected at least 1");
}

TEST(BundleVerify, ShapeByteSizeOverflows) {
  // 2^96 f32 elements: the byte size used to wrap to 0, so any buffer
  // (even none) passed the size check.
  Bundle b = makeBundle();
  b.kernels[0].params[0].shape = {int64_t(1) << 32, int64_t(1) << 32,
                                  int64_t(1) << 32};
  b.kernels[0].params.resize(7); // no TMA views of it
  expectInvalid(b, "kernel 'ag_matmul': parameter 'b' of shape "
                   "4294967296,4294967296,4294967296 x f16 has a byte size "
                   "that overflows 63 bits");
  EXPECT_EQ(tensorBytes(b.kernels[0].params[0]), UINT64_MAX);
}

TEST(BundleVerify, ShapeByteSizeOverflowsSignedOffsets) {
  // 2^62 f16 elements are 2^63 bytes: fits u64 but not the kernels' i64.
  Bundle b = makeBundle();
  b.kernels[0].params[0].shape = {int64_t(1) << 62};
  b.kernels[0].params.resize(7);
  expectInvalid(b, "has a byte size that overflows 63 bits");
  b.kernels[0].params[0].shape = {(int64_t(1) << 62) - 1};
  EXPECT_TRUE(verifyBundle(b)) << verifyBundle(b).error().toString();
}

TEST_F(ManifestSyntax, ShapeOverflowInFileWithValidChecksum) {
  // The reproducer: a valid checksum over an overflowing shape.
  expectRejected("shape=4096,512", "shape=4294967296,4294967296,4294967296",
                 "parameter 'b' of shape 4294967296,4294967296,4294967296 x "
                 "f16 has a byte size that overflows 63 bits");
}

TEST(BundleVerify, ParameterSpaceExceeded) {
  // 300 TMA descriptors are 38400 bytes of parameters.
  Bundle b = makeBundle();
  ParamInfo desc = b.kernels[0].params[8];
  for (int i = 0; i < 300; ++i) {
    desc.name = "d" + std::to_string(i);
    b.kernels[0].params.push_back(desc);
  }
  expectInvalid(b, "kernel 'ag_matmul': parameters take 38720 bytes, "
                   "expected at most 32764");
  EXPECT_EQ(paramBlockBytes(b.kernels[0]), 38720u);
}

TEST(BundleVerify, ParamBlockBytesMatchesTheLayout) {
  // ag_matmul: 3 pointers and an f32 (28 bytes), rank and team_size (36),
  // peer_bases at 40 (48), then two descriptors at 64 and 192.
  const KernelInfo &k = makeBundle().kernels[0];
  EXPECT_EQ(paramBlockBytes(k), 320u);
}

TEST_F(ManifestSyntax, TooManyParameters) {
  // Stopped while parsing, before the parameters are all allocated.
  std::string params;
  for (int i = 0; i < 9000; ++i)
    params += "  param scalar s" + std::to_string(i) + " dtype=i32\n";
  expectRejected("  param rank rank", params + "  param rank rank",
                 "kernel 'ag_matmul' has more than 8191 parameters, which "
                 "exceed the 32764-byte launch parameter space");
}

TEST(BundleVerify, Fnv1aKnownValues) {
  // Reference values of FNV-1a 64.
  EXPECT_EQ(fnv1a64(nullptr, 0), 0xcbf29ce484222325ull);
  const uint8_t a[] = {'a'};
  EXPECT_EQ(fnv1a64(a, 1), 0xaf63dc4c8601ec8cull);
  const uint8_t foobar[] = {'f', 'o', 'o', 'b', 'a', 'r'};
  EXPECT_EQ(fnv1a64(foobar, 6), 0x85944171f73967e8ull);
}

//===----------------------------------------------------------------------===//
// TMA layout
//===----------------------------------------------------------------------===//

TEST(TmaLayout, RowMajorToInnermostFirst) {
  ParamInfo src = param(weave::abi::ParamKind::Symmetric, "a", "f16", {1024, 4096});
  ParamInfo tma = param(weave::abi::ParamKind::Tma, "a_desc");
  tma.tma.box = {64, 128};
  tma.tma.swizzleBytes = 128;
  auto layout = computeTmaLayout(tma, src);
  ASSERT_TRUE(layout) << layout.error().toString();
  EXPECT_EQ(layout->rank, 2u);
  EXPECT_EQ(layout->dataType, TmaDataType::F16);
  EXPECT_EQ(layout->elementBytes, 2u);
  EXPECT_EQ(layout->globalDim[0], 4096u);
  EXPECT_EQ(layout->globalDim[1], 1024u);
  EXPECT_EQ(layout->globalStride[0], 4096u * 2);
  EXPECT_EQ(layout->boxDim[0], 64u);
  EXPECT_EQ(layout->boxDim[1], 128u);
  EXPECT_EQ(layout->swizzleBytes, 128u);
  EXPECT_EQ(layout->l2PromotionBytes, 256u);
}

TEST(TmaLayout, L2PromotionFollowsThePitch) {
  // 256-byte L2 promotion only when every row pitch is on the 256-byte
  // grid, else 128.
  auto promotion = [](std::vector<int64_t> shape, std::vector<uint64_t> box) {
    ParamInfo tma = param(weave::abi::ParamKind::Tma, "b_desc");
    tma.tma.box = std::move(box);
    auto layout = computeTmaLayout(
        tma, param(weave::abi::ParamKind::Buffer, "b", "f16", std::move(shape)));
    EXPECT_TRUE(layout) << layout.error().toString();
    return layout ? layout->l2PromotionBytes : 0u;
  };
  // Rows of 4040 f16 (8080 bytes) are 16-byte aligned only.
  EXPECT_EQ(promotion({4000, 4040}, {64, 64}), 128u);
  // Rows of 72 f16 are 144 bytes (planes 1152).
  EXPECT_EQ(promotion({4, 8, 72}, {64, 8, 1}), 128u);
  EXPECT_EQ(promotion({4, 8, 128}, {64, 8, 1}), 256u);
}

TEST(TmaLayout, ThreeDimStrides) {
  ParamInfo src = param(weave::abi::ParamKind::Buffer, "x", "f32", {3, 8, 32});
  ParamInfo tma = param(weave::abi::ParamKind::Tma, "x_desc");
  tma.tma.box = {32, 8, 1};
  auto layout = computeTmaLayout(tma, src);
  ASSERT_TRUE(layout) << layout.error().toString();
  EXPECT_EQ(layout->globalDim[0], 32u);
  EXPECT_EQ(layout->globalDim[2], 3u);
  EXPECT_EQ(layout->globalStride[0], 32u * 4);
  EXPECT_EQ(layout->globalStride[1], 32u * 8 * 4);
}

TEST(TmaLayout, StrideOverflowIsNotZero) {
  // f16 [2^32, 2^32, 2^32]: the plane stride 2 * 2^32 * 2^32 wrapped to 0,
  // which passed both the "multiple of 16" and the "< 2^40" rules. With
  // dims of at most 2^31 - 1: f32 [2, 2^31 - 1, 2^31 - 1, 8], stride 32 *
  // (2^31 - 1)^2, about 2^67.
  constexpr int64_t kMaxDim = (int64_t(1) << 31) - 1;
  ParamInfo src = param(weave::abi::ParamKind::Buffer, "x", "f32",
                        {2, kMaxDim, kMaxDim, 8});
  ParamInfo tma = param(weave::abi::ParamKind::Tma, "x_desc");
  tma.tma.box = {8, 1, 1, 1};
  auto layout = computeTmaLayout(tma, src);
  ASSERT_FALSE(layout) << "stride[2] = " << layout->globalStride[2];
  EXPECT_NE(layout.error().message().find(
                "tma parameter 'x_desc': global stride of dimension 3 "
                "overflows 64 bits, expected less than 2^40"),
            std::string::npos)
      << layout.error().message();
}

TEST(TmaLayout, StrideLimit) {
  // f16 [2, 2^31 - 1, 128]: plane pitch 256 * (2^31 - 1) bytes, under
  // 2^40.
  constexpr int64_t kMaxDim = (int64_t(1) << 31) - 1;
  ParamInfo src = param(weave::abi::ParamKind::Buffer, "x", "f16",
                        {2, kMaxDim, 128});
  ParamInfo tma = param(weave::abi::ParamKind::Tma, "x_desc");
  tma.tma.box = {8, 1, 1};
  auto fits = computeTmaLayout(tma, src);
  ASSERT_TRUE(fits) << fits.error().toString();
  EXPECT_EQ(fits->globalStride[1], uint64_t(256) * kMaxDim);
  // f16 [2, 2^31 - 1, 264]: plane pitch 528 * (2^31 - 1) bytes, over.
  src.shape = {2, kMaxDim, 264};
  auto layout = computeTmaLayout(tma, src);
  ASSERT_FALSE(layout);
  EXPECT_NE(layout.error().message().find(
                "global stride of dimension 2 is 1133871365616 bytes, "
                "expected less than 2^40"),
            std::string::npos)
      << layout.error().message();
}

TEST(TmaLayout, GlobalDimAndRankLimits) {
  ParamInfo tma = param(weave::abi::ParamKind::Tma, "x_desc");
  tma.tma.box = {8, 1};
  auto error = [&](std::vector<int64_t> shape) {
    auto layout = computeTmaLayout(tma, param(weave::abi::ParamKind::Buffer,
                                              "x", "f16", std::move(shape)));
    return layout ? std::string() : layout.error().message();
  };
  // A coordinate past INT32_MAX is clamped to it in the kernel: a dim of
  // 2^31 would make that clamped box land on its last element.
  EXPECT_EQ(error({int64_t(1) << 31, 8}),
            "tma parameter 'x_desc': global dimension 1 is 2147483648, "
            "expected 1 to 2^31 - 1 (TMA coordinates are signed 32-bit)");
  EXPECT_EQ(error({(int64_t(1) << 31) - 1, 8}), "");
  EXPECT_EQ(error({1, 1, 1, 1, 1, 8}),
            "tma parameter 'x_desc': source 'x' has rank 6, expected 1 to 5");
}

TEST(TmaLayout, Rejections) {
  ParamInfo src = param(weave::abi::ParamKind::Buffer, "x", "f16", {64, 100});
  ParamInfo tma = param(weave::abi::ParamKind::Tma, "x_desc");
  tma.tma.box = {64, 64};
  auto expectError = [&](const std::string &needle) {
    auto layout = computeTmaLayout(tma, src);
    ASSERT_FALSE(layout) << needle;
    EXPECT_NE(layout.error().message().find(needle), std::string::npos)
        << layout.error().message();
  };
  // 100 f16 = 200 bytes row stride, not a multiple of 16.
  expectError("global stride of dimension 1 is 200 bytes");
  src.shape = {64, 128};
  tma.tma.box = {300, 1};
  expectError("box dimension 0 is 300, expected 1 to 256");
  tma.tma.box = {4, 1};
  expectError("innermost box dimension is 8 bytes, expected a multiple of 16");
  tma.tma.box = {128, 1};
  tma.tma.swizzleBytes = 64;
  expectError("256 bytes, more than the 64-byte swizzle span");
  src.dtype = "i32";
  expectError("expected f16, bf16 or f32");
  tma.tma.swizzleBytes = 0;
  src.dtype = "f16";
  EXPECT_TRUE(computeTmaLayout(tma, src));
  EXPECT_FALSE(checkTmaAddress(tma, 0x1008));
  EXPECT_TRUE(checkTmaAddress(tma, 0x1010));
}

} // namespace

//===----------------------------------------------------------------------===//
// Per-member tensor-map tables (tma_table)
//===----------------------------------------------------------------------===//

namespace {

/// A kernel with a symmetric accumulator, a local buffer, a peer view and a
/// per-member table over the accumulator.
Bundle makeTableBundle() {
  Bundle b;
  b.arch = "sm_90a";
  KernelInfo k;
  k.name = "rs";
  k.block = {384, 1, 1};
  k.params.push_back(
      param(weave::abi::ParamKind::Symmetric, "acc", "f32", {256, 320}));
  k.params.push_back(param(weave::abi::ParamKind::Buffer, "b", "f16", {64, 64}));
  addTeamParams(k);
  ParamInfo view = param(weave::abi::ParamKind::Tma, "acc.tma0", "f32");
  view.tma.sourceParam = 0;
  view.tma.box = {32, 64};
  view.tma.swizzleBytes = 128;
  view.tma.isPeerView = true;
  view.tma.peerOffset = 1;
  k.params.push_back(view);
  ParamInfo table = param(weave::abi::ParamKind::TmaTable, "acc.tma_table1", "f32");
  table.tma.sourceParam = 0;
  table.tma.box = {32, 64};
  table.tma.swizzleBytes = 128;
  k.params.push_back(table);
  b.kernels.push_back(k);
  b.cubin = makeFakeCubin({"rs"});
  return b;
}

} // namespace

TEST(TmaTable, ManifestRoundTrip) {
  Bundle b = makeTableBundle();
  std::string text = printManifest(b);
  EXPECT_NE(text.find("  param tma_table acc.tma_table1 dtype=f32 source=0 "
                      "box=32,64 swizzle=128\n"),
            std::string::npos)
      << text;
  auto data = serializeBundle(b);
  auto parsed = parseBundle(data.data(), data.size());
  ASSERT_TRUE(parsed) << parsed.error().toString();
  expectSame(b, *parsed);
  EXPECT_EQ(parsed->kernels[0].params[6].kind, weave::abi::ParamKind::TmaTable);
}

TEST(TmaTable, HandWrittenManifest) {
  std::string manifest = "weave-manifest " +
                         std::to_string(weave::abi::kAbiVersion) +
                         "\narch sm_90a\nkernel rs\n  block 384 1 1\n"
                         "  param symmetric acc dtype=f32 shape=?,320\n"
                         "  param rank rank\n  param team_size team_size\n"
                         "  param peer_bases peer_bases\n"
                         "  param dim acc.dim0 source=0 axis=0\n"
                         "  param tma_table acc.tma_table0 source=0 box=32,64 "
                         "swizzle=128\nend\n";
  auto data = withManifest(manifest, makeFakeCubin({"rs"}));
  auto parsed = parseBundle(data.data(), data.size());
  ASSERT_TRUE(parsed) << parsed.error().toString();
  const KernelInfo &k = parsed->kernels[0];
  ASSERT_EQ(k.params.size(), 6u);
  const ParamInfo &table = k.params[5];
  EXPECT_EQ(table.kind, weave::abi::ParamKind::TmaTable);
  EXPECT_EQ(table.tma.sourceParam, 0u);
  EXPECT_EQ(table.tma.box, (std::vector<uint64_t>{32, 64}));
  EXPECT_EQ(table.tma.swizzleBytes, 128u);
  EXPECT_FALSE(table.tma.isPeerView);
  // A pointer in the launch block: 8 bytes at 8-byte alignment, after the
  // i64 dim at 24 (acc 0, rank 8, team_size 12, peer_bases 16, dim 24).
  EXPECT_EQ(paramBytes(table), 8u);
  EXPECT_EQ(paramBlockBytes(k), 40u);
}

TEST(TmaTable, ManifestRejectsViewAndMissingSource) {
  std::string manifest = printManifest(makeTableBundle());
  std::vector<uint8_t> cubin = makeTableBundle().cubin;
  std::string line = "param tma_table acc.tma_table1 dtype=f32 source=0 ";
  expectInvalid(withManifest(replaceOnce(manifest, line, line + "view=peer "),
                             cubin),
                "unknown key 'view' for tma_table parameter 'acc.tma_table1'");
  expectInvalid(
      withManifest(replaceOnce(manifest, line,
                               "param tma_table acc.tma_table1 dtype=f32 "),
                   cubin),
      "tma_table parameter 'acc.tma_table1' needs source=N");
}

TEST(TmaTable, VerifyRejectsLocalSourceAndBadLayout) {
  Bundle b = makeTableBundle();
  b.kernels[0].params[6].tma.sourceParam = 1;
  b.kernels[0].params[6].dtype = "f16";
  b.kernels[0].params[6].tma.box = {64, 64};
  expectInvalid(b, "parameter 'acc.tma_table1' is a per-member table over "
                   "'b', which is not symmetric");
  Bundle wide = makeTableBundle();
  wide.kernels[0].params[6].tma.box = {64, 64}; // 256 bytes > 128 swizzle
  expectInvalid(wide, "more than the 128-byte swizzle span");
}

TEST(TmaTable, VerifyRejectsTableBeforeTeamParams) {
  Bundle b = makeTableBundle();
  auto &params = b.kernels[0].params;
  std::rotate(params.begin() + 2, params.begin() + 6, params.end());
  expectInvalid(b, "expected parameter 2 ('acc.tma_table1') to be rank");
}

/// A store `on %device` with a device known only at run time and a static
/// team of D: weave-peer-view-stores sends distance k = (device + D - rank)
/// mod D below 8 through the peer view of offset k (the manifest's
/// `view=peer offset=k`; k = 0 the local map), the rest through the table's
/// entry `device`. The member the host encodes each peer view for is then
/// the device the kernel meant, for every rank and device of teams of 1 to
/// 12 (12: distances 8 to 11 through the table). And offsets below zero
/// (`num_devices - k`) wrap as the floored modulo.
TEST(TmaPeerView, DistanceSwitchReachesTheDevice) {
  for (uint32_t team : {1u, 2u, 3u, 4u, 8u, 12u}) {
    int byValue = 0, byTable = 0;
    for (uint32_t rank = 0; rank < team; ++rank)
      for (uint32_t device = 0; device < team; ++device) {
        uint32_t k = (device + team - rank) % team;
        if (k >= 8) {
          ++byTable;
          continue;
        }
        ++byValue;
        uint32_t member =
            k == 0 ? rank : TmaInfo::peerMember(rank, int32_t(k), team);
        EXPECT_EQ(member, device) << "team " << team << ", rank " << rank
                                  << ", distance " << k;
      }
    EXPECT_EQ(byTable, team > 8 ? int(team * (team - 8)) : 0) << team;
    EXPECT_EQ(byValue + byTable, int(team * team));
  }
  EXPECT_EQ(TmaInfo::peerMember(0, -1, 4), 3u);
  EXPECT_EQ(TmaInfo::peerMember(1, -2, 3), 2u);
  EXPECT_EQ(TmaInfo::peerMember(5, 7, 12), 0u);
}

TEST(TmaTable, PlanEntriesInMemberOrder) {
  Bundle b = makeTableBundle();
  const ParamInfo &table = b.kernels[0].params[6];
  ParamInfo source = b.kernels[0].params[0];
  std::vector<uint64_t> addresses{0x7f0000000000, 0x7f0100000000,
                                  0x7f0200000000};
  auto plan = planTmaTable(table, source, addresses);
  ASSERT_TRUE(plan) << plan.error().toString();
  EXPECT_EQ(plan->bytes, 3u * 128u);
  EXPECT_EQ(plan->addresses, addresses);
  EXPECT_EQ(plan->layout.rank, 2u);
  EXPECT_EQ(plan->layout.globalDim[0], 320u);
  EXPECT_EQ(plan->layout.globalDim[1], 256u);
  EXPECT_EQ(plan->layout.globalStride[0], 320u * 4u);
  EXPECT_EQ(plan->layout.boxDim[0], 32u);
  EXPECT_EQ(plan->layout.boxDim[1], 64u);
  EXPECT_EQ(plan->layout.swizzleBytes, 128u);
  // A launch shape for a dynamic source: the plan takes its sizes.
  source.shape = {1000, 320};
  auto launched = planTmaTable(table, source, addresses);
  ASSERT_TRUE(launched);
  EXPECT_EQ(launched->layout.globalDim[1], 1000u);
  EXPECT_TRUE(launched->layout.complete);
}

TEST(TmaTable, PlanRejectsMisalignedMemberAndWrongKind) {
  Bundle b = makeTableBundle();
  const ParamInfo &table = b.kernels[0].params[6];
  const ParamInfo &source = b.kernels[0].params[0];
  auto plan = planTmaTable(table, source, {0x1000, 0x2008});
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().code(), ErrorCode::InvalidArgument);
  EXPECT_NE(plan.error().message().find(
                "member 1's copy of 'acc' at 0x2008 is not 16-byte aligned"),
            std::string::npos)
      << plan.error().message();
  auto empty = planTmaTable(table, source, {});
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message().find("at least one member"),
            std::string::npos);
  auto view = planTmaTable(b.kernels[0].params[5], source, {0x1000});
  ASSERT_FALSE(view);
  EXPECT_NE(view.error().message().find("expected a tma_table parameter"),
            std::string::npos);
}
