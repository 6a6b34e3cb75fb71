// GPU busy/idle per measured step.
#include <QSignalSpy>
#include <QTest>

#include "io/kernel_summary_export.h"
#include "model_fixtures.h"
#include "models/step_gpu_usage_model.h"

using namespace stepscope;
using namespace stepscope::views;
using fixtures::exact;
using fixtures::text;

namespace {

profiling::StepGpuUsage step(int number, int64_t span_ns, int64_t busy_ns, int64_t kernels, bool launch_bound) {
  profiling::StepGpuUsage s;
  s.step = number;
  s.span_ns = span_ns;
  s.busy_ns = busy_ns;
  s.idle_ns = span_ns - busy_ns;
  s.kernels = kernels;
  s.mean_kernel_ns = kernels > 0 ? static_cast<double>(busy_ns) / static_cast<double>(kernels) : 0.0;
  s.launch_bound = launch_bound;
  return s;
}

profiling::KernelProfile profile(std::vector<profiling::StepGpuUsage> steps) {
  profiling::KernelProfile p;
  p.steps = std::move(steps);
  return p;
}

}  // namespace

class StepGpuUsageModelTest : public QObject {
  Q_OBJECT

 private slots:
  void headersAreTheCliColumns() {
    StepGpuUsageModel model;
    QCOMPARE(fixtures::model_header(model), QStringList({"Step", "Span (ns)", "Busy (ns)", "Idle (ns)", "Busy (%)",
                                                         "Kernels", "Avg Kernel (ns)", "Launch Bound"}));
    const QStringList cli = fixtures::cli_header([](std::ostream& out) { write_step_gpu_usage_csv(out, {}); });
    QCOMPARE(fixtures::missing_from_cli(model, cli), QString());
  }

  void stepRows() {
    StepGpuUsageModel model;
    fixtures::tester(&model);
    model.set_profile(profile({step(0, 20'000'000, 15'000'000, 300, false), step(1, 4'000'000, 1'000'000, 400, true),
                               step(2, 0, 0, 0, false)}));
    QCOMPARE(model.rowCount(), 3);
    const QStringList expected = {"0", "20.0 ms", "15.0 ms", "5.00 ms", "75.0%", "300", "50.0 \u00b5s", "no"};
    for (int c = 0; c < model.columnCount(); ++c) QCOMPARE(text(model, 0, c), expected[c]);
    QCOMPARE(exact(model, 0, StepGpuUsageModel::Idle).toLongLong(), 5'000'000);
    QCOMPARE(exact(model, 0, StepGpuUsageModel::BusyPercent).toDouble(), 75.0);
    QCOMPARE(text(model, 1, StepGpuUsageModel::BusyPercent), QStringLiteral("25.0%"));
    QCOMPARE(text(model, 1, StepGpuUsageModel::AvgKernel), QStringLiteral("2.50 \u00b5s"));
    QCOMPARE(text(model, 1, StepGpuUsageModel::LaunchBound), QStringLiteral("yes"));
    QCOMPARE(text(model, 2, StepGpuUsageModel::BusyPercent), QStringLiteral("0.0%"));  // no GPU activity
    QCOMPARE(text(model, 2, StepGpuUsageModel::Span), QStringLiteral("0 ns"));
  }

  void newerProfileAppendsItsSteps() {
    StepGpuUsageModel model;
    fixtures::tester(&model);
    model.set_profile(profile({step(0, 1'000, 500, 1, false)}));
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    model.set_profile(profile({step(0, 2'000, 500, 1, true), step(1, 3'000, 3'000, 2, false)}));
    QCOMPARE(reset.count(), 0);
    QCOMPARE(inserted.count(), 1);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(text(model, 0, StepGpuUsageModel::Span), QStringLiteral("2.00 \u00b5s"));
    QCOMPARE(text(model, 0, StepGpuUsageModel::LaunchBound), QStringLiteral("yes"));
    QCOMPARE(text(model, 1, StepGpuUsageModel::Step), QStringLiteral("1"));
    model.set_profile({});
    QCOMPARE(model.rowCount(), 0);
  }
};

QTEST_MAIN(StepGpuUsageModelTest)
#include "test_step_gpu_usage_model.moc"
