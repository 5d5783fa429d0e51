//===- KernelSource.cpp - Kernel instances and where they come from -------===//

#include "weave/ops/KernelSource.h"

#include "EmbeddedTemplates.h"

#include <sys/stat.h>

namespace weave::ops {

KernelSource::~KernelSource() = default;

std::string KernelInstance::key() const {
  std::string key = kernelName;
  for (const auto &[name, value] : values) {
    // Conversions follow from the dtype; they would only lengthen the name.
    if (name == "WIDEN" || name == "NARROW")
      continue;
    key += "." + name + "-" + value;
  }
  return key;
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

Expected<std::string> KernelInstance::source() const {
  WEAVE_ASSIGN_OR_RETURN(std::string text, templateText(templateName));
  for (const auto &[name, value] : values) {
    std::string token = "@" + name + "@";
    for (size_t at = text.find(token); at != std::string::npos;
         at = text.find(token, at + value.size()))
      text.replace(at, token.size(), value);
  }
  // A placeholder left means the op and its template disagree.
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
                   "template '" + templateName + "': placeholder @" + inner +
                       "@ has no value");
  }
  return text;
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
