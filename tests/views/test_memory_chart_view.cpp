// The memory timeline widget: series built once and refilled on every update, empty data,
// legend, zoom/pan/reset, hover text, refinement of a zoomed window, and the requirement
// that a 1,000,000-event timeline is displayed in under 300 ms.
#include <QAreaSeries>
#include <QLegendMarker>
#include <QLineSeries>
#include <QTest>
#include <QValueAxis>
#include <memory>

#include "charts/memory_chart_view.h"
#include "support/process_cpu_time.h"

using namespace stepscope::views;
using namespace stepscope::profiling;
using C = MemoryCategory;

namespace {

constexpr int64_t MiB = 1024 * 1024;

// A log of `steps` training steps like the engine's own timeline test: 200 parameters, then
// per step 2000 allocations in forward (odd ones freed at once: temporaries), the even ones
// freed in backward. Stops at `max_events`.
AllocationLog synthetic_log(size_t max_events) {
  AllocationLog log;
  int64_t t = 0;
  auto event = [&](uint64_t address, int64_t bytes) { log.events.push_back({++t, address, bytes, -1, 0, 0, "", -1, false}); };
  auto mark = [&](const char* phase, int step) { log.phases.push_back({++t, phase, step, step < 5}); };
  for (uint64_t p = 0; p < 200; ++p) {
    event(0x10000000 + p * 4096, 4096);
    log.labels.push_back({t, 0x10000000 + p * 4096, C::parameter});
  }
  auto size = [](uint64_t i) { return 512 + static_cast<int64_t>(i % 7) * 64; };
  for (int step = 0; log.events.size() < max_events; ++step) {
    mark("forward", step);
    for (uint64_t i = 0; i < 2000 && log.events.size() < max_events; ++i) {
      event(0x20000000 + i * 512, size(i));
      if (i % 2) event(0x20000000 + i * 512, -size(i));
    }
    mark("backward", step);
    for (uint64_t i = 0; i < 2000 && log.events.size() < max_events; i += 2) event(0x20000000 + i * 512, -size(i));
    mark("optimizer step", step);
    mark("step end", step);
  }
  return log;
}

MemoryTimeline two_point_timeline(int64_t activation_mib) {
  MemoryTimeline t;
  MemoryPoint a, b;
  a.time_ns = 0;
  a.bytes_by_category[category_index(C::parameter)] = 8 * MiB;
  b.time_ns = 2'000'000;
  b.bytes_by_category = a.bytes_by_category;
  b.bytes_by_category[category_index(C::activation)] = activation_mib * MiB;
  for (auto* p : {&a, &b}) {
    for (int64_t bytes : p->bytes_by_category) p->allocated_bytes += bytes;
  }
  a.band = b.band = 0;
  t.points = {a, b};
  t.bands = {{"forward", 0, false, 0, 2'000'000}};
  MemoryPeak peak;
  peak.label = "overall";
  peak.time_ns = b.time_ns;
  peak.allocated_bytes = b.allocated_bytes;
  peak.bytes_by_category = b.bytes_by_category;
  t.peaks = {peak};
  return t;
}

QValueAxis* axis(MemoryChartView& view, Qt::Orientation orientation) {
  return qobject_cast<QValueAxis*>(view.chart()->axes(orientation).value(0));
}

// Renders the view as it will next be painted: Qt Charts lays out on posted events.
QPixmap render(QWidget& view) {
  QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
  return view.grab();
}

bool legend_shows(MemoryChartView& view, const QString& name) {
  render(view);  // markers become visible once the legend is laid out
  for (auto* marker : view.chart()->legend()->markers()) {
    if (marker->label() == name) return marker->isVisible();
  }
  return false;
}

}  // namespace

class MemoryChartViewTest : public QObject {
  Q_OBJECT
 private slots:
  void axesAreTitled() {
    MemoryChartView view;
    QCOMPARE(axis(view, Qt::Horizontal)->titleText(), QStringLiteral("time (ms)"));
    QCOMPARE(axis(view, Qt::Vertical)->titleText(), QStringLiteral("MiB"));
  }

  void seriesAreReusedAcrossUpdates() {
    MemoryChartView view;
    view.resize(800, 500);
    const auto series = view.chart()->series().size();
    QCOMPARE(series, qsizetype{7 * 32 + 2});  // 7 categories in 32 pieces, reserved, peaks
    const auto lines = view.findChildren<QLineSeries*>().size();
    for (int i = 1; i <= 5; ++i) {
      view.setData(build_memory_chart_data(two_point_timeline(i), 100));
      QCOMPARE(view.chart()->series().size(), series);
      QCOMPARE(view.findChildren<QLineSeries*>().size(), lines);
      QCOMPARE(view.chart()->axes().size(), qsizetype{2});
      QVERIFY(!view.grab().isNull());
    }
    // The last update is what is drawn: the activation layer's top is 8 + 5 MiB. With two
    // points one piece holds both, the others nothing; a category holding nothing (gradient)
    // is not drawn at all.
    auto drawn_pieces = [&](const QString& name) {
      QList<QAreaSeries*> drawn;
      for (auto* s : view.chart()->series()) {
        auto* area = qobject_cast<QAreaSeries*>(s);
        if (area && area->name() == name && area->upperSeries()->count() > 0) drawn << area;
      }
      return drawn;
    };
    const auto activation = drawn_pieces("activation");
    QCOMPARE(activation.size(), qsizetype{1});
    QCOMPARE(activation[0]->upperSeries()->points(), (QList<QPointF>{{0.0, 8.0}, {2.0, 13.0}}));
    QCOMPARE(activation[0]->lowerSeries()->points(), (QList<QPointF>{{0.0, 8.0}, {2.0, 8.0}}));
    QCOMPARE(drawn_pieces("parameter").size(), qsizetype{1});
    QCOMPARE(drawn_pieces("gradient").size(), qsizetype{0});
  }

