#include "schema/size_text.h"

#include <cctype>
#include <utility>

namespace stepscope {

std::optional<int64_t> parse_size_bytes(const std::string& text) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 16) return std::nullopt;
  std::string unit = text.substr(digits);
  for (char& ch : unit) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  const std::pair<const char*, int64_t> units[] = {{"", 1},          {"B", 1},           {"KB", 1000},
                                                   {"MB", 1000000},  {"GB", 1000000000}, {"KIB", 1 << 10},
                                                   {"MIB", 1 << 20}, {"GIB", int64_t{1} << 30}};
  const int64_t count = std::stoll(text.substr(0, digits));
  for (const auto& [name, factor] : units) {
    if (unit != name) continue;
    if (count < 1 || count > (int64_t{1} << 50) / factor) return std::nullopt;
    return count * factor;
  }
  return std::nullopt;
}

}  // namespace stepscope
