#include "charts/memory_chart_data.h"

#include <algorithm>

#include "charts/chart_colors.h"
#include "models/format.h"

namespace stepscope::views {

using profiling::MemoryCategory;
using profiling::MemoryPoint;
using profiling::MemoryTimeline;

namespace {

constexpr double kBytesPerMiB = 1024.0 * 1024.0;
double mib(int64_t bytes) { return static_cast<double>(bytes) / kBytesPerMiB; }
// A file's times may be any int64 (-9e18 and 9e18): differences in double, never an int64 that
// overflows; all of them (at most 1.8e13 ms, 8.8e12 MiB) stay inside what a chart draws.
double ms(int64_t ns, int64_t origin_ns) {
  int64_t since = 0;
  if (!__builtin_sub_overflow(ns, origin_ns, &since)) return static_cast<double>(since) * 1e-6;
  return (static_cast<double>(ns) - static_cast<double>(origin_ns)) * 1e-6;
}
// origin + ms as a time, saturated at int64's ends.
int64_t ns_at(int64_t origin_ns, double ms_from_origin) {
  const double ns = static_cast<double>(origin_ns) + ms_from_origin * 1e6;
  if (!(ns > -9.2e18)) return INT64_MIN;
  return ns < 9.2e18 ? static_cast<int64_t>(ns) : INT64_MAX;
}

// Points are in time order (the timeline sorts its events), so ranges of equal time are found
// by binary search.
template <typename It>
std::pair<It, It> at_time(It first, It last, int64_t time_ns) {
  auto lo = std::lower_bound(first, last, time_ns, [](const MemoryPoint& p, int64_t t) { return p.time_ns < t; });
  auto hi = std::upper_bound(lo, last, time_ns, [](int64_t t, const MemoryPoint& p) { return t < p.time_ns; });
  return {lo, hi};
}

int64_t origin_of(const MemoryTimeline& timeline) {
  if (!timeline.points.empty()) return timeline.points.front().time_ns;
  return timeline.bands.empty() ? 0 : timeline.bands.front().start_ns;
}

// Decimation keeps the highest point but may drop a phase's peak (the forward peak of a
// step, say); put back each peak in [from_ns, to_ns] so its marker sits on the drawn area.
void keep_peak_points(const MemoryTimeline& timeline, int64_t from_ns, int64_t to_ns, std::vector<MemoryPoint>& kept) {
  for (const auto& peak : timeline.peaks) {
    if (peak.time_ns < from_ns || peak.time_ns > to_ns) continue;
    auto same = [&](const MemoryPoint& p) { return p.bytes_by_category == peak.bytes_by_category; };
    const auto [lo, hi] = at_time(kept.begin(), kept.end(), peak.time_ns);
    if (std::any_of(lo, hi, same)) continue;
    const auto [full_lo, full_hi] = at_time(timeline.points.begin(), timeline.points.end(), peak.time_ns);
    const auto found = std::find_if(full_lo, full_hi, same);
    if (found != full_hi) kept.insert(hi, *found);
  }
}

void fill_layers(MemoryChartData& data) {
  const auto& order = memory_stack_order();
  data.layers.resize(order.size());
  for (size_t l = 0; l < order.size(); ++l) {
    data.layers[l].category = order[l];
    data.layers[l].upper.reserve(static_cast<qsizetype>(data.points.size()));
  }
  for (const auto& p : data.points) {
    const double x = ms(p.time_ns, data.origin_ns);
    double below = 0;  // MiB: a file's categories may add up past int64
    for (size_t l = 0; l < order.size(); ++l) {
      const double own = mib(p.bytes_by_category[profiling::category_index(order[l])]);
      below += own;
      data.layers[l].upper.append(QPointF(x, below));
      data.layers[l].max_mib = std::max(data.layers[l].max_mib, own);
    }
    if (p.reserved_bytes >= 0) data.reserved.append(QPointF(x, mib(p.reserved_bytes)));
  }
}

// Peaks at the same point (the forward peak is often the overall one) share one marker.
void fill_peaks(const MemoryTimeline& timeline, MemoryChartData& data) {
  for (const auto& peak : timeline.peaks) {
    const double x = ms(peak.time_ns, data.origin_ns), y = mib(peak.allocated_bytes);
    const QString label = QString::fromStdString(peak.label);
    auto same = std::find_if(data.peaks.begin(), data.peaks.end(),
                             [&](const MemoryPeakMarker& m) { return m.x_ms == x && m.y_mib == y; });
    if (same != data.peaks.end()) {
      same->label += QStringLiteral(", ") + label;
    } else {
      data.peaks.push_back({label, x, y, peak.allocated_bytes});
    }
  }
}

void fill_extents(const MemoryTimeline& timeline, MemoryChartData& data) {
  if (!timeline.points.empty()) {  // the whole timeline's, also for a window
    data.x_min = ms(timeline.points.front().time_ns, data.origin_ns);
    data.x_max = ms(timeline.points.back().time_ns, data.origin_ns);
  }
  for (const auto& band : data.bands) {
    data.x_min = std::min(data.x_min, band.start_ms);
    data.x_max = std::max(data.x_max, band.end_ms);
  }
  if (!data.layers.empty()) {
    for (const auto& p : data.layers.back().upper) data.y_max = std::max(data.y_max, p.y());
  }
  for (const auto& p : data.reserved) data.y_max = std::max(data.y_max, p.y());
  for (const auto& peak : data.peaks) data.y_max = std::max(data.y_max, peak.y_mib);
}

MemoryChartData build(const MemoryTimeline& timeline, size_t max_points, std::optional<std::pair<double, double>> window) {
  MemoryChartData data;
  data.origin_ns = origin_of(timeline);
  data.source_points = timeline.points.size();
  data.truncated = timeline.truncated;
  const auto& all = timeline.points;
  int64_t from_ns = INT64_MIN, to_ns = INT64_MAX;
  auto first = all.begin(), last = all.end();
  if (window) {
    from_ns = ns_at(data.origin_ns, window->first);
    to_ns = ns_at(data.origin_ns, window->second);
    first = at_time(all.begin(), all.end(), from_ns).first;
    last = at_time(all.begin(), all.end(), to_ns).second;
    if (first != all.begin()) --first;
    if (last != all.end()) ++last;
  }
  // decimate() takes a whole vector: copy only when a window selects part of it.
  data.points = (first == all.begin() && last == all.end())
                    ? profiling::decimate(all, max_points)
                    : profiling::decimate(std::vector<MemoryPoint>(first, last), max_points);
  keep_peak_points(timeline, from_ns, to_ns, data.points);
  fill_layers(data);
  for (const auto& band : timeline.bands) {
    data.bands.push_back({ms(band.start_ns, data.origin_ns), ms(band.end_ns, data.origin_ns),
                          QString::fromStdString(band.phase), band.step, band.warmup});
  }
  fill_peaks(timeline, data);
  fill_extents(timeline, data);
  return data;
}

}  // namespace

const std::vector<MemoryCategory>& memory_stack_order() {
  static const std::vector<MemoryCategory> order = {
      MemoryCategory::other,    MemoryCategory::parameter,  MemoryCategory::optimizer_state, MemoryCategory::input,
      MemoryCategory::gradient, MemoryCategory::activation, MemoryCategory::temporary};
  return order;
}

MemoryChartData build_memory_chart_data(const MemoryTimeline& timeline, size_t max_points) {
  return build(timeline, max_points, std::nullopt);
}

MemoryChartData build_memory_chart_data(const MemoryTimeline& timeline, size_t max_points, double from_ms,
                                        double to_ms) {
  return build(timeline, max_points, std::make_pair(from_ms, to_ms));
}

std::vector<std::pair<qsizetype, qsizetype>> split_into_pieces(const QList<QPointF>& points, size_t pieces,
                                                               double overlap) {
  std::vector<std::pair<qsizetype, qsizetype>> ranges(pieces, {0, 0});
  const qsizetype n = points.size(), k_count = static_cast<qsizetype>(pieces);
  for (qsizetype k = 0; k < k_count; ++k) {
    const qsizetype first = n * k / k_count, next = n * (k + 1) / k_count;
    if (first == next) continue;
    qsizetype last = next;  // exclusive; reaches past `next` by at least `overlap` in x
    if (next < n) {
      const double reach = points[next].x() + overlap;
      while (last < n && points[last].x() < reach) ++last;
      last = std::min(n, last + 1);
    }
    if (last - first >= 2) ranges[static_cast<size_t>(k)] = {first, last};  // one point draws nothing
  }
  return ranges;
}

std::optional<size_t> nearest_point(const MemoryChartData& data, double x_ms) {
  if (data.points.empty() || data.layers.empty()) return std::nullopt;
  const auto& xs = data.layers.front().upper;  // every layer has the points' x
  const auto after = std::lower_bound(xs.begin(), xs.end(), x_ms, [](const QPointF& p, double x) { return p.x() < x; });
  qsizetype i = after - xs.begin();
  if (i == xs.size()) return static_cast<size_t>(xs.size() - 1);
  if (i > 0 && x_ms - xs[i - 1].x() <= xs[i].x() - x_ms) --i;
  return static_cast<size_t>(i);
}

QString band_caption(const MemoryBandSpan& band) {
  QString caption = band.phase;
  if (band.step >= 0) caption += QStringLiteral(" · step %1").arg(band.step);
  if (band.warmup) caption += QStringLiteral(" (warm-up)");
  return caption;
}

QString memory_point_tooltip(const MemoryChartData& data, size_t index) {
  if (index >= data.points.size()) return {};
  const MemoryPoint& p = data.points[index];
  QString html = QStringLiteral("<b>%1</b>").arg(format_duration_ns(ms(p.time_ns, data.origin_ns) * 1e6));
  if (p.band >= 0 && static_cast<size_t>(p.band) < data.bands.size()) {
    html += QStringLiteral(" &nbsp;%1").arg(band_caption(data.bands[static_cast<size_t>(p.band)]).toHtmlEscaped());
  }
  html += QStringLiteral("<table cellspacing=\"0\" cellpadding=\"1\">");
  auto row = [&html](const QString& name, const QString& value, const QString& swatch) {
    html += QStringLiteral("<tr><td>%1%2</td><td align=\"right\">&nbsp;&nbsp;%3</td></tr>").arg(swatch, name, value);
  };
  // Top of the stack first, as the areas read from top to bottom; unused categories left out.
  for (auto layer = data.layers.rbegin(); layer != data.layers.rend(); ++layer) {
    if (layer->max_mib <= 0) continue;
    const QString swatch = QStringLiteral("<span style=\"color:%1\">&#9632;</span> ")
                               .arg(memory_category_color(layer->category).name());
    row(QString::fromStdString(profiling::to_string(layer->category)),
        format_bytes(p.bytes_by_category[profiling::category_index(layer->category)]), swatch);
  }
  row(QStringLiteral("<b>allocated</b>"), QStringLiteral("<b>%1</b>").arg(format_bytes(p.allocated_bytes)), {});
  if (p.reserved_bytes >= 0) row(QStringLiteral("reserved"), format_bytes(p.reserved_bytes), {});
  html += QStringLiteral("</table>");
  return html;
}

}  // namespace stepscope::views