  void emptyDataAndClearing() {
    MemoryChartView view;
    view.resize(600, 400);
    view.setData(MemoryChartData{});  // no layers at all
    QVERIFY(!view.grab().isNull());
    QCOMPARE(axis(view, Qt::Horizontal)->max(), 1.0);
    view.setData(build_memory_chart_data(MemoryTimeline{}, 100));
    QVERIFY(!view.grab().isNull());
    view.setTimeline(nullptr);
    QVERIFY(!view.grab().isNull());
    QVERIFY(view.tooltipAt(view.rect().center()).isEmpty());
    for (auto* s : view.findChildren<QLineSeries*>()) QCOMPARE(s->count(), 0);
  }

  void legendListsOnlyUsedCategories() {
    MemoryChartView view;
    view.setData(build_memory_chart_data(two_point_timeline(3), 100));
    QVERIFY(legend_shows(view, "parameter"));
    QVERIFY(legend_shows(view, "activation"));
    QVERIFY(!legend_shows(view, "gradient"));
    QVERIFY(!legend_shows(view, "reserved"));  // the timeline reports none
    QVERIFY(legend_shows(view, "peaks"));
  }

  void axesCoverTheDataWithHeadroom() {
    MemoryChartView view;
    view.setData(build_memory_chart_data(two_point_timeline(32), 100));  // 40 MiB at most
    QCOMPARE(axis(view, Qt::Horizontal)->min(), 0.0);
    QCOMPARE(axis(view, Qt::Horizontal)->max(), 2.0);
    QVERIFY(axis(view, Qt::Vertical)->max() >= 40 * 1.05);
    QVERIFY(axis(view, Qt::Vertical)->max() <= 60);
  }

