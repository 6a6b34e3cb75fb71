#include "charts/axis_unit.h"

#include <cmath>
#include <initializer_list>

namespace stepscope::views {

namespace {
// Ticks read best from 1 to under 1000 of a unit: switch up once the range passes 1 of the next.
AxisUnit pick(double largest, std::initializer_list<AxisUnit> units, const AxisUnit& empty) {
  if (!(largest > 0) || !std::isfinite(largest)) return empty;
  AxisUnit best = *units.begin();
  for (const AxisUnit& unit : units) {
    if (largest >= unit.per_unit) best = unit;
  }
  return best;
}
}  // namespace

AxisUnit bytes_axis_unit(double largest_bytes) {
  constexpr double k = 1024.0;
  const AxisUnit mib{QStringLiteral("MiB"), k * k};
  return pick(largest_bytes,
              {{QStringLiteral("B"), 1}, {QStringLiteral("KiB"), k}, mib, {QStringLiteral("GiB"), k * k * k},
               {QStringLiteral("TiB"), k * k * k * k}},
              mib);
}

AxisUnit duration_axis_unit(double largest_ms) {
  const AxisUnit ms{QStringLiteral("ms"), 1};
  return pick(largest_ms, {{QString::fromUtf8("\u00b5s"), 1e-3}, ms, {QStringLiteral("s"), 1e3}}, ms);
}

}  // namespace stepscope::views
