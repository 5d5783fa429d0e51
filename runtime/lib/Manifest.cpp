//===- Manifest.cpp - The manifest text: printer and parser ----------------===//
//
// docs/BUNDLE.md, "Manifest". The printer and the parser are driven by the
// same tables: the parameter kinds (kKinds), the kernel keys (kKernelKeys)
// and the `key=value` fields of a `param` line (kParamKeys), each with the
// kinds that take it, when the printer writes it, how to print and how to
// parse it. A key is added in one place and both sides know it.
//
//===----------------------------------------------------------------------===//

#include "weave/runtime/Bundle.h"
#include "weave/runtime/detail/BundleDetail.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <set>
#include <sstream>

namespace weave {

//===----------------------------------------------------------------------===//
// Lexical helpers
//===----------------------------------------------------------------------===//

std::string formatDims(const std::array<uint32_t, 3> &d) {
  return std::to_string(d[0]) + " " + std::to_string(d[1]) + " " +
         std::to_string(d[2]);
}

namespace {
template <typename T> std::string joinList(const std::vector<T> &values) {
  std::string text;
  for (size_t i = 0; i < values.size(); ++i)
    text += (i ? "," : "") + std::to_string(values[i]);
  return text;
}
} // namespace

std::string formatList(const std::vector<int64_t> &values) {
  // Shapes: a dynamic dimension is written `?`.
  std::string text;
  for (size_t i = 0; i < values.size(); ++i)
    text += (i ? "," : "") + (values[i] == abi::kDynamicDim
                                  ? std::string("?")
                                  : std::to_string(values[i]));
  return text;
}
std::string formatList(const std::vector<uint64_t> &values) {
  return joinList(values);
}

std::string formatRange(const DimRange &range) {
  // "1..256"; without an upper bound "1..".
  return std::to_string(range.lo) + ".." +
         (range.hi == DimRange::kUnbounded ? std::string()
                                           : std::to_string(range.hi));
}

namespace {

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

//===----------------------------------------------------------------------===//
// The tables
//===----------------------------------------------------------------------===//

using abi::ParamKind;

/// Parameter kinds and their manifest spelling, in enum order.
struct KindName {
  ParamKind kind;
  const char *name;
};
constexpr KindName kKinds[] = {
    {ParamKind::Buffer, "buffer"},       {ParamKind::Symmetric, "symmetric"},
    {ParamKind::Semaphore, "semaphore"}, {ParamKind::Scalar, "scalar"},
    {ParamKind::Rank, "rank"},           {ParamKind::TeamSize, "team_size"},
    {ParamKind::PeerBases, "peer_bases"}, {ParamKind::Tma, "tma"},
    {ParamKind::Dim, "dim"},             {ParamKind::TmaTable, "tma_table"}};

/// The `grid`/`block`/`cluster` (3 values) and `grid_max`/`smem`/`team`/`cc`
/// (one value) lines of a kernel, in the order the printer writes them
/// (`grid_max` only where it is not 0).
struct KernelKey {
  const char *name;
  std::array<uint32_t, 3> KernelInfo::*dims;
  uint32_t KernelInfo::*value;
  /// Written only where the value is not 0 (a key added after bundles
  /// without it, which then read as before).
  bool omittedAtZero = false;
};
const KernelKey kKernelKeys[] = {
    {"grid", &KernelInfo::grid, nullptr},
    {"grid_max", nullptr, &KernelInfo::gridMax, /*omittedAtZero=*/true},
    {"block", &KernelInfo::block, nullptr},
    {"cluster", &KernelInfo::cluster, nullptr},
    {"smem", nullptr, &KernelInfo::dynamicSmemBytes},
    {"team", nullptr, &KernelInfo::teamSize},
    {"cc", nullptr, &KernelInfo::computeCapability}};

constexpr unsigned kindBit(ParamKind kind) {
  return 1u << static_cast<unsigned>(kind);
}
constexpr unsigned kTensorKinds =
    kindBit(ParamKind::Buffer) | kindBit(ParamKind::Symmetric);
/// The TMA parameters: a descriptor, or a table of one per member.
constexpr unsigned kTmaKinds =
    kindBit(ParamKind::Tma) | kindBit(ParamKind::TmaTable);

/// One `key=value` field of a `param` line.
struct ParamKey {
  const char *name;
  /// The kinds that take it (kindBit mask).
  unsigned kinds;
  /// Whether the printer writes it for `param` (of one of `kinds`).
  bool (*printed)(const ParamInfo &param);
  std::string (*print)(const ParamInfo &param);
  /// Parses `value` into `param`; returns what was expected, or "" on
  /// success.
  std::string (*parse)(const std::string &value, ParamInfo &param);
};

bool always(const ParamInfo &) { return true; }

/// Parses an unsigned 32-bit value into `field`.
template <uint32_t ParamInfo::*Field>
std::string parseU32(const std::string &value, ParamInfo &param) {
  uint64_t u;
  if (!parseUnsigned(value, UINT32_MAX, u))
    return "an unsigned 32-bit integer";
  param.*Field = static_cast<uint32_t>(u);
  return "";
}
template <uint32_t TmaInfo::*Field>
std::string parseTmaU32(const std::string &value, ParamInfo &param) {
  uint64_t u;
  if (!parseUnsigned(value, UINT32_MAX, u))
    return "an unsigned 32-bit integer";
  param.tma.*Field = static_cast<uint32_t>(u);
  return "";
}

/// The `param` fields, in the order the printer writes them. A parse
/// function's result completes "expected ..., found '<value>'"; the exact
/// texts are part of the reader's tested messages.
const ParamKey kParamKeys[] = {
    {"dtype", kTensorKinds | kindBit(ParamKind::Scalar) | kTmaKinds,
     [](const ParamInfo &p) {
       return !(kindBit(p.kind) & kTmaKinds) || !p.dtype.empty();
     },
     [](const ParamInfo &p) { return p.dtype; },
     [](const std::string &value, ParamInfo &p) -> std::string {
       Expected<DType> dtype = parseDType(value);
       if (!dtype)
         return "!" + dtype.error().message();
       p.dtype = value;
       return "";
     }},
    {"shape", kTensorKinds | kTmaKinds,
     [](const ParamInfo &p) { return !p.shape.empty(); },
     [](const ParamInfo &p) { return formatList(p.shape); },
     [](const std::string &value, ParamInfo &p) -> std::string {
       for (const std::string &item : splitList(value)) {
         if (item == "?") {
           p.shape.push_back(abi::kDynamicDim);
           continue;
         }
         uint64_t u;
         if (!parseUnsigned(item, INT64_MAX, u))
           return "a comma-separated list of dimensions (numbers or '?') in "
                  "'shape'";
         p.shape.push_back(static_cast<int64_t>(u));
       }
       return "";
     }},
    {"count", kindBit(ParamKind::Semaphore), always,
     [](const ParamInfo &p) { return std::to_string(p.semaphoreCount); },
     parseU32<&ParamInfo::semaphoreCount>},
    {"source", kTmaKinds | kindBit(ParamKind::Dim), always,
     [](const ParamInfo &p) {
       return std::to_string(p.kind == ParamKind::Dim ? p.dim.sourceParam
                                                      : p.tma.sourceParam);
     },
     [](const std::string &value, ParamInfo &p) -> std::string {
       uint64_t u;
       if (!parseUnsigned(value, UINT32_MAX, u))
         return "an unsigned 32-bit integer";
       (p.kind == ParamKind::Dim ? p.dim.sourceParam : p.tma.sourceParam) =
           static_cast<uint32_t>(u);
       return "";
     }},
    {"axis", kindBit(ParamKind::Dim), always,
     [](const ParamInfo &p) { return std::to_string(p.dim.axis); },
     [](const std::string &value, ParamInfo &p) -> std::string {
       uint64_t u;
       if (!parseUnsigned(value, UINT32_MAX, u))
         return "an unsigned 32-bit integer";
       p.dim.axis = static_cast<uint32_t>(u);
       return "";
     }},
    {"equals", kindBit(ParamKind::Dim),
     [](const ParamInfo &p) { return p.dim.equals != DimInfo::kNone; },
     [](const ParamInfo &p) { return std::to_string(p.dim.equals); },
     [](const std::string &value, ParamInfo &p) -> std::string {
       uint64_t u;
       if (!parseUnsigned(value, UINT32_MAX - 1, u))
         return "an unsigned 32-bit integer";
       p.dim.equals = static_cast<uint32_t>(u);
       return "";
     }},
    {"box", kTmaKinds, always,
     [](const ParamInfo &p) { return formatList(p.tma.box); },
     [](const std::string &value, ParamInfo &p) -> std::string {
       for (const std::string &item : splitList(value)) {
         uint64_t u;
         if (!parseUnsigned(item, UINT32_MAX, u))
           return "a comma-separated list of box dims in 'box'";
         p.tma.box.push_back(u);
       }
       return "";
     }},
    {"swizzle", kTmaKinds, always,
     [](const ParamInfo &p) { return std::to_string(p.tma.swizzleBytes); },
     parseTmaU32<&TmaInfo::swizzleBytes>},
    {"view", kindBit(ParamKind::Tma), always,
     [](const ParamInfo &p) {
       return std::string(p.tma.isPeerView ? "peer" : "local");
     },
     [](const std::string &value, ParamInfo &p) -> std::string {
       if (value != "local" && value != "peer")
         return "view=local or view=peer";
       p.tma.isPeerView = value == "peer";
       return "";
     }},
    {"offset", kindBit(ParamKind::Tma),
     [](const ParamInfo &p) { return p.tma.isPeerView; },
     [](const ParamInfo &p) { return std::to_string(p.tma.peerOffset); },
     [](const std::string &value, ParamInfo &p) -> std::string {
       int64_t s;
       if (!parseSigned(value, INT32_MIN, INT32_MAX, s))
         return "a signed 32-bit peer offset";
       p.tma.peerOffset = static_cast<int32_t>(s);
       return "";
     }},
    {"range", kTensorKinds,
     [](const ParamInfo &p) { return !p.ranges.empty(); },
     [](const ParamInfo &p) {
       std::string text;
       for (size_t i = 0; i < p.ranges.size(); ++i)
         text += (i ? "," : "") + formatRange(p.ranges[i]);
       return text;
     },
     [](const std::string &value, ParamInfo &p) -> std::string {
       const char *expected = "a comma-separated list of ranges LO..HI or "
                              "LO.. (one per dimension) in 'range'";
       for (const std::string &item : splitList(value)) {
         size_t dots = item.find("..");
         if (dots == std::string::npos)
           return expected;
         uint64_t lo, hi = DimRange::kUnbounded;
         std::string hiText = item.substr(dots + 2);
         if (!parseUnsigned(item.substr(0, dots), INT64_MAX, lo) ||
             (!hiText.empty() && !parseUnsigned(hiText, INT64_MAX, hi)))
           return expected;
         p.ranges.push_back({int64_t(lo), int64_t(hi)});
       }
       return "";
     }},
    {"align", kTensorKinds | kindBit(ParamKind::Semaphore), always,
     [](const ParamInfo &p) { return std::to_string(p.alignment); },
     parseU32<&ParamInfo::alignment>},
};

const ParamKey *findParamKey(const std::string &name) {
  for (const ParamKey &key : kParamKeys)
    if (name == key.name)
      return &key;
  return nullptr;
}

/// "grid, block, cluster, smem, team, cc": the kernel keys for messages.
std::string kernelKeyList() {
  std::string list;
  for (const KernelKey &key : kKernelKeys)
    list += std::string(key.name) + ", ";
  return list;
}

//===----------------------------------------------------------------------===//
// The parser
//===----------------------------------------------------------------------===//

/// The most parameters a kernel can have: each takes at least 4 bytes.
constexpr size_t kMaxParams = abi::kMaxParamBlockBytes / 4;

/// KernelInfo::config as the manifest holds it: control characters as
/// spaces, no trailing space (so that printing and parsing agree).
static std::string configLine(std::string text) {
  for (char &c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      c = ' ';
  while (!text.empty() && text.back() == ' ')
    text.pop_back();
  return text;
}

class ManifestParser {
public:
  explicit ManifestParser(const std::string &text) : text_(text) {}
  Status parse(Bundle &bundle);

private:
  Error lineError(const std::string &message) const {
    return bundleError("manifest line " + std::to_string(lineNo_) + ": " +
                       message);
  }
  Status parseKernelKey(const KernelKey &key,
                        const std::vector<std::string> &words,
                        KernelInfo &kernel);
  Status parseParam(const std::vector<std::string> &words, ParamInfo &param);

  const std::string &text_;
  size_t lineNo_ = 0;
};

Status ManifestParser::parseKernelKey(const KernelKey &key,
                                      const std::vector<std::string> &words,
                                      KernelInfo &kernel) {
  if (!key.dims) {
    uint64_t v;
    if (words.size() != 2 || !parseUnsigned(words[1], UINT32_MAX, v))
      return lineError("expected '" + words[0] +
                       " N' with an unsigned 32-bit integer");
    kernel.*key.value = static_cast<uint32_t>(v);
    return ok();
  }
  if (words.size() != 4)
    return lineError("expected '" + words[0] + " X Y Z' (3 values), found " +
                     std::to_string(words.size() - 1) + " value(s)");
  for (int i = 0; i < 3; ++i) {
    uint64_t v;
    if (!parseUnsigned(words[i + 1], UINT32_MAX, v))
      return lineError("expected an unsigned 32-bit integer in '" + words[0] +
                       "', found '" + words[i + 1] + "'");
    (kernel.*key.dims)[i] = static_cast<uint32_t>(v);
  }
  return ok();
}

Status ManifestParser::parseParam(const std::vector<std::string> &words,
                                  ParamInfo &param) {
  if (words.size() < 3)
    return lineError("expected 'param KIND NAME [key=value...]'");
  std::optional<ParamKind> kind = paramKindFromName(words[1]);
  if (!kind)
    return lineError("unknown parameter kind '" + words[1] +
                     "' (expected buffer, symmetric, semaphore, scalar, rank, "
                     "team_size, peer_bases, dim, tma or tma_table)");
  param.kind = *kind;
  param.name = words[2];
  if (!isValidName(param.name))
    return lineError("invalid parameter name '" + param.name + "'");

  std::set<std::string> seen;
  for (size_t i = 3; i < words.size(); ++i) {
    const std::string &word = words[i];
    size_t eq = word.find('=');
    if (eq == std::string::npos || eq == 0)
      return lineError("expected key=value, found '" + word + "'");
    std::string name = word.substr(0, eq), value = word.substr(eq + 1);
    const ParamKey *key = findParamKey(name);
    if (!key || !(key->kinds & kindBit(param.kind)))
      return lineError("unknown key '" + name + "' for " + words[1] +
                       " parameter '" + param.name + "'");
    if (!seen.insert(name).second)
      return lineError("duplicate key '" + name + "'");
    std::string expected = key->parse(value, param);
    if (expected.empty())
      continue;
    // A message of its own starts with '!'; else "expected X, found 'v'".
    if (expected[0] == '!')
      return lineError(expected.substr(1));
    if (expected == "an unsigned 32-bit integer")
      expected += " for '" + name + "'";
    return lineError("expected " + expected + ", found '" + value + "'");
  }
  if ((kindBit(param.kind) & kTmaKinds) && !seen.count("source"))
    return lineError(std::string(paramKindName(param.kind)) + " parameter '" +
                     param.name + "' needs source=N");
  if (param.kind == ParamKind::Dim &&
      (!seen.count("source") || !seen.count("axis")))
    return lineError("dim parameter '" + param.name +
                     "' needs source=N and axis=N");
  if (param.kind == ParamKind::Tma && seen.count("offset") &&
      !param.tma.isPeerView)
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
    if (!words.empty() && words[0][0] == '#') {
      // `# config: ...` inside a kernel: informational (KernelInfo::config).
      static const std::string kConfig = "# config:";
      size_t at = line.find_first_not_of(" \t");
      if (kernel && line.compare(at, kConfig.size(), kConfig) == 0) {
        size_t start = line.find_first_not_of(" \t", at + kConfig.size());
        kernel->config = configLine(
            start == std::string::npos ? "" : line.substr(start));
      }
      continue;
    }
    if (words.empty())
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
      continue;
    }
    if (key == "param") {
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
      continue;
    }
    if (key == "variant_of") {
      if (words.size() != 2 || !isValidName(words[1]))
        return lineError("expected 'variant_of NAME' with a kernel name");
      kernel->variantOf = words[1];
      continue;
    }
    if (key == "function") {
      if (words.size() != 2 || !isValidName(words[1]))
        return lineError("expected 'function NAME' with a function name");
      kernel->function = words[1];
      continue;
    }
    const KernelKey *kernelKey = nullptr;
    for (const KernelKey &candidate : kKernelKeys)
      if (key == candidate.name)
        kernelKey = &candidate;
    if (!kernelKey)
      return lineError("unknown keyword '" + key + "' in kernel '" +
                       kernel->name + "' (expected " + kernelKeyList() +
                       "variant_of, function, param or end)");
    WEAVE_TRY(parseKernelKey(*kernelKey, words, *kernel));
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

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

const char *paramKindName(abi::ParamKind kind) {
  for (const KindName &entry : kKinds)
    if (entry.kind == kind)
      return entry.name;
  return "unknown";
}

std::optional<abi::ParamKind> paramKindFromName(const std::string &name) {
  for (const KindName &entry : kKinds)
    if (name == entry.name)
      return entry.kind;
  return std::nullopt;
}

Status parseManifest(const std::string &text, Bundle &bundle) {
  return ManifestParser(text).parse(bundle);
}

std::string printManifest(const Bundle &bundle) {
  std::ostringstream out;
  out << "weave-manifest " << abi::kAbiVersion << "\n";
  out << "arch " << bundle.arch << "\n";
  if (!bundle.producer.empty())
    out << "producer " << bundle.producer << "\n";
  for (const KernelInfo &kernel : bundle.kernels) {
    out << "kernel " << kernel.name << "\n";
    for (const KernelKey &key : kKernelKeys) {
      if (key.omittedAtZero && key.value && kernel.*key.value == 0)
        continue;
      out << "  " << key.name << " ";
      if (key.dims)
        out << formatDims(kernel.*key.dims) << "\n";
      else
        out << kernel.*key.value << "\n";
    }
    if (!kernel.variantOf.empty())
      out << "  variant_of " << kernel.variantOf << "\n";
    if (!kernel.function.empty())
      out << "  function " << kernel.function << "\n";
    // One line, whatever the string holds.
    if (std::string line = configLine(kernel.config); !line.empty())
      out << "  # config: " << line << "\n";
    for (const ParamInfo &param : kernel.params) {
      out << "  param " << paramKindName(param.kind) << " " << param.name;
      for (const ParamKey &key : kParamKeys)
        if ((key.kinds & kindBit(param.kind)) && key.printed(param))
          out << " " << key.name << "=" << key.print(param);
      out << "\n";
    }
    out << "end\n";
  }
  return out.str();
}

} // namespace weave
