//===- Bundle.cpp - Bundle writer, reader and verifier --------------------===//
//
// Layout (little-endian), see docs/BUNDLE.md:
//   0  char[8] "WEAVEBND"
//   8  u32     format version (abi::kAbiVersion)
//  12  u32     manifest byte size
//  16  u64     cubin byte size
//  24  u64     FNV-1a 64 of manifest bytes followed by cubin bytes
//  32  manifest (UTF-8 text), then the cubin
//
//===----------------------------------------------------------------------===//

#include "weave/runtime/Bundle.h"
#include "weave/runtime/TmaLayout.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace weave {

namespace {

Error bundleError(const std::string &message) {
  return Error(ErrorCode::InvalidBundle, message);
}

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

const std::map<std::string, abi::ParamKind> &kindsByName() {
  static const std::map<std::string, abi::ParamKind> kinds = {
      {"buffer", abi::ParamKind::Buffer},
      {"symmetric", abi::ParamKind::Symmetric},
      {"semaphore", abi::ParamKind::Semaphore},
      {"scalar", abi::ParamKind::Scalar},
      {"rank", abi::ParamKind::Rank},
      {"team_size", abi::ParamKind::TeamSize},
      {"peer_bases", abi::ParamKind::PeerBases},
      {"tma", abi::ParamKind::Tma},
      {"dim", abi::ParamKind::Dim}};
  return kinds;
}

bool isUserKind(abi::ParamKind kind) {
  return kind == abi::ParamKind::Buffer || kind == abi::ParamKind::Symmetric ||
         kind == abi::ParamKind::Semaphore || kind == abi::ParamKind::Scalar;
}

bool isValidName(const std::string &name) {
  if (name.empty())
    return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
          c == '$'))
      return false;
  return true;
}

template <typename T> std::string joinList(const std::vector<T> &values) {
  std::string text;
  for (size_t i = 0; i < values.size(); ++i)
    text += (i ? "," : "") + std::to_string(values[i]);
  return text;
}

/// A shape as the manifest writes it: `?` for a dynamic dimension.
std::string joinShape(const std::vector<int64_t> &shape) {
  std::string text;
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "," : "") + (shape[i] == abi::kDynamicDim
                                  ? std::string("?")
                                  : std::to_string(shape[i]));
  return text;
}

std::string dims(const std::array<uint32_t, 3> &d) {
  return std::to_string(d[0]) + " " + std::to_string(d[1]) + " " +
         std::to_string(d[2]);
}

bool parseUnsigned(const std::string &text, uint64_t max, uint64_t &out) {
  if (text.empty() || text.size() > 20)
    return false;
  for (char c : text)
    if (c < '0' || c > '9')
      return false;
  errno = 0;
  unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE || v > max)
    return false;
  out = v;
  return true;
}

bool parseSigned(const std::string &text, int64_t min, int64_t max,
                 int64_t &out) {
  std::string digits = text;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
    negative = digits[0] == '-';
    digits = digits.substr(1);
  }
  uint64_t magnitude;
  if (!parseUnsigned(digits, uint64_t(1) << 62, magnitude))
    return false;
  int64_t v = negative ? -static_cast<int64_t>(magnitude)
                       : static_cast<int64_t>(magnitude);
  if (v < min || v > max)
    return false;
  out = v;
  return true;
}

std::vector<std::string> splitWords(const std::string &line) {
  std::vector<std::string> words;
  std::istringstream stream(line);
  std::string word;
  while (stream >> word)
    words.push_back(word);
  return words;
}

std::vector<std::string> splitList(const std::string &text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    items.push_back(text.substr(start, comma - start));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  return items;
}

/// The most parameters a kernel can have: each takes at least 4 bytes.
constexpr size_t kMaxParams = abi::kMaxParamBlockBytes / 4;

