//===- weave-bundle.cpp - Print what a bundle holds ------------------------===//
//
//   weave-bundle FILE...
//
// Reads each bundle as the runtime does (readBundleFile: header, checksum,
// manifest, every consistency check) and prints its manifest, then the
// cubin's facts per kernel, as cuobjdump does for a cubin: code bytes
// (.text.<kernel>), registers per thread, static shared memory
// (.nv.shared.<kernel>) and the parameter bank (.nv.constant0.<kernel>),
// those of the function it launches when that has another name (the
// manifest's `function`), marked `(code of FUNCTION)`.
// Exits 1, with the reader's error on stderr, for a file it rejects.
// Needs only the runtime's bundle library (no MLIR, no CUDA), so it is
// built and installed with the runtime alone too.
//
//===----------------------------------------------------------------------===//

#include "weave/runtime/Bundle.h"
#include "weave/runtime/detail/BundleDetail.h"

#include <cstdio>
#include <cstring>
#include <string>

using namespace weave;

namespace {

const CubinSection *findSection(const std::vector<CubinSection> &sections,
                                const std::string &name) {
  for (const CubinSection &section : sections)
    if (section.name == name)
      return &section;
  return nullptr;
}

std::string sectionBytes(const std::vector<CubinSection> &sections,
                         const std::string &name) {
  const CubinSection *section = findSection(sections, name);
  return section ? std::to_string(section->size) : "-";
}

int inspect(const char *path) {
  Expected<Bundle> bundle = readBundleFile(path);
  if (!bundle) {
    std::fprintf(stderr, "weave-bundle: error: %s\n",
                 bundle.error().toString().c_str());
    return 1;
  }
  std::printf("# %s\n%s", path, printManifest(*bundle).c_str());
  const std::vector<uint8_t> &cubin = bundle->cubin;
  auto sections = readCubinSections(cubin.data(), cubin.size());
  auto symbols = readCubinSymbolTable(cubin.data(), cubin.size());
  if (!sections || !symbols) {
    std::fprintf(stderr, "weave-bundle: error: %s\n",
                 (!sections ? sections.error() : symbols.error())
                     .toString()
                     .c_str());
    return 1;
  }
  uint32_t flags = 0;
  std::memcpy(&flags, cubin.data() + 0x30, 4);
  std::printf("cubin %zu bytes, ELF64 EM_CUDA, ABI version %u, e_flags "
              "0x%08x, %zu sections\n",
              cubin.size(), cubin[8], flags, sections->size());
  std::printf("%-32s %10s %10s %12s %10s\n", "kernel", "code", "registers",
              "static-smem", "params");
  for (const KernelInfo &kernel : bundle->kernels) {
    // The facts are the function's: an entry that launches a function of
    // another name (KernelInfo::function) prints that function's, marked.
    const std::string &function = kernel.functionName();
    std::string registers = "?";
    for (const CubinSymbol &symbol : *symbols)
      if (symbol.name == function)
        if (auto count = cubinRegisterCount(cubin.data(), *sections,
                                            symbol.index))
          registers = std::to_string(*count);
    std::string marker =
        function == kernel.name ? "" : "  (code of " + function + ")";
    std::printf("%-32s %10s %10s %12s %10s%s\n", kernel.name.c_str(),
                sectionBytes(*sections, ".text." + function).c_str(),
                registers.c_str(),
                sectionBytes(*sections, ".nv.shared." + function).c_str(),
                sectionBytes(*sections, ".nv.constant0." + function).c_str(),
                marker.c_str());
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fprintf(argc < 2 ? stderr : stdout,
                 "usage: weave-bundle FILE...\n"
                 "Prints each bundle's manifest and its cubin's facts per "
                 "kernel (code bytes, registers, static shared memory, "
                 "parameter bank).\n");
    return argc < 2 ? 1 : 0;
  }
  int status = 0;
  for (int i = 1; i < argc; ++i)
    status |= inspect(argv[i]);
  return status;
}
