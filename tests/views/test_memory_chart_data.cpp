// The memory chart's data builder against hand-built timelines: stacking order and sums,
// milliseconds from the first point, reserved line, bands, peak markers kept through
// decimation, zoom windows, hover text, and an empty timeline.
#include <QTest>

#include "charts/memory_chart_data.h"

using namespace stepscope::views;
using stepscope::profiling::category_index;
using stepscope::profiling::MemoryCategory;
using stepscope::profiling::MemoryPeak;
using stepscope::profiling::MemoryPoint;
using stepscope::profiling::MemoryTimeline;
using C = MemoryCategory;

namespace {

constexpr int64_t MiB = 1024 * 1024;

MemoryPoint point(int64_t time_ns, std::initializer_list<std::pair<C, int64_t>> mib, int64_t reserved_mib = -1,
                  int band = -1) {
  MemoryPoint p;
  p.time_ns = time_ns;
  for (const auto& [c, m] : mib) p.bytes_by_category[category_index(c)] = m * MiB;
  for (int64_t b : p.bytes_by_category) p.allocated_bytes += b;
  p.reserved_bytes = reserved_mib < 0 ? -1 : reserved_mib * MiB;
  p.band = band;
  return p;
}

MemoryPeak peak_at(const MemoryPoint& p, const std::string& label) {
  MemoryPeak peak;
  peak.label = label;
  peak.time_ns = p.time_ns;
  peak.allocated_bytes = p.allocated_bytes;
  peak.bytes_by_category = p.bytes_by_category;
  return peak;
}

size_t layer_of(C category) {
  const auto& order = memory_stack_order();
  return static_cast<size_t>(std::find(order.begin(), order.end(), category) - order.begin());
}

// Two steps' worth of hand-computed points; times start at 5 ms to check the origin.
MemoryTimeline small_timeline() {
  MemoryTimeline t;
  t.points = {point(5'000'000, {{C::parameter, 10}, {C::other, 1}}, 16),
              point(6'000'000, {{C::parameter, 10}, {C::other, 1}, {C::activation, 4}}, 16, 0),
              point(7'500'000, {{C::parameter, 10}, {C::other, 1}, {C::activation, 4}, {C::gradient, 10}}, -1, 1),
              point(9'000'000, {{C::parameter, 10}, {C::other, 1}, {C::gradient, 10}, {C::optimizer_state, 20}}, 48, 2)};
  t.bands = {{"forward", 0, true, 5'500'000, 7'000'000},
             {"backward", 0, true, 7'000'000, 8'000'000},
             {"optimizer step", 0, true, 8'000'000, 10'000'000}};
  t.peaks = {peak_at(t.points[1], "forward"), peak_at(t.points[3], "optimizer step"),
             peak_at(t.points[3], "overall")};
  return t;
}

}  // namespace

class MemoryChartDataTest : public QObject {
  Q_OBJECT
 private slots:
  void stackOrderHasEveryCategoryOnce() {
    const auto& order = memory_stack_order();
    QCOMPARE(order.size(), stepscope::profiling::kMemoryCategoryCount);
    for (auto c : stepscope::profiling::all_memory_categories()) QVERIFY(layer_of(c) < order.size());
    QCOMPARE(order.front(), C::other);  // long-lived at the bottom
    QCOMPARE(order.back(), C::temporary);
  }

  void eachUpperBoundaryIsTheSumOfTheLayersBelowPlusItsOwn() {
    const MemoryChartData d = build_memory_chart_data(small_timeline(), 100);
    QCOMPARE(d.layers.size(), size_t{7});
    QCOMPARE(d.points.size(), size_t{4});
    // Point 2 (7.5 ms): other 1, parameter 10, optimizer state 0, input 0, gradient 10,
    // activation 4, temporary 0 -> boundaries 1, 11, 11, 11, 21, 25, 25.
    const double expected[] = {1, 11, 11, 11, 21, 25, 25};
    for (size_t l = 0; l < 7; ++l) {
      QCOMPARE(d.layers[l].upper[2], QPointF(2.5, expected[l]));
    }
    // Stacking order is memory_stack_order(): the gradient layer sits on the input layer.
    QCOMPARE(d.layers[layer_of(C::gradient)].category, C::gradient);
    QCOMPARE(d.layers[layer_of(C::gradient)].upper[3].y(), 1.0 + 10 + 20 + 0 + 10);
    // The top boundary is the allocated total at every point.
    for (size_t i = 0; i < d.points.size(); ++i) {
      QCOMPARE(d.layers.back().upper[static_cast<qsizetype>(i)].y(),
               static_cast<double>(d.points[i].allocated_bytes) / MiB);
    }
  }

