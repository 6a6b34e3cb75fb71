// The benchmark charts: configuration labels, stacked phase means with standard-deviation
// whiskers at each segment's end, failed configurations as labelled gaps, per-step lines,
// and widgets that keep their series across updates.
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QHorizontalStackedBarSeries>
#include <QLineSeries>
#include <QPointer>
#include <QTest>

#include "charts/bench_bar_chart_view.h"
#include "model_fixtures.h"
#include "charts/step_time_chart_view.h"
#include "models/bench_table_model.h"
#include "widgets/benchmark_view.h"
#include "widgets/run_outcome.h"

using namespace stepscope;
using namespace stepscope::views;

namespace {

BenchResult result(const char* model, int64_t context, StepMode mode, RunStatus status = RunStatus::ok) {
  BenchResult r;
  r.config.model.name = model;
  r.config.context = context;
  r.config.mode = mode;
  r.status = status;
  return r;
}

PhaseStats stats(double mean, double std, int count = 10) { return fixtures::phase_stats(mean, std, count); }

// A train step (10 + 20 + 5 ms), an out-of-memory one, and a forward-only step of 4 ms.
std::vector<BenchResult> three_results() {
  BenchResult train = result("small", 256, StepMode::train);
  train.forward = stats(10, 1);
  train.backward = stats(20, 2);
  train.optimizer = stats(5, 0.5);
  train.total = stats(35, 3);
  train.steps = {{10'000'000, 20'000'000, 5'000'000, 35'000'000}, {11'000'000, 21'000'000, 5'000'000, 37'000'000}};
  BenchResult oom = result("small", 1024, StepMode::train, RunStatus::out_of_memory);
  BenchResult forward = result("small", 256, StepMode::forward);
  forward.forward = stats(4, 5);  // std beyond the mean: the whisker stops at 0
  forward.total = stats(4, 5);
  forward.steps = {{4'000'000, 0, 0, 4'000'000}};
  return {train, oom, forward};
}

QHorizontalStackedBarSeries* bars(BenchBarChartView& view) {
  return qobject_cast<QHorizontalStackedBarSeries*>(view.chart()->series().value(0));
}

}  // namespace

class BenchChartTest : public QObject {
  Q_OBJECT
 private slots:
  void labelsNameEachConfiguration() {
    BenchConfig c;
    c.model.name = "small";
    c.context = 256;
    c.batch = 8;
    c.precision = Precision::bf16;
    QCOMPARE(configuration_label(c, false), QStringLiteral("small ctx256 bf16 train"));
    QCOMPARE(configuration_label(c, true), QStringLiteral("small ctx256 b8 bf16 train"));
    auto results = three_results();
    QCOMPARE(configuration_labels(results),
             (QStringList{"small ctx256 fp32 train", "small ctx1024 fp32 train", "small ctx256 fp32 forward"}));
    results[2].config.batch = 16;  // batches differ: every label says its batch
    results.push_back(results[0]);  // a repeat gets a number
    QCOMPARE(configuration_labels(results), (QStringList{"small ctx256 b4 fp32 train", "small ctx1024 b4 fp32 train",
                                                         "small ctx256 b16 fp32 forward", "small ctx256 b4 fp32 train (2)"}));
    QVERIFY(configuration_labels({}).isEmpty());
    // A legend's: what tells each from the others; one configuration keeps its whole name.
    QCOMPARE(distinguishing_labels(results),
             (QStringList{"ctx256 b4 train", "ctx1024 b4 train", "ctx256 b16 forward", "ctx256 b4 train (2)"}));
    QCOMPARE(distinguishing_labels({results[1]}), (QStringList{"small ctx1024 fp32 train"}));
  }

  void meansStackAndWhiskersSitOnSegmentEnds() {
    const BenchBarData d = build_bench_bar_data(three_results());
    QCOMPARE(d.mean_ms[0], (std::vector<double>{10, 0, 4}));
    QCOMPARE(d.mean_ms[1], (std::vector<double>{20, 0, 0}));
    QCOMPARE(d.mean_ms[2], (std::vector<double>{5, 0, 0}));
    QVERIFY(d.phase_used[0] && d.phase_used[1] && d.phase_used[2]);
    QCOMPARE(d.error_bars.size(), size_t{4});  // three segments of the train bar, one forward
    const ErrorBar& backward = d.error_bars[1];
    QCOMPARE(backward.bar, 0);
    QCOMPARE(backward.phase, size_t{1});
    QCOMPARE(backward.value, 30.0);  // 10 + 20
    QCOMPARE(backward.low, 28.0);
    QCOMPARE(backward.high, 32.0);
    QCOMPARE(d.error_bars[2].value, 35.0);
    QCOMPARE(d.error_bars[2].high, 35.5);
    const ErrorBar& forward_only = d.error_bars[3];
    QCOMPARE(forward_only.bar, 2);
    QCOMPARE(forward_only.low, 0.0);  // 4 - 5 clipped
    QCOMPARE(forward_only.high, 9.0);
    QCOMPARE(d.max_ms, 35.5);
  }

