#include "models/format.h"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace stepscope::views {

QString format_significant(double value) {
  if (!std::isfinite(value)) return missing_text();
  const double magnitude = std::fabs(value);
  if (magnitude == 0) return QStringLiteral("0");
  int decimals = std::max(0, 2 - static_cast<int>(std::floor(std::log10(magnitude))));
  // 9.996 rounds to 10.00: one decimal fewer keeps it at three significant digits.
  if (decimals > 0 && std::round(magnitude * std::pow(10.0, decimals)) >= 1000) --decimals;
  return QString::number(value, 'f', decimals);
}

QString format_duration_ns(double ns) {
  if (!std::isfinite(ns)) return missing_text();
  struct Unit {
    double scale;
    const char* name;
  };
  static constexpr Unit kUnits[] = {{1, "ns"}, {1e3, "us"}, {1e6, "ms"}, {1e9, "s"}};
  // The largest unit in which the value still reads at least 1 once rounded: 999.7 ns is "1.00 us".
  size_t unit = 0;
  while (unit + 1 < std::size(kUnits) && std::fabs(ns) >= 999.5 * kUnits[unit].scale) ++unit;
  // Nanoseconds are the clock's resolution: no fractions of them.
  const QString number = unit == 0 ? QString::number(ns, 'f', 0) : format_significant(ns / kUnits[unit].scale);
  return number + QLatin1Char(' ') + QLatin1String(kUnits[unit].name);
}

QString format_bytes(int64_t bytes) {
  return format_significant(static_cast<double>(bytes) / (1024.0 * 1024.0)) + QStringLiteral(" MiB");
}

QString format_mean_std(double mean, double std) {
  return QString::number(mean, 'f', 2) + QStringLiteral(" \u00b1 ") + QString::number(std, 'f', 2);
}

QString format_percent(double percent) {
  if (!std::isfinite(percent)) return missing_text();
  return QString::number(percent, 'f', 1) + QLatin1Char('%');
}

}  // namespace stepscope::views
