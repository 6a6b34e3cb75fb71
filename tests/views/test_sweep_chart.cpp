// The sweep chart: x from context length or model size, lines grouped by what stays fixed
// and named by what differs, failed configurations apart, and a widget that switches to a
// log time axis and replaces its lines on every update.
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPointer>
#include <QTest>
#include <QValueAxis>

#include "charts/sweep_chart_view.h"

using namespace stepscope;
using namespace stepscope::views;

namespace {

BenchResult run(const char* model, int64_t context, Precision precision, StepMode mode, double mean_ms,
                RunStatus status = RunStatus::ok) {
  BenchResult r;
  r.config.model.name = model;
  r.config.context = context;
  r.config.precision = precision;
  r.config.mode = mode;
  r.status = status;
  if (status == RunStatus::ok) {
    r.total.mean_ms = mean_ms;
    r.total.count = 5;
  }
  return r;
}

// Contexts out of order, two precisions, one out-of-memory run.
std::vector<BenchResult> context_sweep() {
  return {run("small", 512, Precision::fp32, StepMode::train, 80), run("small", 128, Precision::fp32, StepMode::train, 20),
          run("small", 256, Precision::fp32, StepMode::train, 40), run("small", 128, Precision::bf16, StepMode::train, 12),
          run("small", 256, Precision::bf16, StepMode::train, 22),
          run("small", 1024, Precision::bf16, StepMode::train, 0, RunStatus::out_of_memory)};
}

}  // namespace

class SweepChartTest : public QObject {
  Q_OBJECT
 private slots:
  void contextSweepGivesOneSortedLinePerPrecision() {
    const SweepChartData d = build_sweep_chart_data(context_sweep(), SweepAxis::context);
    QCOMPARE(d.x_title, QStringLiteral("context length (tokens)"));
    QCOMPARE(d.lines.size(), size_t{2});
    QCOMPARE(d.lines[0].name, QStringLiteral("train fp32"));  // only the precision differs
    QCOMPARE(d.lines[0].points, (QList<QPointF>{{128, 20}, {256, 40}, {512, 80}}));
    QCOMPARE(d.lines[1].name, QStringLiteral("train bf16"));
    QCOMPARE(d.lines[1].points, (QList<QPointF>{{128, 12}, {256, 22}}));
    QCOMPARE(d.failures.size(), size_t{1});
    QCOMPARE(d.failures[0].line, QStringLiteral("train bf16"));
    QCOMPARE(d.failures[0].x, 1024.0);
    QCOMPARE(d.failures[0].status, QStringLiteral("OOM"));
    QCOMPARE(d.x_min, 128.0);
    QCOMPARE(d.x_max, 1024.0);  // the failure is on the axis too
    QCOMPARE(d.y_min, 12.0);
    QCOMPARE(d.y_max, 80.0);
  }

  void linesAlsoSplitByWhatElseVaries() {
    auto results = context_sweep();
    results.push_back(run("medium", 128, Precision::fp32, StepMode::train, 60));
    results.push_back(run("small", 128, Precision::fp32, StepMode::forward, 7));
    const SweepChartData d = build_sweep_chart_data(results, SweepAxis::context);
    QStringList names;
    for (const auto& line : d.lines) names << line.name;
    QCOMPARE(names, (QStringList{"train fp32 small", "train bf16 small", "train fp32 medium", "forward fp32 small"}));
  }

  void eagerAndFusedAreLinesOfTheirOwn() {
    std::vector<BenchResult> results;
    for (EngineKind engine : {EngineKind::eager, EngineKind::fused}) {
      for (int64_t context : {128, 256}) {
        auto r = run("small", context, Precision::bf16, StepMode::train, engine == EngineKind::eager ? context : 10);
        r.config.engine = engine;
        if (engine == EngineKind::fused) r.config.model.attention = AttentionImpl::flash;
        results.push_back(r);
      }
    }
    const SweepChartData d = build_sweep_chart_data(results, SweepAxis::context);
    QCOMPARE(d.lines.size(), size_t{2});
    QCOMPARE(d.lines[0].name, QStringLiteral("train bf16 eager"));
    QCOMPARE(d.lines[0].points, (QList<QPointF>{{128, 128}, {256, 256}}));
    QCOMPARE(d.lines[1].name, QStringLiteral("train bf16 fused"));
    QCOMPARE(d.lines[1].points, (QList<QPointF>{{128, 10}, {256, 10}}));
  }