/// Line-oriented manifest parser.
class ManifestParser {
public:
  explicit ManifestParser(const std::string &text) : text_(text) {}
  Status parse(Bundle &bundle);

private:
  Error lineError(const std::string &message) const {
    return bundleError("manifest line " + std::to_string(lineNo_) + ": " +
                       message);
  }
  Status parseDims(const std::vector<std::string> &words,
                   std::array<uint32_t, 3> &out);
  Status parseScalarLine(const std::vector<std::string> &words, uint32_t &out);
  Status parseParam(const std::vector<std::string> &words, ParamInfo &param);

  const std::string &text_;
  size_t lineNo_ = 0;
};

Status ManifestParser::parseDims(const std::vector<std::string> &words,
                                 std::array<uint32_t, 3> &out) {
  if (words.size() != 4)
    return lineError("expected '" + words[0] + " X Y Z' (3 values), found " +
                     std::to_string(words.size() - 1) + " value(s)");
  for (int i = 0; i < 3; ++i) {
    uint64_t v;
    if (!parseUnsigned(words[i + 1], UINT32_MAX, v))
      return lineError("expected an unsigned 32-bit integer in '" + words[0] +
                       "', found '" + words[i + 1] + "'");
    out[i] = static_cast<uint32_t>(v);
  }
  return ok();
}

Status ManifestParser::parseScalarLine(const std::vector<std::string> &words,
                                       uint32_t &out) {
  uint64_t v;
  if (words.size() != 2 || !parseUnsigned(words[1], UINT32_MAX, v))
    return lineError("expected '" + words[0] +
                     " N' with an unsigned 32-bit integer");
  out = static_cast<uint32_t>(v);
  return ok();
}

Status ManifestParser::parseParam(const std::vector<std::string> &words,
                                  ParamInfo &param) {
  if (words.size() < 3)
    return lineError("expected 'param KIND NAME [key=value...]'");
  auto kindIt = kindsByName().find(words[1]);
  if (kindIt == kindsByName().end())
    return lineError("unknown parameter kind '" + words[1] +
                     "' (expected buffer, symmetric, semaphore, scalar, rank, "
                     "team_size, peer_bases, dim or tma)");
  param.kind = kindIt->second;
  param.name = words[2];
  if (!isValidName(param.name))
    return lineError("invalid parameter name '" + param.name + "'");

  std::set<std::string> allowed;
  switch (param.kind) {
  case abi::ParamKind::Buffer:
  case abi::ParamKind::Symmetric:
    allowed = {"dtype", "shape", "align"};
    break;
  case abi::ParamKind::Semaphore:
    allowed = {"count", "align"};
    break;
  case abi::ParamKind::Scalar:
    allowed = {"dtype"};
    break;
  case abi::ParamKind::Rank:
  case abi::ParamKind::TeamSize:
  case abi::ParamKind::PeerBases:
    break;
  case abi::ParamKind::Tma:
    allowed = {"dtype", "shape", "source", "box", "swizzle", "view", "offset"};
    break;
  case abi::ParamKind::Dim:
    allowed = {"source", "axis"};
    break;
  }
  std::set<std::string> seen;
  std::string view = "local";
  for (size_t i = 3; i < words.size(); ++i) {
    const std::string &word = words[i];
    size_t eq = word.find('=');
    if (eq == std::string::npos || eq == 0)
      return lineError("expected key=value, found '" + word + "'");
    std::string key = word.substr(0, eq), value = word.substr(eq + 1);
    if (!allowed.count(key))
      return lineError("unknown key '" + key + "' for " + words[1] +
                       " parameter '" + param.name + "'");
    if (!seen.insert(key).second)
      return lineError("duplicate key '" + key + "'");
    uint64_t u;
    if (key == "dtype") {
      if (dtypeBytes(value) == 0)
        return lineError("unknown dtype '" + value +
                         "' (expected f16, bf16, f32, f64, i8, i32, i64 or u32)");
      param.dtype = value;
    } else if (key == "shape") {
      for (const std::string &item : splitList(value)) {
        if (item == "?") {
          param.shape.push_back(abi::kDynamicDim);
          continue;
        }
        if (!parseUnsigned(item, INT64_MAX, u))
          return lineError("expected a comma-separated list of dimensions "
                           "(numbers or '?') in 'shape', found '" +
                           value + "'");
        param.shape.push_back(static_cast<int64_t>(u));
      }
    } else if (key == "box") {
      for (const std::string &item : splitList(value)) {
        if (!parseUnsigned(item, UINT32_MAX, u))
          return lineError("expected a comma-separated list of box dims in "
                           "'box', found '" + value + "'");
        param.tma.box.push_back(u);
      }
    } else if (key == "view") {
      if (value != "local" && value != "peer")
        return lineError("expected view=local or view=peer, found '" + value +
                         "'");
      view = value;
      param.tma.isPeerView = value == "peer";
    } else if (key == "offset") {
      int64_t s;
      if (!parseSigned(value, INT32_MIN, INT32_MAX, s))
        return lineError("expected a signed 32-bit peer offset, found '" +
                         value + "'");
      param.tma.peerOffset = static_cast<int32_t>(s);
    } else {
      if (!parseUnsigned(value, UINT32_MAX, u))
        return lineError("expected an unsigned 32-bit integer for '" + key +
                         "', found '" + value + "'");
      if (key == "align")
        param.alignment = static_cast<uint32_t>(u);
      else if (key == "count")
        param.semaphoreCount = static_cast<uint32_t>(u);
      else if (key == "source" && param.kind == abi::ParamKind::Dim)
        param.dim.sourceParam = static_cast<uint32_t>(u);
      else if (key == "source")
        param.tma.sourceParam = static_cast<uint32_t>(u);
      else if (key == "axis")
        param.dim.axis = static_cast<uint32_t>(u);
      else if (key == "swizzle")
        param.tma.swizzleBytes = static_cast<uint32_t>(u);
    }
  }
  if (param.kind == abi::ParamKind::Tma && !seen.count("source"))
    return lineError("tma parameter '" + param.name + "' needs source=N");
  if (param.kind == abi::ParamKind::Dim &&
      (!seen.count("source") || !seen.count("axis")))
    return lineError("dim parameter '" + param.name +
                     "' needs source=N and axis=N");
  if (param.kind == abi::ParamKind::Tma && seen.count("offset") &&
      view != "peer")
    return lineError("tma parameter '" + param.name +
                     "' has offset= but view is not peer");
  return ok();
}