  void xIsMillisecondsFromTheFirstPoint() {
    const MemoryChartData d = build_memory_chart_data(small_timeline(), 100);
    QCOMPARE(d.origin_ns, int64_t{5'000'000});
    QCOMPARE(d.layers[0].upper[0].x(), 0.0);
    QCOMPARE(d.layers[0].upper[3].x(), 4.0);
    QCOMPARE(d.x_min, 0.0);
    QCOMPARE(d.x_max, 5.0);  // the last band ends at 10 ms
    QCOMPARE(d.y_max, 48.0);  // the reserved total beats the allocated 41 MiB
  }

  void maxPerCategoryTellsWhichAreUsed() {
    const MemoryChartData d = build_memory_chart_data(small_timeline(), 100);
    QCOMPARE(d.layers[layer_of(C::optimizer_state)].max_mib, 20.0);
    QCOMPARE(d.layers[layer_of(C::activation)].max_mib, 4.0);
    QCOMPARE(d.layers[layer_of(C::temporary)].max_mib, 0.0);
    QCOMPARE(d.layers[layer_of(C::input)].max_mib, 0.0);
  }

  void reservedLineOnlyWhereKnown() {
    const MemoryChartData d = build_memory_chart_data(small_timeline(), 100);
    QCOMPARE(d.reserved, (QList<QPointF>{{0, 16}, {1, 16}, {4, 48}}));
  }

  void bandsInMillisecondsWithWarmupFlag() {
    const MemoryChartData d = build_memory_chart_data(small_timeline(), 100);
    QCOMPARE(d.bands.size(), size_t{3});
    QCOMPARE(d.bands[1].start_ms, 2.0);
    QCOMPARE(d.bands[1].end_ms, 3.0);
    QCOMPARE(d.bands[1].phase, QStringLiteral("backward"));
    QVERIFY(d.bands[1].warmup);
    QCOMPARE(band_caption(d.bands[1]), QStringLiteral("backward · step 0 (warm-up)"));
    QCOMPARE(band_caption({0, 1, "forward", 3, false}), QStringLiteral("forward · step 3"));
    QCOMPARE(band_caption({0, 1, "forward", -1, false}), QStringLiteral("forward"));
  }

  void peaksAtTheSamePointShareAMarker() {
    const MemoryChartData d = build_memory_chart_data(small_timeline(), 100);
    QCOMPARE(d.peaks.size(), size_t{2});
    QCOMPARE(d.peaks[0].label, QStringLiteral("forward"));
    QCOMPARE(d.peaks[0].x_ms, 1.0);
    QCOMPARE(d.peaks[0].y_mib, 15.0);
    QCOMPARE(d.peaks[1].label, QStringLiteral("optimizer step, overall"));
    QCOMPARE(d.peaks[1].y_mib, 41.0);
    QCOMPARE(d.peaks[1].bytes, 41 * MiB);
  }

  void peakPointsSurviveDecimation() {
    // 10,000 points rising by 1 MiB every other point, with a spike at 2000 (a step's
    // "forward" peak) that is lower than later points of its decimation bucket.
    MemoryTimeline t;
    for (int i = 0; i < 10000; ++i) {
      const int64_t mib = (i == 2000) ? 1240 : i / 2;
      t.points.push_back(point(int64_t{i} * 1000, {{C::activation, mib}}));
    }
    t.peaks = {peak_at(t.points[2000], "forward"), peak_at(t.points[9999], "overall")};
    const size_t budget = 20;
    // Precondition: decimation alone drops the forward peak (else this test proves nothing).
    const auto plain = stepscope::profiling::decimate(t.points, budget);
    QVERIFY(std::none_of(plain.begin(), plain.end(), [](const MemoryPoint& p) { return p.time_ns == 2'000'000; }));

    const MemoryChartData d = build_memory_chart_data(t, budget);
    QVERIFY(d.points.size() <= budget + t.peaks.size());
    QCOMPARE(d.source_points, size_t{10000});
    QCOMPARE(d.peaks.size(), size_t{2});
    for (const auto& marker : d.peaks) {
      // The marker sits on the drawn top boundary.
      const auto& top = d.layers.back().upper;
      const auto on = std::find_if(top.begin(), top.end(), [&](const QPointF& p) { return p.x() == marker.x_ms; });
      QVERIFY2(on != top.end(), qPrintable(marker.label));
      QCOMPARE(on->y(), marker.y_mib);
    }
    QCOMPARE(d.peaks[0].y_mib, 1240.0);
    // Still in time order.
    QVERIFY(std::is_sorted(d.points.begin(), d.points.end(),
                           [](const MemoryPoint& a, const MemoryPoint& b) { return a.time_ns < b.time_ns; }));
  }

