// Files may hold values that are finite but far past anything measured (busbw 1e308, seq
// 2^63 - 1, times at int64's ends). No chart may crash, hang or allocate without bound on them:
// every chart kind is drawn with such values, its axes keep a bounded number of ticks, and what
// cannot be drawn is left out with a note that says so.
#include <QBarSet>
#include <QChart>
#include <QLogValueAxis>
#include <QTemporaryDir>
#include <QTest>
#include <QValueAxis>

#include <cmath>
#include <limits>

#include "charts/attention_chart_data.h"
#include "charts/bench_bar_chart_view.h"
#include "charts/chart_export.h"
#include "charts/chart_limits.h"
#include "charts/collective_chart_data.h"
#include "charts/ddp_chart_data.h"
#include "charts/ddp_step_chart_view.h"
#include "charts/kernel_chart_view.h"
#include "charts/memory_chart_view.h"
#include "charts/nice_value_axis.h"
#include "charts/rank_timeline_view.h"
#include "charts/step_time_chart_view.h"
#include "charts/sweep_chart_view.h"
#include "experiments/attention/attention_schema.h"
#include "experiments/collectives/collective_schema.h"
#include "experiments/ddp/ddp_schema.h"
#include "experiments/ddp/ddp_timeline_schema.h"
#include "model/model_config.h"

using namespace stepscope;
using namespace stepscope::views;

namespace {

constexpr double kHuge = 1e308;
constexpr int64_t kLongest = std::numeric_limits<int64_t>::max();

// Every axis of the chart has a finite range and few enough ticks to lay out.
void expect_bounded_axes(const QChart& chart) {
  for (const QAbstractAxis* axis : chart.axes()) {
    const auto* value = qobject_cast<const QValueAxis*>(axis);
    if (value && value->tickType() == QValueAxis::TicksDynamic) {  // not a QCategoryAxis's lanes
      QVERIFY2(std::isfinite(value->min()) && std::isfinite(value->max()) && value->max() > value->min(),
               qPrintable(QStringLiteral("value axis [%1, %2]").arg(value->min()).arg(value->max())));
      const double ticks = (value->max() - value->min()) / value->tickInterval();
      QVERIFY2(ticks > 0 && ticks < 200, qPrintable(QStringLiteral("%1 ticks").arg(ticks)));
      // Qt adds the step to a tick until it passes the maximum: the step must change the value.
      QVERIFY(value->max() + value->tickInterval() > value->max());
    } else if (const auto* log = qobject_cast<const QLogValueAxis*>(axis)) {
      QVERIFY2(log->min() > 0 && std::isfinite(log->max()) && log->max() > log->min(),
               qPrintable(QStringLiteral("log axis [%1, %2]").arg(log->min()).arg(log->max())));
      QVERIFY(std::log(log->max() / log->min()) / std::log(log->base()) < 200);
    }
  }
}

// Lays the chart out and paints it, as an export does.
void draw(QChartView& view) {
  QTemporaryDir dir;
  QString error;
  QVERIFY2(save_chart_png(view, dir.filePath("chart.png"), &error, QSize(900, 560)), qPrintable(error));
  expect_bounded_axes(*view.chart());
}

BenchResult bench_result(int64_t context, double mean_ms, double std_ms = 0.1) {
  BenchResult r;
  r.config.model = model_preset("tiny");
  r.config.context = context;
  r.total.count = r.forward.count = r.backward.count = 2;
  r.total.mean_ms = mean_ms;
  r.forward.mean_ms = mean_ms / 2;
  r.forward.std_ms = std_ms;
  r.backward.mean_ms = mean_ms / 2;
  r.backward.std_ms = std_ms;
  r.steps = {{0, 0, 0, 1000000}, {0, 0, 0, 2000000}};
  return r;
}

AttentionResult attention_row(int64_t seq, double ms) {
  AttentionResult r;
  r.config.seq = seq;
  r.config.batch = 1;
  r.config.head_dim = 16;
  r.forward.count = r.backward.count = r.forward_backward.count = 2;
  r.forward_backward.mean_ms = ms;
  r.memory_before_backward_bytes = 1 << 20;
  return r;
}

void set_cell(schema::Table& table, size_t row, const char* key, schema::Value value) {
  const int column = table.column_index(key);
  QVERIFY(column >= 0);
  table.rows[row][static_cast<size_t>(column)] = std::move(value);
}

}  // namespace