Status ManifestParser::parse(Bundle &bundle) {
  std::istringstream stream(text_);
  std::string line;
  bool sawHeader = false, sawArch = false;
  KernelInfo *kernel = nullptr;
  std::set<std::string> kernelKeys;
  while (std::getline(stream, line)) {
    ++lineNo_;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    std::vector<std::string> words = splitWords(line);
    if (words.empty() || words[0][0] == '#')
      continue;
    const std::string &key = words[0];
    if (!sawHeader) {
      if (key != "weave-manifest")
        return lineError("expected 'weave-manifest " +
                         std::to_string(abi::kAbiVersion) + "', found '" +
                         key + "'");
      uint64_t v;
      if (words.size() != 2 || !parseUnsigned(words[1], UINT32_MAX, v) ||
          v != abi::kAbiVersion)
        return lineError("expected manifest version " +
                         std::to_string(abi::kAbiVersion) + ", found '" +
                         (words.size() > 1 ? words[1] : "") + "'");
      sawHeader = true;
      continue;
    }
    if (!kernel) {
      if (key == "arch") {
        if (words.size() != 2)
          return lineError("expected 'arch NAME'");
        bundle.arch = words[1];
        sawArch = true;
      } else if (key == "producer") {
        size_t pos = line.find("producer") + 8;
        size_t start = line.find_first_not_of(" \t", pos);
        bundle.producer = start == std::string::npos ? "" : line.substr(start);
      } else if (key == "kernel") {
        if (words.size() != 2)
          return lineError("expected 'kernel NAME'");
        if (!isValidName(words[1]))
          return lineError("invalid kernel name '" + words[1] + "'");
        bundle.kernels.emplace_back();
        kernel = &bundle.kernels.back();
        kernel->name = words[1];
        kernelKeys.clear();
      } else {
        return lineError("unknown keyword '" + key +
                         "' (expected arch, producer or kernel)");
      }
      continue;
    }
    if (key != "param" && key != "end" && !kernelKeys.insert(key).second)
      return lineError("duplicate '" + key + "' in kernel '" + kernel->name +
                       "'");
    if (key == "end") {
      if (words.size() != 1)
        return lineError("unexpected text after 'end'");
      kernel = nullptr;
    } else if (key == "grid") {
      WEAVE_TRY(parseDims(words, kernel->grid));
    } else if (key == "block") {
      WEAVE_TRY(parseDims(words, kernel->block));
    } else if (key == "cluster") {
      WEAVE_TRY(parseDims(words, kernel->cluster));
    } else if (key == "smem") {
      WEAVE_TRY(parseScalarLine(words, kernel->dynamicSmemBytes));
    } else if (key == "team") {
      WEAVE_TRY(parseScalarLine(words, kernel->teamSize));
    } else if (key == "cc") {
      WEAVE_TRY(parseScalarLine(words, kernel->computeCapability));
    } else if (key == "param") {
      // Every parameter takes at least 4 bytes of the launch parameter
      // block, so a longer list can never launch; stopping here also bounds
      // what a corrupted manifest makes the parser allocate.
      if (kernel->params.size() >= kMaxParams)
        return lineError("kernel '" + kernel->name + "' has more than " +
                         std::to_string(kMaxParams) +
                         " parameters, which exceed the " +
                         std::to_string(abi::kMaxParamBlockBytes) +
                         "-byte launch parameter space");
      ParamInfo param;
      WEAVE_TRY(parseParam(words, param));
      kernel->params.push_back(std::move(param));
    } else {
      return lineError("unknown keyword '" + key + "' in kernel '" +
                       kernel->name +
                       "' (expected grid, block, cluster, smem, team, cc, "
                       "param or end)");
    }
  }
  if (!sawHeader)
    return bundleError("manifest is empty: expected 'weave-manifest " +
                       std::to_string(abi::kAbiVersion) + "'");
  if (kernel)
    return bundleError("manifest ends inside kernel '" + kernel->name +
                       "': expected 'end'");
  if (!sawArch)
    return bundleError("manifest has no 'arch' line");
  return ok();
}

