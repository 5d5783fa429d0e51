//===- Table.cpp - Markdown tables and command-line values ----------------===//

#include "weave/bench/Table.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace weave {
namespace bench {

std::string Table::str() const {
  std::vector<size_t> width(header_.size(), 3);
  auto widen = [&](const std::vector<std::string> &row) {
    for (size_t i = 0; i < row.size() && i < width.size(); ++i)
      width[i] = std::max(width[i], row[i].size());
  };
  widen(header_);
  for (const auto &row : rows_)
    widen(row);
  auto line = [&](const std::vector<std::string> &row) {
    std::string out = "|";
    for (size_t i = 0; i < width.size(); ++i) {
      std::string cell = i < row.size() ? row[i] : "";
      out += " " + cell + std::string(width[i] - cell.size(), ' ') + " |";
    }
    return out + "\n";
  };
  std::string out = line(header_);
  out += "|";
  for (size_t w : width)
    out += std::string(w + 2, '-') + "|";
  out += "\n";
  for (const auto &row : rows_)
    out += line(row);
  return out;
}

std::string strprintf(const char *format, ...) {
  va_list args;
  va_start(args, format);
  va_list copy;
  va_copy(copy, args);
  int n = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::string out(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  if (n > 0)
    std::vsnprintf(out.data(), out.size() + 1, format, args);
  va_end(args);
  return out;
}

std::vector<std::string> splitCommas(const std::string &text) {
  std::vector<std::string> out;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find(',', begin);
    if (end == std::string::npos)
      end = text.size();
    if (end > begin)
      out.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return out;
}

std::optional<std::vector<int64_t>> parseIntList(const std::string &text) {
  std::vector<int64_t> out;
  for (const std::string &piece : splitCommas(text)) {
    char *end = nullptr;
    long long v = std::strtoll(piece.c_str(), &end, 10);
    if (!end || *end || v <= 0)
      return std::nullopt;
    out.push_back(v);
  }
  if (out.empty())
    return std::nullopt;
  return out;
}

} // namespace bench
} // namespace weave
