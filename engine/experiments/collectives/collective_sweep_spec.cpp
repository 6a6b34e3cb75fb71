#include "experiments/collectives/collective_sweep_spec.h"

#include <cctype>
#include <utility>

namespace stepscope {

std::vector<CollectiveConfig> expand(const CollectiveSweepSpec& spec, int ranks) {
  std::vector<CollectiveConfig> out;
  for (CollectiveOp op : spec.ops) {
    for (Precision dtype : spec.dtypes) {
      for (int64_t size : spec.sizes_bytes) {
        CollectiveConfig c = spec.base;
        c.op = op;
        c.dtype = dtype;
        c.size_bytes = size;
        c.ranks = ranks;
        out.push_back(c);
      }
    }
  }
  return out;
}

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