Error kernelError(const KernelInfo &kernel, const std::string &message) {
  return bundleError("kernel '" + kernel.name + "': " + message);
}

/// The launch dimensions: what every sm_90 device accepts (abi::kMax*).
/// The device's own limits are checked again at launch (checkLaunchLimits).
Status verifyLaunchDims(const KernelInfo &kernel) {
  const char *axis[3] = {"x", "y", "z"};
  // A persistent grid (grid x 0, sized at launch) is [persistent, 1, 1].
  bool persistent = kernel.persistentGrid();
  if (persistent && (kernel.grid[1] != 1 || kernel.grid[2] != 1))
    return kernelError(kernel, "persistent grid " + dims(kernel.grid) +
                                   " has y or z other than 1");
  for (int i = 0; i < 3; ++i) {
    uint32_t maxGrid = i == 0 ? abi::kMaxGridDimX : abi::kMaxGridDimYZ;
    bool sizedAtLaunch = i == 0 && persistent;
    if (!sizedAtLaunch && (kernel.grid[i] == 0 || kernel.grid[i] > maxGrid))
      return kernelError(kernel, std::string("grid ") + axis[i] + " is " +
                                     std::to_string(kernel.grid[i]) +
                                     ", expected 1 to " +
                                     std::to_string(maxGrid));
    if (kernel.block[i] == 0 || kernel.block[i] > abi::kMaxBlockDim[i])
      return kernelError(kernel, std::string("block ") + axis[i] + " is " +
                                     std::to_string(kernel.block[i]) +
                                     ", expected 1 to " +
                                     std::to_string(abi::kMaxBlockDim[i]));
    if (kernel.cluster[i] == 0)
      return kernelError(kernel, std::string("cluster ") + axis[i] +
                                     " is 0, expected at least 1");
  }
  uint64_t threads = kernel.blockThreads();
  if (threads > abi::kMaxThreadsPerBlock)
    return kernelError(kernel, "block " + dims(kernel.block) + " has " +
                                   std::to_string(threads) +
                                   " threads, expected 1 to " +
                                   std::to_string(abi::kMaxThreadsPerBlock));
  uint64_t clusterBlocks = kernel.clusterBlocks();
  if (clusterBlocks > abi::kMaxClusterBlocks)
    return kernelError(
        kernel, "cluster " + dims(kernel.cluster) + " has " +
                    std::to_string(clusterBlocks) + " blocks, expected 1 to " +
                    std::to_string(abi::kMaxPortableClusterBlocks) + " (or " +
                    std::to_string(abi::kMaxClusterBlocks) +
                    " where the device allows non-portable cluster sizes)");
  for (int i = 0; i < 3; ++i)
    if (!(i == 0 && persistent) && kernel.grid[i] % kernel.cluster[i] != 0)
      return kernelError(kernel, "grid " + dims(kernel.grid) +
                                     " is not a multiple of cluster " +
                                     dims(kernel.cluster));
  return ok();
}