  void failedConfigurationsAreGapsWithTheirStatus() {
    const BenchBarData d = build_bench_bar_data(three_results());
    QCOMPARE(d.failures, (QStringList{"", "out of memory", ""}));
    for (const auto& e : d.error_bars) QVERIFY(e.bar != 1);
    auto results = three_results();
    results[0].status = RunStatus::failed;
    results[2].status = RunStatus::cancelled;
    QCOMPARE(build_bench_bar_data(results).failures, (QStringList{"failed", "out of memory", "cancelled"}));
    QVERIFY(build_bench_bar_data(results).error_bars.empty());
  }

  void forwardOnlyRunsUseOnePhase() {
    auto results = three_results();
    results.erase(results.begin(), results.begin() + 2);
    const BenchBarData d = build_bench_bar_data(results);
    QVERIFY(d.phase_used[0] && !d.phase_used[1] && !d.phase_used[2]);
  }

  void stepLinesForConfigurationsThatRan() {
    const auto lines = build_step_lines(three_results());
    QCOMPARE(lines.size(), size_t{2});
    QCOMPARE(lines[0].label, QStringLiteral("ctx256 train"));  // a legend says what differs
    QCOMPARE(lines[0].points, (QList<QPointF>{{0, 35}, {1, 37}}));
    QCOMPARE(lines[1].points, (QList<QPointF>{{0, 4}}));
    QVERIFY(build_step_lines({}).empty());
  }

  void barViewDrawsWhiskersWhereTheyBelong() {
    BenchBarChartView view;
    view.resize(800, 400);
    view.setResults(three_results());
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    const QImage image = view.grab().toImage();
    // The backward whisker's right cap, 32 ms on the first (top) bar, is drawn dark; the
    // same place without whiskers is the bar's colour or background.
    auto darkest = [&](QPoint at) {  // over three pixels: the cap is antialiased
      int gray = 255;
      for (int dx = -1; dx <= 1; ++dx) gray = std::min(gray, qGray(image.pixel(at + QPoint(dx, 0))));
      return gray;
    };
    const QPoint cap = view.mapFromScene(view.barPosition(0, 32.0)) + QPoint(0, 2);
    QVERIFY2(darkest(cap) < 60, qPrintable(QString::number(darkest(cap))));
    const QPoint beyond = view.mapFromScene(view.barPosition(0, 33.5)) + QPoint(0, 2);  // in the optimizer segment
    QVERIFY2(darkest(beyond) > 80, qPrintable(QString::number(darkest(beyond))));
    // The top bar is the first configuration.
    auto* axis = qobject_cast<QBarCategoryAxis*>(view.chart()->axes(Qt::Vertical).value(0));
    QCOMPARE(axis->categories().last(), QStringLiteral("small ctx256 fp32 train"));
    QVERIFY(view.barPosition(0, 0).y() < view.barPosition(2, 0).y());
  }

  void barViewKeepsItsSeriesAcrossUpdates() {
    BenchBarChartView view;
    view.resize(800, 400);
    for (int i = 0; i < 6; ++i) {
      if (i % 3 == 1) {
        view.setData({});
      } else {
        view.setResults(three_results());
      }
      QCOMPARE(view.chart()->series().size(), qsizetype{1});
      QCOMPARE(bars(view)->count(), 3);  // one set per phase, refilled
      QCOMPARE(bars(view)->barSets()[0]->count(), i % 3 == 1 ? 0 : 3);
      QVERIFY(!view.grab().isNull());
    }
    QCOMPARE(bars(view)->barSets()[1]->at(2), 20.0);  // the train bar, top row
  }

  // A run that stopped on an error says so above the rows it measured, until the next run.
  void aFailureStaysInTheTabBesideWhatWasMeasured() {
    BenchmarkView view;
    const auto results = three_results();
    view.add_outcome({std::make_shared<const BenchResult>(results[0]), nullptr, nullptr});
    QVERIFY(view.failure_text().isEmpty());
    view.show_failure("CUDA error: out of memory");
    QVERIFY2(view.failure_text().contains("The step benchmark stopped: CUDA error: out of memory"),
             qPrintable(view.failure_text()));
    QCOMPARE(view.model().rowCount(), 1);  // the row it measured stays
    view.clear();                          // the next run
    QVERIFY(view.failure_text().isEmpty());
  }

  void stepViewReplacesItsLines() {
    StepTimeChartView view;
    view.resize(800, 400);
    QPointer<QAbstractSeries> previous;
    for (int i = 0; i < 4; ++i) {
      view.setResults(three_results());
      QCOMPARE(view.chart()->series().size(), qsizetype{2});
      QVERIFY(previous.isNull());  // the old lines are deleted, not just removed
      previous = view.chart()->series().value(0);
      QVERIFY(!view.grab().isNull());
    }
    auto* line = qobject_cast<QLineSeries*>(view.chart()->series().value(0));
    QCOMPARE(line->name(), QStringLiteral("ctx256 train"));
    QCOMPARE(line->at(1), QPointF(1, 37));
    view.setLines({});
    QCOMPARE(view.chart()->series().size(), qsizetype{0});
    QVERIFY(!view.grab().isNull());
  }
};

QTEST_MAIN(BenchChartTest)
#include "test_bench_chart.moc"