  void modelSizeAxisUsesParametersInMillions() {
    auto small = run("small", 256, Precision::fp32, StepMode::train, 40);
    small.parameters = 128'000'000;
    auto large = run("large", 256, Precision::fp32, StepMode::train, 300);
    large.parameters = 1'500'000'000;
    // Without a measured count (it ran out of memory), the model's own count.
    auto unmeasured = run("tiny", 256, Precision::fp32, StepMode::train, 0, RunStatus::failed);
    unmeasured.config.model = model_preset("small");
    const SweepChartData d = build_sweep_chart_data({large, small, unmeasured}, SweepAxis::model_size);
    QCOMPARE(d.x_title, QStringLiteral("parameters (millions)"));
    QCOMPARE(d.lines.size(), size_t{1});
    QCOMPARE(d.lines[0].name, QStringLiteral("train fp32"));
    QCOMPARE(d.lines[0].points, (QList<QPointF>{{128, 40}, {1500, 300}}));
    QCOMPARE(d.failures.size(), size_t{1});
    QCOMPARE(d.failures[0].x, static_cast<double>(parameter_count(model_preset("small"))) * 1e-6);
    QCOMPARE(d.failures[0].status, QStringLiteral("failed"));
  }

  void emptyResults() {
    const SweepChartData d = build_sweep_chart_data({}, SweepAxis::context);
    QVERIFY(d.lines.empty() && d.failures.empty());
    QCOMPARE(d.x_max, 0.0);
    SweepChartView view;
    view.resize(700, 400);
    view.setData(d);
    view.setLogScale(true);
    QVERIFY(!view.grab().isNull());
  }

  void viewLinesAndAxes() {
    SweepChartView view;
    view.resize(800, 450);
    view.setResults(context_sweep(), SweepAxis::context);
    QCOMPARE(view.chart()->series().size(), qsizetype{2});
    auto* line = qobject_cast<QLineSeries*>(view.chart()->series().value(0));
    QCOMPARE(line->name(), QStringLiteral("train fp32"));
    QCOMPARE(line->count(), 3);
    auto* x = qobject_cast<QValueAxis*>(view.chart()->axes(Qt::Horizontal).value(0));
    QCOMPARE(x->titleText(), QStringLiteral("context length (tokens)"));
    QVERIFY(x->min() <= 128 && x->max() >= 1024);
    QVERIFY(!view.grab().isNull());
  }

  void onePointSitsInTheMiddleOfAnAxisFromZero() {
    SweepChartView view;
    view.resize(800, 450);
    view.setResults({run("small", 256, Precision::fp32, StepMode::train, 40)}, SweepAxis::context);
    for (auto* axis : view.chart()->axes(Qt::Horizontal)) {
      auto* x = qobject_cast<QValueAxis*>(axis);
      if (!x || !x->isVisible()) continue;
      // Not 245..265, which reads as a sweep over twenty lengths: from 0, the point inside.
      QCOMPARE(x->min(), 0.0);
      QVERIFY2(x->max() >= 512 && x->max() <= 600, qPrintable(QString::number(x->max())));
    }
  }

  void logScaleSwapsTheVisibleTimeAxis() {
    SweepChartView view;
    view.resize(800, 450);
    view.setResults(context_sweep(), SweepAxis::context);
    auto visible_time_axis = [&]() -> QAbstractAxis* {
      for (auto* axis : view.chart()->axes(Qt::Vertical)) {
        if (axis->isVisible()) return axis;
      }
      return nullptr;
    };
    QVERIFY(qobject_cast<QValueAxis*>(visible_time_axis()));
    view.setLogScale(true);
    auto* log_axis = qobject_cast<QLogValueAxis*>(visible_time_axis());
    QVERIFY(log_axis);
    QCOMPARE(log_axis->min(), 10.0);  // decades around 12..80 ms
    QCOMPARE(log_axis->max(), 100.0);
    auto* line = view.chart()->series().value(0);
    QCOMPARE(line->attachedAxes().size(), qsizetype{2});
    QVERIFY(line->attachedAxes().contains(log_axis));
    QCOMPARE(view.chart()->axes().size(), qsizetype{4});  // both time and both x axes stay; one of each is hidden
    QVERIFY(!view.grab().isNull());
    view.setLogScale(false);
    QVERIFY(qobject_cast<QValueAxis*>(visible_time_axis()));
    QVERIFY(view.chart()->series().value(0)->attachedAxes().contains(visible_time_axis()));
  }

  void updatesReplaceTheLines() {
    SweepChartView view;
    view.resize(800, 450);
    QPointer<QAbstractSeries> previous;
    for (int i = 0; i < 4; ++i) {
      view.setResults(context_sweep(), SweepAxis::context);
      QCOMPARE(view.chart()->series().size(), qsizetype{2});
      QCOMPARE(view.chart()->axes().size(), qsizetype{4});
      QVERIFY(previous.isNull());
      previous = view.chart()->series().value(0);
      QVERIFY(!view.grab().isNull());
    }
  }
};

QTEST_MAIN(SweepChartTest)
#include "test_sweep_chart.moc"