Status verifyKernel(const KernelInfo &kernel) {
  WEAVE_TRY(verifyLaunchDims(kernel));
  if (kernel.computeCapability == 0)
    return kernelError(kernel, "compute capability is 0");

  // ABI order: user params, then exactly Rank, TeamSize, PeerBases, then Tma.
  const auto &params = kernel.params;
  size_t i = 0;
  std::set<std::string> names;
  for (const ParamInfo &param : params)
    if (!names.insert(param.name).second)
      return kernelError(kernel, "duplicate parameter name '" + param.name +
                                     "'");
  while (i < params.size() && isUserKind(params[i].kind))
    ++i;
  size_t userCount = i;
  const abi::ParamKind team[3] = {abi::ParamKind::Rank,
                                  abi::ParamKind::TeamSize,
                                  abi::ParamKind::PeerBases};
  for (int t = 0; t < 3; ++t, ++i) {
    if (i >= params.size())
      return kernelError(kernel, "expected parameter " + std::to_string(i) +
                                     " to be " + paramKindName(team[t]) +
                                     " (team parameters rank, team_size, "
                                     "peer_bases follow the user parameters), "
                                     "found end of list");
    if (params[i].kind != team[t])
      return kernelError(kernel, "expected parameter " + std::to_string(i) +
                                     " ('" + params[i].name + "') to be " +
                                     paramKindName(team[t]) + ", found " +
                                     paramKindName(params[i].kind) +
                                     " (order: user parameters, then rank, "
                                     "team_size, peer_bases, then tma)");
  }
  // One dim parameter per dynamic dimension of the user buffers, in
  // parameter order, then outermost dimension first: the runtime fills
  // them and the kernel reads them in this order.
  for (size_t p = 0; p < userCount; ++p) {
    const ParamInfo &source = params[p];
    if (source.kind != abi::ParamKind::Buffer &&
        source.kind != abi::ParamKind::Symmetric)
      continue;
    for (size_t axis = 0; axis < source.shape.size(); ++axis) {
      if (source.shape[axis] != abi::kDynamicDim)
        continue;
      std::string wanted = "dim source=" + std::to_string(p) +
                           " axis=" + std::to_string(axis) + " (dimension " +
                           std::to_string(axis) + " of '" + source.name +
                           "' is '?')";
      if (i >= params.size())
        return kernelError(kernel, "expected parameter " + std::to_string(i) +
                                       " to be " + wanted +
                                       ", found end of list");
      const ParamInfo &dim = params[i];
      if (dim.kind != abi::ParamKind::Dim || dim.dim.sourceParam != p ||
          dim.dim.axis != axis)
        return kernelError(
            kernel, "expected parameter " + std::to_string(i) + " ('" +
                        dim.name + "') to be " + wanted + ", found " +
                        paramKindName(dim.kind) +
                        (dim.kind == abi::ParamKind::Dim
                             ? " source=" + std::to_string(dim.dim.sourceParam) +
                                   " axis=" + std::to_string(dim.dim.axis)
                             : std::string()) +
                        " (order: user parameters, rank, team_size, "
                        "peer_bases, one dim per '?' in parameter order, "
                        "then tma)");
      ++i;
    }
  }
  for (; i < params.size(); ++i)
    if (params[i].kind != abi::ParamKind::Tma)
      return kernelError(kernel, "expected parameter " + std::to_string(i) +
                                     " ('" + params[i].name +
                                     "') to be tma, found " +
                                     paramKindName(params[i].kind) +
                                     " (only tma parameters may follow the "
                                     "team and dim parameters, and a dim "
                                     "parameter only for a '?' dimension)");

  for (size_t p = 0; p < params.size(); ++p) {
    const ParamInfo &param = params[p];
    std::string what = "parameter '" + param.name + "'";
    switch (param.kind) {
    case abi::ParamKind::Buffer:
    case abi::ParamKind::Symmetric:
      if (dtypeBytes(param.dtype) == 0)
        return kernelError(kernel, what + " needs a known dtype, found '" +
                                       param.dtype + "'");
      if (param.shape.empty())
        return kernelError(kernel, what + " needs a shape");
      for (int64_t d : param.shape)
        if (d <= 0 && d != abi::kDynamicDim)
          return kernelError(kernel, what + " has a non-positive dimension " +
                                         std::to_string(d));
      // Generated code indexes with signed 64-bit offsets; a size that does
      // not fit would wrap (shape 2^32,2^32,2^32 used to size to 0 bytes).
      if (tensorBytes(param) > uint64_t(INT64_MAX))
        return kernelError(kernel, what + " of shape " + joinShape(param.shape) +
                                       " x " + param.dtype +
                                       " has a byte size " +
                                       "that overflows 63 bits");
      [[fallthrough]];
    case abi::ParamKind::Semaphore:
      if (param.alignment < 16 || (param.alignment & (param.alignment - 1)))
        return kernelError(kernel, what + " alignment " +
                                       std::to_string(param.alignment) +
                                       " is not a power of two >= 16");
      if (param.kind == abi::ParamKind::Semaphore && param.semaphoreCount == 0)
        return kernelError(kernel, what + " needs count >= 1");
      break;
    case abi::ParamKind::Scalar: {
      uint32_t bytes = dtypeBytes(param.dtype);
      if (bytes != 4 && bytes != 8)
        return kernelError(kernel, what + " needs a 4- or 8-byte dtype, "
                                          "found '" + param.dtype + "'");
      if (!param.shape.empty())
        return kernelError(kernel, what + " is a scalar but has a shape");
      break;
    }
    case abi::ParamKind::Dim:
      // Placed and matched to its dimension by the order check above.
      break;
    case abi::ParamKind::Rank:
    case abi::ParamKind::TeamSize:
    case abi::ParamKind::PeerBases:
      break;
    case abi::ParamKind::Tma: {
      uint32_t src = param.tma.sourceParam;
      if (src >= userCount ||
          (params[src].kind != abi::ParamKind::Buffer &&
           params[src].kind != abi::ParamKind::Symmetric))
        return kernelError(
            kernel, what + " source=" + std::to_string(src) +
                        " must name a buffer or symmetric parameter, found " +
                        (src < params.size()
                             ? std::string(paramKindName(params[src].kind)) +
                                   " '" + params[src].name + "'"
                             : std::string("no such parameter")));
      if (param.tma.isPeerView && params[src].kind != abi::ParamKind::Symmetric)
        return kernelError(kernel, what + " is a peer view of '" +
                                       params[src].name +
                                       "', which is not symmetric");
      if (!param.dtype.empty() && param.dtype != params[src].dtype)
        return kernelError(kernel, what + " dtype '" + param.dtype +
                                       "' differs from its source's '" +
                                       params[src].dtype + "'");
      if (!param.shape.empty() && param.shape != params[src].shape)
        return kernelError(kernel, what + " shape differs from its source's");
      auto layout = computeTmaLayout(param, params[src]);
      if (!layout)
        return kernelError(kernel, layout.error().message());
      break;
    }
    }
  }
  uint64_t paramBytesTotal = paramBlockBytes(kernel);
  if (paramBytesTotal > abi::kMaxParamBlockBytes)
    return kernelError(kernel, "parameters take " +
                                   std::to_string(paramBytesTotal) +
                                   " bytes, expected at most " +
                                   std::to_string(abi::kMaxParamBlockBytes) +
                                   " (the launch parameter space)");
  return ok();
}

} // namespace

