// What a chart can draw, decided before a file's values reach an axis.
//
// Why: Qt Charts lays a value axis out by adding the tick step to the first tick until it
// passes the maximum, and a log axis makes a tick per power of its base. An infinite range
// (1e308 * 1.05), a step lost in its values' rounding (1e17 + 0.01) or a range over hundreds of
// decades never finishes, allocates without bound or crashes. So values a chart would draw are
// checked here; those outside the range are left out, and the chart says so in a note (the
// tables still show them). The axes guard their ranges as well (NiceValueAxis, set_log_range).
#pragma once

#include <QString>

#include <cstddef>
#include <initializer_list>

class QLogValueAxis;

namespace stepscope::views {

// Magnitudes a chart draws: 0, or from kLeastChartable to kMostChartable. 1e15 ms is 31,000
// years; 1e15 GB/s, MiB or tokens are as far past any machine.
inline constexpr double kMostChartable = 1e15;
inline constexpr double kLeastChartable = 1e-15;

// Finite, and 0 or of a magnitude in [kLeastChartable, kMostChartable].
bool is_chartable(double value);
// The same and positive, for a log axis.
bool is_chartable_on_log(double value);

// One value of an item a chart would draw (a point, a bar), named for the note.
struct ChartValue {
  double value = 0;
  QString name;  // "bus bandwidth (GB/s)"
  bool log_axis = false;
};

// Counts the items a chart leaves out and names the first value at fault.
class LeftOut {
 public:
  // True when every value can be drawn; else the item is counted as left out.
  bool keep(std::initializer_list<ChartValue> values);
  size_t count() const { return count_; }
  // "" when nothing was left out; else "1 point left out: bus bandwidth (GB/s) 1e+308 is beyond
  // what the chart draws (magnitudes 1e-15 to 1e+15, positive on a log axis); the table lists it."
  QString note(const QString& one_item, const QString& items) const;
  // Why the first item was left out, for charts that say it where the item would be.
  QString first_reason() const { return first_; }

 private:
  size_t count_ = 0;
  QString first_;
  bool log_axis_ = false;  // some value was for a log axis: the note says they must be positive
};

// Sets a log axis to [low, high], kept finite, positive and within whole powers of its base
// beyond the chartable range, so it makes a bounded number of ticks whatever it is given.
void set_log_range(QLogValueAxis& axis, double low, double high);

}  // namespace stepscope::views
