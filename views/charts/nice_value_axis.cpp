#include "charts/nice_value_axis.h"

#include <algorithm>
#include <cmath>

#include "charts/chart_style.h"

namespace stepscope::views {

NiceValueAxis::NiceValueAxis(const QString& title, int target_ticks, double min_interval)
    : target_ticks_(target_ticks), min_interval_(min_interval) {
  style_axis(*this, title);
  setTickType(QValueAxis::TicksDynamic);
  applyTicks(min(), tickStepFor(max() - min()));
  // Qt's own range changes (rubber-band zoom) only narrow the range: adapting afterwards is safe.
  connect(this, &QValueAxis::rangeChanged, this, [this](qreal low, qreal high) { applyTicks(low, tickStepFor(high - low)); });
}

double NiceValueAxis::tickStepFor(double span) const {
  return std::max(nice_tick_interval(span, target_ticks_), min_interval_);
}

void NiceValueAxis::applyTicks(double low, double interval) {
  setTickAnchor(std::floor(low / interval) * interval);
  setTickInterval(interval);
  setLabelFormat(tick_label_format(interval));
}

void NiceValueAxis::setNiceRange(double low, double high) {
  if (!(high > low)) high = low + 1;
  const double interval = tickStepFor(high - low);
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
  setNiceRange(0, highest > 0 ? nice_ceiling(highest, target_ticks_) : 1.0);
}

}  // namespace stepscope::views
