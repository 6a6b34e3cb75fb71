#include "charts/chart_limits.h"

#include <QLogValueAxis>

#include <algorithm>
#include <cmath>

namespace stepscope::views {

bool is_chartable(double value) {
  const double magnitude = std::abs(value);
  return value == 0 || (magnitude >= kLeastChartable && magnitude <= kMostChartable);  // false for NaN, inf
}

bool is_chartable_on_log(double value) { return value > 0 && is_chartable(value); }

bool LeftOut::keep(std::initializer_list<ChartValue> values) {
  for (const auto& v : values) {
    log_axis_ = log_axis_ || v.log_axis;
    if (v.log_axis ? is_chartable_on_log(v.value) : is_chartable(v.value)) continue;
    if (count_++ == 0) {
      first_ = QStringLiteral("%1 %2 is beyond what the chart draws").arg(v.name).arg(v.value, 0, 'g', 6);
      if (v.log_axis && is_chartable(v.value)) first_ += QStringLiteral(" on its log axis");
    }
    return false;
  }
  return true;
}

QString LeftOut::note(const QString& one_item, const QString& items) const {
  if (count_ == 0) return {};
  const QString what = count_ == 1 ? QStringLiteral("1 %1").arg(one_item) : QStringLiteral("%1 %2").arg(count_).arg(items);
  return QStringLiteral("%1 left out: %2 (magnitudes %3 to %4%5); the table lists %6.")
      .arg(what, first_)
      .arg(kLeastChartable, 0, 'g')
      .arg(kMostChartable, 0, 'g')
      .arg(log_axis_ ? QStringLiteral(", positive on a log axis") : QString())
      .arg(count_ == 1 ? QStringLiteral("it") : QStringLiteral("them"));
}

void set_log_range(QLogValueAxis& axis, double low, double high) {
  const double base = axis.base() > 1 ? axis.base() : 10;
  // A whole power of the base past each end of the chartable range.
  const double floor = std::pow(base, std::floor(std::log(kLeastChartable) / std::log(base)) - 1);
  const double ceiling = std::pow(base, std::ceil(std::log(kMostChartable) / std::log(base)) + 1);
  low = std::isfinite(low) ? std::clamp(low, floor, ceiling) : floor;
  high = std::isfinite(high) ? std::clamp(high, floor, ceiling) : ceiling;
  if (!(high > low)) {
    low = std::min(low, ceiling / base);
    high = low * base;
  }
  axis.setRange(low, high);
}

}  // namespace stepscope::views