uint32_t dtypeBytes(const std::string &dtype) {
  if (dtype == "i8")
    return 1;
  if (dtype == "f16" || dtype == "bf16")
    return 2;
  if (dtype == "f32" || dtype == "i32" || dtype == "u32")
    return 4;
  if (dtype == "f64" || dtype == "i64")
    return 8;
  return 0;
}

const char *paramKindName(abi::ParamKind kind) {
  switch (kind) {
  case abi::ParamKind::Buffer:
    return "buffer";
  case abi::ParamKind::Symmetric:
    return "symmetric";
  case abi::ParamKind::Semaphore:
    return "semaphore";
  case abi::ParamKind::Scalar:
    return "scalar";
  case abi::ParamKind::Rank:
    return "rank";
  case abi::ParamKind::TeamSize:
    return "team_size";
  case abi::ParamKind::PeerBases:
    return "peer_bases";
  case abi::ParamKind::Tma:
    return "tma";
  case abi::ParamKind::Dim:
    return "dim";
  }
  return "unknown";
}

uint32_t paramBytes(const ParamInfo &param) {
  switch (param.kind) {
  case abi::ParamKind::Buffer:
  case abi::ParamKind::Symmetric:
  case abi::ParamKind::Semaphore:
  case abi::ParamKind::PeerBases:
    return abi::kPointerParamBytes;
  case abi::ParamKind::Scalar:
    return dtypeBytes(param.dtype);
  case abi::ParamKind::Rank:
  case abi::ParamKind::TeamSize:
    return abi::kTeamScalarParamBytes;
  case abi::ParamKind::Tma:
    return abi::kTmaParamBytes;
  case abi::ParamKind::Dim:
    return abi::kDimParamBytes;
  }
  return 0;
}

