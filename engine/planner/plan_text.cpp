#include "planner/plan_text.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "schema/value_format.h"

namespace stepscope::planner {

std::string number_text(double value) {
  if (std::isfinite(value) && std::fabs(value) < 1e6 && std::floor(value) == value) {
    return std::to_string(static_cast<int64_t>(value));  // "4", "126": counts stay counts
  }
  if (!std::isfinite(value) || std::fabs(value) < 1e6) return schema::significant(value);
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2e", value);
  std::string text = buffer;
  // "2.20e+11" -> "2.20e11", "1.29e+08" -> "1.29e8": how the seeds write it.
  const auto e = text.find('e');
  size_t digits = e + 1;
  if (digits < text.size() && text[digits] == '+') text.erase(digits, 1);
  if (digits < text.size() && text[digits] == '-') ++digits;
  while (digits + 1 < text.size() && text[digits] == '0') text.erase(digits, 1);
  return text;
}

std::string size_text(double bytes) {
  struct Unit {
    double scale;
    const char* name;
  };
  static constexpr Unit kUnits[] = {{1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "kB"}};
  for (const auto& unit : kUnits) {
    if (std::fabs(bytes) >= unit.scale) return schema::significant(bytes / unit.scale) + " " + unit.name;
  }
  return schema::significant(bytes) + " B";
}

std::string gib_text(double bytes) { return schema::significant(bytes / kGiB) + " GiB"; }

std::string gb_gib_text(double bytes) {
  return schema::significant(bytes / kGB) + " GB = " + schema::significant(bytes / kGiB) + " GiB";
}

}  // namespace stepscope::planner
