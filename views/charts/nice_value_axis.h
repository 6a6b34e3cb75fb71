// A value axis with "nice" ticks (1, 2, 2.5 or 5 times a power of ten) that follow its range.
//
// Why a class: Qt Charts lays out every tick of an axis as soon as its range or its tick
// step changes, and it sees a new range before any slot could adapt the step. Setting
// 0..1e6 over a step of 0.001 would first lay out a billion ticks. setNiceRange changes range
// and step in the order whose intermediate state has the fewer ticks.
// Qt adds the step to a tick until it passes the maximum: a step lost in the rounding of the
// values (0.01 at 1e17) never gets there. So every range is made finite, at most
// kMostAxisMagnitude, and at least a billionth of its magnitude wide, and every step at least a
// trillionth of it (charts/chart_limits.h keeps the data inside long before that).
#pragma once

#include <QValueAxis>

namespace stepscope::views {

class NiceValueAxis : public QValueAxis {
 public:
  // Styled (style_axis); ticks never closer than min_interval (1 for counts).
  explicit NiceValueAxis(const QString& title, int target_ticks = 6, double min_interval = 0);

  // Shows [min, max] (max > min) with a nice tick step. Use this, not setRange, for any
  // change by more than a small factor.
  void setNiceRange(double min, double max);
  // [0, the nice step multiple at or above `highest`]; [0, 1] when highest is not positive.
  void setZeroBasedRange(double highest);

  // The nice step for [low, high]: about target_ticks intervals, never below min_interval nor
  // lost in the rounding of the range's values.
  double tickStepFor(double low, double high) const;

  // No more ticks than `pixels` of axis length can label legibly (a small chart's time axis
  // would otherwise cut every label to "1..."); style_chart calls it as the plot area changes.
  void fitTicksToLength(double pixels, Qt::Orientation orientation);

  static constexpr double kMostAxisMagnitude = 1e18;

 private:
  void applyTicks(double min, double interval);

  int target_ticks_;
  int fitted_ticks_ = 0;  // 0: no limit from the axis length yet
  double min_interval_;
};

}  // namespace stepscope::views
