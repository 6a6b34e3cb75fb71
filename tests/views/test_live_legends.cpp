// Legends as the live window paints them, not as an export lays them out again: after a run,
// a clear and another run, every category the chart uses has one visible entry with its
// name, side by side in the legend's area, on the widget on screen (exports relayout the
// chart at their own size and hid this bug).
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QTest>

#include "charts/bench_bar_chart_view.h"
#include "charts/memory_chart_view.h"
#include "model_fixtures.h"

using namespace stepscope;
using namespace stepscope::views;

namespace {

struct Entry {
  QString text;
  QRectF rect;  // scene coordinates
};

// The legend's labels as drawn: visible text items under the legend with their scene rects.
std::vector<Entry> drawn_labels(QChartView& view) {
  std::vector<Entry> out;
  QList<QGraphicsItem*> unvisited = view.chart()->legend()->childItems();
  while (!unvisited.isEmpty()) {
    QGraphicsItem* item = unvisited.takeFirst();
    unvisited += item->childItems();
    if (!item->isVisible()) continue;
    QString text;
    if (auto* t = dynamic_cast<QGraphicsTextItem*>(item)) text = t->toPlainText();
    if (auto* t = dynamic_cast<QGraphicsSimpleTextItem*>(item)) text = t->text();
    if (text.isEmpty()) continue;
    out.push_back({text, item->sceneBoundingRect()});
  }
  return out;
}

// Lets the live window do what it does between frames: posted layout requests, timers,
// paints. No export, no resize.
void settle(QWidget& view) {
  for (int i = 0; i < 5; ++i) QTest::qWait(20);
  view.repaint();
}

// Every name in `names`, once, readable (not an elided "..." nor a sliver), inside the
// legend, entries not overlapping; nothing else.
QString legend_problem(QChartView& view, const QStringList& names) {
  const auto labels = drawn_labels(view);
  const QRectF legend = view.chart()->legend()->sceneBoundingRect();
  QStringList seen;
  for (const auto& l : labels) {
    seen << l.text;
    if (l.rect.width() < 10 || l.rect.height() < 5) return QStringLiteral("'%1' is a sliver").arg(l.text);
    if (!legend.adjusted(-1, -1, 1, 1).contains(l.rect)) return QStringLiteral("'%1' lies outside the legend").arg(l.text);
    for (const auto& other : labels) {
      if (&other != &l && other.rect.intersects(l.rect)) return QStringLiteral("'%1' overlaps '%2'").arg(l.text, other.text);
    }
  }
  QStringList expected = names, got = seen;
  expected.sort();
  got.sort();
  if (expected != got) return QStringLiteral("legend shows [%1], expected [%2]").arg(got.join(", "), expected.join(", "));
  return {};
}

std::vector<BenchResult> train_results() {
  BenchResult r;
  r.config.model.name = "small";
  r.config.context = 256;
  r.config.mode = StepMode::train;
  r.forward = fixtures::phase_stats(10, 1, 5);
  r.backward = fixtures::phase_stats(20, 2, 5);
  r.optimizer = fixtures::phase_stats(5, 0.5, 5);
  r.total = fixtures::phase_stats(35, 3, 5);
  return {r};
}

profiling::MemoryTimeline timeline() {
  using profiling::MemoryCategory;
  profiling::MemoryTimeline t;
  profiling::MemoryPoint a, b, c;
  a.time_ns = 0;
  b.time_ns = 1'000'000;
  c.time_ns = 2'000'000;
  a.bytes_by_category[profiling::category_index(MemoryCategory::parameter)] = 100 << 20;
  b.bytes_by_category = a.bytes_by_category;
  b.bytes_by_category[profiling::category_index(MemoryCategory::activation)] = 50 << 20;
  c.bytes_by_category = b.bytes_by_category;
  c.bytes_by_category[profiling::category_index(MemoryCategory::gradient)] = 100 << 20;
  for (auto* p : {&a, &b, &c}) {
    for (auto v : p->bytes_by_category) p->allocated_bytes += v;
    p->reserved_bytes = 400 << 20;
  }
  t.points = {a, b, c};
  profiling::MemoryPeak peak;
  peak.label = "overall";
  peak.time_ns = c.time_ns;
  peak.allocated_bytes = c.allocated_bytes;
  peak.bytes_by_category = c.bytes_by_category;
  t.peaks = {peak};
  return t;
}

}  // namespace

class LiveLegendsTest : public QObject {
  Q_OBJECT
 private slots:
  void benchmarkPhasesAfterTwoRunsAndAClear() {
    BenchBarChartView view;
    view.resize(700, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    settle(view);
    const QStringList phases{"forward", "backward", "optimizer step"};
    for (int run = 0; run < 2; ++run) {
      view.setResults(train_results());
      settle(view);
      const QString problem = legend_problem(view, phases);
      QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("run %1: %2").arg(run + 1).arg(problem)));
      view.setResults({});  // a clear
      settle(view);
    }
  }

  void memoryCategoriesAfterTwoRunsAndAClear() {
    MemoryChartView view;
    view.resize(800, 450);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    settle(view);
    const QStringList used{"parameter", "activation", "gradient", "reserved", "peaks"};
    for (int run = 0; run < 2; ++run) {
      view.setTimeline(std::make_shared<const profiling::MemoryTimeline>(timeline()));
      settle(view);
      const QString problem = legend_problem(view, used);
      QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("run %1: %2").arg(run + 1).arg(problem)));
      view.setTimeline(nullptr);
      settle(view);
    }
  }
};

QTEST_MAIN(LiveLegendsTest)
#include "test_live_legends.moc"
