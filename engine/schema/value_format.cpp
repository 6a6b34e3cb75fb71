#include "schema/value_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>

namespace stepscope::schema {

namespace {

constexpr double kSmallestPlain = 1e-4;  // below it, significant() writes an exponent
constexpr double kKiB = 1024.0;

std::string exact(double value);

std::string fixed(double value, int decimals) {
  char buffer[64];
  const int length = std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  // A file's 1e308 has 309 digits: cut to the buffer it would read as another number, so it
  // is written in its shortest exact form instead ("1e+308").
  if (length < 0 || static_cast<size_t>(length) >= sizeof buffer) return exact(value);
  return buffer;
}

std::string exact(double value) {
  char buffer[64];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value) break;
  }
  return buffer;
}

}  // namespace

std::string exact_number(double value) {
  if (std::isnan(value)) return "";
  return exact(value);
}

std::string csv_text(const Value& value, const CsvNumberFormat& format) {
  if (is_missing(value)) return "";
  if (const auto* text = std::get_if<std::string>(&value)) return *text;
  if (const auto* integer = std::get_if<int64_t>(&value)) return std::to_string(*integer);
  const double number = std::get<double>(value);
  if (format.significant_digits > 0 && std::isfinite(number)) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*g", format.significant_digits, number);
    return buffer;
  }
  if (format.decimals < 0 || !std::isfinite(number)) return exact_number(number);
  if (format.trim_zeros) {
    const double scale = std::pow(10.0, format.decimals);
    return exact_number(std::round(number * scale) / scale);
  }
  return fixed(number, format.decimals);
}

std::string significant(double value) {
  if (!std::isfinite(value)) return missing_text();
  const double magnitude = std::fabs(value);
  if (magnitude == 0) return "0";
  if (magnitude < kSmallestPlain) {
    // "3.81e-6", not "0.00000381": the digits that matter, not a row of zeros to count.
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.2e", value);
    std::string text = buffer;
    const auto e = text.find('e');
    const int exponent = std::atoi(text.c_str() + e + 1);
    return text.substr(0, e) + "e" + std::to_string(exponent);
  }
  int decimals = std::max(0, 2 - static_cast<int>(std::floor(std::log10(magnitude))));
  // 9.996 rounds to 10.00: one decimal fewer keeps it at three significant digits.
  if (decimals > 0 && std::round(magnitude * std::pow(10.0, decimals)) >= 1000) --decimals;
  return fixed(value, decimals);
}

std::string duration_ns_text(double ns) {
  if (!std::isfinite(ns)) return missing_text();
  struct Unit {
    double scale;
    const char* name;
  };
  static constexpr Unit kUnits[] = {{1, "ns"}, {1e3, "\u00b5s"}, {1e6, "ms"}, {1e9, "s"}};
  // The largest unit in which the value still reads at least 1 once rounded: 999.7 ns is "1.00 us".
  size_t unit = 0;
  while (unit + 1 < std::size(kUnits) && std::fabs(ns) >= 999.5 * kUnits[unit].scale) ++unit;
  // Nanoseconds are the clock's resolution: no fractions of them.
  const std::string number = unit == 0 ? fixed(ns, 0) : significant(ns / kUnits[unit].scale);
  return number + " " + kUnits[unit].name;
}

std::string bytes_text(double bytes) {
  if (!std::isfinite(bytes)) return missing_text();
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  size_t unit = 0;
  // As with durations: 1023.9 KiB reads "1.00 MiB", not "1024 KiB".
  while (std::fabs(bytes) >= 1023.5 && unit + 1 < sizeof units / sizeof *units) {
    bytes /= kKiB;
    ++unit;
  }
  return (unit == 0 ? fixed(bytes, 0) : significant(bytes)) + " " + units[unit];
}