class ExtremeChartValuesTest : public QObject {
  Q_OBJECT

 private slots:
  void chartableValuesAreFiniteAndBounded() {
    QVERIFY(is_chartable(0) && is_chartable(-3.5) && is_chartable(1e15) && is_chartable(1e-15));
    QVERIFY(!is_chartable(1e16) && !is_chartable(kHuge) && !is_chartable(1e-300));
    QVERIFY(!is_chartable(std::nan("")) && !is_chartable(HUGE_VAL));
    QVERIFY(!is_chartable_on_log(0) && !is_chartable_on_log(-1) && is_chartable_on_log(2));
  }

  // The axis itself refuses what Qt cannot lay out: infinite ends, a step lost in rounding.
  void niceAxisKeepsEveryRangeDrawable() {
    QChart chart;
    auto* axis = new NiceValueAxis(QStringLiteral("x"));
    chart.addAxis(axis, Qt::AlignBottom);
    for (const auto& [low, high] : std::vector<std::pair<double, double>>{
             {0, HUGE_VAL}, {-kHuge, kHuge}, {1e17, 1e17 + 0.01}, {std::nan(""), 1}, {5, 5}, {1e300, 1e300}, {0, 5e-324}}) {
      axis->setNiceRange(low, high);
      expect_bounded_axes(chart);
    }
    axis->setZeroBasedRange(kHuge * 10);
    expect_bounded_axes(chart);
  }

  void sweepLeavesOutWhatItCannotDraw() {
    SweepChartView view;
    // 1e308 ms, and a context of 2^63 - 1 tokens: both left out, the ordinary point drawn.
    view.setResults({bench_result(64, 2.0), bench_result(128, kHuge), bench_result(kLongest, 3.0)}, SweepAxis::context);
    QCOMPARE(view.data().lines.front().points.size(), 1);
    QVERIFY2(view.data().note.startsWith("2 configurations left out"), qPrintable(view.data().note));
    draw(view);
    view.setLogScale(true);
    draw(view);
    // Nothing drawable at all: the note takes the place of the chart.
    view.setResults({bench_result(64, kHuge)}, SweepAxis::context);
    QVERIFY(view.data().note.contains("1e+308"));
    draw(view);
  }

  void attentionChartsLeaveOutHugeTimesAndLengths() {
    SweepChartView view;
    view.setLogScale(true);
    schema::Table table = attention_schema().table({attention_row(1024, 1.0), attention_row(2048, kHuge),
                                                    attention_row(kLongest, 2.0)});
    view.setData(build_attention_chart_data(table, AttentionMeasure::forward_backward_time));
    QVERIFY2(view.data().note.startsWith("2 points left out"), qPrintable(view.data().note));
    draw(view);
    view.setData(build_attention_chart_data(table, AttentionMeasure::memory_before_backward));
    draw(view);
  }

  void collectiveChartLeavesOutHugeBandwidthAndEmptySizes() {
    std::vector<CollectiveResult> rows(3);
    rows[0].config.size_bytes = 1 << 20;
    rows[1].config.size_bytes = 1 << 22;
    rows[2].config.size_bytes = 0;  // nothing to put on a log axis
    for (auto& r : rows) r.time_us = 100;
    schema::Table table = collective_schema().table(rows);
    set_cell(table, 1, "busbw_gbps", kHuge);
    SweepChartView view;
    view.setLogScale(true);
    view.setData(build_collective_chart_data(table));
    QVERIFY2(view.data().note.startsWith("2 points left out: busbw (GB/s) 1e+308"), qPrintable(view.data().note));
    draw(view);
  }