  void wheelZoomsDragPansDoubleClickResets() {
    MemoryChartView view;
    view.resize(800, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setData(build_memory_chart_data(two_point_timeline(3), 100));
    const QPoint centre = view.mapFromScene(view.chart()->plotArea().center());
    QWheelEvent wheel(centre, view.mapToGlobal(centre), QPoint(), QPoint(0, 240), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(view.viewport(), &wheel);
    auto [from, to] = view.visibleRange();
    QVERIFY2(to - from < 2.0 / 1.5 && to - from > 2.0 / 1.6, qPrintable(QString::number(to - from)));  // 1.25^2
    QVERIFY(std::abs((from + to) / 2 - 1.0) < 0.02);  // around the pointer
    // Drag left by a quarter of the plot: the window moves right by a quarter of its span.
    const double span = to - from;
    const int quarter = static_cast<int>(view.chart()->plotArea().width() / 4);
    QTest::mousePress(view.viewport(), Qt::LeftButton, Qt::NoModifier, centre);
    QMouseEvent move(QEvent::MouseMove, centre - QPoint(quarter, 0), view.viewport()->mapToGlobal(centre - QPoint(quarter, 0)),
                     Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(view.viewport(), &move);
    QTest::mouseRelease(view.viewport(), Qt::LeftButton, Qt::NoModifier, centre - QPoint(quarter, 0));
    const auto panned = view.visibleRange();
    QVERIFY2(std::abs(panned.first - (from + span / 4)) < span * 0.02, qPrintable(QString::number(panned.first)));
    // Zooming out stops at the whole timeline; a double click shows it all.
    view.setVisibleRange(-10, 10);
    QCOMPARE(view.visibleRange(), std::make_pair(0.0, 2.0));
    view.setVisibleRange(1.2, 1.4);
    QTest::mouseDClick(view.viewport(), Qt::LeftButton, Qt::NoModifier, centre);
    QCOMPARE(view.visibleRange(), std::make_pair(0.0, 2.0));
  }

  void shiftDragZoomsToTheRubberBand() {
    MemoryChartView view;
    view.resize(800, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setData(build_memory_chart_data(two_point_timeline(3), 100));
    render(view);
    const QRectF plot = view.chart()->plotArea();
    const QPoint from = view.mapFromScene(QPointF(plot.left() + plot.width() / 4, plot.center().y()));
    const QPoint to = view.mapFromScene(QPointF(plot.left() + plot.width() * 3 / 4, plot.center().y()));
    QTest::mousePress(view.viewport(), Qt::LeftButton, Qt::ShiftModifier, from);
    QMouseEvent move(QEvent::MouseMove, to, view.viewport()->mapToGlobal(to), Qt::NoButton, Qt::LeftButton,
                     Qt::ShiftModifier);
    QApplication::sendEvent(view.viewport(), &move);
    QTest::mouseRelease(view.viewport(), Qt::LeftButton, Qt::ShiftModifier, to);
    const auto [low, high] = view.visibleRange();
    QVERIFY2(std::abs(low - 0.5) < 0.02 && std::abs(high - 1.5) < 0.02, qPrintable(QStringLiteral("%1..%2").arg(low).arg(high)));
    QCOMPARE(axis(view, Qt::Vertical)->min(), 0.0);  // the memory axis stays
    QCOMPARE(view.rubberBand(), QChartView::NoRubberBand);  // a plain drag pans again
  }

  void hoverTextOfTheNearestPoint() {
    MemoryChartView view;
    view.resize(800, 500);
    view.setData(build_memory_chart_data(two_point_timeline(3), 100));
    render(view);
    const QRectF plot = view.chart()->plotArea();
    const QString right = view.tooltipAt(view.mapFromScene(QPointF(plot.right() - 5, plot.center().y())));
    QVERIFY2(right.contains("2.00 ms") && right.contains("activation") && right.contains("3.00 MiB"), qPrintable(right));
    QVERIFY(right.contains("forward"));
    const QString left = view.tooltipAt(view.mapFromScene(QPointF(plot.left() + 5, plot.center().y())));
    QVERIFY2(left.contains("0 ns") && left.contains("8.00 MiB"), qPrintable(left));
    QVERIFY(view.tooltipAt(QPoint(2, 2)).isEmpty());  // outside the plot
  }

  void zoomedWindowIsRedrawnAtFullResolution() {
    const auto timeline = std::make_shared<const MemoryTimeline>(build_memory_timeline(synthetic_log(100000)));
    MemoryChartView view;
    view.resize(800, 500);
    view.setMaxPoints(400);
    view.setTimeline(timeline);
    QVERIFY(view.data().points.size() <= 400 + timeline->peaks.size());
    const auto [min, max] = view.extent();
    const double from = min + (max - min) * 0.5, to = from + (max - min) * 0.001;  // about 100 events
    view.setVisibleRange(from, to);
    view.refineNow();
    const auto& points = view.data().points;
    const int64_t origin = view.data().origin_ns;
    size_t inside = 0;
    for (const auto& p : points) inside += (p.time_ns - origin) * 1e-6 >= from && (p.time_ns - origin) * 1e-6 <= to;
    // Every point of the window is drawn (fewer than the budget), plus one either side.
    size_t expected = 0;
    for (const auto& p : timeline->points) expected += (p.time_ns - origin) * 1e-6 >= from && (p.time_ns - origin) * 1e-6 <= to;
    QCOMPARE(inside, expected);
    QVERIFY(expected > 50);
    QCOMPARE(view.extent(), std::make_pair(min, max));  // the axes still describe everything
    view.resetZoom();
    view.refineNow();
    QVERIFY(view.data().points.size() <= 400 + timeline->peaks.size());
  }

  void millionEventsDisplayedUnder300ms() {
    const AllocationLog log = synthetic_log(1000000);
    QCOMPARE(log.events.size(), size_t{1000000});
    const MemoryTimeline timeline = build_memory_timeline(log);  // not part of the display time
    QCOMPARE(timeline.points.size(), size_t{1000000});

    // Each attempt is a first display: a fresh window, on screen before the data arrives
    // (fonts and layout warm), then the data set and one frame rendered.
    std::unique_ptr<MemoryChartView> view;
    QPixmap pixels;
    const double ms = stepscope::testing::least_cpu_ms(
        3,
        [&] {
          view = std::make_unique<MemoryChartView>();
          view->resize(1280, 720);
          render(*view);
        },
        [&] {
          view->setData(build_memory_chart_data(timeline, MemoryChartView::kDefaultMaxPoints));
          pixels = render(*view);
        });
    qInfo("1,000,000-event memory timeline: built %zu points and rendered %dx%d in %.1f ms of CPU (least of 3)",
          view->data().points.size(), pixels.width(), pixels.height(), ms);
    QVERIFY(view->data().points.size() <= MemoryChartView::kDefaultMaxPoints + timeline.peaks.size());
    // The overall peak is drawn.
    const auto& top = view->data().layers.back().upper;
    const double highest = std::max_element(top.begin(), top.end(), [](auto& a, auto& b) { return a.y() < b.y(); })->y();
    QCOMPARE(highest * MiB, static_cast<double>(timeline.peaks.back().allocated_bytes));
    QVERIFY2(ms < 300, qPrintable(QStringLiteral("%1 ms").arg(ms)));
  }
};

QTEST_MAIN(MemoryChartViewTest)
#include "test_memory_chart_view.moc"
