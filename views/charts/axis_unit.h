// The unit an axis shows, picked from the range of its data, and its title saying it: a memory
// axis up to 50,000 MiB reads up to 48.8 GiB, a time axis up to 25,000 ms up to 25 s. Values
// are divided by `per_unit` before they reach the series; the axis title names the unit.
#pragma once

#include <QString>

namespace stepscope::views {

struct AxisUnit {
  QString name;          // "GiB", "ms", "GB/s"
  double per_unit = 1;   // base units (bytes, ms, ...) per shown unit
  // "memory (GiB)": the quantity with this unit.
  QString title(const QString& quantity) const { return QStringLiteral("%1 (%2)").arg(quantity, name); }
  double shown(double base) const { return base / per_unit; }
};

// The largest unit in which `largest` (the axis maximum) reads at least 1; a range of
// nothing keeps the smallest unit but one (MiB, ms) so that an empty chart reads familiar.
// Bytes: B, KiB, MiB, GiB, TiB.
AxisUnit bytes_axis_unit(double largest_bytes);
// Milliseconds: µs, ms, s.
AxisUnit duration_axis_unit(double largest_ms);

}  // namespace stepscope::views