  void benchBarsLabelWhatTheyLeaveOut() {
    BenchBarChartView view;
    view.setResults({bench_result(64, 2.0), bench_result(128, 4.0, HUGE_VAL), bench_result(256, kHuge)});
    QVERIFY(view.data().failures[0].isEmpty());
    QVERIFY2(view.data().failures[1].startsWith("left out (the table lists it): forward standard deviation"), qPrintable(view.data().failures[1]));
    QVERIFY2(view.data().failures[2].startsWith("left out (the table lists it): forward (ms) 5e+307"), qPrintable(view.data().failures[2]));
    QCOMPARE(view.data().mean_ms[0][2], 0.0);
    QVERIFY(view.data().max_ms < 10);
    draw(view);
  }

  void stepTimesAtInt64sEndDraw() {
    StepTimeChartView view;
    BenchResult r = bench_result(64, 2.0);
    r.steps = {{0, 0, 0, kLongest}, {0, 0, 0, std::numeric_limits<int64_t>::min()}};
    view.setResults({r});
    draw(view);
  }

  void memoryTimelineAtInt64sEndsDraws() {
    auto timeline = std::make_shared<profiling::MemoryTimeline>();
    for (int64_t t : {std::numeric_limits<int64_t>::min(), int64_t{0}, kLongest}) {
      profiling::MemoryPoint p;
      p.time_ns = t;
      p.bytes_by_category.fill(kLongest);  // seven categories: past int64 together
      p.allocated_bytes = kLongest;
      timeline->points.push_back(p);
    }
    MemoryChartView view;
    view.setTimeline(timeline);
    QVERIFY(view.data().x_max > view.data().x_min);  // no int64 difference wrapped around
    QVERIFY(view.data().y_max > 0);
    draw(view);
    // Zoomed as deep as the view allows, far from zero: the step stays above the rounding.
    view.setVisibleRange(view.data().x_max - 1e-3, view.data().x_max);
    view.refineNow();
    draw(view);
  }

  void kernelBarsWithHugeSharesAreLeftOut() {
    profiling::RangeKernelSummary forward, backward;
    forward.range = "forward";
    forward.gpu_time_ns = 100;
    forward.categories = {{profiling::KernelCategory::matrix_multiply, 100, 1, kHuge}};
    backward.range = "backward";
    backward.gpu_time_ns = 100;
    backward.categories = {{profiling::KernelCategory::matrix_multiply, 100, 1, 60}};
    profiling::KernelProfile profile;
    profile.ranges = {forward, backward};
    profile.gpu_activity_recorded = true;
    KernelChartView view;
    view.setProfile(profile);
    QVERIFY2(view.data().left_out.startsWith("1 bar left out"), qPrintable(view.data().left_out));
    draw(view);
  }

  void ddpBarsLabelWhatTheyLeaveOut() {
    std::vector<DdpResult> rows(2);
    for (auto& r : rows) {
      r.config.model = model_preset("tiny");
      r.forward_ms = 1;
      r.backward_ms = 2;
      r.step_ms = 4;
    }
    schema::Table table = ddp_schema().table(rows);
    set_cell(table, 1, "step_ms", kHuge);
    DdpStepChartView view;
    view.setData(build_ddp_step_data(table));
    QVERIFY(view.data().failures[0].isEmpty());
    QVERIFY2(view.data().failures[1].startsWith("left out (the table lists it): step_ms 1e+308"), qPrintable(view.data().failures[1]));
    draw(view);
  }

  void rankTimelineLeavesOutHugeSpans() {
    DdpConfig c;
    RankStepTimeline t{c, 0, 0, {{TimelineLane::compute, "forward", 0, 2}, {TimelineLane::compute, "backward", 2, kHuge}}};
    const schema::Table table = ddp_timeline_schema().table(timeline_rows(t));
    const auto keys = timeline_row_keys(table);
    QCOMPARE(keys.size(), size_t{1});
    RankTimelineView view;
    view.setData(build_rank_timeline(table, keys.front()));
    QCOMPARE(view.data().spans.size(), size_t{1});
    QVERIFY2(view.data().note.startsWith("1 span left out: end_ms 1e+308"), qPrintable(view.data().note));
    draw(view);
  }
};

QTEST_MAIN(ExtremeChartValuesTest)
#include "test_extreme_chart_values.moc"
