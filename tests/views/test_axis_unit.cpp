// Axes pick their unit from the range of their data and say it in their title: no memory
// axis up to 50,000 MiB, no time axis up to 25,000 ms.
#include <QTest>
#include <QValueAxis>

#include "charts/attention_chart_data.h"
#include "charts/axis_unit.h"
#include "charts/bench_bar_chart_view.h"
#include "charts/memory_chart_view.h"
#include "experiments/attention/attention_schema.h"

using namespace stepscope;
using namespace stepscope::views;

namespace {
constexpr double kMiB = 1024.0 * 1024.0;

// One category holding `bytes` from 0 to 1 ms.
profiling::MemoryTimeline holding(int64_t bytes) {
  profiling::MemoryTimeline t;
  profiling::MemoryPoint a, b;
  b.time_ns = 1'000'000;
  a.bytes_by_category[profiling::category_index(profiling::MemoryCategory::parameter)] = bytes;
  b.bytes_by_category = a.bytes_by_category;
  a.allocated_bytes = b.allocated_bytes = bytes;
  t.points = {a, b};
  return t;
}

QValueAxis* vertical(QChartView& view) { return qobject_cast<QValueAxis*>(view.chart()->axes(Qt::Vertical).value(0)); }
}  // namespace

class AxisUnitTest : public QObject {
  Q_OBJECT
 private slots:
  void bytesPickTheLargestUnitThatReadsAtLeastOne() {
    QCOMPARE(bytes_axis_unit(0).name, QStringLiteral("MiB"));  // nothing yet: the familiar unit
    QCOMPARE(bytes_axis_unit(512).name, QStringLiteral("B"));
    QCOMPARE(bytes_axis_unit(4096).name, QStringLiteral("KiB"));
    QCOMPARE(bytes_axis_unit(600 * kMiB).name, QStringLiteral("MiB"));
    QCOMPARE(bytes_axis_unit(50'000 * kMiB).name, QStringLiteral("GiB"));
    QCOMPARE(bytes_axis_unit(50'000 * kMiB).shown(50'000 * kMiB), 50'000 / 1024.0);
    QCOMPARE(bytes_axis_unit(2e12).name, QStringLiteral("TiB"));
  }
  void durationsToo() {
    QCOMPARE(duration_axis_unit(0).name, QStringLiteral("ms"));
    QCOMPARE(duration_axis_unit(0.05).name, QString::fromUtf8("\u00b5s"));
    QCOMPARE(duration_axis_unit(250).name, QStringLiteral("ms"));
    QCOMPARE(duration_axis_unit(25'000).name, QStringLiteral("s"));
    QCOMPARE(duration_axis_unit(25'000).shown(25'000), 25.0);
    QCOMPARE(duration_axis_unit(25'000).title("time"), QStringLiteral("time (s)"));
  }
  void memoryTimelineAxisFollowsItsData() {
    MemoryChartView view;
    view.setTimeline(std::make_shared<const profiling::MemoryTimeline>(holding(int64_t{48} << 30)));
    QCOMPARE(vertical(view)->titleText(), QStringLiteral("GiB"));
    QVERIFY2(vertical(view)->max() >= 48 && vertical(view)->max() <= 60, qPrintable(QString::number(vertical(view)->max())));
    view.setTimeline(std::make_shared<const profiling::MemoryTimeline>(holding(int64_t{300} << 20)));
    QCOMPARE(vertical(view)->titleText(), QStringLiteral("MiB"));
    QVERIFY(vertical(view)->max() >= 300 && vertical(view)->max() < 400);
  }
  void timeAxesFollowTheirData() {
    MemoryChartView memory;
    auto long_run = holding(int64_t{1} << 20);
    long_run.points[1].time_ns = 25'000'000'000;  // 25 s
    memory.setTimeline(std::make_shared<const profiling::MemoryTimeline>(long_run));
    auto* x = qobject_cast<QValueAxis*>(memory.chart()->axes(Qt::Horizontal).value(0));
    QCOMPARE(x->titleText(), QStringLiteral("time (s)"));
    QVERIFY2(x->max() >= 25 && x->max() <= 30, qPrintable(QString::number(x->max())));
    QCOMPARE(memory.visibleRange().second, x->max() * 1000);  // zooming still speaks ms
    memory.setVisibleRange(5000, 10'000);
    QCOMPARE(x->min(), 5.0);

    BenchBarChartView bars;
    BenchResult r;
    r.config.model.name = "xl";
    r.config.mode = StepMode::forward;
    r.forward.mean_ms = r.total.mean_ms = 25'000;
    r.forward.count = r.total.count = 3;
    bars.setResults({r});
    auto* t = qobject_cast<QValueAxis*>(bars.chart()->axes(Qt::Horizontal).value(0));
    QCOMPARE(t->titleText(), QStringLiteral("mean time per step (s)"));
    QVERIFY2(t->max() >= 25 && t->max() <= 30, qPrintable(QString::number(t->max())));
  }
  void attentionMemoryAxisFollowsItsData() {
    std::vector<AttentionResult> rows(1);
    rows[0].config.impl = AttentionImpl::naive;
    rows[0].config.seq = 16384;
    rows[0].config.batch = 1;
    rows[0].config.head_dim = 16;
    rows[0].status = RunStatus::ok;
    rows[0].memory_before_backward_bytes = int64_t{40} << 30;
    const auto data = build_attention_chart_data(attention_schema().table(rows), AttentionMeasure::memory_before_backward);
    QCOMPARE(data.y_title, QStringLiteral("memory (GiB)"));
    QCOMPARE(data.lines.at(0).points.at(0).y(), 40.0);
  }
};

QTEST_MAIN(AxisUnitTest)
#include "test_axis_unit.moc"
