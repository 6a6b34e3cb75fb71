// The Kernels tab on a CPU: a profiled step benchmark run in the real window fills the range
// table and the phase chart with each range's CPU time per step, as the run's own range records
// (the trace's raw records, summed here independently of the engine's summary) say; the run
// reopened from the history shows the same; the trace exports as Perfetto JSON.
#include <QBarSet>
#include <QFile>
#include <QHorizontalStackedBarSeries>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <map>

#include "charts/range_phase_chart_view.h"
#include "experiments/bench/bench_inputs.h"
#include "gui/main_window.h"
#include "models/range_time_model.h"
#include "models/roles.h"
#include "widgets/kernels_view.h"
#include "widgets/result_table.h"

using namespace stepscope;

namespace {

using Key = std::pair<QString, QString>;  // (parent, range)

// CPU ns per measured step of each range under each parent, from the raw range records.
std::map<Key, double> per_step_from_records(const BenchResult& result) {
  std::map<int64_t, const profiling::RangeRecord*> by_id;
  for (const auto& r : result.trace->ranges) by_id[static_cast<int64_t>(r.id)] = &r;
  std::map<Key, double> totals;
  for (const auto& r : result.trace->ranges) {
    if (r.step < 0 || r.warmup || r.end_ns == 0) continue;
    const auto parent = by_id.find(static_cast<int64_t>(r.parent_id));
    const QString parent_name = parent != by_id.end() ? QString::fromStdString(parent->second->name) : QString();
    totals[{parent_name, QString::fromStdString(r.name)}] += static_cast<double>(r.end_ns - r.start_ns);
  }
  for (auto& [key, ns] : totals) ns /= result.config.measured_steps;
  return totals;
}

bool near(double a, double b) { return std::abs(a - b) <= 1e-6 * std::max(1.0, std::abs(b)); }

// The bars as drawn: the sum of the stacked sets' values (ms) in the bar called `bar`.
double drawn_ms(const views::RangePhaseChartView& chart, const QString& bar) {
  const int index = chart.data().bars.indexOf(bar);
  const int drawn = static_cast<int>(chart.data().bars.size()) - 1 - index;  // listed bottom-up
  double sum = 0;
  for (auto* series : chart.chart()->series()) {
    for (auto* set : static_cast<QHorizontalStackedBarSeries*>(series)->barSets()) sum += set->at(drawn);
  }
  return sum;
}

}  // namespace

class KernelsTabCpuTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void aCpuRunFillsTheRangeTableAndPhaseChart() {
    QTemporaryDir dir;
    gui::MainWindow window(dir.filePath("history.sqlite"));
    window.set_headless(true);
    auto* kernels = window.findChild<views::KernelsView*>();
    QVERIFY(kernels != nullptr);
    QVERIFY(kernels->range_table().shows_empty_text());

    schema::InputValues values(bench_inputs());
    values.set("model", "tiny");
    values.set("context", "32");
    values.set("batch", "2");
    values.set("mode", "train");
    values.set("warmup", "1");
    values.set("steps", "3");
    values.set("profile", "kernels");
    QSignalSpy finished(&window, &gui::MainWindow::run_finished);
    QString error;
    QVERIFY2(window.run(values, &error), qPrintable(error));
    QVERIFY(finished.wait(120000));
    QCOMPARE(window.outcomes().size(), size_t{1});
    const BenchResult& result = *window.outcomes().front().result;
    QVERIFY(result.trace != nullptr);
    QVERIFY(result.kernel_profile != nullptr);
    QVERIFY(!result.kernel_profile->gpu_activity_recorded);

    const auto expected = per_step_from_records(result);
    QVERIFY(expected.count({QStringLiteral("forward"), QStringLiteral("lm head")}) == 1);
    QVERIFY(kernels->shows_cpu_ranges());
    QVERIFY(!kernels->range_table().shows_empty_text());
    const auto& model = kernels->range_time_model();
    QCOMPARE(static_cast<size_t>(model.rowCount()), expected.size());
    for (int row = 0; row < model.rowCount(); ++row) {
      const QString range = model.data(model.index(row, views::RangeTimeModel::Range), views::ExactValueRole).toString();
      const QString parent = model.data(model.index(row, views::RangeTimeModel::Parent), views::ExactValueRole).toString();
      const double ns = model.data(model.index(row, views::RangeTimeModel::TimePerStep), views::ExactValueRole).toDouble();
      const auto it = expected.find({parent, range});
      QVERIFY2(it != expected.end(), qPrintable(parent + " > " + range));
      QVERIFY2(near(ns, it->second), qPrintable(QStringLiteral("%1: %2 ns, records %3").arg(range).arg(ns).arg(it->second)));
    }

    // The chart: the step, then its phases, each bar as long as the range's time; a phase split
    // into the ranges directly inside it and what they leave.
    const auto& chart = kernels->range_phase_chart();
    QCOMPARE(chart.data().bars,
             (QStringList{QStringLiteral("step"), QStringLiteral("forward"), QStringLiteral("backward"),
                          QStringLiteral("optimizer step")}));
    const std::map<QString, QString> parent_of_bar = {{QStringLiteral("step"), QString()},
                                                      {QStringLiteral("forward"), QStringLiteral("step")},
                                                      {QStringLiteral("backward"), QStringLiteral("step")},
                                                      {QStringLiteral("optimizer step"), QStringLiteral("step")}};
    for (const auto& [bar, parent] : parent_of_bar) {
      const double bar_ns = expected.at({parent, bar});
      QVERIFY2(near(drawn_ms(chart, bar) * 1e6, bar_ns), qPrintable(bar));
    }
    const int forward = static_cast<int>(chart.data().bars.indexOf(QStringLiteral("forward")));
    double inside = 0;
    for (const auto& [key, ns] : expected) {
      if (key.first != QStringLiteral("forward")) continue;
      inside += ns;
      bool found = false;
      for (const auto& segment : chart.data().segments) {
        if (segment.range != key.second) continue;
        found = true;
        QVERIFY2(near(segment.ns_per_step[static_cast<size_t>(forward)], ns), qPrintable(key.second));
      }
      QVERIFY2(found, qPrintable(key.second));
    }
    QVERIFY(inside > 0 && inside <= expected.at({QStringLiteral("step"), QStringLiteral("forward")}));
    QVERIFY2(kernels->note().contains(QStringLiteral("of the forward pass")), qPrintable(kernels->note()));

    // The trace, as the command line writes it.
    const QString trace = dir.filePath("run.trace.json");
    QVERIFY2(kernels->export_trace(trace, &error), qPrintable(error));
    QFile file(trace);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray json = file.readAll();
    QVERIFY(json.contains("\"traceEvents\""));
    QVERIFY(json.contains("\"lm head\""));

    // Reopened from the history: the same ranges and times, no trace (the history keeps none).
    std::vector<views::RangeTimeRow> live = model.rows();
    QVERIFY2(window.open_run(0, &error), qPrintable(error));
    QVERIFY(kernels->shows_cpu_ranges());
    QCOMPARE(model.rows().size(), live.size());
    for (size_t i = 0; i < live.size(); ++i) {
      QCOMPARE(model.rows()[i].range, live[i].range);
      QVERIFY(near(model.rows()[i].ns_per_step, live[i].ns_per_step));
    }
    QVERIFY(!kernels->export_trace(dir.filePath("again.trace.json"), &error));
    QVERIFY2(error.contains(QStringLiteral("Profile: kernels")), qPrintable(error));
  }
};

QTEST_MAIN(KernelsTabCpuTest)
#include "test_kernels_tab_cpu.moc"
