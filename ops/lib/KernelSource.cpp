//===- KernelSource.cpp - Kernel instances and where they come from -------===//

#include "weave/ops/KernelSource.h"

#include "EmbeddedTemplates.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>

namespace weave::ops {

KernelSource::~KernelSource() = default;

std::string KernelInstance::key() const {
  return kernelName + "_" + dtype + "_d" +
         (teamSize ? std::to_string(teamSize) : std::string("any")) +
         (shape.empty() ? "_n" + std::to_string(count) : "_" + shape);
}

int64_t packetBlocks(const std::string &dtype, int64_t count) {
  int64_t element = dtypeBytes(dtype) ? dtypeBytes(dtype) : 4;
  return std::clamp<int64_t>((count * element + kPacketBlockBytes - 1) /
                                 kPacketBlockBytes,
                             1, kPacketMaxBlocks);
}

int64_t collectiveBlocks(const std::string &dtype, int64_t count,
                         uint32_t teamSize) {
  int64_t element = dtypeBytes(dtype) ? dtypeBytes(dtype) : 4;
  int64_t bytes = count * element;
  int64_t blocks = std::clamp<int64_t>(
      (bytes + kCollectiveBlockBytes - 1) / kCollectiveBlockBytes, 1,
      kCollectiveMaxBlocks);
  if (bytes <= kCollectiveMaxBlocks * kCollectiveWideBlockBytes)
    return blocks;
  bool three = teamSize == 3;
  int64_t wideBytes =
      three ? kCollectiveWideBlockBytesTeamOf3 : kCollectiveWideBlockBytes;
  int64_t wideMax =
      three ? kCollectiveWideMaxBlocksTeamOf3 : kCollectiveWideMaxBlocks;
  return std::clamp<int64_t>(bytes / wideBytes, blocks, wideMax);
}

TemplateValues collectiveValues(uint32_t teamSize, const std::string &dtype,
                                int64_t count, const TemplateValues &extra) {
  auto str = [](int64_t v) { return std::to_string(v); };
  // The reducing templates sum in f32: T widens to it (WIDEN) and rounds
  // back once (NARROW); f32 itself passes through.
  std::optional<DType> known = findDType(dtype);
  bool narrow = known != DType::F32;
  int64_t element = known ? traitsOf(*known).bytes : 4;
  int64_t words = count * element / 4;
  int64_t vw = 16 / element;
  while (vw > 1 && count % vw != 0)
    vw /= 2;
  TemplateValues values{{"T", dtype},
                        {"N", str(count)},
                        {"CAP", str(count)},
                        {"WIDEN", narrow ? "arith.extf" : "arith.bitcast"},
                        {"NARROW", narrow ? "arith.truncf" : "arith.bitcast"},
                        {"WORDS", str(words)},
                        {"VW", str(vw)},
                        {"VB", str(vw * element)},
                        {"NV", str(count / vw)},
                        {"FW", str(16 / element)},
                        {"EB", str(element)},
                        {"HIDDEN", "1"}};
  if (teamSize) {
    int64_t d = teamSize;
    // An explicit block count (an experiment's --set BLOCKS or PBLOCKS)
    // sizes what depends on it too.
    auto blocksOr = [&](const char *key, int64_t derived) {
      for (const auto &[name, value] : extra)
        if (name == key)
          return std::max<int64_t>(1, std::strtoll(value.c_str(), nullptr, 10));
      return derived;
    };
    int64_t blocks =
        blocksOr("BLOCKS", collectiveBlocks(dtype, count, teamSize));
    // The packet (ll_*) kernels: PWORDS 32-bit words per slot (the last
    // one padded where N x T is not whole words), PN the elements they
    // hold, PLINES packets in two halves of D slots, PROWS D x PN.
    int64_t pwords = (count * element + 3) / 4;
    int64_t pn = pwords * 4 / element;
    int64_t pblocks = blocksOr("PBLOCKS", packetBlocks(dtype, count));
    values.insert(values.end(), {{"PWORDS", str(pwords)},
                                 {"PN", str(pn)},
                                 {"PLINES", str(2 * d * pwords)},
                                 {"PROWS", str(d * pn)},
                                 {"PBLOCKS", str(pblocks)},
                                 {"PSEEN", str(pblocks * d)}});
    // The direct all-to-all-v: the counts' packets (two halves of D x D)
    // and each block's copy of them.
    values.insert(values.end(), {{"TABLE", str(2 * d * d)},
                                 {"SEEN", str(blocks * d * d)}});
    values.insert(values.end(),
                  {{"D", str(d)},
                   {"LAST", str(d - 1)},
                   {"ROWS", str(d * count)},
                   {"DD", str(d * d)},
                   {"LINES", str(2 * d * words)},
                   {"SLOTS", str(2 * d * count)},
                   {"BLOCKS", str(blocks)},
                   {"PULL_SMEM", str(kPullReduceScatterSmemBytes)},
                   {"FLAGS", str(2 * blocks * d)}});
  }
  for (const auto &[name, value] : extra)
    if (name == "WIDTH") {
      int64_t width = std::strtoll(value.c_str(), nullptr, 10);
      if (width > 0)
        values.push_back({"PIECES", str(count / width)});
    }
  return values;
}

TemplateValues KernelInstance::values() const {
  return overrideValues(collectiveValues(teamSize, dtype, count, extra), extra);
}

std::vector<std::string> templateNames() {
  std::vector<std::string> names;
  for (const detail::EmbeddedTemplate &t : detail::embeddedTemplates())
    names.push_back(t.name);
  return names;
}

Expected<std::string> templateText(const std::string &name) {
  for (const detail::EmbeddedTemplate &t : detail::embeddedTemplates())
    if (name == t.name)
      return std::string(t.text);
  std::string names;
  for (const std::string &n : templateNames())
    names += (names.empty() ? "" : ", ") + n;
  return Error(ErrorCode::NotFound,
               "no kernel template '" + name + "' (embedded: " + names + ")");
}

Expected<std::string> fillTemplate(std::string text,
                                   const TemplateValues &values,
                                   const std::string &what) {
  for (const auto &[name, value] : values) {
    std::string token = "@" + name + "@";
    for (size_t at = text.find(token); at != std::string::npos;
         at = text.find(token, at + value.size()))
      text.replace(at, token.size(), value);
  }
  // A placeholder left means the caller and the template disagree.
  for (size_t at = text.find('@'); at != std::string::npos;
       at = text.find('@', at + 1)) {
    size_t end = text.find('@', at + 1);
    if (end == std::string::npos)
      break;
    std::string inner = text.substr(at + 1, end - at - 1);
    if (!inner.empty() && inner.find_first_not_of(
                              "ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789") ==
                              std::string::npos)
      return Error(ErrorCode::InvalidArgument,
                   what + ": placeholder @" + inner + "@ has no value");
  }
  return text;
}

TemplateValues overrideValues(const TemplateValues &values,
                              const TemplateValues &over) {
  // fillTemplate takes the first value of a key: the overriding one must
  // replace it, not follow it.
  TemplateValues all;
  for (const auto &entry : values)
    if (std::none_of(over.begin(), over.end(),
                     [&](const auto &e) { return e.first == entry.first; }))
      all.push_back(entry);
  all.insert(all.end(), over.begin(), over.end());
  return all;
}

Expected<std::string> KernelInstance::source() const {
  WEAVE_ASSIGN_OR_RETURN(std::string text, templateText(templateName));
  std::string what = "template '" + templateName + "'";
  if (variants.empty())
    return fillTemplate(std::move(text), values(), what);
  // The kernel's lines, markers included: [begin, end).
  static constexpr const char *kBegin = "// kernel begin";
  static constexpr const char *kEnd = "// kernel end";
  size_t beginMark = text.find(kBegin);
  size_t endMark = text.find(kEnd);
  if (beginMark == std::string::npos || endMark == std::string::npos ||
      endMark < beginMark)
    return Error(ErrorCode::InvalidArgument,
                 what + ": an instance with variants needs the lines '" +
                     kBegin + "' and '" + kEnd + "' around its kernel");
  size_t begin = text.rfind('\n', beginMark);
  begin = begin == std::string::npos ? 0 : begin + 1;
  size_t end = text.find('\n', endMark);
  end = end == std::string::npos ? text.size() : end + 1;
  // The text around the kernel once, the kernel once per variant with
  // the variant's values over the instance's.
  WEAVE_ASSIGN_OR_RETURN(std::string out,
                         fillTemplate(text.substr(0, begin), values(), what));
  for (const TemplateValues &variant : variants) {
    WEAVE_ASSIGN_OR_RETURN(
        std::string copy, fillTemplate(text.substr(begin, end - begin),
                                       overrideValues(values(), variant), what));
    out += copy;
  }
  WEAVE_ASSIGN_OR_RETURN(std::string tail,
                         fillTemplate(text.substr(end), values(), what));
  return out + tail;
}

namespace {

class BundleFolder : public KernelSource {
public:
  explicit BundleFolder(std::string folder) : folder_(std::move(folder)) {}
  Expected<Bundle> bundleFor(const KernelInstance &instance) override {
    std::string path = folder_ + "/" + instance.key() + ".wbundle";
    struct stat info;
    if (::stat(path.c_str(), &info) != 0)
      return Error(ErrorCode::NotFound,
                   "no bundle " + path + " for kernel '" + instance.kernelName +
                       "' (this build has no compiler: compile the instance "
                       "of template '" + instance.templateName +
                       "' with weavec --emit=bundle into that file, or use a "
                       "JitSource)");
    return readBundleFile(path);
  }

private:
  std::string folder_;
};

} // namespace

std::unique_ptr<KernelSource> bundleFolder(std::string folder) {
  return std::make_unique<BundleFolder>(std::move(folder));
}

} // namespace weave::ops