std::string count_text(double count) {
  if (!std::isfinite(count)) return missing_text();
  if (std::fabs(count) >= 9.2e18) return exact(count);
  const int64_t whole = std::llround(count);
  if (std::fabs(count - static_cast<double>(whole)) > 1e-9 * std::max(1.0, std::fabs(count))) return significant(count);
  std::string digits = std::to_string(whole < 0 ? -static_cast<uint64_t>(whole) : static_cast<uint64_t>(whole));
  for (auto at = static_cast<std::ptrdiff_t>(digits.size()) - 3; at > 0; at -= 3) digits.insert(static_cast<size_t>(at), ",");
  return (whole < 0 ? "-" : "") + digits;
}

std::string duration_ms_text(double ms, double spread_ms) {
  if (!std::isfinite(ms)) return missing_text();
  // Past 1e9 ms only seconds apply, and nanoseconds might not fit a double (1e308 ms).
  if (std::fabs(ms) >= 1e9) return significant(ms / 1e3) + " s";
  const std::string mean = duration_ns_text(ms * 1e6);
  if (!std::isfinite(spread_ms)) return mean;
  // Mean and spread in the mean's unit, two decimals each, as a spread needs them.
  const std::string unit = mean.substr(mean.rfind(' ') + 1);
  const double per_ms = unit == "s" ? 1e-3 : unit == "ms" ? 1.0 : unit == "ns" ? 1e6 : 1e3;
  return fixed(ms * per_ms, 2) + " \u00b1 " + fixed(spread_ms * per_ms, 2) + " " + unit;
}

std::string rate_text(double value, const char* unit) {
  if (!std::isfinite(value)) return missing_text();
  return significant(value) + " " + unit;
}

std::string mib_text(int64_t bytes) { return significant(static_cast<double>(bytes) / (1024.0 * 1024.0)) + " MiB"; }

std::string percent_text(double percent) {
  if (!std::isfinite(percent)) return missing_text();
  return fixed(percent, 1) + "%";
}

std::string mean_std_text(double mean, double std) { return fixed(mean, 2) + " \u00b1 " + fixed(std, 2); }

std::string display_text(const Value& value, ColumnKind kind) {
  if (is_missing(value)) return missing_text();
  if (const auto* text = std::get_if<std::string>(&value)) return *text;
  const double number = *number_of(value);
  switch (kind) {
    case ColumnKind::integer: return count_text(number);
    case ColumnKind::milliseconds: return duration_ms_text(number);
    case ColumnKind::nanoseconds: return duration_ns_text(number);
    case ColumnKind::microseconds: return duration_ns_text(number * 1e3);
    case ColumnKind::bytes: return bytes_text(number);
    case ColumnKind::mebibytes: return bytes_text(number * kKiB * kKiB);
    case ColumnKind::fraction: return percent_text(100.0 * number);
    case ColumnKind::percent: return percent_text(number);
    case ColumnKind::per_second: return std::isfinite(number) ? count_text(std::round(number)) + "/s" : missing_text();
    case ColumnKind::gb_per_second: return rate_text(number, "GB/s");
    case ColumnKind::tflop_per_second: return rate_text(number, "TFLOP/s");
    case ColumnKind::real:
    case ColumnKind::text: return significant(number);
  }
  return significant(number);
}

std::string display_cell(const Table& table, size_t row, size_t column) {
  const Column& c = table.columns[column];
  const Value& value = table.rows[row][column];
  if (!c.spread_key.empty() && c.kind == ColumnKind::milliseconds && !is_missing(value)) {
    const int spread = table.column_index(c.spread_key);
    if (spread >= 0) {
      if (const auto s = number_of(table.rows[row][static_cast<size_t>(spread)])) {
        return duration_ms_text(*number_of(value), *s);
      }
    }
  }
  return display_value(value, c);
}

std::string display_value(const Value& value, const Column& column) {
  // A column whose files trim to a few decimals reads the same on screen.
  const bool fixed_digits = column.csv.trim_zeros || column.csv.significant_digits > 0;
  if (fixed_digits && std::holds_alternative<double>(value)) return csv_text(value, column.csv);
  return display_text(value, column.kind);
}

}  // namespace stepscope::schema
