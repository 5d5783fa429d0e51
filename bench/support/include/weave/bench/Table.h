//===- Table.h - Markdown tables and command-line values for benchmarks -*- C++
//-*-//

#ifndef WEAVE_BENCH_TABLE_H
#define WEAVE_BENCH_TABLE_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace weave {
namespace bench {

/// A Markdown table whose columns are padded to line up in a terminal.
class Table {
public:
  explicit Table(std::vector<std::string> header)
      : header_(std::move(header)) {}
  void addRow(std::vector<std::string> cells) {
    rows_.push_back(std::move(cells));
  }
  bool empty() const { return rows_.empty(); }
  std::string str() const;

private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

/// printf into a std::string.
std::string strprintf(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

/// "1024,2048" -> {1024, 2048}; nullopt on anything else.
std::optional<std::vector<int64_t>> parseIntList(const std::string &text);

/// Splits "a,b,c" at commas (empty pieces dropped).
std::vector<std::string> splitCommas(const std::string &text);

} // namespace bench
} // namespace weave

#endif // WEAVE_BENCH_TABLE_H