uint64_t tensorBytes(const ParamInfo &param) {
  if (param.shape.empty())
    return 0;
  uint64_t bytes = dtypeBytes(param.dtype);
  for (int64_t d : param.shape) {
    // A dynamic dimension is at least 1 at launch; any other negative
    // (malformed) dimension sizes to 0, which verifyBundle rejects.
    uint64_t extent = d == abi::kDynamicDim ? 1 : d < 0 ? 0 : uint64_t(d);
    if (!checkedMul(bytes, extent, bytes))
      return UINT64_MAX;
  }
  return bytes;
}

uint64_t paramBlockBytes(const KernelInfo &kernel) {
  uint64_t offset = 0;
  for (const ParamInfo &param : kernel.params) {
    uint64_t size = paramBytes(param);
    uint64_t align =
        param.kind == abi::ParamKind::Tma ? abi::kTmaParamAlign : size;
    if (align > 1)
      offset = (offset + align - 1) / align * align;
    offset += size;
  }
  return offset;
}

uint64_t fnv1a64(const uint8_t *data, size_t size, uint64_t seed) {
  uint64_t hash = seed;
  for (size_t i = 0; i < size; ++i) {
    hash ^= data[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

const KernelInfo *findKernel(const Bundle &bundle, const std::string &name) {
  for (const KernelInfo &kernel : bundle.kernels)
    if (kernel.name == name)
      return &kernel;
  return nullptr;
}

std::string printManifest(const Bundle &bundle) {
  std::ostringstream out;
  out << "weave-manifest " << abi::kAbiVersion << "\n";
  out << "arch " << bundle.arch << "\n";
  if (!bundle.producer.empty())
    out << "producer " << bundle.producer << "\n";
  for (const KernelInfo &kernel : bundle.kernels) {
    out << "kernel " << kernel.name << "\n";
    out << "  grid " << dims(kernel.grid) << "\n";
    out << "  block " << dims(kernel.block) << "\n";
    out << "  cluster " << dims(kernel.cluster) << "\n";
    out << "  smem " << kernel.dynamicSmemBytes << "\n";
    out << "  team " << kernel.teamSize << "\n";
    out << "  cc " << kernel.computeCapability << "\n";
    for (const ParamInfo &param : kernel.params) {
      out << "  param " << paramKindName(param.kind) << " " << param.name;
      switch (param.kind) {
      case abi::ParamKind::Buffer:
      case abi::ParamKind::Symmetric:
        out << " dtype=" << param.dtype;
        if (!param.shape.empty())
          out << " shape=" << joinShape(param.shape);
        out << " align=" << param.alignment;
        break;
      case abi::ParamKind::Semaphore:
        out << " count=" << param.semaphoreCount
            << " align=" << param.alignment;
        break;
      case abi::ParamKind::Scalar:
        out << " dtype=" << param.dtype;
        break;
      case abi::ParamKind::Tma:
        if (!param.dtype.empty())
          out << " dtype=" << param.dtype;
        if (!param.shape.empty())
          out << " shape=" << joinShape(param.shape);
        out << " source=" << param.tma.sourceParam
            << " box=" << joinList(param.tma.box)
            << " swizzle=" << param.tma.swizzleBytes;
        if (param.tma.isPeerView)
          out << " view=peer offset=" << param.tma.peerOffset;
        else
          out << " view=local";
        break;
      case abi::ParamKind::Dim:
        out << " source=" << param.dim.sourceParam
            << " axis=" << param.dim.axis;
        break;
      default:
        break;
      }
      out << "\n";
    }
    out << "end\n";
  }
  return out.str();
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
  ManifestParser parser(text);
  WEAVE_TRY(parser.parse(bundle));
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

Status verifyBundle(const Bundle &bundle) {
  if (bundle.arch.rfind("sm_", 0) != 0)
    return bundleError("arch must look like 'sm_90a', found '" + bundle.arch +
                       "'");
  if (bundle.producer.find('\n') != std::string::npos)
    return bundleError("producer must be a single line");
  if (bundle.kernels.empty())
    return bundleError("bundle has no kernels");
  std::set<std::string> names;
  for (const KernelInfo &kernel : bundle.kernels) {
    if (!isValidName(kernel.name))
      return bundleError("invalid kernel name '" + kernel.name + "'");
    if (!names.insert(kernel.name).second)
      return bundleError("duplicate kernel name '" + kernel.name + "'");
    for (const ParamInfo &param : kernel.params)
      if (!isValidName(param.name))
        return kernelError(kernel, "invalid parameter name '" + param.name +
                                       "'");
    WEAVE_TRY(verifyKernel(kernel));
  }
  if (bundle.cubin.empty())
    return bundleError("bundle has no cubin");
  auto symbols = readCubinSymbols(bundle.cubin.data(), bundle.cubin.size());
  if (!symbols)
    return std::move(symbols).takeError();
  std::set<std::string> symbolSet(symbols->begin(), symbols->end());
  for (const KernelInfo &kernel : bundle.kernels)
    if (!symbolSet.count(kernel.name))
      return bundleError("kernel '" + kernel.name +
                         "' is not in the cubin's symbol table (" +
                         std::to_string(symbols->size()) + " symbols)");
  return ok();
}

} // namespace weave
