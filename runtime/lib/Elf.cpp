//===- Elf.cpp - Bounds-checked reading of a cubin's symbol table ---------===//

#include "weave/runtime/detail/BundleDetail.h"

#include <cstring>
#include <optional>

namespace weave {

namespace {

Error elfError(const std::string &message) {
  return Error(ErrorCode::InvalidBundle, "cubin: " + message);
}

uint64_t readLE(const uint8_t *p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}

/// `[offset, offset + length)` lies inside an image of `size` bytes.
bool inBounds(uint64_t offset, uint64_t length, uint64_t size) {
  return offset <= size && length <= size - offset;
}

struct SectionHeader {
  uint32_t type;
  uint64_t offset, size, entrySize;
  uint32_t link;
};

constexpr uint32_t kShtSymtab = 2;
constexpr uint32_t kShtStrtab = 3;
constexpr uint64_t kElf64HeaderBytes = 64;
constexpr uint64_t kElf64SectionHeaderBytes = 64;
constexpr uint64_t kElf64SymbolBytes = 24;

} // namespace

Expected<std::vector<std::string>> readCubinSymbols(const uint8_t *data,
                                                    size_t size) {
  WEAVE_ASSIGN_OR_RETURN(std::vector<CubinSymbol> symbols,
                         readCubinSymbolTable(data, size));
  std::vector<std::string> names;
  for (CubinSymbol &symbol : symbols)
    if (!symbol.name.empty())
      names.push_back(std::move(symbol.name));
  return names;
}

Expected<std::vector<CubinSymbol>> readCubinSymbolTable(const uint8_t *data,
                                                        size_t size) {
  if (size < kElf64HeaderBytes)
    return elfError("expected an ELF64 image of at least 64 bytes, found " +
                    std::to_string(size) + " bytes");
  if (std::memcmp(data, "\x7f" "ELF", 4) != 0)
    return elfError("expected ELF magic 7f 45 4c 46");
  if (data[4] != 2)
    return elfError("expected ELFCLASS64 (2), found class " +
                    std::to_string(data[4]));
  if (data[5] != 1)
    return elfError("expected little-endian ELF (1), found data encoding " +
                    std::to_string(data[5]));
  uint16_t machine = static_cast<uint16_t>(readLE(data + 18, 2));
  if (machine != kElfMachineCuda)
    return elfError("expected e_machine EM_CUDA (190), found " +
                    std::to_string(machine));
  uint64_t shoff = readLE(data + 0x28, 8);
  uint64_t shentsize = readLE(data + 0x3A, 2);
  uint64_t shnum = readLE(data + 0x3C, 2);
  if (shnum == 0)
    return elfError("image has no section headers");
  if (shentsize != kElf64SectionHeaderBytes)
    return elfError("expected 64-byte section headers, found " +
                    std::to_string(shentsize));
  if (!inBounds(shoff, shnum * shentsize, size))
    return elfError("section header table (offset " + std::to_string(shoff) +
                    ", " + std::to_string(shnum) +
                    " entries) exceeds the image of " + std::to_string(size) +
                    " bytes");
  std::vector<SectionHeader> sections(shnum);
  for (uint64_t i = 0; i < shnum; ++i) {
    const uint8_t *sh = data + shoff + i * shentsize;
    sections[i] = {static_cast<uint32_t>(readLE(sh + 4, 4)), readLE(sh + 24, 8),
                   readLE(sh + 32, 8), readLE(sh + 56, 8),
                   static_cast<uint32_t>(readLE(sh + 40, 4))};
  }
  std::vector<CubinSymbol> names;
  bool sawSymtab = false;
  for (uint64_t i = 0; i < shnum; ++i) {
    const SectionHeader &symtab = sections[i];
    if (symtab.type != kShtSymtab)
      continue;
    sawSymtab = true;
    std::string which = "symbol table section " + std::to_string(i);
    if (symtab.entrySize != kElf64SymbolBytes)
      return elfError(which + ": expected 24-byte entries, found " +
                      std::to_string(symtab.entrySize));
    if (!inBounds(symtab.offset, symtab.size, size))
      return elfError(which + " exceeds the image");
    if (symtab.link >= shnum || sections[symtab.link].type != kShtStrtab)
      return elfError(which + ": sh_link " + std::to_string(symtab.link) +
                      " is not a string table");
    const SectionHeader &strtab = sections[symtab.link];
    if (!inBounds(strtab.offset, strtab.size, size))
      return elfError("string table section " + std::to_string(symtab.link) +
                      " exceeds the image");
    const char *strings = reinterpret_cast<const char *>(data + strtab.offset);
    for (uint64_t s = 0; s < symtab.size / kElf64SymbolBytes; ++s) {
      const uint8_t *entry = data + symtab.offset + s * kElf64SymbolBytes;
      uint64_t nameOffset = readLE(entry, 4);
      CubinSymbol symbol;
      symbol.index = static_cast<uint32_t>(s);
      symbol.isFunction = (entry[4] & 0xf) == 2; // STT_FUNC
      symbol.section = static_cast<uint16_t>(readLE(entry + 6, 2));
      if (nameOffset == 0) {
        names.push_back(std::move(symbol));
        continue;
      }
      if (nameOffset >= strtab.size)
        return elfError(which + ": symbol " + std::to_string(s) +
                        " name offset exceeds its string table");
      const void *end = std::memchr(strings + nameOffset, '\0',
                                    strtab.size - nameOffset);
      if (!end)
        return elfError(which + ": symbol " + std::to_string(s) +
                        " name is not NUL-terminated");
      symbol.name.assign(strings + nameOffset,
                         static_cast<const char *>(end) - (strings + nameOffset));
      names.push_back(std::move(symbol));
    }
  }
  if (!sawSymtab)
    return elfError("image has no symbol table (SHT_SYMTAB)");
  return names;
}

Expected<std::vector<CubinSection>> readCubinSections(const uint8_t *data,
                                                      size_t size) {
  // The header checks are readCubinSymbolTable's.
  if (auto symbols = readCubinSymbolTable(data, size); !symbols)
    return std::move(symbols).takeError();
  uint64_t shoff = readLE(data + 0x28, 8);
  uint64_t shnum = readLE(data + 0x3C, 2);
  uint64_t shstrndx = readLE(data + 0x3E, 2);
  if (shstrndx >= shnum)
    return elfError("section name table index " + std::to_string(shstrndx) +
                    " is out of range");
  const uint8_t *names = data + shoff + shstrndx * kElf64SectionHeaderBytes;
  uint64_t namesOffset = readLE(names + 24, 8), namesSize = readLE(names + 32, 8);
  if (!inBounds(namesOffset, namesSize, size))
    return elfError("section name table exceeds the image");
  const char *strings = reinterpret_cast<const char *>(data + namesOffset);
  std::vector<CubinSection> sections;
  for (uint64_t i = 0; i < shnum; ++i) {
    const uint8_t *sh = data + shoff + i * kElf64SectionHeaderBytes;
    CubinSection section;
    section.type = static_cast<uint32_t>(readLE(sh + 4, 4));
    section.offset = readLE(sh + 24, 8);
    section.size = readLE(sh + 32, 8);
    uint64_t name = readLE(sh, 4);
    if (name >= namesSize)
      return elfError("section " + std::to_string(i) +
                      " name offset exceeds the section name table");
    const void *end = std::memchr(strings + name, '\0', namesSize - name);
    if (!end)
      return elfError("section " + std::to_string(i) +
                      " name is not NUL-terminated");
    section.name.assign(strings + name,
                        static_cast<const char *>(end) - (strings + name));
    // SHT_NOBITS (8) sections (.nv.shared.*) occupy no bytes of the image.
    if (section.type != 8 && !inBounds(section.offset, section.size, size))
      return elfError("section '" + section.name + "' exceeds the image");
    sections.push_back(std::move(section));
  }
  return sections;
}

std::optional<uint32_t> cubinRegisterCount(const uint8_t *data,
                                           const std::vector<CubinSection> &sections,
                                           uint32_t symbolIndex) {
  // .nv.info: records of (format u8, attribute u8, then by format: 0x01 none,
  // 0x02 one byte + pad, 0x03 a u16, 0x04 a u16 size and that many bytes).
  // EIATTR_REGCOUNT (0x2f) is a 0x04 record holding (symbol u32, count u32).
  for (const CubinSection &section : sections) {
    if (section.name != ".nv.info")
      continue;
    const uint8_t *p = data + section.offset;
    uint64_t at = 0;
    while (at + 4 <= section.size) {
      uint8_t format = p[at], attribute = p[at + 1];
      uint64_t payload = format == 0x04 ? readLE(p + at + 2, 2) : 0;
      if (format == 0x04 && attribute == 0x2f && payload == 8 &&
          at + 12 <= section.size &&
          readLE(p + at + 4, 4) == symbolIndex)
        return static_cast<uint32_t>(readLE(p + at + 8, 4));
      at += 4 + payload;
    }
  }
  return std::nullopt;
}

} // namespace weave
