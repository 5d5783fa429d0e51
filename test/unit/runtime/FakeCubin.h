//===- FakeCubin.h - A tiny hand-built ELF64 image for bundle tests -*- C++ -*-//

#ifndef WEAVE_TEST_UNIT_RUNTIME_FAKECUBIN_H
#define WEAVE_TEST_UNIT_RUNTIME_FAKECUBIN_H

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace weave {
namespace test {

inline void putLE(std::vector<uint8_t> &out, size_t at, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i)
    out[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

/// Offsets of interesting fields, for corruption tests.
struct FakeCubinLayout {
  size_t symtabOffset = 0, strtabOffset = 0, sectionHeaderOffset = 0;
};

/// An ELF64, little-endian, EM_CUDA image with sections
/// [0] null, [1] .strtab, [2] .symtab (link 1) holding `symbols`.
inline std::vector<uint8_t> makeFakeCubin(const std::vector<std::string> &symbols,
                                          uint16_t machine = 190,
                                          FakeCubinLayout *layout = nullptr) {
  std::string strtab(1, '\0');
  std::vector<uint32_t> nameOffsets;
  for (const std::string &s : symbols) {
    nameOffsets.push_back(static_cast<uint32_t>(strtab.size()));
    strtab += s;
    strtab += '\0';
  }
  size_t strtabOff = 64;
  size_t symtabOff = (strtabOff + strtab.size() + 7) & ~size_t(7);
  size_t symtabSize = 24 * (symbols.size() + 1);
  size_t shOff = (symtabOff + symtabSize + 7) & ~size_t(7);
  std::vector<uint8_t> image(shOff + 3 * 64, 0);
  std::memcpy(image.data(), "\x7f" "ELF", 4);
  image[4] = 2; // ELFCLASS64
  image[5] = 1; // little-endian
  image[6] = 1; // EV_CURRENT
  putLE(image, 16, 2, 2);       // e_type ET_EXEC
  putLE(image, 18, machine, 2); // e_machine
  putLE(image, 20, 1, 4);       // e_version
  putLE(image, 0x28, shOff, 8); // e_shoff
  putLE(image, 0x34, 64, 2);    // e_ehsize
  putLE(image, 0x3A, 64, 2);    // e_shentsize
  putLE(image, 0x3C, 3, 2);     // e_shnum
  putLE(image, 0x3E, 0, 2);     // e_shstrndx
  std::memcpy(image.data() + strtabOff, strtab.data(), strtab.size());
  for (size_t i = 0; i < symbols.size(); ++i) {
    size_t sym = symtabOff + 24 * (i + 1);
    putLE(image, sym, nameOffsets[i], 4);
    image[sym + 4] = 0x12; // STB_GLOBAL, STT_FUNC
  }
  size_t sh1 = shOff + 64, sh2 = shOff + 128;
  putLE(image, sh1 + 4, 3, 4); // SHT_STRTAB
  putLE(image, sh1 + 24, strtabOff, 8);
  putLE(image, sh1 + 32, strtab.size(), 8);
  putLE(image, sh2 + 4, 2, 4); // SHT_SYMTAB
  putLE(image, sh2 + 24, symtabOff, 8);
  putLE(image, sh2 + 32, symtabSize, 8);
  putLE(image, sh2 + 40, 1, 4); // sh_link -> .strtab
  putLE(image, sh2 + 56, 24, 8);
  if (layout)
    *layout = {symtabOff, strtabOff, shOff};
  return image;
}

} // namespace test
} // namespace weave

#endif // WEAVE_TEST_UNIT_RUNTIME_FAKECUBIN_H