  void windowSpendsTheBudgetOnTheVisibleRange() {
    MemoryTimeline t;
    for (int i = 0; i < 1000; ++i) t.points.push_back(point(int64_t{i} * 1'000'000, {{C::temporary, i % 7}}));
    t.peaks = {peak_at(t.points[6], "overall")};
    const MemoryChartData d = build_memory_chart_data(t, 1000, 100.0, 200.0);
    // 100..200 ms plus one point either side; the overall peak at 6 ms is outside the window.
    QCOMPARE(d.points.size(), size_t{103});
    QCOMPARE(d.points.front().time_ns, int64_t{99'000'000});
    QCOMPARE(d.points.back().time_ns, int64_t{201'000'000});
    QCOMPARE(d.x_min, 0.0);  // extents still of the whole timeline
    QCOMPARE(d.x_max, 999.0);
    QCOMPARE(d.origin_ns, int64_t{0});
    QCOMPARE(d.peaks.size(), size_t{1});
  }

  void emptyTimelineGivesEmptyLayers() {
    const MemoryChartData d = build_memory_chart_data(MemoryTimeline{}, 100);
    QCOMPARE(d.layers.size(), size_t{7});
    for (const auto& layer : d.layers) QVERIFY(layer.upper.isEmpty());
    QVERIFY(d.points.empty() && d.bands.empty() && d.peaks.empty() && d.reserved.isEmpty());
    QCOMPARE(d.x_min, 0.0);
    QCOMPARE(d.x_max, 0.0);
    QCOMPARE(d.y_max, 0.0);
    QVERIFY(!nearest_point(d, 3.0).has_value());
    QVERIFY(memory_point_tooltip(d, 0).isEmpty());
  }

  void bandsWithoutPointsSetTheOrigin() {
    MemoryTimeline t;
    t.bands = {{"forward", 1, false, 2'000'000, 3'000'000}};
    const MemoryChartData d = build_memory_chart_data(t, 100);
    QCOMPARE(d.origin_ns, int64_t{2'000'000});
    QCOMPARE(d.x_max, 1.0);
  }

  void piecesCoverEverySegmentAndOverlap() {
    QList<QPointF> points;
    for (int i = 0; i < 100; ++i) points.append(QPointF(i, 0));
    using Ranges = std::vector<std::pair<qsizetype, qsizetype>>;
    QCOMPARE(split_into_pieces(points, 4, 0.0), (Ranges{{0, 26}, {25, 51}, {50, 76}, {75, 100}}));
    // 3.5 past where the next piece starts: through x = 29.
    QCOMPARE(split_into_pieces(points, 4, 3.5).front(), (std::pair<qsizetype, qsizetype>{0, 30}));
    // Fewer points than pieces: empty ranges, but every segment still drawn by some piece.
    const QList<QPointF> three{{0, 0}, {1, 0}, {2, 0}};
    const Ranges few = split_into_pieces(three, 8, 0.0);
    QCOMPARE(few.size(), size_t{8});
    for (qsizetype i = 0; i + 1 < three.size(); ++i) {
      QVERIFY(std::any_of(few.begin(), few.end(), [i](auto r) { return r.first <= i && i + 1 < r.second; }));
    }
    for (const auto& [first, last] : few) QVERIFY(last == 0 || last - first >= 2);
    QVERIFY(split_into_pieces({}, 4, 1.0) == Ranges(4, {0, 0}));
  }

  void nearestPointAndItsTooltip() {
    const MemoryChartData d = build_memory_chart_data(small_timeline(), 100);
    QCOMPARE(nearest_point(d, -5.0).value(), size_t{0});
    QCOMPARE(nearest_point(d, 1.7).value(), size_t{1});   // 1.0 is closer than 2.5
    QCOMPARE(nearest_point(d, 1.8).value(), size_t{2});
    QCOMPARE(nearest_point(d, 99.0).value(), size_t{3});
    const QString text = memory_point_tooltip(d, 2);
    QVERIFY2(text.contains(QStringLiteral("2.50 ms")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("backward · step 0 (warm-up)")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("gradient")) && text.contains(QStringLiteral("10.0 MiB")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("25.0 MiB")), qPrintable(text));  // allocated
    QVERIFY2(!text.contains(QStringLiteral("temporary")), qPrintable(text));  // never used
    QVERIFY2(!text.contains(QStringLiteral("reserved")), qPrintable(text));   // unknown here
    QVERIFY(memory_point_tooltip(d, 3).contains(QStringLiteral("48.0 MiB")));  // reserved
    // Gradient is listed before parameter: top of the stack first.
    QVERIFY(text.indexOf(QStringLiteral("gradient")) < text.indexOf(QStringLiteral("parameter")));
  }
};

QTEST_MAIN(MemoryChartDataTest)
#include "test_memory_chart_data.moc"
