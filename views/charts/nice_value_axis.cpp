#include "charts/nice_value_axis.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

#include "charts/chart_style.h"

namespace stepscope::views {

namespace {

// Below this share of a range's magnitude, steps and spans drown in the rounding of its values.
constexpr double kLeastRelativeSpan = 1e-9;
constexpr double kLeastRelativeStep = 1e-12;

// [low, high] made drawable: finite, within the axis magnitude, high above low by a span the
// values' rounding keeps (an empty range becomes at least 1 wide, as [0, 1] for nothing).
std::pair<double, double> drawable(double low, double high) {
  constexpr double kMost = NiceValueAxis::kMostAxisMagnitude;
  if (std::isnan(low) || std::isnan(high)) return {0, 1};
  low = std::clamp(low, -kMost, kMost);  // infinities too
  high = std::clamp(high, -kMost, kMost);
  const double magnitude = std::max(std::abs(low), std::abs(high));
  const double least = std::max(high > low ? 1e-100 : 1.0, magnitude * kLeastRelativeSpan);
  if (high - low < least) {
    low = std::min(low, kMost - least);
    high = low + least;
  }
  return {low, high};
}

}  // namespace

NiceValueAxis::NiceValueAxis(const QString& title, int target_ticks, double min_interval)
    : target_ticks_(target_ticks), min_interval_(min_interval) {
  style_axis(*this, title);
  setTickType(QValueAxis::TicksDynamic);
  applyTicks(min(), tickStepFor(min(), max()));
  // Qt's own range changes (rubber-band zoom) only narrow the range: adapting afterwards is safe.
  connect(this, &QValueAxis::rangeChanged, this, [this](qreal low, qreal high) { applyTicks(low, tickStepFor(low, high)); });
}

double NiceValueAxis::tickStepFor(double low, double high) const {
  const double magnitude = std::max(std::abs(low), std::abs(high));
  const double least = magnitude > 0 && std::isfinite(magnitude)
                           ? std::pow(10.0, std::ceil(std::log10(magnitude * kLeastRelativeStep)))
                           : 0.0;
  const int target = fitted_ticks_ > 0 ? std::min(target_ticks_, fitted_ticks_) : target_ticks_;
  const double step = std::max({nice_tick_interval(high - low, target), min_interval_, least});
  return step > 0 && std::isfinite(step) ? step : 1.0;
}

void NiceValueAxis::fitTicksToLength(double pixels, Qt::Orientation orientation) {
  // A horizontal tick label ("1250", "0.375") needs about 70 px; a vertical one a line and a gap.
  const double per_tick = orientation == Qt::Horizontal ? 70.0 : 36.0;
  const int fitted = std::max(2, static_cast<int>(pixels / per_tick));
  if (fitted == fitted_ticks_) return;
  fitted_ticks_ = fitted;
  applyTicks(min(), tickStepFor(min(), max()));
}

void NiceValueAxis::applyTicks(double low, double interval) {
  setTickAnchor(std::floor(low / interval) * interval);
  setTickInterval(interval);
  setLabelFormat(tick_label_format(interval));
}

void NiceValueAxis::setNiceRange(double low, double high) {
  std::tie(low, high) = drawable(low, high);
  const double interval = tickStepFor(low, high);
  // Either order passes through one mixed state, (new range, old step) or (old range, new
  // step); their tick counts multiply to about target^2, so the smaller one is small.
  const double range_first_ticks = (high - low) / tickInterval();
  const double step_first_ticks = (max() - min()) / interval;
  if (range_first_ticks <= step_first_ticks) {
    setRange(low, high);
    applyTicks(low, interval);
  } else {
    applyTicks(low, interval);
    setRange(low, high);
  }
}

void NiceValueAxis::setZeroBasedRange(double highest) {
  setNiceRange(0, highest > 0 ? nice_ceiling(std::min(highest, kMostAxisMagnitude), target_ticks_) : 1.0);
}

}  // namespace stepscope::views
